/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The source run (run.h): one flow's workers on a borrowed device, each
 * a thread with its lat probe or its bw QPs, connected by the caller's
 * hook up front and started by a gate at one instant, through a timed
 * warm-up and the window. Its workers are of the one shape (run_int.h):
 * a crew that keeps them, and their sockets, until released.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "engine/run_int.h"

struct run_src_worker {
	struct run_worker base;		/* first: its crew's */
	struct run_src *run;
	struct flow_result *bw_res;	/* bw: one per QP */
	struct flow_result res;
	bool res_ok;
};

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

int run_src_prepare(struct run_src *r, const struct run_src_cfg *cfg, char *err, size_t errlen)
{
	unsigned i, n = cfg->spec->threads;
	int ret;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->w = calloc(n ? n : 1, sizeof(*r->w));
	if (!r->w)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		r->w[i].run = r;
	r->n_w = n;
	r->crew = (struct run_crew){ .ops = cfg->ops, .dev = cfg->dev, .first_cpu = cfg->first_cpu,
				     .keep = true, .gate = cfg->gate, .stop = cfg->stop,
				     .ws = r->w, .stride = sizeof(*r->w), .n = n };
	ret = run_crew_start(&r->crew, err, errlen);
	return ret ? ret : run_crew_ready(&r->crew, cfg->ready_ms, err, errlen);
}

size_t run_src_fds(const struct run_src *r, int *fds, size_t cap)
{
	const struct run_worker *w;
	size_t n = 0, i;
	unsigned k;

	for (k = 0; k < r->n_w; k++) {
		w = &r->w[k].base;
		if (w->fd >= 0 && n < cap)
			fds[n++] = w->fd;
		for (i = 0; w->load_ok && i < w->load.n_qps && n < cap; i++)
			if (w->load.qps[i].ctl_fd >= 0)
				fds[n++] = w->load.qps[i].ctl_fd;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* The kinds                                                           */
/* ------------------------------------------------------------------ */

static int run_src_lat_init(struct run_worker *b)
{
	const struct run_src_cfg *o = ((struct run_src_worker *)b)->run->cfg;

	return run_worker_probe_init(b, o->spec->size_bytes, false, o->path);
}

/* The caller's connect hook: the probe's wire QP, its socket into b->fd. */
static int run_src_lat_connect(struct run_worker *b)
{
	const struct run_src_cfg *o = ((struct run_src_worker *)b)->run->cfg;
	int fd = o->connect(o->arg, &b->probe, NULL, b->err, sizeof(b->err));

	b->fd = fd >= 0 ? fd : -1;
	return fd < 0 ? fd : 0;
}

static int run_src_bw_init(struct run_worker *b)
{
	const struct run_src_cfg *o = ((struct run_src_worker *)b)->run->cfg;

	return run_worker_load_init(b, o->spec->qps, o->tx_depth, o->spec->size_bytes, false);
}

/* The caller's connect hook: each QP, its ctl_fd set. */
static int run_src_bw_connect(struct run_worker *b)
{
	const struct run_src_cfg *o = ((struct run_src_worker *)b)->run->cfg;

	return o->connect(o->arg, NULL, &b->load, b->err, sizeof(b->err));
}

/* Warm-up, then the measured window, on the lat probe; each the lat
 * body. 0 or -errno with b->err. A source reads no retransmission
 * counters (its crew's counters off): its caller counts its host's over
 * the whole run, and a read (a millisecond on a slow host) would only
 * push the window past the instant. */
static int run_src_lat_run(struct run_worker *b)
{
	struct run_src_worker *w = (struct run_src_worker *)b;
	const struct run_src_cfg *o = w->run->cfg;
	const struct run_gate *g = o->gate;
	struct probe_cfg cfg = {
		.duration_ticks = clock_ns_to_ticks(o->clk, (double)g->warmup_ns),
		.ctl_fd = b->fd,
		.peer = o->peer,
		.stop = o->stop,
		.yield = o->yield,
	};
	struct flow_result warm;
	int ret = 0;

	run_probe_cfg_init(&cfg, o->spec->size_bytes, o->clk, o->path);
	if (flow_result_init(&w->res, cfg.size_bytes))
		return errbuf_set(b->err, sizeof(b->err), -ENOMEM, "out of memory");
	w->res_ok = true;
	if (g->warmup_ns) {
		if (flow_result_init(&warm, cfg.size_bytes))
			return errbuf_set(b->err, sizeof(b->err), -ENOMEM,
					  "out of memory");
		ret = run_lat_body(b, &cfg, &warm);
		flow_result_release(&warm);
	}
	if (ret)
		return ret;
	cfg.duration_ticks = clock_ns_to_ticks(o->clk, (double)g->duration_ns);
	return run_lat_body(b, &cfg, &w->res);
}

/*
 * The load for warm-up, window and the tail, in one run of the bw body:
 * the receiver measures the window, and every QP stays backlogged
 * across it. The QPs' results merged into w->res; 0 or -errno with
 * b->err.
 */
static int run_src_bw_run(struct run_worker *b)
{
	struct run_src_worker *w = (struct run_src_worker *)b;
	const struct run_src_cfg *o = w->run->cfg;
	const struct run_gate *g = o->gate;
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
	char *err = b->err;
	unsigned i, qps = o->spec->qps;
	int ret;

	run_load_cfg_init(&cfg, o->spec, o->clk, o->path);
	w->bw_res = calloc(qps, sizeof(*w->bw_res));
	if (!w->bw_res)
		return errbuf_set(err, sizeof(b->err), -ENOMEM, "out of memory");
	for (i = 0; i < qps; i++)
		if (flow_result_init(&w->bw_res[i], o->spec->size_bytes))
			return errbuf_set(err, sizeof(b->err), -ENOMEM, "out of memory");
	ret = run_bw_body(b, &cfg, w->bw_res);
	if (flow_result_init(&w->res, o->spec->size_bytes))
		return ret ? ret : errbuf_set(err, sizeof(b->err), -ENOMEM, "out of memory");
	w->res_ok = true;
	for (i = 0; i < qps; i++)
		flow_result_merge(&w->res, &w->bw_res[i]);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The end                                                             */
/* ------------------------------------------------------------------ */

bool run_src_reap(struct run_src *r)
{
	return run_crew_reap(&r->crew);
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
		r->started = r->started && w->base.started_ns;
		if (w->base.started_ns > at_ns + r->late_ns)
			r->late_ns = w->base.started_ns - at_ns;
		if (w->res_ok)
			flow_result_merge(&r->total, &w->res);
		if (w->base.status && !r->error) {
			r->error = w->base.err;
			r->stopped = w->base.status == -EINTR;
		}
	}
}

/* Worker @b's sockets, engine and results, after join. */
static void run_src_worker_release(struct run_worker *b)
{
	struct run_src_worker *w = (struct run_src_worker *)b;
	size_t i;

	for (i = 0; b->load_ok && i < b->load.n_qps; i++)
		if (b->load.qps[i].ctl_fd >= 0)
			close(b->load.qps[i].ctl_fd);
	run_worker_engine_release(b);
	if (w->res_ok)
		flow_result_release(&w->res);
	for (i = 0; w->bw_res && i < w->run->cfg->spec->qps; i++)
		flow_result_release(&w->bw_res[i]);
	free(w->bw_res);
}

const struct run_worker_ops run_src_lat_ops = {
	.init = run_src_lat_init,
	.connect = run_src_lat_connect,
	.run = run_src_lat_run,
	.release = run_src_worker_release,
};

const struct run_worker_ops run_src_bw_ops = {
	.init = run_src_bw_init,
	.connect = run_src_bw_connect,
	.run = run_src_bw_run,
	.release = run_src_worker_release,
};

void run_src_release(struct run_src *r)
{
	run_crew_release(&r->crew);
	if (r->total_ok)
		flow_result_release(&r->total);
	free(r->w);
	memset(r, 0, sizeof(*r));
}
