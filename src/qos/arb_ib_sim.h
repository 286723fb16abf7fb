/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The packet-level table arbiter that the InfiniBand models and DTable
 * run (arb_ib_sim.c): one arbiter whose readings of the specification
 * are explicit (struct arb_semantics), simulated until its state repeats
 * so that shares and distances are those of one exact period, never of
 * an arbitrary number of table cycles.
 */
#ifndef RPERF_ARB_IB_SIM_H
#define RPERF_ARB_IB_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "qos/arb_types.h"

#define ARB_SIM_MAX_STEPS	(1u << 22)	/* packets before giving up on a period */
#define ARB_SIM_MAX_MARKS	(1u << 14)	/* checkpoints (wraps) kept at most */

/*
 * Memory the runs of one analysis share, so that each run does not fault
 * in pages of its own: zeroed before the first run, freed by
 * arb_sim_mem_release(). Its fields are the arbiter's.
 */
struct arb_sim_mem {
	void *mark;
	int32_t *slot;
	uint32_t mark_cap;
	uint8_t *seq;
	uint64_t seq_cap;
};

void arb_sim_mem_release(struct arb_sim_mem *mem);

/* How the two tables take turns: this arbiter's and the loaded one's (arb_ib_load.c). */
enum arb_ib_mode {
	ARB_IB_ONLY_LOW,	/* no high table that sends: the low table alone */
	ARB_IB_ONLY_HIGH,	/* the high table, never limited */
	ARB_IB_LIMITED_PACKET,	/* limited, a low turn is one packet */
	ARB_IB_LIMITED_ENTRY,	/* limited, a low turn is one entry visit */
};

/* The mode of tables that send or not (@high, @low) under @limit and @sem. */
enum arb_ib_mode arb_ib_mode_of(bool high, bool low, int limit, const struct arb_semantics *sem);

/*
 * What to simulate. Queues are numbered 0-15: VLs for the IB models, SLs
 * for DTable. Every queue in @backlogged always has packets and credits.
 */
struct arb_sim_spec {
	const struct arb_table *high;	/* NULL or empty: no high table */
	const struct arb_table *low;	/* NULL or empty: no low table */
	int limit;			/* LimitOfHighPriority, 0-255 */
	struct arb_semantics sem;
	bool deficit_round;		/* DTable: send only while the credit
					 * covers a whole packet, keep the rest */
	uint16_t backlogged;
	uint32_t packet_bytes[ARB_NUM_VLS];
	uint64_t max_steps;		/* 0: ARB_SIM_MAX_STEPS */
	uint64_t max_work;		/* work (arb_sim_out.work) before
					 * giving up on a period; 0: no limit */
	bool want_gaps;			/* also measure distances (one more period) */
	struct arb_sim_mem *mem;	/* NULL: the run's own memory */
};

/* Over one period (or the measured window when no period was found). */
struct arb_sim_out {
	bool exact;			/* the state repeated: one exact period */
	uint64_t packets_total;
	uint64_t bytes[ARB_NUM_VLS];
	uint64_t packets[ARB_NUM_VLS];
	uint64_t gap_sum[ARB_NUM_VLS];	/* packets of others between two */
	uint64_t gap_max[ARB_NUM_VLS];
	double bound;			/* not exact: error bound of a share (0-1) */
	uint64_t empty_low_turns;	/* low entry turns that passed without
					 * sending: of the period when exact */
	uint64_t work;			/* packets sent, entries looked at, checkpoints */
};

/*
 * Run the arbiter of @spec until its state at a table wrap repeats and
 * measure the period between (gaps, when wanted, over the next period,
 * counted cyclically). The states of the first ARB_SIM_MAX_MARKS wraps
 * are kept, and every wrap's state is looked up among them: a period
 * that starts after them is not found. Without a period within max_steps
 * packets (or once the work passes max_work, checked at each wrap of the
 * clock table), the window since the first wrap is measured and
 * out->bound set. Returns 0,
 * -EINVAL when nothing can be sent (no backlogged queue has a weighted
 * entry), or -ENOMEM when the packets sent could not be recorded.
 */
int arb_sim_run(const struct arb_sim_spec *spec, struct arb_sim_out *out);

#endif
