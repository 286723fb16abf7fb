/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The Ethernet ETS model (arb_ets.c): its row's analysis, the band shares,
 * and the DSCP/priority to band mapping converge needs.
 */
#ifndef RPERF_ARB_ETS_H
#define RPERF_ARB_ETS_H

#include "qos/arb_types.h"

/* ets (arb_ets.c) */
int arb_ets_analyze(const struct arb_config *cfg,
		    const struct arb_params *params, struct arb_result *res);

/*
 * ETS shares of the bands in @backlogged (bit i = band i): the first
 * backlogged strict band takes everything; without one, the backlogged
 * DRR bands split the link by quantum. share[] sums to 1 or 0.
 */
void arb_ets_shares(const struct arb_config *cfg, uint16_t backlogged,
		    double share[ARB_MAX_BANDS]);

/* Band of an ETS priority (0-7) or DSCP (0-63). */
int arb_ets_prio_band(const struct arb_config *cfg, int prio);
int arb_ets_dscp_band(const struct arb_config *cfg, int dscp);

/* DSCP carried by an IB GRH traffic class / IP TOS byte. */
static inline int arb_tclass_to_dscp(int tclass)
{
	return (tclass >> 2) & 0x3f;
}

/*
 * For converge: the band that traffic marked with @dscp lands in and the
 * share of the link that band is predicted to get in @res. Returns 0, or
 * -EINVAL if @dscp is out of range or the result is not an ETS one.
 */
int arb_ets_dscp_share(const struct arb_config *cfg,
		       const struct arb_result *res, int dscp,
		       int *band, double *share_pct);

#endif
