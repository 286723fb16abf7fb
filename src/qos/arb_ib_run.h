/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The packet arbiter run for one InfiniBand analysis (arb_ib_run.c), for
 * arb_ib.c and its warnings (arb_ib_warn.c) only: the budget of work the
 * runs share, the context of one analysis, and the steps arb_ib.c
 * composes (a backlogged water-filling, a loaded run, the rows filled).
 */
#ifndef RPERF_QOS_ARB_IB_RUN_H
#define RPERF_QOS_ARB_IB_RUN_H

#include "qos/arb_types.h"
#include "qos/arb_ib_sim.h"
#include "qos/arb_ib_load.h"

/*
 * The work one analysis may spend, so that it is bounded whatever the
 * port's tables hold (`bench/bench_analyze worst` searches for the
 * slowest; under 1 ms backlogged and 50 ms under offered loads on a
 * current server core). Work is the arbiter's steps, the table entries
 * it looks at, its checkpoints and the arrivals it feeds in
 * (arb_sim_out.work, arb_load_out.work).
 *  - The backlogged arbiter's runs share ARB_IB_BUDGET_WORK in the order
 *    they come: a run gets what is left, at most ARB_IB_RUN_WORK and at
 *    least ARB_IB_MIN_WORK; a run that ends without a period states the
 *    bound of its window.
 *  - Under offered loads, each run of the loaded arbiter gets an equal
 *    part of ARB_IB_LOAD_WORK over the runs the analysis makes (its
 *    window shortened to fit; the bound it states grows).
 */
#define ARB_IB_BUDGET_WORK	(1u << 16)
#define ARB_IB_RUN_WORK		(1u << 15)
#define ARB_IB_MIN_WORK		(1u << 11)
#define ARB_IB_LOAD_WORK	(1u << 20)

struct arb_budget {
	uint64_t left;		/* work units */
	struct arb_sim_mem mem;	/* the backlogged runs' */
	unsigned runs, cut;	/* runs, and those that ended without a period */
	uint64_t load_run_work;	/* each loaded run's */
	uint64_t window_min, window_max;	/* loaded runs' windows, packets */
	uint64_t window_first;		/* draw 0's window, of the last reading run */
};

struct arb_ib_ctx {
	const struct arb_config *cfg;
	const struct arb_params *params;
	struct arb_budget *budget;
	struct arb_semantics sem;
	uint32_t packet_bytes[ARB_NUM_VLS];	/* per queue: VL, or SL (dtable) */
	bool exact;
	uint64_t period_packets;		/* of the first run */
	double bound;
	bool gaps;				/* measure the first run's distances */
	bool have_first;
	uint16_t first_queues;
	struct arb_sim_out first;		/* every loaded queue backlogged */
};


/* The work the next backlogged run may spend, and what a run spent. */
uint64_t arb_budget_run(const struct arb_budget *b);
void arb_budget_spend(struct arb_budget *b, const struct arb_sim_out *out);
/* The backlogged arbiter's spec for @queues under ctx->sem and the model. */
void arb_ib_spec(const struct arb_ib_ctx *ctx, uint16_t queues, struct arb_sim_spec *spec);
/* An SL's queue (its VL, or itself for DTable); -1: VL15. */
int arb_ib_queue(const struct arb_config *cfg, const struct arb_params *params, int sl);
/* Whether SL @sl offers traffic. */
bool arb_sl_offers(const struct arb_params *params, int sl);
/* Each queue's packet size for the backlogged arbiter. */
void arb_queue_packet_bytes(const struct arb_config *cfg, const struct arb_params *params,
			    uint32_t packet_bytes[ARB_NUM_VLS]);
/* Whether a queue's SLs that offer traffic send different sizes. */
bool arb_ib_mixed_sizes(const struct arb_config *cfg, const struct arb_params *params);
/* Whether the loaded arbiter, not the backlogged period, gives the long run. */
bool arb_ib_needs_load(const struct arb_config *cfg, const struct arb_params *params);
/* The backlogged arbiter water-filled over the SLs' loads: rate_gbps per SL. */
void arb_ib_waterfill(struct arb_ib_ctx *ctx, double *rate_gbps);
/* The loaded arbiter's spec under @sem (constant gaps, or Poisson). */
void arb_ib_load_spec(const struct arb_config *cfg, const struct arb_params *params,
		      struct arb_semantics sem, bool poisson, struct arb_load_spec *spec);
/* One loaded run within the budget; -EINVAL as arb_load_run. */
int arb_ib_load_run(struct arb_load_spec *spec, struct arb_budget *budget,
		    struct arb_load_out *out);
/* The loaded arbiter over every phase draw: rates, distances; the bound of a share. */
double arb_ib_loaded(const struct arb_config *cfg, const struct arb_params *params,
		     struct arb_semantics sem, bool poisson, struct arb_budget *budget,
		     double *rate_gbps, struct arb_result *res);
/* The per-SL and per-VL rows from the rates (@distances: measure them too). */
void arb_ib_fill(struct arb_ib_ctx *ctx, const double *rate_gbps, bool distances,
		 struct arb_result *res);

#endif
