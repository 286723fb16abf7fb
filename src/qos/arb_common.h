/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the arbitration models share: the water-filling of offered loads
 * and the result helpers. Below the models (arb_models.h), which are
 * below the dispatcher in arb.c: nothing here calls a model or the
 * dispatcher. The public API is arb.h.
 */
#ifndef RPERF_ARB_COMMON_H
#define RPERF_ARB_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "qos/arb_types.h"

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
 * Split @link_gbps between the flows of @wf: groups asking less than
 * their share get what they ask, the rest split what is left by
 * wf->shares(); within a group, flows asking less than an equal part get
 * their load and the rest split the group's rate equally. rate_gbps[f]
 * is 0 for a flow that offers nothing or whose group is -1.
 */
void arb_common_waterfill(const struct arb_wf *wf, double link_gbps,
			  double rate_gbps[ARB_MAX_FLOWS]);

/* Add a warning, of kind @code ("sl-shared-vl", stable: the JSON's), to
 * @res; those beyond ARB_MAX_WARNINGS are dropped. */
void __attribute__((format(printf, 3, 4)))
arb_common_warn(struct arb_result *res, const char *code, const char *fmt, ...);

/* Fill SL (or priority) @sl's rate and share in @res; returns its entry. */
struct arb_sl_result *arb_common_fill_sl(struct arb_result *res,
					 const struct arb_params *params,
					 int sl, int vl, double rate_gbps);

#endif
