/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The sources' side of a step: each flow's workers, a thread apiece with
 * its lat probe or its bw QPs connected to its destination's sink, run
 * from one start instant through warm-up and the window; then each flow's
 * result (bytes, errors, a lat flow's RTTs) for the coordinator.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "converge/agent_ctl.h"
#include "converge/agent_int.h"
#include "engine/figures.h"
#include "engine/run.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"
#include "base/pin.h"

/* bw's defaults: a window deep enough that a shaped band never runs dry. */
#define AGENT_TX_DEPTH		128
#define AGENT_BATCH		1
#define AGENT_CQ_MOD		16

/* ------------------------------------------------------------------ */
/* Source: setup                                                       */
/* ------------------------------------------------------------------ */

/* A bw worker's QPs, each a flow to the destination's sink. */
static int agent_worker_connect_bw(struct agent_worker *w, const char *dest, uint16_t port,
				   char *err, size_t errlen)
{
	struct agent_flow *f = w->flow;
	struct load_qp *q;
	unsigned i;
	bool huge;
	int ret;

	ret = load_init(&w->load, &w->st->dev, f->spec.qps, AGENT_TX_DEPTH, f->spec.size_bytes,
			false, false, &huge, err, errlen);
	if (ret)
		return ret;
	w->load_ok = true;
	for (i = 0; i < f->spec.qps; i++) {
		q = &w->load.qps[i];
		q->ctl_fd = conn_client_flow(dest, port, &q->qp, &f->path, f->spec.size_bytes,
					     f->secret, AGENT_MSG_MS, err, errlen);
		if (q->ctl_fd < 0)
			return q->ctl_fd;
		/* SENDs, but the run ends with a zero-length WRITE to the sink's
		 * buffer: without it a paced QP's last requests never report. */
		ret = load_qp_ask_mr(q, f->spec.size_bytes, dest, AGENT_MSG_MS, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* The sockets of a worker's flows: one for lat, one per QP for bw. */
static size_t agent_worker_fds(const struct agent_worker *w, int *fds, size_t cap)
{
	size_t n = 0, i;

	if (w->fd >= 0 && n < cap)
		fds[n++] = w->fd;
	for (i = 0; w->load_ok && i < w->load.n_qps && n < cap; i++)
		if (w->load.qps[i].ctl_fd >= 0)
			fds[n++] = w->load.qps[i].ctl_fd;
	return n;
}

/* A lat worker's QPs, connected to the destination's sink. */
static int agent_worker_connect(struct agent_worker *w, const char *dest, uint16_t port,
				char *err, size_t errlen)
{
	struct agent_flow *f = w->flow;
	bool huge;
	int ret;

	if (f->bw)
		return agent_worker_connect_bw(w, dest, port, err, errlen);
	ret = probe_init(&w->probe, &w->st->dev, f->spec.size_bytes, false, &f->path, &huge, err,
			 errlen);
	if (ret)
		return ret;
	w->probe_ok = true;
	w->fd = conn_client_flow(dest, port, &w->probe.wire, &f->path, f->spec.size_bytes,
				 f->secret, AGENT_MSG_MS, err, errlen);
	return w->fd < 0 ? w->fd : 0;
}

static void *agent_worker_main(void *arg);

/* Every worker of every flow: connect, and start its thread, which pins
 * itself and waits for the start; fill the ready message. */
int agent_source_setup(struct agent_step *st, json_t *conns, const char **bad_flow, char *err,
		       size_t errlen)
{
	struct agent_worker *w;
	json_t *c;
	char name[128];
	size_t i, k, n = 0, n_fds;
	int ret, fds[64];
	unsigned t;
	struct pin_saved saved;

	for (i = 0; i < st->n_flows; i++)
		n += st->flows[i].spec.threads;
	st->w = calloc(n ? n : 1, sizeof(*st->w));
	if (!st->w)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	pin_save(&saved);
	for (i = 0; i < st->n_flows; i++) {
		for (t = 0; t < st->flows[i].spec.threads; t++) {
			w = &st->w[st->n_w++];
			*w = (struct agent_worker){ .st = st, .flow = &st->flows[i], .fd = -1 };
			*bad_flow = w->flow->name;
			/* Its queues and buffers are made here, on its own CPU, so
			 * that they land on the NIC's node (first touch). */
			w->cpu = pin_pick_cpu(st->dev.ctx, (int)(w - st->w), err, errlen);
			if (w->cpu >= 0)
				pin_thread(w->cpu, err, errlen);
			ret = agent_worker_connect(w, w->flow->dest, w->flow->dest_port, err,
						   errlen);
			if (ret) {
				pin_restore(&saved);
				return ret;
			}
			n_fds = agent_worker_fds(w, fds, 64);
			for (k = 0; k < n_fds; k++) {
				conn_sock_name(fds[k], name, sizeof(name));
				c = json_object();
				json_object_set_new(c, "flow", json_string(w->flow->name));
				json_object_set_new(c, "local", json_string(name));
				json_array_append_new(conns, c);
			}
		}
	}
	*bad_flow = NULL;
	pin_restore(&saved);
	if (pthread_mutex_init(&st->go_mu, NULL))
		return errbuf_set(err, errlen, -ENOMEM, "cannot make a lock");
	if (pthread_cond_init(&st->go_cv, NULL)) {
		pthread_mutex_destroy(&st->go_mu);
		return errbuf_set(err, errlen, -ENOMEM, "cannot make a condition");
	}
	st->go_init = true;
	for (i = 0; i < st->n_w; i++) {
		ret = pthread_create(&st->w[i].tid, NULL, agent_worker_main, &st->w[i]);
		if (ret)
			return errbuf_set(err, errlen, -ret, "cannot start a worker thread: %s",
					  strerror(ret));
		st->w[i].running = true;
	}
	return 0;
}

void agent_source_release(struct agent_step *st)
{
	struct agent_worker *w;
	int fds[64];
	size_t i, k, n;

	if (st->go_init) {
		pthread_mutex_lock(&st->go_mu);
		st->quit = true;
		pthread_cond_broadcast(&st->go_cv);
		pthread_mutex_unlock(&st->go_mu);
	}
	for (i = 0; i < st->n_w; i++) {
		w = &st->w[i];
		if (w->running)
			pthread_join(w->tid, NULL);
		w->running = false;
	}
	if (st->go_init) {
		pthread_cond_destroy(&st->go_cv);
		pthread_mutex_destroy(&st->go_mu);
		st->go_init = false;
	}
	for (i = 0; i < st->n_w; i++) {
		w = &st->w[i];
		n = agent_worker_fds(w, fds, 64);
		for (k = 0; k < n; k++)
			close(fds[k]);
		if (w->probe_ok)
			probe_release(&w->probe);
		if (w->load_ok)
			load_release(&w->load);
		if (w->res_ok)
			flow_result_release(&w->res);
		for (k = 0; w->bw_res && k < w->flow->spec.qps; k++)
			flow_result_release(&w->bw_res[k]);
		free(w->bw_res);
	}
	free(st->w);
	st->w = NULL;
	st->n_w = 0;
}

/* ------------------------------------------------------------------ */
/* Source: the workers                                                 */
/* ------------------------------------------------------------------ */

static void agent_sleep_until(uint64_t at_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(at_ns / 1000000000u),
			       .tv_nsec = (long)(at_ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Warm-up, then the measured window, on the lat engine. */
static int agent_worker_lat(struct agent_worker *w)
{
	struct agent_step *st = w->st;
	struct probe_cfg cfg = {
		.duration_ticks = clock_ns_to_ticks(&st->clk, (double)st->warmup_ns),
		.ctl_fd = w->fd,
		.peer = w->flow->dest,
		.stop = &st->stop,
		.yield = st->yield,
	};
	struct flow_result warm;
	int ret = 0;

	run_probe_cfg_init(&cfg, w->flow->spec.size_bytes, &st->clk, &w->flow->path);
	if (flow_result_init(&warm, cfg.size_bytes) || flow_result_init(&w->res, cfg.size_bytes))
		return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
	w->res_ok = true;
	if (st->warmup_ns)
		ret = probe_run(&w->probe, &cfg, &warm);
	if (ret)
		memcpy(w->res.error, warm.error, sizeof(w->res.error));
	flow_result_release(&warm);
	if (ret)
		return ret;
	cfg.duration_ticks = clock_ns_to_ticks(&st->clk, (double)st->duration_ns);
	return probe_run(&w->probe, &cfg, &w->res);
}

/*
 * The bw engine for warm-up, window and a tail, in one run: the sink
 * measures the window, and every band stays backlogged across it.
 */
static int agent_worker_bw(struct agent_worker *w)
{
	struct agent_step *st = w->st;
	struct agent_flow *f = w->flow;
	struct load_cfg cfg = {
		.tx_depth = AGENT_TX_DEPTH,
		.batch = AGENT_BATCH,
		.cq_mod = AGENT_CQ_MOD,
		.duration_ticks = clock_ns_to_ticks(&st->clk, (double)(st->warmup_ns +
						    st->duration_ns + AGENT_TAIL_NS)),
		.peer = f->dest,
		.stop = &st->stop,
		.yield = st->yield,
	};
	unsigned i;
	int ret;

	run_load_cfg_init(&cfg, &f->spec, &st->clk, &f->path);
	w->bw_res = calloc(f->spec.qps, sizeof(*w->bw_res));
	if (!w->bw_res)
		return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
	for (i = 0; i < f->spec.qps; i++)
		if (flow_result_init(&w->bw_res[i], f->spec.size_bytes))
			return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
	ret = load_cfg_check(&cfg, w->err, sizeof(w->err));
	if (!ret)
		ret = load_run(&w->load, &cfg, w->bw_res);
	if (ret && !w->err[0])
		snprintf(w->err, sizeof(w->err), "%s", w->bw_res[0].error);
	if (flow_result_init(&w->res, f->spec.size_bytes))
		return ret;
	w->res_ok = true;
	for (i = 0; i < f->spec.qps; i++)
		flow_result_merge(&w->res, &w->bw_res[i]);
	return ret;
}

/*
 * A worker: made at setup, it pins itself there to the CPU its queues
 * were made on (reading the topology is slow on a small host, and must
 * not eat into the lead before the instant), then waits for the start or
 * the step's end.
 */
static void *agent_worker_main(void *arg)
{
	struct agent_worker *w = arg;
	struct agent_step *st = w->st;
	char err[256];
	bool go;
	int cpu;

	cpu = w->cpu;
	if (cpu >= 0)
		pin_thread(cpu, err, sizeof(err));
	pthread_mutex_lock(&st->go_mu);
	while (!st->go && !st->quit)
		pthread_cond_wait(&st->go_cv, &st->go_mu);
	go = st->go;
	pthread_mutex_unlock(&st->go_mu);
	if (go) {
		agent_sleep_until(st->at_ns);
		w->started_ns = ctl_now_ns();
		w->status = w->flow->bw ? agent_worker_bw(w) : agent_worker_lat(w);
		if (w->status && !w->err[0])
			snprintf(w->err, sizeof(w->err), "%s", w->res.error);
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Source: results                                                     */
/* ------------------------------------------------------------------ */

static json_t *agent_flow_result(struct agent_step *st, struct agent_flow *f)
{
	struct flow_result sum;
	json_t *o = json_object(), *rtt;
	const char *error = NULL;
	bool stopped = false, started = true;
	uint64_t late_ns = 0;
	size_t i;

	flow_result_init(&sum, f->spec.size_bytes);
	for (i = 0; i < st->n_w; i++) {
		if (st->w[i].flow != f)
			continue;
		started = started && st->w[i].started_ns;
		if (st->w[i].started_ns > st->at_ns + late_ns)
			late_ns = st->w[i].started_ns - st->at_ns;
		if (st->w[i].res_ok)
			flow_result_merge(&sum, &st->w[i].res);
		if (st->w[i].status && !error) {
			error = st->w[i].err;
			stopped = st->w[i].status == -EINTR;
		}
	}
	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "type", json_string(f->bw ? "bw" : "lat"));
	json_object_set_new(o, "samples", json_integer((json_int_t)sum.samples));
	json_object_set_new(o, "msgs", json_integer((json_int_t)sum.msgs));
	json_object_set_new(o, "bytes", json_integer((json_int_t)sum.bytes));
	/* How long its bw workers ran: what its bytes were sent in. */
	if (f->bw)
		json_object_set_new(o, "elapsed_ns", json_integer((json_int_t)
				    figures_ns(&st->clk, (double)sum.elapsed_ticks)));
	if (started)
		json_object_set_new(o, "start_late_ns", json_integer((json_int_t)late_ns));
	/* In ticks with their rate (see ctl.c): exact, whatever this host's clock. */
	if (!f->bw && (rtt = hist_wire_pack(sum.rtt))) {
		json_object_set_new(o, "rtt", rtt);
		json_object_set_new(o, "ticks_per_ns", json_real(st->clk.ticks_per_ns));
	}
	/* Stopped by the coordinator or a signal: say why, not just "interrupted". */
	if (error && stopped && st->stop_reason[0])
		json_object_set_new(o, "error", json_sprintf("stopped: %s", st->stop_reason));
	else if (error)
		json_object_set_new(o, "error", json_string(error));
	flow_result_release(&sum);
	return o;
}

/* ------------------------------------------------------------------ */
/* Source: the step                                                    */
/* ------------------------------------------------------------------ */

void agent_source_start(struct agent_step *st)
{
	if (!st->go_init)
		return;
	pthread_mutex_lock(&st->go_mu);
	st->go = true;
	pthread_cond_broadcast(&st->go_cv);
	pthread_mutex_unlock(&st->go_mu);
}

bool agent_source_reap(struct agent_step *st)
{
	size_t i, done = 0;

	for (i = 0; i < st->n_w; i++) {
		if (st->w[i].running && __atomic_load_n(&st->w[i].done, __ATOMIC_ACQUIRE)) {
			pthread_join(st->w[i].tid, NULL);
			st->w[i].running = false;
		}
		done += !st->w[i].running;
	}
	return done == st->n_w;
}

json_t *agent_source_results(struct agent_step *st)
{
	json_t *flows = json_array();
	size_t i;

	for (i = 0; i < st->n_flows; i++)
		json_array_append_new(flows, agent_flow_result(st, &st->flows[i]));
	return flows;
}
