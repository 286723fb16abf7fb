/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Connection setup through rdma_cm: resolve, connect, listen, accept and
 * refuse, the QP moved by us with rdma_cm's attributes; see conn.h. The
 * hello frames it carries as private data are conn.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "rdma/conn.h"
#include "rdma/conn_int.h"
#include "base/errbuf.h"

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
	ret = conn_wait_fd(ch->fd, POLLIN, conn_now_ms() + timeout_ms);
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
	int64_t deadline = conn_now_ms() + timeout_ms;
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
			      (int)(deadline - conn_now_ms() > 0 ? deadline - conn_now_ms() : 0), err, errlen,
			      "connect", &rej);
		if (rej < 0 || !conn_cm_reject_retryable(rej) || conn_now_ms() + 200 >= deadline)
			break;
		poll(NULL, 0, 200);
		ret = cm_renew_id(c, (int)(deadline - conn_now_ms()), err, errlen);
		if (ret)
			return ret;
	}
	if (ret == -ECONNREFUSED)
		return errbuf_set(err, errlen, ret,
				  "no server at '%s' port %u: rdma_cm connection rejected",
				  c->host, ntohs(rdma_get_dst_port(c->id)));
	if (!ret)
		ret = conn_answer_check(hello, reply, c->host, err, errlen);
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

void conn_cm_pkey(struct rdma_cm_id *id, struct verbs_endpoint *ep)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
	int mask;

	ep->pkey = 0;
	ep->pkey_index = 0;
	if (!id->verbs || rdma_init_qp_attr(id, &a, &mask))
		return;
	ep->pkey_index = a.pkey_index;
	ep->pkey = verbs_pkey_at(id->verbs, id->port_num, a.pkey_index);
}

void conn_cm_refuse(struct rdma_cm_id *id, int status)
{
	struct conn_hello h = { .kind = CONN_HELLO_SERVER, .status = status };
	uint8_t frame[CONN_HELLO_BYTES];

	conn_cm_pkey(id, &h.ep);
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
