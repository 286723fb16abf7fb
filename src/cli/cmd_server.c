/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server: the passive side. Any number of clients at once, one RC
 * QP per client flow, RECVs kept posted, nothing ever sent back in
 * software. It counts messages and bytes per flow and per SL, and prints
 * them when it stops (SIGINT, SIGTERM or --duration). A client that goes
 * away only closes its flow.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/report_server.h"
#include "engine/flow_opts.h"
#include "engine/server.h"

struct server_opts {
	struct flow_opts flow;		/* -d -i -x -p --json --rdma-cm --hugepages */
	const char *bind;		/* NULL: every address */
	unsigned max_clients;
	size_t max_client_bytes;
	double duration_s;		/* 0: until stopped */
	uint32_t ring;			/* 0: sink_ring_default() */
	bool event, busy_poll;		/* neither: busy poll unless the NIC is software */
};

static const struct opts_entry server_opts_table[] = {
	OPT_INCLUDE(struct server_opts, flow, flow_opts_listen_table),
	OPT_STRING('b', "bind", "ADDR", "listen on this address only, IPv4 or IPv6\n"
		   "(TCP and rdma_cm; default: every address)", struct server_opts, bind),
	OPT_UINT(0, "max-clients", "N", "refuse a flow from a new address while N\n"
		 "addresses have flows open (default 16)", struct server_opts, max_clients, 1,
		 65536),
	OPT_VALUE(OPTS_BYTES, 0, "max-pinned", "SIZE", "refuse a flow that would make its\n"
		  "address's open flows pin more than SIZE\n(buffers and rings; default 1g)",
		  struct server_opts, max_client_bytes, 4096, 1ull << 40),
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
	o->max_clients = SERVER_MAX_CLIENTS;
	o->max_client_bytes = SERVER_CLIENT_BYTES;
	ret = opts_parse(server_opts_table, o, argc, argv, &arg, 1, &n, err, errlen);
	if (!ret && n)
		return errbuf_set(err, errlen, -EINVAL, "unexpected argument '%s'", arg);
	if (!ret && o->event && o->busy_poll)
		return errbuf_set(err, errlen, -EINVAL, "give --event or --busy-poll, not both");
	return ret ? ret : flow_opts_token(&o->flow, err, errlen);
}

/* ------------------------------------------------------------------ */
/* What the server tells as it goes                                    */
/* ------------------------------------------------------------------ */

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

/* A flow came over rdma_cm (engine/server.c accepted it). */
static void server_on_cm_accept(struct sink_flow *f, void *arg)
{
	(void)arg;
	log_info("flow %u over rdma_cm from %s: SL %u, tclass %u", f->id, f->client_ip,
		 f->path.sl, f->path.tclass);
}

/* ------------------------------------------------------------------ */
/* Running                                                             */
/* ------------------------------------------------------------------ */

static int server_report(const struct server *sv)
{
	double elapsed_s = (double)(server_now_ns() - sv->start_ns) / 1e9;
	const char *path = sv->cfg->flow->json_path;
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

static int server_run(void *p)
{
	struct server_opts *o = p;
	struct server_cfg cfg = {
		.flow = &o->flow, .bind = o->bind, .duration_s = o->duration_s, .ring = o->ring,
		.caps = { .max_clients = o->max_clients, .max_client_bytes = o->max_client_bytes },
		.event = o->event, .busy_poll = o->busy_poll,
		.on_accept = server_on_accept, .on_cm_accept = server_on_cm_accept,
		.on_close = server_on_close, .on_error = server_on_error,
	};
	struct server sv;
	char err[256];
	int ret;

	/* Before the run: a missing directory must not cost the results. */
	if (o->flow.json_path && jsonfile_check(o->flow.json_path, err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	srand48(getpid() ^ (long)server_now_ns());
	ret = server_setup(&sv, &cfg, err, sizeof(err));
	if (ret) {
		cmd_error(ret, err);
		server_release(&sv);
		return cmd_failed_json(o->flow.json_path, "server", err,
				       ret == -ENODEV || ret == -EINVAL || ret == -EADDRNOTAVAIL ?
				       RPERF_EXIT_USAGE : RPERF_EXIT_FAILURE);
	}
	stop_install();
	log_info("listening on %s port %u (%s), %s port %u, %u RECVs a flow, %s, %s",
		 o->bind ? o->bind : "*", o->flow.tcp_port,
		 o->flow.rdma_cm ? "rdma_cm" : "tcp", sv.dev.name, sv.dev.port,
		 sv.sink.ring_depth, sv.sink.busy_poll ? "busy-polling" : "waiting for events",
		 sv.sink.token ? "clients must prove the token" : "no token: any client");
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
