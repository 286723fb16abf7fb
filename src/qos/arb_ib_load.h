/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The packet-level table arbiter under offered loads (arb_ib_load.c):
 * the same arbiter as arb_ib_sim.c (its semantics, its visits, its
 * limit), but fed by arrivals, so that a VL is served only while it has
 * a packet waiting. It answers what an exact period of a backlogged
 * arbiter cannot: the shares and waits when some SLs offer less than
 * they would get.
 */
#ifndef RPERF_ARB_IB_LOAD_H
#define RPERF_ARB_IB_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "qos/arb_types.h"

#define ARB_LOAD_PACKETS	(1u << 18)	/* measured packets, default */
#define ARB_LOAD_BATCHES	8		/* batches of the error estimate */
#define ARB_LOAD_PHASES		4		/* phase draws of constant gaps */

/* What to simulate. Queues are VLs (IB models) or SLs (DTable). */
struct arb_load_spec {
	const struct arb_table *high;	/* NULL or empty: no high table */
	const struct arb_table *low;	/* NULL or empty: no low table */
	int limit;			/* LimitOfHighPriority, 0-255 */
	struct arb_semantics sem;
	bool deficit_round;		/* DTable: send only what the credit covers */
	double link_gbps;
	int queue[ARB_NUM_SLS];		/* queue of each SL; -1: dropped */
	double load_gbps[ARB_NUM_SLS];	/* < 0: saturating; 0: nothing */
	uint32_t packet_bytes[ARB_NUM_SLS];
	bool poisson;			/* exponential gaps, else constant */
	uint64_t seed;			/* Poisson's generator */
	/*
	 * Constant gaps: SL s's first packet comes at frac(0.618034 (s + 1)
	 * m) of its gap, m = (phase_draw + 1) mod ARB_LOAD_PHASES: draw 0
	 * is the stated one (m = 1), the last has every light SL in step.
	 */
	unsigned phase_draw;
	uint64_t packets;		/* measured; 0: ARB_LOAD_PACKETS */
	/*
	 * Work (steps, arrivals and table entries looked at) the run may
	 * spend; 0: no limit. The warm-up and each batch then end at their
	 * ninth of it, if their packets have not all been sent before.
	 */
	uint64_t max_work;
};

/*
 * Over the measured window (after a warm-up of one batch, 1/ARB_LOAD_BATCHES
 * of the window). A distance is counted for every packet sent: the
 * packets of other queues that start between the moment it could be sent
 * next (it has arrived and is first in its queue) and the moment it starts.
 */
struct arb_load_out {
	double gbps[ARB_NUM_SLS];
	double bound;			/* error bound of a share (0-1) */
	uint64_t packets[ARB_NUM_VLS];
	double mean_distance[ARB_NUM_VLS];
	uint64_t max_distance[ARB_NUM_VLS];
	uint64_t empty_low_turns;	/* low entry turns that passed empty */
	uint64_t window_packets;	/* measured (after the warm-up) */
	uint64_t work;			/* steps plus table entries looked at */
};

/*
 * Run the arbiter of @spec on its arrivals: a warm-up, then the window,
 * in ARB_LOAD_BATCHES batches. out->bound is the larger of what the
 * arbiter's state can hold at either end of the window (credits,
 * deficits, one packet per queue) and three standard errors of the
 * batches' shares. Returns 0, or -EINVAL when nothing offers traffic
 * to a weighted entry.
 */
int arb_load_run(const struct arb_load_spec *spec, struct arb_load_out *out);

#endif
