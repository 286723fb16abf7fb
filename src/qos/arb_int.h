/*
 * What the arbitration models share and nothing outside them includes:
 * the water-filling of offered loads, the result helpers, and each kind's
 * analysis for the entry point in arb.c. The public API is arb.h.
 */
#ifndef RPERF_ARB_INT_H
#define RPERF_ARB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "qos/arb.h"

#define ARB_MAX_FLOWS	(ARB_NUM_PRIOS + ARB_MAX_BANDS)

/*
 * Flows (SLs, priorities) grouped onto the arbiter's queues (VLs, bands).
 * shares() gives each group's fraction of the link for a backlogged set of
 * groups; flows of one group split its rate equally.
 */
struct arb_wf {
	int n_flows;
	int group[ARB_MAX_FLOWS];		/* -1: dropped, never served */
	double load_gbps[ARB_MAX_FLOWS];	/* < 0: saturating */
	void (*shares)(void *ctx, uint16_t groups, double share[ARB_MAX_BANDS]);
	void *ctx;
};

/*
 * Split @link_gbps between the flows of @wf: flows offering less than
 * their fair share get their load, the rest split what is left by
 * wf->shares(). rate_gbps[f] is 0 for a flow that offers nothing or
 * whose group is -1.
 */
void arb_waterfill(const struct arb_wf *wf, double link_gbps,
		   double rate_gbps[ARB_MAX_FLOWS]);

/* Add a warning to @res; those beyond ARB_MAX_WARNINGS are dropped. */
void __attribute__((format(printf, 2, 3)))
arb_warn(struct arb_result *res, const char *fmt, ...);

/* Fill SL (or priority) @sl's rate and share in @res; returns its entry. */
struct arb_sl_result *arb_fill_sl(struct arb_result *res,
				  const struct arb_params *params,
				  int sl, int vl, double rate_gbps);

/*
 * The analysis of one kind of port, into @res set up by arb_analyze().
 * Return 0, or -EINVAL when params->model does not fit the kind (or, for
 * ETS, the bands are unusable).
 */
int arb_analyze_ib(const struct arb_config *cfg,
		   const struct arb_params *params, struct arb_result *res);
int arb_analyze_ets(const struct arb_config *cfg,
		    const struct arb_params *params, struct arb_result *res);

#endif
