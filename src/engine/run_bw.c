/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The bw run (run.h): each worker thread is pinned near the NIC and
 * drives its QPs (one server flow each) through the load engine; the bw
 * client asks the server at every interval what it received on the
 * worker's flows and adds the workers' snapshots up. The rate is the
 * run's whole, split over the workers' QPs (flow_spec_qp_rate_bps).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/stop.h"
#include "engine/client.h"
#include "flow/figures.h"
#include "engine/load.h"
#include "engine/run_int.h"

struct run_bw_worker {
	struct run_worker base;		/* first: its crew's */
	struct run_bw *run;
	struct bw_client bc;		/* its flows, results and snapshots */
};

static int run_bw_init(struct run_worker *b)
{
	const struct run_bw_cfg *o = ((struct run_bw_worker *)b)->run->cfg;

	return run_worker_load_init(b, o->flow->spec.qps, o->tx_depth, o->flow->spec.size_bytes,
				    o->event);
}

/* The client's connect: each QP to the server, with its results. */
static int run_bw_connect(struct run_worker *b)
{
	struct run_bw_worker *w = (struct run_bw_worker *)b;
	struct run_bw *run = w->run;
	unsigned i;
	int ret;

	ret = bw_client_results_init(&w->bc, b->err, sizeof(b->err));
	/* If one QP cannot connect, the others' partial results still count. */
	for (i = 0; !ret && i < b->load.n_qps; i++) {
		ret = bw_client_connect_qp(&w->bc, i, b->err, sizeof(b->err));
		if (w->bc.rx_error[0] && b->index == 0)
			snprintf(run->rx_warning, sizeof(run->rx_warning), "%s", w->bc.rx_error);
	}
	return ret;
}

/* The load, its intervals to the bw client; 0 or -errno with b->err. */
static int run_bw_run(struct run_worker *b)
{
	struct run_bw_worker *w = (struct run_bw_worker *)b;
	struct run_bw *run = w->run;
	const struct run_bw_cfg *o = run->cfg;
	struct load_cfg cfg = {
		.tx_depth = o->tx_depth,
		.batch = o->batch,
		.cq_mod = o->cq_mod,
		.duration_ticks = clock_ns_to_ticks(&run->c.clk, o->duration_s * 1e9),
		.interval_ticks = clock_ns_to_ticks(&run->c.clk, o->interval_s * 1e9),
		.peer = o->flow->host,
		.stop = stop_flag(),
		.yield = o->flow->yield,
		.event = o->event,
		.on_interval = bw_client_on_interval,
		.arg = &w->bc,
	};

	run_load_cfg_init(&cfg, &o->flow->spec, &run->c.clk, &run->c.path);
	return run_bw_body(b, &cfg, w->bc.res);
}

/* Its sockets and load, then the word to the main thread that it is done. */
static void run_bw_worker_release(struct run_worker *b)
{
	struct run_bw_worker *w = (struct run_bw_worker *)b;

	bw_client_close(&w->bc);
	run_worker_engine_release(b);
	bw_client_finish(&w->bc);
}

static const struct run_worker_ops run_bw_ops = {
	.init = run_bw_init,
	.connect = run_bw_connect,
	.run = run_bw_run,
	.release = run_bw_worker_release,
};

/* The first @n workers' clients, for the bw client's sums. */
static struct bw_client_set run_bw_set(struct run_bw *r, unsigned n, struct bw_client **c)
{
	unsigned i;

	for (i = 0; i < n; i++)
		c[i] = &r->w[i].bc;
	return (struct bw_client_set){ .c = c, .n = n, .interval_s = r->cfg->interval_s,
				       .clk = &r->c.clk };
}

/* The workers, each with its bw client; -ENOMEM. */
static int run_bw_workers(struct run_bw *r, char *err, size_t errlen)
{
	const struct run_bw_cfg *o = r->cfg;
	struct bw_client_cfg cfg = {
		.flow = o->flow,
		.cm = &r->c.cm0,
		.path = r->c.path,
		.size_bytes = o->flow->spec.size_bytes,
		.hw_rate_bps = o->hw_rate_bps,
		.write = o->write,
		.n_qps = o->flow->spec.qps,
		.max_snaps = r->max_snaps,
	};
	unsigned i, n = o->flow->spec.threads;

	r->w = calloc(n, sizeof(*r->w));
	r->iv = calloc(r->max_snaps, sizeof(*r->iv));
	for (i = 0; r->w && r->iv && i < n; i++) {
		if (bw_client_init(&r->w[i].bc, &cfg, &r->w[i].base.load)) {
			while (i--)
				bw_client_release(&r->w[i].bc);
			free(r->w);
			r->w = NULL;
		}
	}
	return r->w && r->iv ? 0 : errbuf_set(err, errlen, -ENOMEM, "out of memory");
}

int run_bw_prepare(struct run_bw *r, const struct run_bw_cfg *cfg, char *err, size_t errlen)
{
	size_t max;
	int ret;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	ret = run_common_prepare(&r->c, cfg->flow, err, errlen);
	if (ret)
		return ret;
	max = verbs_dev_max_msg_bytes(&r->c.dev);
	if (cfg->flow->spec.size_bytes > max)
		return errbuf_set(err, errlen, -EMSGSIZE,
				  "size %zu larger than %s port %u allows (%zu bytes)",
				  cfg->flow->spec.size_bytes, r->c.dev.name, r->c.dev.port, max);
	/* One snapshot per interval, one for the end, one for rounding. */
	r->max_snaps = (size_t)(cfg->duration_s / cfg->interval_s) + 3;
	return run_bw_workers(r, err, errlen);
}

/* --min-gbps on the whole run: what the server received, else what was sent. */
static void run_bw_judge(struct run_bw *r)
{
	const struct flow_result *total = &r->total;
	double s = figures_s(&r->c.clk, (double)total->elapsed_ticks);
	uint64_t bytes = total->rx_valid ? total->rx_bytes : total->bytes;
	struct criterion *c;

	if (!r->cfg->min_bps)
		return;
	c = criteria_add(&r->crit, "min_gbps", CRITERION_MIN, "gbps",
			 (double)r->cfg->min_bps / 1e9,
			 total->rx_valid ? "total received" : "total sent");
	if (c)
		criterion_judge(c, s > 0, s > 0 ? (double)bytes * 8 / s / 1e9 : 0);
}

void run_bw_go(struct run_bw *r)
{
	unsigned i, n = r->cfg->flow->spec.threads;
	struct bw_client *c[FLOW_MAX_THREADS];
	struct bw_client_set set;

	for (i = 0; i < n; i++)
		r->w[i].run = r;
	run_crew_go(&r->crew, &run_bw_ops, &r->c, r->w, sizeof(*r->w));
	set = run_bw_set(r, r->crew.started, c);
	r->n_iv = bw_client_follow(&set, r->iv, r->cfg->on_interval, r->cfg->arg);
	run_crew_join(&r->crew, &r->c);
	set = run_bw_set(r, n, c);
	bw_client_merge(&set, r->cfg->flow->spec.size_bytes, &r->total);
	for (i = 0; i < n; i++)
		if (c[i]->hw_rate_applied_bps && (!r->hw_rate_applied_bps ||
						  c[i]->hw_rate_applied_bps < r->hw_rate_applied_bps))
			r->hw_rate_applied_bps = c[i]->hw_rate_applied_bps;
	r->total_ok = true;
	run_bw_judge(r);
}

void run_bw_release(struct run_bw *r)
{
	unsigned i;

	run_crew_release(&r->crew);
	for (i = 0; r->w && i < r->cfg->flow->spec.threads; i++)
		bw_client_release(&r->w[i].bc);
	free(r->w);
	r->w = NULL;
	free(r->iv);
	r->iv = NULL;
	if (r->total_ok)
		flow_result_release(&r->total);
	run_common_release(&r->c);
}
