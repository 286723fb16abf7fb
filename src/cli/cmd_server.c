/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server: the passive side. Any number of clients at once, one RC
 * QP per client flow, RECVs kept posted, nothing ever sent back in
 * software. It counts messages and bytes per flow and per SL, and prints
 * them when it stops (SIGINT, SIGTERM or --duration). A client that goes
 * away only closes its flow.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/report.h"
#include "engine/client.h"
#include "engine/flow_opts.h"
#include "engine/sink.h"

#define SERVER_HELLO_MS 5000

struct server_opts {
	struct flow_opts flow;		/* -d -i -x -p --json --rdma-cm --hugepages */
	double duration_s;		/* 0: until stopped */
	uint32_t ring;			/* 0: sink_ring_default() */
	bool event, busy_poll;		/* neither: busy poll unless the NIC is software */
};

struct server {
	const struct server_opts *o;
	struct verbs_dev dev;
	struct sink sink;
	int lfd;
	struct conn_cm cm;
	uint64_t start_ns;
};

static const struct opts_entry server_opts_table[] = {
	OPT_INCLUDE(struct server_opts, flow, flow_opts_listen_table),
	OPT_VALUE(OPTS_SECONDS, 'D', "duration", "TIME",
		  "stop after this long (default: until SIGINT/SIGTERM)", struct server_opts,
		  duration_s, 0, 1000000ull * 1000000000ull),
	OPT_UINT(0, "ring", "N", "RECVs kept posted per flow (default: the port's rate\n"
		 "of 64-byte messages for 50 us, at least 512)", struct server_opts, ring, 1,
		 65536),
	OPT_FLAG(0, "event", "sleep on completion events (default on software NICs\n"
		 "such as Soft-RoCE)", struct server_opts, event),
	OPT_FLAG(0, "busy-poll", "poll the receive CQs without sleeping (default on\n"
		 "hardware NICs)", struct server_opts, busy_poll),
	OPT_END(),
};

static const struct opts_usage server_opts_usage = {
	.cmd = "server",
	.args = "",
	.about = "Accept rperf clients, keep RECVs posted for each flow, count what arrives;\n"
		 "-p is the TCP / rdma_cm port to listen on, --json gets the counts on exit.",
	.table = server_opts_table,
	.more = "Times take ns, us, ms, s, m or min (bare: seconds).",
};

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

/* The command line into @o: 0, OPTS_HELP, or -EINVAL with the reason. */
static int server_opts_parse(int argc, char **argv, void *p, char *err, size_t errlen)
{
	struct server_opts *o = p;
	const char *arg;
	int n, ret;

	memset(o, 0, sizeof(*o));
	flow_opts_defaults(&o->flow);
	ret = opts_parse(server_opts_table, o, argc, argv, &arg, 1, &n, err, errlen);
	if (!ret && n)
		return errbuf_set(err, errlen, -EINVAL, "unexpected argument '%s'", arg);
	if (!ret && o->event && o->busy_poll)
		return errbuf_set(err, errlen, -EINVAL, "give --event or --busy-poll, not both");
	return ret;
}

/* ------------------------------------------------------------------ */
/* Flows over TCP                                                      */
/* ------------------------------------------------------------------ */

static uint64_t server_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A flow came (engine/sink.c accepted it): say so. */
static void server_on_accept(struct sink_flow *f, void *arg)
{
	(void)arg;
	if (f->cm_id) {
		log_info("flow %u: its client asks for counters over TCP", f->id);
		return;
	}
	log_info("flow %u from %s: SL %u, tclass %u, up to %zu bytes", f->id, f->peer,
		 f->path.sl, f->path.tclass, f->buf_bytes);
}

/* A flow's client closed its socket: the flow's counts. */
static void server_on_close(struct sink_flow *f, void *arg)
{
	(void)arg;
	log_info("flow %u from %s closed: %llu messages, %llu bytes", f->id, f->peer,
		 (unsigned long long)f->msgs, (unsigned long long)f->bytes);
}

static void server_on_error(const char *err, void *arg)
{
	(void)arg;
	log_warn("%s", err);
}

/* ------------------------------------------------------------------ */
/* Flows over rdma_cm                                                  */
/* ------------------------------------------------------------------ */

static int server_cm_request(struct server *sv, struct rdma_cm_event *ev, char *err,
			     size_t errlen)
{
	struct conn_hello h, reply = { .kind = CONN_HELLO_SERVER };
	uint8_t frame[CONN_HELLO_BYTES] = { 0 };
	struct sink_flow *f = NULL;
	char peer[64];
	int ret;

	if (ev->param.conn.private_data_len >= CONN_HELLO_REQ_BYTES)
		memcpy(frame, ev->param.conn.private_data, CONN_HELLO_REQ_BYTES);
	if (ev->param.conn.private_data_len < CONN_HELLO_REQ_BYTES ||
	    conn_hello_unpack(frame, &h) || h.kind != CONN_HELLO_CLIENT)
		return errbuf_set(err, errlen, -EPROTO, "rdma_cm request without an rperf hello");
	if (strcmp(ibv_get_device_name(ev->id->verbs->device), sv->dev.name) ||
	    ev->id->port_num != sv->dev.port)
		return errbuf_set(err, errlen, -ENODEV, "rdma_cm request arrived on %s port %u",
				  ibv_get_device_name(ev->id->verbs->device), ev->id->port_num);
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
	log_info("flow %u over rdma_cm from %s: SL %u, tclass %u", f->id, f->client_ip, h.path.sl,
		 h.path.tclass);
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

	while (!rdma_get_cm_event(sv->cm.ch, &ev)) {
		id = ev->id;
		drop = NULL;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			if (server_cm_request(sv, ev, err, sizeof(err))) {
				log_warn("%s", err);
				rdma_reject(id, NULL, 0);
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
/* Main loop                                                           */
/* ------------------------------------------------------------------ */

/* Serve the flows until a stop, or --duration. */
static void server_loop(struct server *sv)
{
	uint64_t end_ns = sv->o->duration_s > 0 ? sv->start_ns + (uint64_t)(sv->o->duration_s * 1e9) : 0;
	/* With rdma_cm the TCP listener takes the flows' side connections. */
	struct sink_wait w = { .lfd = sv->lfd, .extra_fd = { sv->o->flow.rdma_cm ? sv->cm.ch->fd : -1, -1 },
			       .hello_ms = SERVER_HELLO_MS, .on_accept = server_on_accept,
			       .on_close = server_on_close, .on_error = server_on_error,
			       .on_extra = server_cm_events, .arg = sv };
	uint64_t now;
	int tmo;

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

static int server_setup(struct server *sv, char *err, size_t errlen)
{
	const struct server_opts *o = sv->o;
	int ret;

	ret = verbs_dev_open(&sv->dev, o->flow.device, o->flow.ib_port, o->flow.gid_index, err, errlen);
	if (!ret && o->flow.pkey_index)
		ret = verbs_dev_use_pkey(&sv->dev, o->flow.pkey_index, err, errlen);
	/* On a core near the NIC before anything is allocated (first touch). */
	if (!ret && client_pin_worker(&o->flow, sv->dev.ctx, 0, err, errlen) < 0)
		log_warn("the server runs unpinned: %s", err);
	if (!ret)
		ret = sink_init(&sv->sink, &sv->dev, o->ring, o->flow.hugepages, err, errlen);
	if (ret)
		return ret;
	sv->sink.busy_poll = o->busy_poll || (!o->event && !verbs_dev_is_soft(&sv->dev));
	sv->lfd = conn_listen(o->flow.tcp_port, err, errlen);
	ret = sv->lfd < 0 ? sv->lfd : 0;
	if (!ret && o->flow.rdma_cm)
		ret = conn_cm_listen(&sv->cm, o->flow.tcp_port, err, errlen);
	if (ret)
		return ret;
	stop_install();
	log_info("listening on port %u (%s), %s port %u, %u RECVs a flow, %s", o->flow.tcp_port,
		 o->flow.rdma_cm ? "rdma_cm" : "tcp", sv->dev.name, sv->dev.port,
		 sv->sink.ring_depth, sv->sink.busy_poll ? "busy-polling" : "waiting for events");
	return 0;
}

static int server_report(struct server *sv)
{
	double elapsed_s = (double)(server_now_ns() - sv->start_ns) / 1e9;
	const char *path = sv->o->flow.json_path;
	char err[256];
	json_t *doc;
	int ret = 0;

	if (!path || strcmp(path, "-"))
		report_server_table(stdout, &sv->sink, elapsed_s);
	if (path) {
		doc = report_server_json(&sv->sink, elapsed_s);
		ret = jsonfile_write(doc, path, err, sizeof(err));
		json_decref(doc);
		if (ret)
			log_error("%s", err);
	}
	fflush(stdout);
	return ret;
}

static void server_release(struct server *sv)
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

static int server_run(void *p)
{
	struct server_opts *o = p;
	struct server sv = { .o = o, .lfd = -1 };
	char err[256];
	int ret;

	/* Before the run: a missing directory must not cost the results. */
	if (o->flow.json_path && jsonfile_check(o->flow.json_path, err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	srand48(getpid() ^ (long)server_now_ns());
	ret = server_setup(&sv, err, sizeof(err));
	if (ret) {
		log_error("%s", err);
		server_release(&sv);
		return cmd_failed_json(o->flow.json_path, "server", err,
				       ret == -ENODEV || ret == -EINVAL ? RPERF_EXIT_USAGE :
									  RPERF_EXIT_FAILURE);
	}
	sv.start_ns = server_now_ns();
	server_loop(&sv);
	ret = server_report(&sv);
	server_release(&sv);
	return ret ? RPERF_EXIT_FAILURE : RPERF_EXIT_OK;
}

const struct cmd_def cmd_server = {
	.usage = &server_opts_usage,
	.opts_size = sizeof(struct server_opts),
	.parse = server_opts_parse,
	.run = server_run,
};
