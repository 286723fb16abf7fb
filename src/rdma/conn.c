/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Out-of-band connection setup over TCP: the hello and message frames,
 * the sockets, a client's flow; see conn.h (rdma_cm: conn_cm.c).
 */
#define _GNU_SOURCE	/* POLLRDHUP */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rdma/conn.h"
#include "rdma/conn_int.h"
#include "base/errbuf.h"

#define CONN_MAGIC 0x52505246u	/* "RPRF" */

/* ------------------------------------------------------------------ */
/* The hello frame                                                     */
/* ------------------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* Layout, big-endian: magic, version, kind, status, qpn, psn, lid, mtu,
 * sl, tclass, timeout, retry, flags, max_msg_bytes, gid[16], flow_id,
 * pkey, pkey_index, secret[16]. */
void conn_hello_pack(const struct conn_hello *h, uint8_t out[CONN_HELLO_BYTES])
{
	memset(out, 0, CONN_HELLO_BYTES);
	put32(out, CONN_MAGIC);
	put16(out + 4, CONN_VERSION);
	put16(out + 6, h->kind);
	put32(out + 8, (uint32_t)h->status);
	put32(out + 12, h->ep.qpn);
	put32(out + 16, h->ep.psn);
	put16(out + 20, h->ep.lid);
	out[22] = h->ep.mtu;
	out[23] = h->path.sl;
	out[24] = h->path.tclass;
	out[25] = h->path.timeout;
	out[26] = h->path.retry;
	out[27] = h->flags;
	put32(out + 28, h->max_msg_bytes);
	memcpy(out + 32, h->ep.gid.raw, 16);
	put32(out + 48, h->flow_id);
	put16(out + 52, h->ep.pkey);
	put16(out + 54, h->ep.pkey_index);
	memcpy(out + 56, h->secret, CONN_SECRET_BYTES);
}

int conn_hello_unpack(const uint8_t in[CONN_HELLO_BYTES], struct conn_hello *h)
{
	memset(h, 0, sizeof(*h));
	if (get32(in) != CONN_MAGIC || get16(in + 4) != CONN_VERSION)
		return -EPROTO;
	h->kind = get16(in + 6);
	h->status = (int32_t)get32(in + 8);
	h->ep.qpn = get32(in + 12) & 0xffffff;
	h->ep.psn = get32(in + 16) & 0xffffff;
	h->ep.lid = get16(in + 20);
	h->ep.mtu = in[22];
	h->path.sl = in[23];
	h->path.tclass = in[24];
	h->path.timeout = in[25];
	h->path.retry = in[26];
	h->flags = in[27];
	h->max_msg_bytes = get32(in + 28);
	memcpy(h->ep.gid.raw, in + 32, 16);
	h->flow_id = get32(in + 48);
	h->ep.pkey = get16(in + 52);
	h->ep.pkey_index = get16(in + 54);
	memcpy(h->secret, in + 56, CONN_SECRET_BYTES);
	if (h->kind < CONN_HELLO_CLIENT || h->kind > CONN_HELLO_ATTACH)
		return -EPROTO;
	return 0;
}

/* Layout, big-endian: magic, version, kind, pad, nonce[16], mac[32], zeros. */
void conn_auth_pack(const struct conn_auth *a, uint8_t out[CONN_HELLO_BYTES])
{
	memset(out, 0, CONN_HELLO_BYTES);
	put32(out, CONN_MAGIC);
	put16(out + 4, CONN_VERSION);
	put16(out + 6, a->kind);
	memcpy(out + 12, a->nonce, CONN_NONCE_BYTES);
	memcpy(out + 28, a->mac, CONN_MAC_BYTES);
}

int conn_auth_unpack(const uint8_t in[CONN_HELLO_BYTES], struct conn_auth *a)
{
	memset(a, 0, sizeof(*a));
	if (get32(in) != CONN_MAGIC || get16(in + 4) != CONN_VERSION)
		return -EPROTO;
	a->kind = get16(in + 6);
	memcpy(a->nonce, in + 12, CONN_NONCE_BYTES);
	memcpy(a->mac, in + 28, CONN_MAC_BYTES);
	if (a->kind != CONN_AUTH_CHALLENGE && a->kind != CONN_AUTH_PROOF)
		return -EPROTO;
	return 0;
}

int conn_cm_request_take(const void *data, size_t len, struct conn_hello *h)
{
	uint8_t frame[CONN_HELLO_BYTES] = { 0 };

	if (!data || len < CONN_HELLO_REQ_BYTES)
		return -EPROTO;
	/* Only the hello's first bytes travel; the secret stays zero. */
	memcpy(frame, data, CONN_HELLO_REQ_BYTES);
	if (conn_hello_unpack(frame, h) || h->kind != CONN_HELLO_CLIENT)
		return -EPROTO;
	return 0;
}

int conn_cm_answer_take(const void *data, size_t len, struct conn_hello *h)
{
	if (!data || len < CONN_HELLO_BYTES || conn_hello_unpack(data, h) ||
	    h->kind != CONN_HELLO_SERVER)
		return -EPROTO;
	return 0;
}

/* Why a server refused with @status, a -errno conn_refused() checked. */
static const char *conn_refusal(int status)
{
	if (status == -EBUSY)
		return "it serves as many clients as it takes (rperf server --max-clients)";
	if (status == -EDQUOT)
		return "the flow's buffers exceed what it lets one client pin (rperf server "
		       "--max-pinned)";
	if (status == -ENOKEY)
		return "the server requires a token: --token-file";
	if (status == -EPERM)
		return "wrong token (the server's --token-file holds another)";
	if (status == -EKEYREJECTED)
		return "its P_Key and this host's are not of one partition with a full member "
		       "(--pkey-index)";
	return strerror(-status);
}

int conn_refused(char *err, size_t errlen, const char *host, int status)
{
	/* A server's word: anything but a -errno is a protocol error, never a
	 * positive value a caller would take for a socket. */
	if (status >= 0 || status <= -CONN_ERRNO_MAX)
		return errbuf_set(err, errlen, -EPROTO, "server '%s' refused the flow with status "
				  "%d, which is no error number", host, status);
	return errbuf_set(err, errlen, status, "server '%s' refused the flow: %s", host,
			  conn_refusal(status));
}

int conn_pkey_check(const struct verbs_endpoint *local, const struct verbs_endpoint *peer,
		    const char *peer_name, char *err, size_t errlen)
{
	uint16_t key = (uint16_t)(local->pkey & ~CONN_PKEY_FULL);

	if (!local->pkey || !peer->pkey)
		return 0;
	if (key != (peer->pkey & ~CONN_PKEY_FULL))
		return errbuf_set(err, errlen, -EKEYREJECTED, "P_Key mismatch: this host's "
				  "QPs use P_Key 0x%04x (--pkey-index %u), %s's 0x%04x "
				  "(--pkey-index %u), another partition: on the side that is "
				  "wrong, give --pkey-index the index of the other's P_Key in "
				  "its port's table (ibv_devinfo -v lists it), or put both ports "
				  "in one partition in the subnet manager's partitions.conf",
				  local->pkey, local->pkey_index, peer_name, peer->pkey,
				  peer->pkey_index);
	if (!((local->pkey | peer->pkey) & CONN_PKEY_FULL))
		return errbuf_set(err, errlen, -EKEYREJECTED, "P_Key 0x%04x: this host "
				  "(--pkey-index %u) and %s (P_Key 0x%04x, --pkey-index %u) are "
				  "both limited members of partition 0x%04x, which cannot talk "
				  "to each other: make one a full member in the subnet manager's "
				  "partitions.conf (=full), or give it --pkey-index of a "
				  "full-member P_Key", local->pkey, local->pkey_index, peer_name,
				  peer->pkey, peer->pkey_index, key);
	return 0;
}

int conn_answer_check(const struct conn_hello *h, const struct conn_hello *r, const char *host,
		      char *err, size_t errlen)
{
	char who[96];
	int ret;

	snprintf(who, sizeof(who), "server '%s'", host);
	ret = conn_pkey_check(&h->ep, &r->ep, who, err, errlen);
	if (!ret && r->status)
		ret = conn_refused(err, errlen, host, r->status);
	return ret;
}

/* ------------------------------------------------------------------ */
/* TCP                                                                 */
/* ------------------------------------------------------------------ */

int64_t conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int conn_wait_fd(int fd, short events, int64_t deadline_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int n;

	/*
	 * Past the deadline we still look once, without waiting: a process
	 * descheduled for longer than the deadline (a loaded host, an emulated
	 * guest) must not call late what already came in time.
	 */
	for (;;) {
		left = deadline_ms - conn_now_ms();
		n = poll(&p, 1, left > 0 ? (int)left : 0);
		if (n > 0)
			return 0;
		if (n == 0 || left <= 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

int conn_write_full(int fd, const void *buf, size_t len, int timeout_ms)
{
	int64_t deadline = conn_now_ms() + timeout_ms;
	const uint8_t *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		ret = conn_wait_fd(fd, POLLOUT, deadline);
		if (ret)
			return ret;
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int conn_read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	int64_t deadline = conn_now_ms() + timeout_ms;
	uint8_t *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		ret = conn_wait_fd(fd, POLLIN, deadline);
		if (ret)
			return ret;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int conn_send_hello(int fd, const struct conn_hello *h, int timeout_ms)
{
	uint8_t frame[CONN_HELLO_BYTES];

	conn_hello_pack(h, frame);
	return conn_write_full(fd, frame, sizeof(frame), timeout_ms);
}

int conn_recv_hello(int fd, struct conn_hello *h, int timeout_ms)
{
	uint8_t frame[CONN_HELLO_BYTES];
	int ret;

	ret = conn_read_full(fd, frame, sizeof(frame), timeout_ms);
	if (ret)
		return ret;
	return conn_hello_unpack(frame, h);
}

/* Layout, big-endian: magic, version, kind, flow_id, v[0..3]. */
void conn_msg_pack(const struct conn_msg *m, uint8_t out[CONN_MSG_BYTES])
{
	int i;

	put32(out, CONN_MAGIC);
	put16(out + 4, CONN_VERSION);
	put16(out + 6, m->kind);
	put32(out + 8, m->flow_id);
	for (i = 0; i < 4; i++) {
		put32(out + 12 + 8 * i, (uint32_t)(m->v[i] >> 32));
		put32(out + 16 + 8 * i, (uint32_t)m->v[i]);
	}
}

int conn_msg_unpack(const uint8_t in[CONN_MSG_BYTES], struct conn_msg *m)
{
	int i;

	memset(m, 0, sizeof(*m));
	if (get32(in) != CONN_MAGIC || get16(in + 4) != CONN_VERSION)
		return -EPROTO;
	m->kind = get16(in + 6);
	m->flow_id = get32(in + 8);
	for (i = 0; i < 4; i++)
		m->v[i] = (uint64_t)get32(in + 12 + 8 * i) << 32 | get32(in + 16 + 8 * i);
	if (m->kind < CONN_MSG_QUERY || m->kind > CONN_MSG_LAST)
		return -EPROTO;
	return 0;
}

int conn_send_msg(int fd, const struct conn_msg *m, int timeout_ms)
{
	uint8_t frame[CONN_MSG_BYTES];

	conn_msg_pack(m, frame);
	return conn_write_full(fd, frame, sizeof(frame), timeout_ms);
}

int conn_recv_msg(int fd, struct conn_msg *m, int timeout_ms)
{
	uint8_t frame[CONN_MSG_BYTES];
	int ret;

	ret = conn_read_full(fd, frame, sizeof(frame), timeout_ms);
	return ret ? ret : conn_msg_unpack(frame, m);
}

int conn_request(int fd, uint16_t kind, uint16_t want_kind, struct conn_msg *answer,
		 int timeout_ms)
{
	struct conn_msg q = { .kind = kind };
	int ret;

	ret = conn_send_msg(fd, &q, timeout_ms);
	if (!ret)
		ret = conn_recv_msg(fd, answer, timeout_ms);
	if (!ret && answer->kind != want_kind)
		ret = -EPROTO;
	return ret;
}

int conn_err_peer_gone(char *err, size_t errlen, const char *peer)
{
	return errbuf_set(err, errlen, -ECONNRESET,
			  "server '%s' went away (its connection closed)", peer);
}

bool conn_peer_gone(int fd)
{
	/* RDHUP: the peer closed even when an answer it sent is still unread. */
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char c;
	ssize_t n;

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLERR | POLLHUP | POLLRDHUP))
		return true;
	n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

bool conn_fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* "host:port" of either end of @fd; an IPv4 address on the dual-stack
 * socket is shown as IPv4. */
static void sock_name(int fd, bool peer, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?", serv[16] = "?";
	int ret;

	ret = peer ? getpeername(fd, (struct sockaddr *)&ss, &sl) :
		     getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (!ret)
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(buf, len, "%s:%s", strncmp(host, "::ffff:", 7) ? host : host + 7, serv);
}

void conn_addr_ip(const struct sockaddr *sa, char *buf, size_t len)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	struct in_addr a4;

	if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(&a4, s6->sin6_addr.s6_addr + 12, sizeof(a4));
		inet_ntop(AF_INET, &a4, buf, (socklen_t)len);
	} else if (sa->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &s6->sin6_addr, buf, (socklen_t)len);
	} else if (sa->sa_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
	} else {
		snprintf(buf, len, "?");
	}
}

void conn_peer_name(int fd, char *buf, size_t len)
{
	sock_name(fd, true, buf, len);
}

void conn_sock_name(int fd, char *buf, size_t len)
{
	sock_name(fd, false, buf, len);
}

void conn_sock_tune(int fd)
{
	int one = 1, idle_s = CONN_KEEPIDLE_S, intvl_s = CONN_KEEPINTVL_S, cnt = CONN_KEEPCNT;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl_s, sizeof(intvl_s));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

int conn_listen(const char *addr, uint16_t port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE,
				  .ai_family = addr ? AF_UNSPEC : AF_INET6 };
	struct addrinfo *res;
	int fd, one = 1, zero = 0, gai, e;
	char serv[8];

	snprintf(serv, sizeof(serv), "%u", port);
	gai = getaddrinfo(addr, serv, &hints, &res);
	if (gai)
		return errbuf_set(err, errlen, -EADDRNOTAVAIL, "cannot resolve '%s': %s",
				  addr ? addr : "*", gai_strerror(gai));
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* Every address: IPv4 clients too, on the one IPv6 socket. */
		if (res->ai_family == AF_INET6 && !addr)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, SOMAXCONN)) {
			e = errno;
			close(fd);
			fd = -1;
			errno = e;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return errbuf_set(err, errlen, -errno, "cannot listen on %s port %u: %s",
				  addr ? addr : "*", port, strerror(errno));
	return fd;
}

/* One non-blocking connect() with a deadline; fd or -errno. */
static int connect_one(const struct addrinfo *ai, int64_t deadline_ms)
{
	socklen_t sl = sizeof(int);
	int fd, soerr = 0, ret;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		ret = -errno;
		goto fail;
	}
	ret = conn_wait_fd(fd, POLLOUT, deadline_ms);
	if (ret)
		goto fail;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
		ret = soerr ? -soerr : -errno;
		goto fail;
	}
	/* Blocking mode again; every later wait polls with its own timeout. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	conn_sock_tune(fd);
	return fd;
fail:
	close(fd);
	return ret;
}

int conn_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC };
	struct addrinfo *res, *ai;
	int64_t deadline = conn_now_ms() + timeout_ms;
	char serv[8];
	int fd = -ECONNREFUSED, gai;

	snprintf(serv, sizeof(serv), "%u", port);
	gai = getaddrinfo(host, serv, &hints, &res);
	if (gai)
		return errbuf_set(err, errlen, -EHOSTUNREACH, "cannot resolve '%s': %s", host,
				  gai_strerror(gai));
	/* A server that is still starting refuses: try again until the deadline. */
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = connect_one(ai, deadline);
			if (fd >= 0)
				break;
		}
		if (fd >= 0 || fd != -ECONNREFUSED || conn_now_ms() + 200 >= deadline)
			break;
		poll(NULL, 0, 200);
	}
	freeaddrinfo(res);
	if (fd < 0)
		return errbuf_set(err, errlen, fd, "no server at '%s' port %u: %s", host, port,
				  fd == -ETIMEDOUT ? "no answer" : strerror(-fd));
	return fd;
}
