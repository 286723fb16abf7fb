/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The passive side (server.h): any number of clients at once, one RC QP
 * per client flow, RECVs kept posted, nothing ever sent back in
 * software. TCP clients are accepted by the sink itself; rdma_cm
 * requests are accepted here, each becoming a flow of the same sink
 * whose side connection (its counters over TCP) attaches afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "base/stop.h"
#include "engine/client.h"
#include "engine/server.h"

#define SERVER_HELLO_MS 5000

uint64_t server_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The sink's news, handed on with the caller's argument. */
static void server_accepted(struct sink_flow *f, void *arg)
{
	const struct server *sv = arg;

	if (sv->cfg->on_accept)
		sv->cfg->on_accept(f, sv->cfg->arg);
}

static void server_closed(struct sink_flow *f, void *arg)
{
	const struct server *sv = arg;

	if (sv->cfg->on_close)
		sv->cfg->on_close(f, sv->cfg->arg);
}

static void server_failed(const char *err, void *arg)
{
	const struct server *sv = arg;

	if (sv->cfg->on_error)
		sv->cfg->on_error(err, sv->cfg->arg);
}

/* ------------------------------------------------------------------ */
/* Admission: clients and what they pin                               */
/* ------------------------------------------------------------------ */

/* Is @ip among the addresses of @s's open flows before flows[@before]? */
static bool server_ip_seen(const struct sink *s, size_t before, const char *ip)
{
	size_t i;

	for (i = 0; i < before; i++)
		if (s->flows[i]->active && !strcmp(s->flows[i]->client_ip, ip))
			return true;
	return false;
}

int server_admit_check(const struct sink *s, const struct server_caps *caps, const char *src_ip,
		       size_t flow_bytes, char *err, size_t errlen)
{
	const struct sink_flow *f;
	size_t i, clients = 0, held_bytes = 0;

	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		if (!f->active)
			continue;
		if (!strcmp(f->client_ip, src_ip))
			held_bytes += f->pinned_bytes;
		else if (!server_ip_seen(s, i, f->client_ip))
			clients++;
	}
	if (!held_bytes && clients >= caps->max_clients)
		return errbuf_set(err, errlen, -EBUSY, "%zu other clients have flows open, the "
				  "server's --max-clients", clients);
	if (held_bytes + flow_bytes > caps->max_client_bytes)
		return errbuf_set(err, errlen, -EDQUOT, "the flow would pin %.1f MiB beside the "
				  "client's %.1f MiB, above the server's --max-pinned %.1f MiB",
				  (double)flow_bytes / 1048576, (double)held_bytes / 1048576,
				  (double)caps->max_client_bytes / 1048576);
	return 0;
}

int server_admit(void *arg, const struct conn_hello *h, const char *src_ip, char *err,
			size_t errlen)
{
	const struct server *sv = arg;

	return server_admit_check(&sv->sink, &sv->cfg->caps, src_ip,
				  sink_flow_pin_bytes(&sv->sink, h->max_msg_bytes), err, errlen);
}

/* ------------------------------------------------------------------ */
/* Flows over rdma_cm                                                  */
/* ------------------------------------------------------------------ */

static int server_cm_request(struct server *sv, struct rdma_cm_event *ev, char *err,
			     size_t errlen)
{
	struct conn_hello h, reply = { .kind = CONN_HELLO_SERVER };
	struct sink_flow *f = NULL;
	char peer[64], ip[48], why[200];
	int ret;

	if (conn_cm_request_take(ev->param.conn.private_data, ev->param.conn.private_data_len, &h))
		return errbuf_set(err, errlen, -EPROTO, "rdma_cm request without an rperf hello");
	if (strcmp(ibv_get_device_name(ev->id->verbs->device), sv->dev.name) ||
	    ev->id->port_num != sv->dev.port)
		return errbuf_set(err, errlen, -ENODEV, "rdma_cm request arrived on %s port %u",
				  ibv_get_device_name(ev->id->verbs->device), ev->id->port_num);
	conn_addr_ip(rdma_get_peer_addr(ev->id), ip, sizeof(ip));
	snprintf(peer, sizeof(peer), "rdma_cm client %s", ip);
	conn_cm_pkey(ev->id, &reply.ep);
	ret = conn_pkey_check(&reply.ep, &h.ep, peer, err, errlen);
	if (ret)
		return ret;
	ret = server_admit(sv, &h, ip, why, sizeof(why));
	if (ret) {
		sv->sink.admit_refused++;
		return errbuf_set(err, errlen, ret, "rdma_cm client %s: flow refused: %s", ip, why);
	}
	snprintf(peer, sizeof(peer), "rdma_cm:%u", (unsigned)sv->sink.n_flows + 1);
	ret = sink_flow_new(&sv->sink, &h.path, h.max_msg_bytes, peer, &f, err, errlen);
	if (ret)
		return ret;
	/* Its side connection must come from the same address, with the secret. */
	ret = sink_flow_bind(f, rdma_get_peer_addr(ev->id), err, errlen);
	if (!ret)
		ret = conn_cm_qp_ready(ev->id, &f->qp, &h.path, err, errlen);
	if (!ret)
		ret = sink_flow_start(&sv->sink, f, err, errlen);
	if (!ret) {
		reply.flow_id = f->id;
		reply.path = h.path;
		memcpy(reply.secret, f->secret, sizeof(reply.secret));
		ret = conn_cm_accept(ev->id, &f->qp, &reply, err, errlen);
	}
	if (ret) {
		sink_flow_drop(&sv->sink, f);
		return ret;
	}
	f->cm_id = ev->id;
	if (sv->cfg->on_cm_accept)
		sv->cfg->on_cm_accept(f, sv->cfg->arg);
	return 0;
}

static struct sink_flow *server_flow_by_cm(struct server *sv, struct rdma_cm_id *id)
{
	size_t i;

	for (i = 0; i < sv->sink.n_flows; i++)
		if (sv->sink.flows[i]->cm_id == id)
			return sv->sink.flows[i];
	return NULL;
}

/* The rdma_cm channel is readable: requests accepted, disconnections closed. */
static void server_cm_events(void *arg)
{
	struct server *sv = arg;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id, *drop;
	struct sink_flow *f;
	char err[256];
	int ret;

	while (!rdma_get_cm_event(sv->cm.ch, &ev)) {
		id = ev->id;
		drop = NULL;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			ret = server_cm_request(sv, ev, err, sizeof(err));
			if (ret) {
				server_failed(err, sv);
				conn_cm_refuse(id, ret);
				drop = id;
			}
		} else if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			   ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			f = server_flow_by_cm(sv, id);
			if (f) {
				sink_flow_close(&sv->sink, f);
				f->cm_id = NULL;
				drop = id;
			}
		}
		rdma_ack_cm_event(ev);
		if (drop)
			rdma_destroy_id(drop);
	}
}

/* ------------------------------------------------------------------ */
/* Setup, loop, release                                                */
/* ------------------------------------------------------------------ */

int server_setup(struct server *sv, const struct server_cfg *cfg, char *err, size_t errlen)
{
	const struct flow_opts *flow = cfg->flow;
	char why[256], msg[300];
	int ret;

	*sv = (struct server){ .cfg = cfg, .lfd = -1 };
	/* The address first: a wrong --bind is the user's mistake, whatever the device. */
	sv->lfd = conn_listen(cfg->bind, flow->tcp_port, err, errlen);
	if (sv->lfd < 0)
		return sv->lfd;
	ret = verbs_dev_open(&sv->dev, flow->device, flow->ib_port, flow->gid_index, err, errlen);
	if (!ret && flow->pkey_index)
		ret = verbs_dev_use_pkey(&sv->dev, flow->pkey_index, err, errlen);
	/* On a core near the NIC before anything is allocated (first touch). */
	if (!ret && client_pin_worker(flow, sv->dev.ctx, 0, why, sizeof(why)) < 0) {
		snprintf(msg, sizeof(msg), "the server runs unpinned: %s", why);
		server_failed(msg, sv);
	}
	if (!ret)
		ret = sink_init(&sv->sink, &sv->dev, cfg->ring, flow->hugepages, err, errlen);
	if (ret)
		return ret;
	sv->sink.busy_poll = cfg->busy_poll || (!cfg->event && !verbs_dev_is_soft(&sv->dev));
	sv->sink.admit = server_admit;
	sv->sink.admit_arg = sv;
	sv->sink.token = flow_opts_token_of(flow);
	if (flow->rdma_cm)
		ret = conn_cm_listen(&sv->cm, cfg->bind, flow->tcp_port, err, errlen);
	return ret;
}

void server_loop(struct server *sv)
{
	const struct server_cfg *cfg = sv->cfg;
	uint64_t end_ns;
	/* With rdma_cm the TCP listener takes the flows' side connections. */
	struct sink_wait w = { .lfd = sv->lfd,
			       .extra_fd = { cfg->flow->rdma_cm ? sv->cm.ch->fd : -1, -1 },
			       .hello_ms = SERVER_HELLO_MS, .on_accept = server_accepted,
			       .on_close = server_closed, .on_error = server_failed,
			       .on_extra = server_cm_events, .arg = sv };
	uint64_t now;
	int tmo;

	sv->start_ns = server_now_ns();
	end_ns = cfg->duration_s > 0 ? sv->start_ns + (uint64_t)(cfg->duration_s * 1e9) : 0;
	while (!stop_requested()) {
		now = server_now_ns();
		if (end_ns && now >= end_ns)
			break;
		tmo = end_ns ? (int)((end_ns - now) / 1000000 + 1) : 1000;
		w.timeout_ms = tmo > 1000 ? 1000 : tmo;
		if (sink_wait(&sv->sink, &w) < 0)
			break;
	}
}

void server_release(struct server *sv)
{
	size_t i;

	for (i = 0; i < sv->sink.n_flows; i++)
		if (sv->sink.flows[i]->fd >= 0)
			close(sv->sink.flows[i]->fd);
	if (sv->dev.ctx)
		sink_release(&sv->sink);
	if (sv->lfd >= 0)
		close(sv->lfd);
	if (sv->cm.ch)
		conn_cm_close(&sv->cm);
	verbs_dev_close(&sv->dev);
}
