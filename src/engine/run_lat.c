/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The lat run (run.h): each worker thread is pinned near the NIC, has its
 * own wire QP (one server flow) and loopback pair, and runs every size in
 * turn; results are merged per size after join and judged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/hist.h"
#include "base/stop.h"
#include "engine/client.h"
#include "flow/figures.h"
#include "rdma/conn.h"
#include "engine/run_int.h"

struct run_lat_worker {
	struct run_worker base;		/* first: its crew's */
	struct run_lat *run;
	struct flow_result res[RUN_MAX_SIZES];
	size_t n_res;			/* initialized results, the last maybe partial */
	size_t size_bytes;		/* the size it runs now */
	/* on_progress: when it next looks (0: at its first sample), and its
	 * last copy of the size it runs (under run->progress_mu) */
	uint64_t next_look_ticks;
	struct flow_result copy;
	size_t copy_k;			/* the size @copy is of */
};

/* Worker @w's copy of size @k as it stands, and, from the first worker,
 * every worker's copy of it summed for on_progress (a copy of another
 * size is left out). */
static void run_lat_progress(struct run_lat_worker *w, size_t k)
{
	struct run_lat *r = w->run;
	unsigned i, nw = r->cfg->flow->spec.threads;
	bool first = w == &r->w[0];

	pthread_mutex_lock(&r->progress_mu);
	flow_result_release(&w->copy);
	if (!flow_result_init(&w->copy, r->sizes[k]))
		flow_result_merge(&w->copy, &w->res[k]);
	w->copy_k = k;
	if (first) {
		flow_result_release(&r->sofar);
		flow_result_init(&r->sofar, r->sizes[k]);
		for (i = 0; i < nw && r->sofar.rtt; i++)
			if (r->w[i].copy.rtt && r->w[i].copy_k == k)
				flow_result_merge(&r->sofar, &r->w[i].copy);
	}
	pthread_mutex_unlock(&r->progress_mu);
	if (first && r->sofar.rtt)
		r->cfg->on_progress(r->cfg->arg, k, &r->sofar);
}

/* The probe's sample callback: the worker's sample, to the caller's; its
 * look at the size so far when it is time. */
static void run_lat_sample(void *arg, const struct probe_sample *s)
{
	struct run_lat_worker *w = arg;
	const struct run_lat_cfg *cfg = w->run->cfg;

	if (cfg->on_sample)
		cfg->on_sample(cfg->arg, w->base.index, w->size_bytes, s);
	if (!w->run->progress_ticks || s->warmup)
		return;
	if (!w->next_look_ticks) {
		w->next_look_ticks = s->t_p + w->run->progress_ticks;
	} else if (s->t_p >= w->next_look_ticks) {
		w->next_look_ticks = s->t_p + w->run->progress_ticks;
		run_lat_progress(w, w->n_res - 1);
	}
}

static void run_lat_merge_size(struct run_lat *r, size_t k, bool all_ended);

#define RUN_LAT_RX_MS 1000		/* the server answers a counter request within */

/* The probe's rx_trouble: ask the server over the flow's TCP socket what
 * its port counted (it answers with each counter + 1; 0: not counted). */
static int run_lat_rx_trouble(void *arg, struct verbs_rx_trouble *t)
{
	struct conn_msg a;
	int ret = conn_request(*(int *)arg, CONN_MSG_RX, CONN_MSG_RX, &a, RUN_LAT_RX_MS);

	if (ret)
		return ret;
	t->rnr_naks_sent = (int64_t)a.v[0] - 1;
	t->out_of_buffer = (int64_t)a.v[1] - 1;
	return 0;
}

/* Worker @w ended size @k: the last of the workers to end it merges it
 * and gives it to on_size. */
static void run_lat_size_ended(struct run_lat_worker *w, size_t k)
{
	struct run_lat *r = w->run;

	if (!r->cfg->on_size || __atomic_add_fetch(&r->ended[k], 1, __ATOMIC_ACQ_REL) !=
	    r->cfg->flow->spec.threads)
		return;
	run_lat_merge_size(r, k, true);
	r->merged_early[k] = true;
	r->cfg->on_size(r->cfg->arg, k, &r->merged[k]);
}

/* Every size in turn on worker @b's probe; 0 or -errno with its err. */
static int run_lat_run(struct run_worker *b)
{
	struct run_lat_worker *w = (struct run_lat_worker *)b;
	struct run_lat *run = w->run;
	const struct run_lat_cfg *o = run->cfg;
	bool ctl_cm = o->flow->rdma_cm;
	struct probe_cfg cfg = {
		.iterations = o->iterations,
		.duration_ticks = clock_ns_to_ticks(&run->c.clk, o->duration_s * 1e9),
		.warmup = o->warmup,
		.ctl_fd = b->fd,
		.ctl_any_event = ctl_cm,
		.peer = o->flow->host,
		.stop = stop_flag(),
		.yield = o->flow->yield,
		.on_sample = o->on_sample || run->progress_ticks ? run_lat_sample : NULL,
		.arg = w,
		/* rdma_cm has no socket to ask on: the counters stay unknown. */
		.rx_trouble = ctl_cm || b->fd < 0 ? NULL : run_lat_rx_trouble,
		.rx_arg = &b->fd,
	};
	struct flow_result *res;
	size_t k;
	int ret;

	if (run->nic) {
		cfg.nic_mask = run->nic_mask;
		cfg.nic_per_host = figures_tick_ratio(&run->nic_clk, &run->c.clk);
	}
	for (k = 0; k < run->n_sizes; k++) {
		res = &w->res[k];
		if (flow_result_init(res, run->sizes[k]) ||
		    (run->nic && flow_result_init_nic(res)))
			return errbuf_set(b->err, sizeof(b->err), -ENOMEM, "out of memory");
		w->n_res = k + 1;
		w->size_bytes = run->sizes[k];
		w->next_look_ticks = 0;
		run_probe_cfg_init(&cfg, w->size_bytes, &run->c.clk, &run->c.path);
		ret = run_lat_body(b, &cfg, res);
		if (ret)
			return ret;
		run_lat_size_ended(w, k);
	}
	return 0;
}

static int run_lat_init(struct run_worker *b)
{
	struct run_lat *run = ((struct run_lat_worker *)b)->run;

	return run_worker_probe_init(b, run->max_bytes, run->nic, &run->c.path);
}

/* The client's connect: the wire QP to the server, its socket (with
 * rdma_cm, what the probe watches, not ours to close) into b->fd. */
static int run_lat_connect(struct run_worker *b)
{
	struct run_lat *run = ((struct run_lat_worker *)b)->run;
	int ret = client_connect(run->cfg->flow, &run->c.cm0, &b->probe.wire, &run->c.path,
				 run->max_bytes, b->err, sizeof(b->err));

	b->fd = ret >= 0 ? ret : -1;
	return ret < 0 ? ret : 0;
}

static void run_lat_worker_release(struct run_worker *b)
{
	if (((struct run_lat_worker *)b)->run->cfg->flow->rdma_cm)
		b->fd = -1;
	run_worker_engine_release(b);
}

static const struct run_worker_ops run_lat_ops = {
	.init = run_lat_init,
	.connect = run_lat_connect,
	.run = run_lat_run,
	.release = run_lat_worker_release,
};

/* The sizes to run: the sweep or the list, each within the port's limit. */
static int run_lat_pick_sizes(struct run_lat *run, char *err, size_t errlen)
{
	size_t max = verbs_dev_max_msg_bytes(&run->c.dev), k;
	const struct run_lat_cfg *o = run->cfg;

	if (o->all_sizes) {
		run->n_sizes = run_sweep_sizes(max, run->sizes, RUN_MAX_SIZES);
	} else {
		memcpy(run->sizes, o->sizes, o->n_sizes * sizeof(o->sizes[0]));
		run->n_sizes = o->n_sizes;
	}
	for (k = 0; k < run->n_sizes; k++) {
		if (run->sizes[k] > max)
			return errbuf_set(err, errlen, -EMSGSIZE,
					  "size %zu larger than %s port %u allows (%zu bytes)",
					  run->sizes[k], run->c.dev.name, run->c.dev.port, max);
		if (run->sizes[k] > run->max_bytes)
			run->max_bytes = run->sizes[k];
	}
	return 0;
}

int run_lat_prepare(struct run_lat *r, const struct run_lat_cfg *cfg, char *err, size_t errlen)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	ret = run_common_prepare(&r->c, cfg->flow, err, errlen);
	r->nic = cfg->flow->rtt_clock != FLOW_RTT_HOST;
	if (!ret && r->nic)
		ret = verbs_dev_nic_clock(&r->c.dev, &r->nic_clk, &r->nic_mask, err, errlen);
	if (!ret)
		ret = run_lat_pick_sizes(r, err, errlen);
	if (!ret) {
		r->w = calloc(cfg->flow->spec.threads, sizeof(*r->w));
		if (!r->w)
			ret = errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&r->progress_mu, NULL);
	if (!ret && cfg->on_progress && cfg->progress_s > 0)
		r->progress_ticks = clock_ns_to_ticks(&r->c.clk, cfg->progress_s * 1e9);
	return ret;
}

/*
 * Size @k of every worker that has it into r->merged[k]. @all_ended:
 * every worker ended it (on_size, while they run on: their n_res is
 * theirs to write, and not read); else they were joined.
 */
static void run_lat_merge_size(struct run_lat *r, size_t k, bool all_ended)
{
	unsigned i, nw = r->cfg->flow->spec.threads;
	uint64_t retrans = 0;

	flow_result_init(&r->merged[k], r->sizes[k]);
	if (r->nic)
		flow_result_init_nic(&r->merged[k]);
	for (i = 0; i < nw; i++) {
		if (!all_ended && k >= r->w[i].n_res)
			continue;
		flow_result_merge(&r->merged[k], &r->w[i].res[k]);
		/* Port counters: the workers' windows overlap; never add them. */
		retrans = r->w[i].res[k].retrans > retrans ? r->w[i].res[k].retrans : retrans;
	}
	r->merged[k].retrans = retrans;
}

/* Per size, every worker's result into r->merged (those that on_size
 * already had are merged). */
static void run_lat_merge(struct run_lat *r)
{
	unsigned i, nw = r->cfg->flow->spec.threads;
	size_t k;

	for (i = 0; i < nw; i++)
		r->n_merged = r->w[i].n_res > r->n_merged ? r->w[i].n_res : r->n_merged;
	for (k = 0; k < r->n_merged; k++)
		if (!r->merged_early[k])
			run_lat_merge_size(r, k, false);
}

/* The --max-* criteria, per size, on the merged RTTs. */
static void run_lat_judge(struct run_lat *r)
{
	const struct run_lat_cfg *o = r->cfg;
	const struct { const char *name; double pct, limit_s; } want[] = {
		{ "max_p50", 50, o->max_p50_s },
		{ "max_p99", 99, o->max_p99_s },
		{ "max_p99.9", 99.9, o->max_p99_9_s },
	};
	const struct flow_result *res = r->merged;
	struct criterion *c;
	char scope[32];
	size_t i, k;

	for (k = 0; k < r->n_merged; k++) {
		snprintf(scope, sizeof(scope), "size %zu", res[k].size_bytes);
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			if (want[i].limit_s <= 0)
				continue;
			c = criteria_add(&r->crit, want[i].name, CRITERION_MAX, "us",
					 want[i].limit_s * 1e6, scope);
			if (c)
				criterion_judge_rtt(c, res[k].rtt, want[i].pct, &r->c.clk);
		}
	}
}

/* A tick coarser than a tenth of a size's median RTT, said once for the
 * smallest such median (run_int.h). */
void run_lat_tick_check(struct run_lat *r)
{
	const struct clock_cal *clk = &r->c.clk;
	double med_ns, min_ns = 0;
	size_t k, at = 0;

	for (k = 0; k < r->n_merged; k++) {
		if (!r->merged[k].rtt || !r->merged[k].samples)
			continue;
		med_ns = figures_ns(clk, (double)hist_percentile(r->merged[k].rtt, 50));
		if (med_ns > 0 && (!min_ns || med_ns < min_ns)) {
			min_ns = med_ns;
			at = r->merged[k].size_bytes;
		}
	}
	if (clock_tick_coarse(clk, min_ns))
		snprintf(r->c.tick_warning, sizeof(r->c.tick_warning),
			 "the clock's tick (%.3g ns) is coarser than a tenth of the median RTT "
			 "(%.0f ns at %zu bytes): its percentiles move by whole ticks",
			 clock_ns_per_tick(clk), min_ns, at);
}

void run_lat_go(struct run_lat *r)
{
	unsigned i, n = r->cfg->flow->spec.threads;

	for (i = 0; i < n; i++)
		r->w[i].run = r;
	run_crew_go(&r->crew, &run_lat_ops, &r->c, r->w, sizeof(*r->w));
	run_crew_join(&r->crew, &r->c);
	run_lat_merge(r);
	run_lat_judge(r);
	run_lat_tick_check(r);
}

void run_lat_release(struct run_lat *r)
{
	unsigned i;
	size_t k;

	run_crew_release(&r->crew);
	for (i = 0; r->w && i < r->cfg->flow->spec.threads; i++) {
		for (k = 0; k < r->w[i].n_res; k++)
			flow_result_release(&r->w[i].res[k]);
		flow_result_release(&r->w[i].copy);
	}
	flow_result_release(&r->sofar);
	pthread_mutex_destroy(&r->progress_mu);
	for (k = 0; k < r->n_merged; k++)
		flow_result_release(&r->merged[k]);
	free(r->w);
	r->w = NULL;
	run_common_release(&r->c);
}
