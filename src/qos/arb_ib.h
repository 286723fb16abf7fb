/*
 * The InfiniBand VL arbitration model (arb_ib.c): its row's analysis and
 * the simulation of the output arbiter that the analysis and the
 * benchmarks run.
 */
#ifndef RPERF_ARB_IB_H
#define RPERF_ARB_IB_H

#include "qos/arb_types.h"

/* ib-fluid and ib-packet (arb_ib.c): params->model picks the sending. */
int arb_ib_analyze(const struct arb_config *cfg,
		   const struct arb_params *params, struct arb_result *res);

/*
 * Simulate the InfiniBand output arbiter with the VLs in @backlogged
 * (bit i = VL i) always backlogged and credited, for params->runs cycles
 * of the high table (or of the low table when the high table has nothing
 * to send), then up to the next low-priority turn so that both tables are
 * seen over whole limit periods. @packet_bytes gives each VL's packet size
 * (used by ib-packet, and by ib-fluid for limit 0).
 * Fills @stats. Returns 0, or -EINVAL for a non-IB model.
 */
int arb_ib_simulate(const struct arb_config *cfg, enum arb_model model,
		    int runs, uint16_t backlogged,
		    const uint32_t packet_bytes[ARB_NUM_VLS],
		    struct arb_vl_stats *stats);

#endif
