/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Out-of-band connection setup over TCP and rdma_cm: see conn.h.
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
 * sl, tclass, timeout, retry, pad, max_msg_bytes, gid[16], flow_id,
 * secret[16]. */
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
	put32(out + 28, h->max_msg_bytes);
	memcpy(out + 32, h->ep.gid.raw, 16);
	put32(out + 48, h->flow_id);
	memcpy(out + 52, h->secret, CONN_SECRET_BYTES);
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
	h->max_msg_bytes = get32(in + 28);
	memcpy(h->ep.gid.raw, in + 32, 16);
	h->flow_id = get32(in + 48);
	memcpy(h->secret, in + 52, CONN_SECRET_BYTES);
	if (h->kind < CONN_HELLO_CLIENT || h->kind > CONN_HELLO_ATTACH)
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

/* ------------------------------------------------------------------ */
/* TCP                                                                 */
/* ------------------------------------------------------------------ */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline_ms: 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, int64_t deadline_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int n;

	for (;;) {
		left = deadline_ms - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

int conn_write_full(int fd, const void *buf, size_t len, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	const uint8_t *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		ret = wait_fd(fd, POLLOUT, deadline);
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
	int64_t deadline = now_ms() + timeout_ms;
	uint8_t *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		ret = wait_fd(fd, POLLIN, deadline);
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

/* Connect to @host:@port, send hello @h, take the server's answer into @r.
 * The socket, or -errno with a message naming the server. */
static int client_hello(const char *host, uint16_t port, const struct conn_hello *h,
			struct conn_hello *r, int timeout_ms, char *err, size_t errlen)
{
	int fd, ret;

	fd = conn_connect(host, port, timeout_ms, err, errlen);
	if (fd < 0)
		return fd;
	ret = conn_send_hello(fd, h, timeout_ms);
	if (!ret)
		ret = conn_recv_hello(fd, r, timeout_ms);
	if (ret == -EPROTO || (!ret && r->kind != CONN_HELLO_SERVER))
		ret = errbuf_set(err, errlen, -EPROTO, "'%s' port %u is not an rperf server",
				 host, port);
	else if (ret)
		ret = errbuf_set(err, errlen, ret, "server '%s': exchange failed: %s", host,
				 ret == -ECONNRESET ? "connection closed" : strerror(-ret));
	else if (r->status)
		ret = conn_refused(err, errlen, host, r->status);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int conn_client_flow(const char *host, uint16_t port, struct verbs_qp *q,
		     const struct verbs_path *path, size_t max_msg_bytes,
		     const uint8_t *secret, int timeout_ms, char *err, size_t errlen)
{
	struct conn_hello h = { .kind = CONN_HELLO_CLIENT }, r;
	int fd, ret;

	if (secret)
		memcpy(h.secret, secret, CONN_SECRET_BYTES);
	verbs_qp_local(q, &h.ep);
	h.path = *path;
	h.max_msg_bytes = (uint32_t)max_msg_bytes;
	fd = client_hello(host, port, &h, &r, timeout_ms, err, errlen);
	if (fd < 0)
		return fd;
	ret = verbs_qp_connect(q, &r.ep, path, err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int conn_client_attach(const char *host, uint16_t port, uint32_t flow_id,
		       const uint8_t secret[CONN_SECRET_BYTES], int timeout_ms, char *err,
		       size_t errlen)
{
	struct conn_hello h = { .kind = CONN_HELLO_ATTACH, .flow_id = flow_id }, r;

	memcpy(h.secret, secret, CONN_SECRET_BYTES);

	return client_hello(host, port, &h, &r, timeout_ms, err, errlen);
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
	ret = wait_fd(fd, POLLOUT, deadline_ms);
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
	int64_t deadline = now_ms() + timeout_ms;
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
		if (fd >= 0 || fd != -ECONNREFUSED || now_ms() + 200 >= deadline)
			break;
		poll(NULL, 0, 200);
	}
	freeaddrinfo(res);
	if (fd < 0)
		return errbuf_set(err, errlen, fd, "no server at '%s' port %u: %s", host, port,
				  fd == -ETIMEDOUT ? "no answer" : strerror(-fd));
	return fd;
}

/* ------------------------------------------------------------------ */
/* rdma_cm                                                             */
/* ------------------------------------------------------------------ */

bool conn_cm_reject_retryable(int status)
{
	return status != CONN_CM_REJ_CONSUMER;
}

/*
 * Wait for the next event on @ch; it must be @want. The event is acked.
 * @rej_status (NULL: not asked) is the status of a rejection, -1 when
 * the event was none.
 */
static int cm_wait(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		   struct conn_hello *reply, int timeout_ms, char *err, size_t errlen,
		   const char *what, int *rej_status)
{
	struct rdma_cm_event *ev;
	int ret;

	if (rej_status)
		*rej_status = -1;
	ret = wait_fd(ch->fd, POLLIN, now_ms() + timeout_ms);
	if (ret)
		return errbuf_set(err, errlen, ret, "rdma_cm: %s: no answer within %d ms", what,
				  timeout_ms);
	if (rdma_get_cm_event(ch, &ev))
		return errbuf_set(err, errlen, -errno, "rdma_cm: %s: %s", what, strerror(errno));
	ret = 0;
	if (rej_status && ev->event == RDMA_CM_EVENT_REJECTED)
		*rej_status = ev->status;
	/* The server's refusal, with its reason, comes as a rejection's answer. */
	if (ev->event == RDMA_CM_EVENT_REJECTED && reply &&
	    !conn_cm_answer_take(ev->param.conn.private_data, ev->param.conn.private_data_len,
				 reply) && reply->status)
		ret = 0;
	else if (ev->event != want)
		ret = errbuf_set(err, errlen, -ECONNREFUSED, "rdma_cm: %s: %s (status %d)", what,
				 rdma_event_str(ev->event), ev->status);
	else if (reply && conn_cm_answer_take(ev->param.conn.private_data,
					      ev->param.conn.private_data_len, reply))
		ret = errbuf_set(err, errlen, -EPROTO, "rdma_cm: %s: the peer is not an rperf server",
				 what);
	rdma_ack_cm_event(ev);
	return ret;
}

/* A new id on @c's channel for @c's server, its address and route resolved. */
static int cm_resolve_id(struct conn_cm *c, int timeout_ms, char *err, size_t errlen)
{
	int ret;

	if (rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		return errbuf_set(err, errlen, -errno, "rdma_cm: %s", strerror(errno));
	/* The TOS decides the traffic class (RoCE) or the path's QoS class (IB). */
	if (c->tos && rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &c->tos,
				      sizeof(c->tos)))
		return errbuf_set(err, errlen, -errno, "rdma_cm: cannot set TOS %u: %s", c->tos,
				  strerror(errno));
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&c->dst, timeout_ms))
		return errbuf_set(err, errlen, -errno, "rdma_cm: cannot resolve '%s': %s", c->host,
				  strerror(errno));
	ret = cm_wait(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, timeout_ms, err, errlen,
		      "address resolution", NULL);
	if (!ret && rdma_resolve_route(c->id, timeout_ms))
		ret = errbuf_set(err, errlen, -errno, "rdma_cm: route to '%s': %s", c->host,
				 strerror(errno));
	if (!ret)
		ret = cm_wait(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, timeout_ms, err, errlen,
			      "route resolution", NULL);
	return ret;
}

int conn_cm_resolve(struct conn_cm *c, const char *host, uint16_t port, uint8_t tos,
		    int timeout_ms, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char serv[8];
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(c->host, sizeof(c->host), "%s", host);
	c->tos = tos;
	snprintf(serv, sizeof(serv), "%u", port);
	ret = getaddrinfo(host, serv, &hints, &res);
	if (ret)
		return errbuf_set(err, errlen, -EHOSTUNREACH, "cannot resolve '%s': %s", host,
				  gai_strerror(ret));
	memcpy(&c->dst, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	c->ch = rdma_create_event_channel();
	if (!c->ch)
		return errbuf_set(err, errlen, -errno, "rdma_cm: %s", strerror(errno));
	return cm_resolve_id(c, timeout_ms, err, errlen);
}

/*
 * After a rejection @c's id cannot connect again: a new one in its place,
 * resolved to the same device (the caller's QP lives there; the new id
 * is made first, so that the device's context stays open).
 */
static int cm_renew_id(struct conn_cm *c, int timeout_ms, char *err, size_t errlen)
{
	struct rdma_cm_id *old = c->id;
	int ret = cm_resolve_id(c, timeout_ms, err, errlen);

	if (!ret && c->id->verbs != old->verbs)
		ret = errbuf_set(err, errlen, -ENODEV, "rdma_cm: '%s' is now reached through "
				 "another device", c->host);
	rdma_destroy_id(old);
	return ret;
}

/* One QP state step with the attributes rdma_cm computed, plus ours. */
static int cm_qp_step(struct rdma_cm_id *id, struct verbs_qp *q, enum ibv_qp_state state,
		      const struct verbs_path *path, char *err, size_t errlen)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask, ret;

	if (rdma_init_qp_attr(id, &a, &mask))
		return errbuf_set(err, errlen, -errno, "rdma_cm: QP attributes for state %d: %s",
				  state, strerror(errno));
	if (state == IBV_QPS_RTR) {
		/* rdma_cm would take the SL from the path record and the
		 * traffic class from the TOS; the user's --sl wins. */
		a.ah_attr.sl = path->sl;
		if (a.ah_attr.is_global)
			a.ah_attr.grh.traffic_class = path->tclass;
		a.min_rnr_timer = VERBS_MIN_RNR_TIMER;
		mask |= IBV_QP_MIN_RNR_TIMER;
		if (path->static_rate)
			a.ah_attr.static_rate = path->static_rate;
	} else if (state == IBV_QPS_RTS) {
		a.timeout = path->timeout;
		a.retry_cnt = path->retry;
		a.rnr_retry = 7;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY;
	}
	ret = ibv_modify_qp(q->qp, &a, mask);
	if (ret)
		return errbuf_set(err, errlen, -ret, "rdma_cm: QP %u to state %d: %s",
				  q->qp->qp_num, state, strerror(ret));
	return 0;
}

int conn_cm_qp_ready(struct rdma_cm_id *id, struct verbs_qp *q, const struct verbs_path *path,
		     char *err, size_t errlen)
{
	int ret;

	if (path->sl > 15)
		return errbuf_set(err, errlen, -EINVAL, "SL %u above 15", path->sl);
	ret = cm_qp_step(id, q, IBV_QPS_INIT, path, err, errlen);
	if (!ret)
		ret = cm_qp_step(id, q, IBV_QPS_RTR, path, err, errlen);
	if (!ret)
		ret = cm_qp_step(id, q, IBV_QPS_RTS, path, err, errlen);
	return ret;
}

/* Connection parameters carrying @h (its first @len bytes) as private data in @frame. */
static void cm_param(struct rdma_conn_param *p, uint8_t frame[CONN_HELLO_BYTES],
		     const struct conn_hello *h, uint8_t len, const struct verbs_qp *q)
{
	conn_hello_pack(h, frame);
	*p = (struct rdma_conn_param){
		.private_data = frame,
		.private_data_len = len,
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = h->path.retry,
		.rnr_retry_count = 7,
		.qp_num = q->qp->qp_num,
	};
}

int conn_cm_connect(struct conn_cm *c, struct verbs_qp *q, const struct conn_hello *hello,
		    struct conn_hello *reply, int timeout_ms, char *err, size_t errlen)
{
	int64_t deadline = now_ms() + timeout_ms;
	uint8_t frame[CONN_HELLO_BYTES];
	struct rdma_conn_param p;
	int ret, rej;

	cm_param(&p, frame, hello, CONN_HELLO_REQ_BYTES, q);
	/* A server still starting rejects (no listener): try again until the
	 * deadline, as conn_connect() does; the server's own refusal is final. */
	for (;;) {
		/* No id->qp: rdma_cm leaves the QP to us and reports CONNECT_RESPONSE. */
		if (rdma_connect(c->id, &p))
			return errbuf_set(err, errlen, -errno, "rdma_cm: connect: %s",
					  strerror(errno));
		ret = cm_wait(c->ch, RDMA_CM_EVENT_CONNECT_RESPONSE, reply,
			      (int)(deadline - now_ms() > 0 ? deadline - now_ms() : 0), err, errlen,
			      "connect", &rej);
		if (rej < 0 || !conn_cm_reject_retryable(rej) || now_ms() + 200 >= deadline)
			break;
		poll(NULL, 0, 200);
		ret = cm_renew_id(c, (int)(deadline - now_ms()), err, errlen);
		if (ret)
			return ret;
	}
	if (ret == -ECONNREFUSED)
		return errbuf_set(err, errlen, ret,
				  "no server at '%s' port %u: rdma_cm connection rejected",
				  c->host, ntohs(rdma_get_dst_port(c->id)));
	if (!ret && reply->status)
		return 0;	/* the caller reports the refusal */
	if (!ret)
		ret = conn_cm_qp_ready(c->id, q, &hello->path, err, errlen);
	if (!ret && rdma_establish(c->id))
		ret = errbuf_set(err, errlen, -errno, "rdma_cm: establish: %s", strerror(errno));
	return ret;
}

int conn_cm_accept(struct rdma_cm_id *id, struct verbs_qp *q, const struct conn_hello *reply,
		   char *err, size_t errlen)
{
	uint8_t frame[CONN_HELLO_BYTES];
	struct rdma_conn_param p;

	cm_param(&p, frame, reply, CONN_HELLO_BYTES, q);
	if (rdma_accept(id, &p))
		return errbuf_set(err, errlen, -errno, "rdma_cm: accept: %s", strerror(errno));
	return 0;
}

void conn_cm_refuse(struct rdma_cm_id *id, int status)
{
	struct conn_hello h = { .kind = CONN_HELLO_SERVER, .status = status };
	uint8_t frame[CONN_HELLO_BYTES];

	conn_hello_pack(&h, frame);
	rdma_reject(id, frame, CONN_HELLO_BYTES);
}

int conn_cm_listen(struct conn_cm *c, const char *addr, uint16_t port, char *err,
		   size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE,
				  .ai_family = addr ? AF_UNSPEC : AF_INET };
	struct addrinfo *res;
	char serv[8];
	int gai, ret = 0;

	memset(c, 0, sizeof(*c));
	snprintf(serv, sizeof(serv), "%u", port);
	gai = getaddrinfo(addr, serv, &hints, &res);
	if (gai)
		return errbuf_set(err, errlen, -EADDRNOTAVAIL, "rdma_cm: cannot resolve '%s': %s",
				  addr ? addr : "*", gai_strerror(gai));
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		ret = errbuf_set(err, errlen, -errno, "rdma_cm: %s", strerror(errno));
	if (!ret)
		fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK);
	if (!ret && (rdma_bind_addr(c->id, res->ai_addr) || rdma_listen(c->id, 64)))
		ret = errbuf_set(err, errlen, -errno, "rdma_cm: cannot listen on %s port %u: %s",
				 addr ? addr : "*", port, strerror(errno));
	freeaddrinfo(res);
	return ret;
}

void conn_cm_close(struct conn_cm *c)
{
	if (c->id) {
		rdma_disconnect(c->id);
		rdma_destroy_id(c->id);
	}
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	memset(c, 0, sizeof(*c));
}
