/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * pcap reader and request/ACK matcher for RoCE v2 RC traffic: see
 * capture.h. Reads the classic pcap format (micro- or nanosecond
 * timestamps, either byte order) over Ethernet (with VLAN tags), Linux
 * cooked (SLL, SLL2) or raw IP link types, IPv4 or IPv6.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "capture.h"
#include "base/errbuf.h"

#define ROCE_UDP_PORT 4791
#define BTH_BYTES 12
#define ICRC_BYTES 4
#define PSN_MASK 0xffffffu
#define PSN_HALF 0x800000u

enum {
	LINK_ETHERNET = 1,
	LINK_RAW = 101,
	LINK_SLL = 113,
	LINK_SLL2 = 276,
};

/* RC opcodes (IBTA vol. 1, table 38), the ones the matcher tells apart. */
enum {
	OP_READ_RESP_FIRST = 0x0d,
	OP_READ_RESP_LAST = 0x0f,
	OP_READ_RESP_ONLY = 0x10,
	OP_ACK = 0x11,
	OP_ATOMIC_ACK = 0x12,
	OP_RC_LAST = 0x1f,
};

struct msg {
	uint32_t psn_first, psn_last;
	uint64_t t_first_ns;
	uint32_t bytes;
	bool complete;		/* its LAST (or ONLY) packet was seen */
	bool retrans;
};

/* Requests from src to dst for one destination QP, in sending order. */
struct stream {
	uint8_t src[16], dst[16];
	uint32_t dqpn;
	bool started;
	uint32_t psn_high;	/* one past the highest PSN sent */
	struct msg *q;		/* outstanding: q[head..tail) */
	size_t head, tail, cap;
	bool open;		/* q[tail - 1] waits for its LAST packet */
};

/* The responder QP (ACKs from src to dst for dqpn) paired with a stream. */
struct pairing {
	uint8_t src[16], dst[16];
	uint32_t dqpn;
	size_t stream;
};

struct matcher {
	const struct cap_opts *o;
	struct cap_result *r;
	struct stream *s;
	size_t ns;
	struct pairing *pair;
	size_t npair;
};

static bool psn_le(uint32_t a, uint32_t b)
{
	return ((b - a) & PSN_MASK) < PSN_HALF;
}

static bool psn_lt(uint32_t a, uint32_t b)
{
	return a != b && psn_le(a, b);
}

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static bool op_is_response(uint8_t op)
{
	return op >= OP_READ_RESP_FIRST && op <= OP_ATOMIC_ACK;
}

/* A response that acknowledges up to its PSN: ACK, last read data, atomic. */
static bool op_acks(uint8_t op)
{
	return op == OP_ACK || op == OP_ATOMIC_ACK || op == OP_READ_RESP_LAST ||
	       op == OP_READ_RESP_ONLY;
}

static bool op_starts(uint8_t op)
{
	switch (op) {
	case 0x00: case 0x04: case 0x05:	/* SEND FIRST, ONLY, ONLY_IMM */
	case 0x06: case 0x0a: case 0x0b:	/* WRITE FIRST, ONLY, ONLY_IMM */
	case 0x0c: case 0x13: case 0x14:	/* READ request, atomics */
	case 0x17:				/* SEND ONLY with invalidate */
		return true;
	}
	return false;
}

static bool op_ends(uint8_t op)
{
	switch (op) {
	case 0x02: case 0x03: case 0x04: case 0x05:	/* SEND LAST(_IMM), ONLY(_IMM) */
	case 0x08: case 0x09: case 0x0a: case 0x0b:	/* WRITE LAST(_IMM), ONLY(_IMM) */
	case 0x0c: case 0x13: case 0x14:		/* READ request, atomics */
	case 0x16: case 0x17:				/* SEND LAST/ONLY with invalidate */
		return true;
	}
	return false;
}

/* Bytes of extended headers between the BTH and the payload. */
static uint32_t op_ext_bytes(uint8_t op)
{
	switch (op) {
	case 0x03: case 0x05: case 0x09: case 0x16: case 0x17:
		return 4;			/* ImmDt or IETH */
	case 0x06: case 0x0a: case 0x0c:
		return 16;			/* RETH */
	case 0x0b:
		return 20;			/* RETH + ImmDt */
	case 0x13: case 0x14:
		return 28;			/* AtomicETH */
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Matching                                                            */
/* ------------------------------------------------------------------ */

static int result_push(struct cap_result *r, const struct cap_rtt *x)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct cap_rtt *p = realloc(r->rtt, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->rtt = p;
		r->cap = cap;
	}
	r->rtt[r->n++] = *x;
	return 0;
}

static struct stream *stream_get(struct matcher *m, const uint8_t *src, const uint8_t *dst,
				 uint32_t dqpn)
{
	struct stream *s;
	size_t i;

	for (i = 0; i < m->ns; i++) {
		s = &m->s[i];
		if (s->dqpn == dqpn && !memcmp(s->src, src, 16) && !memcmp(s->dst, dst, 16))
			return s;
	}
	s = realloc(m->s, (m->ns + 1) * sizeof(*s));
	if (!s)
		return NULL;
	m->s = s;
	s = &m->s[m->ns++];
	memset(s, 0, sizeof(*s));
	memcpy(s->src, src, 16);
	memcpy(s->dst, dst, 16);
	s->dqpn = dqpn;
	return s;
}

static struct msg *msg_new(struct stream *s)
{
	if (s->head && s->head == s->tail)
		s->head = s->tail = 0;
	if (s->tail == s->cap) {
		if (s->head) {
			memmove(s->q, s->q + s->head, (s->tail - s->head) * sizeof(*s->q));
			s->tail -= s->head;
			s->head = 0;
		} else {
			size_t cap = s->cap ? 2 * s->cap : 64;
			struct msg *q = realloc(s->q, cap * sizeof(*q));

			if (!q)
				return NULL;
			s->q = q;
			s->cap = cap;
		}
	}
	memset(&s->q[s->tail], 0, sizeof(*s->q));
	return &s->q[s->tail++];
}

/* Go-back-N resends from @psn on: every outstanding message it touches. */
static void mark_retrans(struct matcher *m, struct stream *s, uint32_t psn)
{
	size_t i;

	for (i = s->head; i < s->tail; i++)
		if (psn_le(psn, s->q[i].psn_last) || !s->q[i].complete)
			s->q[i].retrans = true;
	(void)m;
}

static int on_request(struct matcher *m, const uint8_t *src, const uint8_t *dst, uint32_t dqpn,
		      uint8_t op, uint32_t psn, uint32_t bytes, uint64_t t_ns)
{
	struct stream *s;
	struct msg *g;

	if (m->o->have_src && memcmp(src, m->o->src, 16))
		return 0;
	m->r->requests++;
	s = stream_get(m, src, dst, dqpn);
	if (!s)
		return -ENOMEM;
	if (s->started && psn_lt(psn, s->psn_high)) {
		mark_retrans(m, s, psn);
		return 0;
	}
	s->started = true;
	s->psn_high = (psn + 1) & PSN_MASK;
	if (m->o->per_packet || op_starts(op)) {
		g = msg_new(s);
		if (!g)
			return -ENOMEM;
		g->psn_first = psn;
		g->t_first_ns = t_ns;
		s->open = true;
	} else if (s->open) {
		g = &s->q[s->tail - 1];
	} else {
		return 0;	/* the capture began inside this message */
	}
	g->psn_last = psn;
	g->bytes += bytes;
	if (m->o->per_packet || op_ends(op)) {
		g->complete = true;
		s->open = false;
	}
	return 0;
}

/* Does an outstanding message of @s contain @psn? */
static bool stream_holds(const struct stream *s, uint32_t psn)
{
	size_t i;

	for (i = s->head; i < s->tail; i++)
		if (psn_le(s->q[i].psn_first, psn) && psn_le(psn, s->q[i].psn_last))
			return true;
	return false;
}

/* The stream an ACK from @src to @dst for @dqpn with @psn answers, or NULL. */
static struct stream *ack_stream(struct matcher *m, const uint8_t *src, const uint8_t *dst,
				 uint32_t dqpn, uint32_t psn)
{
	struct pairing *p;
	size_t i;

	for (i = 0; i < m->npair; i++) {
		p = &m->pair[i];
		if (p->dqpn == dqpn && !memcmp(p->src, src, 16) && !memcmp(p->dst, dst, 16))
			return &m->s[p->stream];
	}
	for (i = 0; i < m->ns; i++) {
		struct stream *s = &m->s[i];

		if (memcmp(s->src, dst, 16) || memcmp(s->dst, src, 16) || !stream_holds(s, psn))
			continue;
		p = realloc(m->pair, (m->npair + 1) * sizeof(*p));
		if (!p)
			return NULL;
		m->pair = p;
		p = &m->pair[m->npair++];
		memcpy(p->src, src, 16);
		memcpy(p->dst, dst, 16);
		p->dqpn = dqpn;
		p->stream = i;
		return s;
	}
	return NULL;
}

static int on_ack(struct matcher *m, const uint8_t *src, const uint8_t *dst, uint32_t dqpn,
		  uint32_t psn, uint64_t t_ns)
{
	struct stream *s;
	bool any = false;
	int ret;

	if (m->o->have_src && memcmp(dst, m->o->src, 16))
		return 0;
	m->r->acks++;
	s = ack_stream(m, src, dst, dqpn, psn);
	while (s && s->head < s->tail && s->q[s->head].complete &&
	       psn_le(s->q[s->head].psn_last, psn)) {
		struct msg *g = &s->q[s->head++];

		any = true;
		if (g->retrans) {
			m->r->retransmitted++;
			continue;
		}
		ret = result_push(m->r, &(struct cap_rtt){ .t_send_ns = g->t_first_ns,
						      .rtt_ns = t_ns - g->t_first_ns,
						      .bytes = g->bytes, .dqpn = s->dqpn,
						      .psn_first = g->psn_first });
		if (ret)
			return ret;
	}
	if (!any)
		m->r->acks_unmatched++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                            */
/* ------------------------------------------------------------------ */

static void v4_mapped(uint8_t out[16], const uint8_t *a)
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, a, 4);
}

/* One IP packet (@p, @len captured bytes) at @t_ns. */
static int on_ip(struct matcher *m, const uint8_t *p, size_t len, uint64_t t_ns)
{
	uint8_t src[16], dst[16], op, syn;
	const uint8_t *udp, *bth;
	size_t hl, udp_len;
	uint32_t psn, dqpn, bytes, hdr;

	if (len < 1)
		return 0;
	if (p[0] >> 4 == 4) {
		hl = (size_t)(p[0] & 0xf) * 4;
		if (hl < 20 || len < hl + 8 || p[9] != 17 || (be16(p + 6) & 0x3fff))
			return 0;	/* short, not UDP, or a fragment */
		v4_mapped(src, p + 12);
		v4_mapped(dst, p + 16);
	} else if (p[0] >> 4 == 6) {
		hl = 40;
		if (len < hl + 8 || p[6] != 17)
			return 0;
		memcpy(src, p + 8, 16);
		memcpy(dst, p + 24, 16);
	} else {
		return 0;
	}
	udp = p + hl;
	if (be16(udp + 2) != ROCE_UDP_PORT)
		return 0;
	udp_len = be16(udp + 4);
	if (udp_len < 8 + BTH_BYTES || len < hl + 8 + BTH_BYTES)
		return 0;
	bth = udp + 8;
	op = bth[0];
	if (op > OP_RC_LAST)
		return 0;	/* not RC: UD (connection management), UC, ... */
	m->r->roce++;
	dqpn = be24(bth + 5);
	psn = be24(bth + 9);
	if (op_is_response(op)) {
		if (!op_acks(op))
			return 0;
		if (len < hl + 8 + BTH_BYTES + 1)
			return 0;
		syn = bth[BTH_BYTES];
		if ((syn >> 5) & 3)
			return 0;	/* RNR NAK or NAK */
		return on_ack(m, src, dst, dqpn, psn, t_ns);
	}
	hdr = 8 + BTH_BYTES + ICRC_BYTES + ((bth[1] >> 4) & 3) + op_ext_bytes(op);
	bytes = udp_len > hdr ? (uint32_t)(udp_len - hdr) : 0;
	return on_request(m, src, dst, dqpn, op, psn, bytes, t_ns);
}

/* The IP packet inside one link-layer frame, or NULL. */
static const uint8_t *link_ip(uint32_t link, const uint8_t *p, size_t len, size_t *ip_len)
{
	size_t off;
	uint32_t type;

	switch (link) {
	case LINK_ETHERNET:
		if (len < 14)
			return NULL;
		off = 12;
		type = be16(p + off);
		while ((type == 0x8100 || type == 0x88a8) && len >= off + 6) {
			off += 4;
			type = be16(p + off);
		}
		off += 2;
		break;
	case LINK_SLL:
		if (len < 16)
			return NULL;
		type = be16(p + 14);
		off = 16;
		break;
	case LINK_SLL2:
		if (len < 20)
			return NULL;
		type = be16(p);
		off = 20;
		break;
	case LINK_RAW:
		*ip_len = len;
		return p;
	default:
		return NULL;
	}
	if ((type != 0x0800 && type != 0x86dd) || len < off)
		return NULL;
	*ip_len = len - off;
	return p + off;
}

static int cmp_send(const void *a, const void *b)
{
	const struct cap_rtt *x = a, *y = b;

	return (x->t_send_ns > y->t_send_ns) - (x->t_send_ns < y->t_send_ns);
}

int cap_parse(const uint8_t *buf, size_t len, const struct cap_opts *o,
	      struct cap_result *r, char *err, size_t errlen)
{
	struct matcher m = { .o = o, .r = r };
	uint32_t magic, link, frac_ns;
	bool swap;
	size_t off, i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (len < 24)
		return errbuf_set(err, errlen, -EINVAL, "not a pcap file (%zu bytes)", len);
	memcpy(&magic, buf, 4);
	swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
	magic = swap ? __builtin_bswap32(magic) : magic;
	if (magic == 0xa1b2c3d4u)
		frac_ns = 1000;
	else if (magic == 0xa1b23c4du)
		frac_ns = 1;
	else
		return errbuf_set(err, errlen, -EINVAL, "not a pcap file (magic 0x%08x; pcapng is not read)",
			    magic);
	link = rd32(buf + 20, swap) & 0xffff;
	if (link != LINK_ETHERNET && link != LINK_RAW && link != LINK_SLL && link != LINK_SLL2)
		return errbuf_set(err, errlen, -EINVAL, "link type %u is not read", link);
	for (off = 24; off + 16 <= len;) {
		uint64_t t_ns = (uint64_t)rd32(buf + off, swap) * 1000000000ull +
				(uint64_t)rd32(buf + off + 4, swap) * frac_ns;
		uint32_t incl = rd32(buf + off + 8, swap);
		const uint8_t *ip;
		size_t ip_len;

		off += 16;
		if (incl > len - off) {
			ret = errbuf_set(err, errlen, -EINVAL, "record %llu truncated",
				   (unsigned long long)r->packets);
			break;
		}
		r->packets++;
		ip = link_ip(link, buf + off, incl, &ip_len);
		if (ip)
			ret = on_ip(&m, ip, ip_len, t_ns);
		if (ret) {
			errbuf_set(err, errlen, ret, "out of memory");
			break;
		}
		off += incl;
	}
	for (i = 0; i < m.ns; i++) {
		r->unacked += m.s[i].tail - m.s[i].head;
		free(m.s[i].q);
	}
	free(m.s);
	free(m.pair);
	if (ret) {
		cap_result_free(r);
		return ret;
	}
	qsort(r->rtt, r->n, sizeof(*r->rtt), cmp_send);
	return 0;
}

int cap_parse_file(const char *path, const struct cap_opts *o, struct cap_result *r,
		   char *err, size_t errlen)
{
	struct stat st;
	void *map;
	int fd, ret;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errbuf_set(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return errbuf_set(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	if (st.st_size == 0) {
		close(fd);
		return errbuf_set(err, errlen, -EINVAL, "%s: empty file", path);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret)
		return errbuf_set(err, errlen, ret, "%s: %s", path, strerror(-ret));
	ret = cap_parse(map, (size_t)st.st_size, o, r, err, errlen);
	munmap(map, (size_t)st.st_size);
	return ret;
}

void cap_result_free(struct cap_result *r)
{
	free(r->rtt);
	r->rtt = NULL;
	r->n = r->cap = 0;
}

static int cmp_msg(const void *a, const void *b)
{
	const struct cap_rtt *x = a, *y = b;

	if (x->dqpn != y->dqpn)
		return (x->dqpn > y->dqpn) - (x->dqpn < y->dqpn);
	return (x->psn_first > y->psn_first) - (x->psn_first < y->psn_first);
}

int cap_join(const struct cap_result *near, const struct cap_result *far, struct cap_result *out)
{
	struct cap_rtt *by_msg = NULL, *f, x;
	size_t i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (far->n) {
		by_msg = malloc(far->n * sizeof(*by_msg));
		if (!by_msg)
			return -ENOMEM;
		memcpy(by_msg, far->rtt, far->n * sizeof(*by_msg));
		qsort(by_msg, far->n, sizeof(*by_msg), cmp_msg);
	}
	for (i = 0; i < near->n && !ret; i++) {
		f = by_msg ? bsearch(&near->rtt[i], by_msg, far->n, sizeof(*by_msg), cmp_msg) : NULL;
		if (!f || f->rtt_ns > near->rtt[i].rtt_ns) {
			out->unacked++;	/* not seen there, or not the same message */
			continue;
		}
		x = near->rtt[i];
		x.rtt_ns -= f->rtt_ns;
		ret = result_push(out, &x);
	}
	free(by_msg);
	if (ret)
		cap_result_free(out);
	return ret;
}

int cap_addr_parse(const char *s, uint8_t addr[16])
{
	uint8_t v4[4];

	if (inet_pton(AF_INET, s, v4) == 1) {
		v4_mapped(addr, v4);
		return 0;
	}
	return inet_pton(AF_INET6, s, addr) == 1 ? 0 : -EINVAL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t cap_percentile(const struct cap_result *r, size_t skip, double p)
{
	uint64_t *v, ans;
	size_t n, i, rank;

	if (skip >= r->n)
		return 0;
	n = r->n - skip;
	v = malloc(n * sizeof(*v));
	if (!v)
		return 0;
	for (i = 0; i < n; i++)
		v[i] = r->rtt[skip + i].rtt_ns;
	qsort(v, n, sizeof(*v), cmp_u64);
	rank = (size_t)ceil(p / 100.0 * (double)n);
	rank = rank < 1 ? 1 : rank > n ? n : rank;
	ans = v[rank - 1];
	free(v);
	return ans;
}
