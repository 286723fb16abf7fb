/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The source run (run.h): one flow's workers on a borrowed device, each
 * a thread with its lat probe or its bw QPs, connected by the caller's
 * hook up front and started by a gate at one instant, through a timed
 * warm-up and the window. Their threads start, and their probe or load
 * runs, as the lat and bw runs' do (run_int.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "base/pin.h"
#include "engine/run_int.h"

struct run_src_worker {
	struct run_worker base;		/* first: run_workers_start() */
	struct run_src *run;
	struct probe probe;
	bool probe_ok;
	int fd;				/* lat: the probe's control socket */
	struct load load;
	bool load_ok;
	struct flow_result *bw_res;	/* bw: one per QP */
	bool running;			/* its thread is to be joined */
	int done;			/* set by the thread as it ends (atomic) */
	struct flow_result res;
	bool res_ok;
	uint64_t started_ns;		/* when it began, after the instant; 0: never */
};

/* ------------------------------------------------------------------ */
/* The gate                                                            */
/* ------------------------------------------------------------------ */

int run_gate_init(struct run_gate *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	if (pthread_mutex_init(&g->mu, NULL))
		return errbuf_set(err, errlen, -ENOMEM, "cannot make a lock");
	if (pthread_cond_init(&g->cv, NULL)) {
		pthread_mutex_destroy(&g->mu);
		return errbuf_set(err, errlen, -ENOMEM, "cannot make a condition");
	}
	g->init = true;
	return 0;
}

/* Set @flag (go or quit) under the gate's lock and wake the workers. */
static void run_gate_set(struct run_gate *g, bool *flag)
{
	if (!g->init)
		return;
	pthread_mutex_lock(&g->mu);
	*flag = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

void run_gate_open(struct run_gate *g, uint64_t at_ns, uint64_t warmup_ns,
		   uint64_t duration_ns)
{
	if (!g->init)
		return;
	pthread_mutex_lock(&g->mu);
	g->at_ns = at_ns;
	g->warmup_ns = warmup_ns;
	g->duration_ns = duration_ns;
	pthread_mutex_unlock(&g->mu);
	run_gate_set(g, &g->go);
}

void run_gate_quit(struct run_gate *g)
{
	run_gate_set(g, &g->quit);
}

void run_gate_destroy(struct run_gate *g)
{
	if (!g->init)
		return;
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	g->init = false;
}

/* Wait for the gate: true to run (the window then in @g), false to end. */
static bool run_gate_wait(struct run_gate *g)
{
	bool go;

	pthread_mutex_lock(&g->mu);
	while (!g->go && !g->quit)
		pthread_cond_wait(&g->cv, &g->mu);
	go = g->go;
	pthread_mutex_unlock(&g->mu);
	return go;
}

static uint64_t run_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Slices of the sleep to the instant: a stop or a quit is seen within one. */
#define RUN_SLEEP_SLICE_NS	50000000u

void run_gate_sleep(struct run_gate *g, volatile sig_atomic_t *stop)
{
	uint64_t at_ns = g->at_ns, t;
	struct timespec ts;

	for (;;) {
		if ((stop && *stop) || __atomic_load_n(&g->quit, __ATOMIC_RELAXED))
			return;
		t = run_now_ns();
		if (t >= at_ns)
			return;
		t = at_ns - t > RUN_SLEEP_SLICE_NS ? t + RUN_SLEEP_SLICE_NS : at_ns;
		ts = (struct timespec){ .tv_sec = (time_t)(t / 1000000000u),
					.tv_nsec = (long)(t % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

/* Worker @w's engine, then the caller's connection of it. */
static int run_src_connect(struct run_src_worker *w, char *err, size_t errlen)
{
	const struct run_src_cfg *o = w->run->cfg;
	bool huge;
	int ret;

	if (o->bw) {
		ret = load_init(&w->load, o->dev, o->spec->qps, o->tx_depth, o->spec->size_bytes,
				false, false, &huge, err, errlen);
		if (ret)
			return ret;
		w->load_ok = true;
		return o->connect(o->arg, NULL, &w->load, err, errlen);
	}
	ret = probe_init(&w->probe, o->dev, o->spec->size_bytes, false, false, o->path, &huge, err,
			 errlen);
	if (ret)
		return ret;
	w->probe_ok = true;
	w->fd = o->connect(o->arg, &w->probe, NULL, err, errlen);
	return w->fd < 0 ? w->fd : 0;
}

int run_src_prepare(struct run_src *r, const struct run_src_cfg *cfg, char *err, size_t errlen)
{
	struct run_src_worker *w;
	struct pin_saved saved;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->w = calloc(cfg->spec->threads ? cfg->spec->threads : 1, sizeof(*r->w));
	if (!r->w)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	pin_save(&saved);
	while (!ret && r->n_w < cfg->spec->threads) {
		w = &r->w[r->n_w];
		*w = (struct run_src_worker){ .run = r, .fd = -1, .base.index = r->n_w++ };
		/* Its queues and buffers are made here, on its own CPU, so
		 * that they land on the NIC's node (first touch). */
		w->base.cpu = pin_pick_cpu(cfg->dev->ctx, cfg->first_cpu + (int)w->base.index, err,
					   errlen);
		if (w->base.cpu >= 0)
			pin_thread(w->base.cpu, err, errlen);
		ret = run_src_connect(w, err, errlen);
	}
	pin_restore(&saved);
	return ret;
}

size_t run_src_fds(const struct run_src *r, int *fds, size_t cap)
{
	const struct run_src_worker *w;
	size_t n = 0, i;
	unsigned k;

	for (k = 0; k < r->n_w; k++) {
		w = &r->w[k];
		if (w->fd >= 0 && n < cap)
			fds[n++] = w->fd;
		for (i = 0; w->load_ok && i < w->load.n_qps && n < cap; i++)
			if (w->load.qps[i].ctl_fd >= 0)
				fds[n++] = w->load.qps[i].ctl_fd;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* The workers                                                         */
/* ------------------------------------------------------------------ */

/* Warm-up, then the measured window, on the lat probe; each the lat
 * body. 0 or -errno with w->base.err. A source reads no retransmission
 * counters (the bodies' @dev NULL): its caller counts its host's over
 * the whole run, and a read (a millisecond on a slow host) would only
 * push the window past the instant. */
static int run_src_lat(struct run_src_worker *w, const struct run_gate *g)
{
	const struct run_src_cfg *o = w->run->cfg;
	struct probe_cfg cfg = {
		.duration_ticks = clock_ns_to_ticks(o->clk, (double)g->warmup_ns),
		.ctl_fd = w->fd,
		.peer = o->peer,
		.stop = o->stop,
		.yield = o->yield,
	};
	struct flow_result warm;
	int ret = 0;

	run_probe_cfg_init(&cfg, o->spec->size_bytes, o->clk, o->path);
	if (flow_result_init(&w->res, cfg.size_bytes))
		return errbuf_set(w->base.err, sizeof(w->base.err), -ENOMEM, "out of memory");
	w->res_ok = true;
	if (g->warmup_ns) {
		if (flow_result_init(&warm, cfg.size_bytes))
			return errbuf_set(w->base.err, sizeof(w->base.err), -ENOMEM,
					  "out of memory");
		ret = run_lat_body(&w->base, NULL, &w->probe, &cfg, &warm);
		flow_result_release(&warm);
	}
	if (ret)
		return ret;
	cfg.duration_ticks = clock_ns_to_ticks(o->clk, (double)g->duration_ns);
	return run_lat_body(&w->base, NULL, &w->probe, &cfg, &w->res);
}

/*
 * The load for warm-up, window and the tail, in one run of the bw body:
 * the receiver measures the window, and every QP stays backlogged
 * across it. The QPs' results merged into w->res; 0 or -errno with
 * w->base.err.
 */
static int run_src_bw(struct run_src_worker *w, const struct run_gate *g)
{
	const struct run_src_cfg *o = w->run->cfg;
	struct load_cfg cfg = {
		.tx_depth = o->tx_depth,
		.batch = o->batch,
		.cq_mod = o->cq_mod,
		.duration_ticks = clock_ns_to_ticks(o->clk, (double)(g->warmup_ns +
						    g->duration_ns + o->tail_ns)),
		.peer = o->peer,
		.stop = o->stop,
		.yield = o->yield,
	};
	char *err = w->base.err;
	unsigned i, qps = o->spec->qps;
	int ret;

	run_load_cfg_init(&cfg, o->spec, o->clk, o->path);
	w->bw_res = calloc(qps, sizeof(*w->bw_res));
	if (!w->bw_res)
		return errbuf_set(err, sizeof(w->base.err), -ENOMEM, "out of memory");
	for (i = 0; i < qps; i++)
		if (flow_result_init(&w->bw_res[i], o->spec->size_bytes))
			return errbuf_set(err, sizeof(w->base.err), -ENOMEM, "out of memory");
	ret = run_bw_body(&w->base, NULL, &w->load, &cfg, w->bw_res);
	if (flow_result_init(&w->res, o->spec->size_bytes))
		return ret ? ret : errbuf_set(err, sizeof(w->base.err), -ENOMEM, "out of memory");
	w->res_ok = true;
	for (i = 0; i < qps; i++)
		flow_result_merge(&w->res, &w->bw_res[i]);
	return ret;
}

/*
 * A worker's thread: it pins itself to the CPU its queues were made on
 * (reading the topology is slow on a small host, and must not eat into
 * the lead before the instant), then waits for the gate.
 */
static void *run_src_main(void *arg)
{
	struct run_src_worker *w = arg;
	struct run_gate *g = w->run->cfg->gate;
	char err[256];

	if (w->base.cpu >= 0)
		pin_thread(w->base.cpu, err, sizeof(err));
	if (run_gate_wait(g)) {
		run_gate_sleep(g, w->run->cfg->stop);
		w->started_ns = run_now_ns();
		w->base.status = w->run->cfg->bw ? run_src_bw(w, g) : run_src_lat(w, g);
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int run_src_launch(struct run_src *r, char *err, size_t errlen)
{
	unsigned i, started;

	/* Not a stop request on a thread that cannot start: the process
	 * serves on, and the caller ends the step. */
	started = run_workers_start(r->w, sizeof(*r->w), r->n_w, run_src_main);
	for (i = 0; i < started; i++)
		r->w[i].running = true;
	if (started == r->n_w)
		return 0;
	return errbuf_set(err, errlen, r->w[started].base.status,
			  "cannot start a worker thread: %s", strerror(-r->w[started].base.status));
}

/* ------------------------------------------------------------------ */
/* The end                                                             */
/* ------------------------------------------------------------------ */

bool run_src_reap(struct run_src *r)
{
	unsigned i, done = 0;

	for (i = 0; i < r->n_w; i++) {
		if (r->w[i].running && __atomic_load_n(&r->w[i].done, __ATOMIC_ACQUIRE)) {
			pthread_join(r->w[i].base.tid, NULL);
			r->w[i].running = false;
		}
		done += !r->w[i].running;
	}
	return done == r->n_w;
}

void run_src_finish(struct run_src *r)
{
	const struct run_src_worker *w;
	uint64_t at_ns = r->cfg->gate->at_ns;
	unsigned i;

	if (r->total_ok)
		return;
	flow_result_init(&r->total, r->cfg->spec->size_bytes);
	r->total_ok = true;
	r->started = true;
	for (i = 0; i < r->n_w; i++) {
		w = &r->w[i];
		r->started = r->started && w->started_ns;
		if (w->started_ns > at_ns + r->late_ns)
			r->late_ns = w->started_ns - at_ns;
		if (w->res_ok)
			flow_result_merge(&r->total, &w->res);
		if (w->base.status && !r->error) {
			r->error = w->base.err;
			r->stopped = w->base.status == -EINTR;
		}
	}
}

/* Worker @w's sockets, engines and results. */
static void run_src_worker_release(struct run_src_worker *w)
{
	int fds[FLOW_MAX_QPS + 1];
	size_t i, n;
	struct run_src one = { .w = w, .n_w = 1 };

	n = run_src_fds(&one, fds, sizeof(fds) / sizeof(fds[0]));
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (w->probe_ok)
		probe_release(&w->probe);
	if (w->load_ok)
		load_release(&w->load);
	if (w->res_ok)
		flow_result_release(&w->res);
	for (i = 0; w->bw_res && i < w->run->cfg->spec->qps; i++)
		flow_result_release(&w->bw_res[i]);
	free(w->bw_res);
}

void run_src_release(struct run_src *r)
{
	unsigned i;

	for (i = 0; i < r->n_w; i++) {
		if (r->w[i].running)
			pthread_join(r->w[i].base.tid, NULL);
		r->w[i].running = false;
	}
	for (i = 0; i < r->n_w; i++)
		run_src_worker_release(&r->w[i]);
	if (r->total_ok)
		flow_result_release(&r->total);
	free(r->w);
	memset(r, 0, sizeof(*r));
}
