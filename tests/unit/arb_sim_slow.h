/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The reference arbiter of arb_sim_slow.c (tests only). */
#ifndef RPERF_ARB_SIM_SLOW_H
#define RPERF_ARB_SIM_SLOW_H

#include "qos/arb_ib_sim.h"

int arb_sim_run_slow(const struct arb_sim_spec *spec, struct arb_sim_out *out);

#endif
