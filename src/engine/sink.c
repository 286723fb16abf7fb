/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The receive side: see sink.h. Every RECV of a flow points at the same
 * buffer: the data is thrown away, only its arrival counts, so memory does
 * not grow with the ring depth.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "rdma/conn.h"
#include "base/array.h"
#include "base/errbuf.h"
#include "base/pin.h"
#include "engine/sink.h"
#include "engine/sink_auth.h"

#define SINK_ANSWER_MS	100	/* a hello's answer on a fresh socket */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t sink_ring_default(double port_gbps, int max_qp_wr)
{
	double msgs = port_gbps * 1e9 / 8 / (64 + 58) * SINK_WAKE_NS / 1e9;
	uint32_t n = msgs > SINK_RING_MIN ? (uint32_t)msgs : SINK_RING_MIN;

	if (max_qp_wr > 0 && n > (uint32_t)max_qp_wr)
		n = (uint32_t)max_qp_wr;
	return n;
}

int sink_init(struct sink *s, struct verbs_dev *dev, uint32_t ring_depth, bool hugepages,
	      char *err, size_t errlen)
{
	struct run_env e = { 0 };

	memset(s, 0, sizeof(*s));
	s->dev = dev;
	if (!ring_depth) {
		verbs_env(dev, &e);
		ring_depth = sink_ring_default(e.port_gbps, dev->dev_attr.max_qp_wr);
	}
	s->ring_depth = ring_depth;
	s->hugepages = hugepages;
	sink_gate_init(&s->gate);
	return verbs_chan_create(dev, &s->chan, err, errlen);
}

void sink_release(struct sink *s)
{
	size_t i;

	for (i = 0; i < s->n_flows; i++) {
		sink_flow_close(s, s->flows[i]);
		free(s->flows[i]);
	}
	free(s->flows);
	free(s->pfd);
	sink_gate_release(&s->gate);
	if (s->chan)
		ibv_destroy_comp_channel(s->chan);
	memset(s, 0, sizeof(*s));
}

int sink_event_fd(const struct sink *s)
{
	return s->chan ? s->chan->fd : -1;
}

size_t sink_flow_pin_bytes(const struct sink *s, size_t max_msg_bytes)
{
	size_t page = s->hugepages ? PIN_HUGE_BYTES : 4096;
	size_t buf = max_msg_bytes ? max_msg_bytes : 1;

	return (buf + page - 1) / page * page + (size_t)s->ring_depth * SINK_RING_ENTRY_BYTES;
}

int sink_flow_new(struct sink *s, const struct verbs_path *path, size_t max_msg_bytes,
		  const char *peer, struct sink_flow **out, char *err, size_t errlen)
{
	struct verbs_qp_opts o = { .send_depth = 1, .recv_depth = s->ring_depth, .chan = s->chan };
	struct sink_flow *f;
	int ret;

	if (max_msg_bytes > verbs_dev_max_msg_bytes(s->dev))
		return errbuf_set(err, errlen, -EMSGSIZE,
				  "%s: messages of %zu bytes exceed the port's limit of %zu",
				  s->dev->name, max_msg_bytes, verbs_dev_max_msg_bytes(s->dev));
	f = calloc(1, sizeof(*f));
	if (!f ||
	    array_room((void **)&s->flows, &s->cap_flows, s->n_flows + 1, sizeof(*s->flows), 16)) {
		free(f);
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	f->id = (uint32_t)s->n_flows + 1;
	f->fd = -1;
	f->gid_index = -1;
	f->path = *path;
	snprintf(f->peer, sizeof(f->peer), "%s", peer);
	f->buf_bytes = max_msg_bytes ? max_msg_bytes : 1;
	f->pinned_bytes = sink_flow_pin_bytes(s, max_msg_bytes);
	f->buf = pin_buf_alloc(f->buf_bytes, s->hugepages, &f->buf_huge);
	if (!f->buf) {
		free(f);
		return errbuf_set(err, errlen, -ENOMEM, "cannot allocate %zu bytes",
				  max_msg_bytes);
	}
	o.buf = f->buf;
	o.buf_bytes = f->buf_bytes;
	o.cq_context = f;
	/* bw --write clients RDMA WRITE (with immediate) into the buffer. */
	o.remote_write = true;
	ret = verbs_qp_create(&f->qp, s->dev, &o, err, errlen);
	if (ret) {
		pin_buf_free(f->buf, f->buf_bytes, f->buf_huge);
		free(f);
		return ret;
	}
	s->flows[s->n_flows++] = f;
	*out = f;
	return 0;
}

/* Post RECVs until @depth are; 0 or -errno. */
static int ring_fill(struct sink_flow *f, uint32_t depth)
{
	int n;

	if (f->posted >= depth)
		return 0;
	n = verbs_post_recvs(&f->qp, f->buf_bytes, f->id, depth - f->posted);
	if (n < 0)
		return n;
	f->posted += (uint32_t)n;
	return f->posted < depth ? -ENOMEM : 0;
}

int sink_flow_start(struct sink *s, struct sink_flow *f, char *err, size_t errlen)
{
	int ret;

	f->ctr0_ok = !verbs_counters_read(s->dev, &f->ctr0);
	ret = ring_fill(f, s->ring_depth);
	if (!ret && !s->busy_poll)
		ret = -ibv_req_notify_cq(f->qp.recv_cq, 0);
	if (ret)
		return errbuf_set(err, errlen, ret, "flow %u from %s: cannot post RECVs: %s",
				  f->id, f->peer, strerror(-ret));
	f->active = true;
	f->start_ns = mono_ns();
	return 0;
}

/* Count every completion the flow's CQ holds; post as many RECVs again. */
static int flow_drain(struct sink *s, struct sink_flow *f)
{
	struct ibv_wc wc[32];
	int n, i;

	while ((n = ibv_poll_cq(f->qp.recv_cq, 32, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS) {
				f->msgs++;
				f->bytes += wc[i].byte_len;
			} else if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
				f->errors++;
			}
		}
		f->posted -= (uint32_t)n;
		if (f->active && ring_fill(f, s->ring_depth))
			return -EIO;
	}
	return n < 0 ? -EIO : 0;
}

void sink_flow_drop(struct sink *s, struct sink_flow *f)
{
	if (!s->n_flows || s->flows[s->n_flows - 1] != f)
		return;
	verbs_qp_destroy(&f->qp);
	pin_buf_free(f->buf, f->buf_bytes, f->buf_huge);
	free(f);
	s->n_flows--;
}

void sink_flow_close(struct sink *s, struct sink_flow *f)
{
	if (!f->qp.qp)
		return;
	flow_drain(s, f);
	f->active = false;
	f->end_ns = mono_ns();
	verbs_qp_destroy(&f->qp);
	pin_buf_free(f->buf, f->buf_bytes, f->buf_huge);
	f->buf = NULL;
}

int sink_service(struct sink *s, char *err, size_t errlen)
{
	struct sink_flow *f;
	struct ibv_cq *cq;
	void *ctx;
	int ret;

	while (!ibv_get_cq_event(s->chan, &cq, &ctx)) {
		f = ctx;
		ibv_ack_cq_events(cq, 1);
		if (!f->active)
			continue;
		/* Re-arm first, then drain: nothing can slip in between. */
		ret = ibv_req_notify_cq(cq, 0);
		if (!ret)
			ret = flow_drain(s, f);
		if (ret) {
			f->active = false;
			return errbuf_set(err, errlen, -EIO, "flow %u from %s: cannot post RECVs",
					  f->id, f->peer);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Flows over TCP: the hello exchange every receiver uses              */
/* ------------------------------------------------------------------ */

/*
 * A flow for client hello @h on socket @fd, its QP connected; fills
 * @reply. On RoCE its GID is that of the address the client connected
 * to, so that its ACKs leave from that address and VLAN (its priority).
 */
static int flow_for_hello(struct sink *s, int fd, const struct conn_hello *h, const char *peer,
			  struct conn_hello *reply, struct sink_flow **out, char *err,
			  size_t errlen)
{
	struct verbs_gid_want w;
	struct sink_flow *f;
	int ret;

	ret = sink_flow_new(s, &h->path, h->max_msg_bytes, peer, &f, err, errlen);
	if (ret)
		return ret;
	if (!verbs_gid_want_from_sock(fd, &w))
		ret = verbs_qp_pick_gid(&f->qp, &w, err, errlen);
	if (!ret)
		ret = verbs_qp_connect(&f->qp, &h->ep, &h->path, err, errlen);
	if (!ret)
		ret = sink_flow_start(s, f, err, errlen);
	if (ret) {
		sink_flow_drop(s, f);
		return ret;
	}
	verbs_qp_local(&f->qp, &reply->ep);
	f->gid_index = f->qp.gid_index;
	reply->flow_id = f->id;
	*out = f;
	return 0;
}

int sink_flow_bind(struct sink_flow *f, const struct sockaddr *client, char *err,
		   size_t errlen)
{
	conn_addr_ip(client, f->client_ip, sizeof(f->client_ip));
	if (RAND_bytes(f->secret, sizeof(f->secret)) != 1)
		return errbuf_set(err, errlen, -EIO, "flow %u: no random bytes for its secret",
				  f->id);
	return 0;
}

/* Is @src_ip the flow's source @want_ip? 0, or -EPERM with the reason. */
static int sink_addr_check(const char *want_ip, const char *src_ip, char *err, size_t errlen)
{
	if (!want_ip[0] || strcmp(want_ip, src_ip))
		return errbuf_set(err, errlen, -EPERM, "it comes from %s, the flow from %s",
				  src_ip, want_ip[0] ? want_ip : "nowhere known");
	return 0;
}

int sink_secret_check(const char *want_ip, const uint8_t want[CONN_SECRET_BYTES],
		      const char *src_ip, const uint8_t got[CONN_SECRET_BYTES], char *err,
		      size_t errlen)
{
	if (CRYPTO_memcmp(want, got, CONN_SECRET_BYTES))
		return errbuf_set(err, errlen, -EACCES, "wrong secret for the flow");
	return sink_addr_check(want_ip, src_ip, err, errlen);
}

int sink_attach_check(const struct sink_flow *f, const char *src_ip,
		      const uint8_t secret[CONN_SECRET_BYTES], char *err, size_t errlen)
{
	/* The flow is named by its id: its address is checked first. */
	int ret = sink_addr_check(f->client_ip, src_ip, err, errlen);

	return ret ? ret : sink_secret_check(f->client_ip, f->secret, src_ip, secret, err,
					     errlen);
}

/*
 * The rdma_cm flow @h attaches a socket to, if the socket (from @src_ip)
 * is its client's and the flow has none yet.
 */
static int flow_for_attach(struct sink *s, const struct conn_hello *h, const char *peer,
			   const char *src_ip, struct sink_flow **out, char *err, size_t errlen)
{
	struct sink_flow *f;
	char why[128];
	size_t i;

	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		if (f->id != h->flow_id || !f->cm_id || !f->active)
			continue;
		if (sink_attach_check(f, src_ip, h->secret, why, sizeof(why))) {
			s->attach_refused++;
			return errbuf_set(err, errlen, -EACCES, "client %s: side connection to "
					  "rdma_cm flow %u refused: %s", peer, h->flow_id, why);
		}
		if (f->fd >= 0)
			break;
		*out = f;
		return 0;
	}
	return errbuf_set(err, errlen, -ENOENT, "client %s: no rdma_cm flow %u to attach to",
			  peer, h->flow_id);
}

/* @s's admission of client @h from @src_ip: 0, or -errno counted and named in @err. */
static int flow_admit(struct sink *s, const struct conn_hello *h, const char *peer,
		      const char *src_ip, char *err, size_t errlen)
{
	char why[160];
	int ret = s->admit(s->admit_arg, h, src_ip, why, sizeof(why));

	if (!ret)
		return 0;
	s->admit_refused++;
	return errbuf_set(err, errlen, ret, "client %s: data connection refused: %s", peer, why);
}

/*
 * Client @h's P_Key against @s's, which @reply takes (so that a client
 * refused for it can name both): 0, or -EKEYREJECTED named in @err.
 */
static int flow_pkey(const struct sink *s, const struct conn_hello *h, const char *peer,
		     struct conn_hello *reply, char *err, size_t errlen)
{
	char who[80];

	if (s->dev) {
		reply->ep.pkey = s->dev->pkey;
		reply->ep.pkey_index = s->dev->pkey_index;
	}
	snprintf(who, sizeof(who), "client %s", peer);
	return conn_pkey_check(&reply->ep, &h->ep, who, err, errlen);
}

/* The address alone of @fd's peer. */
static void sock_peer_ip(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &sl))
		snprintf(buf, len, "?");
	else
		conn_addr_ip((struct sockaddr *)&ss, buf, len);
}

/*
 * Client @fd's hello @frame (whole): make and connect its flow, answer
 * (with the error, if it is refused). 0 with the counting flow in *@out
 * and @fd in (*out)->fd, or -errno with the reason, naming the client,
 * in @err; @fd is closed then. An attach hello instead gives @fd to the
 * rdma_cm flow it names (which has none), if sink_attach_check() passes;
 * a refusal is counted in attach_refused.
 */
static int sink_take_hello(struct sink *s, int fd, const uint8_t frame[CONN_HELLO_BYTES],
			   struct sink_flow **out, char *err, size_t errlen)
{
	struct conn_hello h, reply = { .kind = CONN_HELLO_SERVER };
	struct sink_flow *f = NULL;
	char peer[64], src_ip[48];
	int ret;

	*out = NULL;
	conn_peer_name(fd, peer, sizeof(peer));
	ret = conn_hello_unpack(frame, &h);
	if (ret || h.kind == CONN_HELLO_SERVER) {
		close(fd);
		return errbuf_set(err, errlen, ret ? ret : -EPROTO, "client %s: no valid hello (%s)",
				  peer, ret ? strerror(-ret) : "not a client");
	}
	sock_peer_ip(fd, src_ip, sizeof(src_ip));
	if (h.kind == CONN_HELLO_ATTACH)
		reply.status = flow_for_attach(s, &h, peer, src_ip, &f, err, errlen);
	else if (s->admit && (reply.status = flow_admit(s, &h, peer, src_ip, err, errlen)))
		;	/* refused before any QP or buffer is made */
	else if ((reply.status = flow_pkey(s, &h, peer, &reply, err, errlen)))
		;	/* the same, the answer naming our P_Key */
	else if (!(reply.status = flow_for_hello(s, fd, &h, peer, &reply, &f, err, errlen)))
		snprintf(f->client_ip, sizeof(f->client_ip), "%s", src_ip);
	/* A fresh socket's send buffer takes the answer at once: no peer makes this wait. */
	ret = conn_send_hello(fd, &reply, SINK_ANSWER_MS);
	if (reply.status) {
		close(fd);
		return reply.status;
	}
	if (ret) {
		if (h.kind != CONN_HELLO_ATTACH)
			sink_flow_close(s, f);
		close(fd);
		return errbuf_set(err, errlen, ret, "client %s: cannot answer: %s", peer,
				  strerror(-ret));
	}
	f->fd = fd;
	*out = f;
	return 0;
}

/* The RX answer: the port's receive trouble since @f started, + 1 each. */
static void flow_rx_trouble(struct sink *s, const struct sink_flow *f, struct conn_msg *a)
{
	struct verbs_counters *now = malloc(sizeof(*now));
	struct verbs_rx_trouble t = { -1, -1 };

	a->kind = CONN_MSG_RX;
	if (now && f->ctr0_ok && !verbs_counters_read(s->dev, now))
		verbs_counters_rx(&f->ctr0, now, &t);
	free(now);
	a->v[0] = (uint64_t)(t.rnr_naks_sent + 1);
	a->v[1] = (uint64_t)(t.out_of_buffer + 1);
}

/* Answer one request from a flow's client; false when it makes no sense. */
static bool flow_answer(struct sink *s, struct sink_flow *f, const struct conn_msg *q)
{
	struct conn_msg a = { .flow_id = f->id };

	if (q->kind == CONN_MSG_QUERY) {
		if (f->active)
			flow_drain(s, f);
		a.kind = CONN_MSG_STATS;
		a.v[0] = f->msgs;
		a.v[1] = f->bytes;
		a.v[2] = f->errors;
		a.v[3] = mono_ns();
	} else if (q->kind == CONN_MSG_RX) {
		flow_rx_trouble(s, f, &a);
	} else if (q->kind == CONN_MSG_MR && f->qp.mr) {
		a.kind = CONN_MSG_MR;
		a.v[0] = (uintptr_t)f->buf;
		a.v[1] = f->qp.mr->rkey;
		a.v[2] = f->buf_bytes;
	} else {
		return false;
	}
	return !conn_send_msg(f->fd, &a, 1000);
}

int sink_ctl_take(uint8_t ctl[CONN_MSG_BYTES], size_t *ctl_len, size_t n, struct conn_msg *q)
{
	*ctl_len += n;
	if (*ctl_len < CONN_MSG_BYTES)
		return 0;
	*ctl_len = 0;
	return conn_msg_unpack(ctl, q) ? -EPROTO : 1;
}

bool sink_flow_sock_closed(struct sink *s, struct sink_flow *f)
{
	struct conn_msg q;
	ssize_t n;
	int ret;

	n = recv(f->fd, f->ctl + f->ctl_len, sizeof(f->ctl) - f->ctl_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n > 0) {
		ret = sink_ctl_take(f->ctl, &f->ctl_len, (size_t)n, &q);
		if (!ret || (ret > 0 && flow_answer(s, f, &q)))
			return false;
	}
	sink_flow_close(s, f);
	close(f->fd);
	f->fd = -1;
	return true;
}

/* ------------------------------------------------------------------ */
/* The receiver's wait                                                 */
/* ------------------------------------------------------------------ */

/* A flow's socket was readable: serve it, and say so when it closed. */
static void wait_flow_sock(struct sink *s, struct sink_wait *w, int fd)
{
	size_t j;

	for (j = 0; j < s->n_flows; j++) {
		if (s->flows[j]->fd != fd || !sink_flow_sock_closed(s, s->flows[j]))
			continue;
		if (w->on_close)
			w->on_close(s->flows[j], w->arg);
	}
}

/* The pollfd layout of a wait: these slots, the gate's, then the flows' sockets. */
enum { WAIT_CHAN, WAIT_LFD, WAIT_EXTRA0, WAIT_EXTRA1, WAIT_GATE,
       WAIT_FLOWS = WAIT_GATE + SINK_GATE_MAX };

/* Every client whose hello is whole, taken; those the gate dropped, told once. */
static void wait_admit(struct sink *s, struct sink_wait *w, struct pollfd *pfd)
{
	uint8_t frame[CONN_HELLO_BYTES], hello[CONN_HELLO_BYTES];
	struct sink_flow *f = NULL;
	bool proven;
	char err[256];
	uint64_t n;
	int fd, ret;

	while (sink_gate_next(&s->gate, pfd + WAIT_GATE, w->lfd, pfd[WAIT_LFD].revents != 0,
			      w->hello_ms, &fd, frame) == 1) {
		ret = sink_auth_step(s->token, &s->gate, &s->auth_refused, fd, frame, w->hello_ms,
				     hello, &proven, err, sizeof(err));
		if (!ret)
			continue;	/* challenged: parked in the gate for its proof */
		if (ret == 1)
			ret = sink_take_hello(s, fd, hello, &f, err, sizeof(err));
		if (ret < 0 && w->on_error)
			w->on_error(err, w->arg);
		if (ret)
			continue;
		f->authenticated = proven;
		if (w->on_accept)
			w->on_accept(f, w->arg);
	}
	n = sink_gate_expire(&s->gate);
	if (n && w->on_error) {
		snprintf(err, sizeof(err), "%llu data connection(s) closed without a hello (or a proof): "
			 "none whole within %d ms, crowded out, or hung up",
			 (unsigned long long)n, w->hello_ms);
		w->on_error(err, w->arg);
	}
}

/* Serve what poll() found ready in @pfd[0 .. @n) (the layout above). */
static void wait_serve(struct sink *s, struct sink_wait *w, struct pollfd *pfd, size_t n)
{
	char err[256];
	size_t i;

	if (pfd[WAIT_CHAN].revents && sink_service(s, err, sizeof(err)) && w->on_error)
		w->on_error(err, w->arg);
	for (i = WAIT_FLOWS; i < n; i++)
		if (pfd[i].revents)
			wait_flow_sock(s, w, pfd[i].fd);
	if (pfd[WAIT_EXTRA0].revents && w->on_extra)
		w->on_extra(w->arg);
	wait_admit(s, w, pfd);
	w->extra_ready[0] = pfd[WAIT_EXTRA0].revents != 0;
	w->extra_ready[1] = pfd[WAIT_EXTRA1].revents != 0;
}

/* Busy poll: every active flow's CQ drained and its ring refilled. */
static void sink_poll_all(struct sink *s, struct sink_wait *w)
{
	size_t i;

	for (i = 0; i < s->n_flows; i++) {
		if (!s->flows[i]->active || !flow_drain(s, s->flows[i]))
			continue;
		s->flows[i]->active = false;
		if (w->on_error)
			w->on_error("a flow's RECVs could not be posted again", w->arg);
	}
}

/*
 * poll() @pfd; with busy_poll, without sleeping: drain the CQs and look
 * at the fds again (every SINK_BUSY_LOOKS passes) until one is ready or
 * @timeout_ms is over. What poll() returns.
 */
#define SINK_BUSY_LOOKS 64
static int sink_poll(struct sink *s, struct sink_wait *w, struct pollfd *pfd, size_t n)
{
	uint64_t end;
	int ret, k;

	if (!s->busy_poll)
		return poll(pfd, n, w->timeout_ms);
	end = mono_ns() + (uint64_t)w->timeout_ms * 1000000u;
	do {
		for (k = 0; k < SINK_BUSY_LOOKS; k++)
			sink_poll_all(s, w);
		ret = poll(pfd, n, 0);
	} while (!ret && mono_ns() < end);
	return ret;
}

int sink_wait(struct sink *s, struct sink_wait *w)
{
	struct pollfd *pfd;
	size_t n = WAIT_FLOWS, i;
	int ret;

	w->extra_ready[0] = w->extra_ready[1] = false;
	if (array_room((void **)&s->pfd, &s->cap_pfd, s->n_flows + WAIT_FLOWS, sizeof(*s->pfd), 0))
		return -ENOMEM;
	pfd = s->pfd;
	/* The fixed slots always: an fd of -1 is skipped by poll() and never ready. */
	pfd[WAIT_CHAN] = (struct pollfd){ .fd = sink_event_fd(s), .events = POLLIN };
	pfd[WAIT_LFD] = (struct pollfd){ .fd = w->lfd, .events = POLLIN };
	pfd[WAIT_EXTRA0] = (struct pollfd){ .fd = w->extra_fd[0], .events = POLLIN };
	pfd[WAIT_EXTRA1] = (struct pollfd){ .fd = w->extra_fd[1], .events = POLLIN };
	sink_gate_poll(&s->gate, pfd + WAIT_GATE);
	for (i = 0; i < s->n_flows; i++)
		if (s->flows[i]->fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = s->flows[i]->fd, .events = POLLIN };
	ret = sink_poll(s, w, pfd, n) > 0;
	if (ret)
		wait_serve(s, w, pfd, n);
	else
		wait_admit(s, w, pfd);	/* nothing ready: the gate's deadlines still pass */
	return ret;
}
