/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The InfiniBand VL arbitration models and DTable (arb_ib.c): their rows'
 * analysis and the readings of the specification they compare.
 */
#ifndef RPERF_ARB_IB_H
#define RPERF_ARB_IB_H

#include "qos/arb_types.h"

/* ib-fluid, ib-packet and dtable (arb_ib.c): params->model picks the reading. */
int arb_ib_analyze(const struct arb_config *cfg,
		   const struct arb_params *params, struct arb_result *res);

/*
 * The @i-th (0 to ARB_N_SEMANTICS - 1) reading of the packet arbiter;
 * 0 is the default (carry, low turn one entry, limit 0 alternates).
 */
struct arb_semantics arb_ib_semantics_nth(int i);

#endif
