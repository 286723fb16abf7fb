/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What one flow measured, as the engines leave it and the report reads
 * it: histograms in ticks (converted to ns only by the report), counters,
 * and how the run ended. One struct for every engine, so that lat, bw and
 * the agent hand the same thing to the report.
 */
#ifndef RPERF_RESULT_H
#define RPERF_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hist.h"

struct flow_result {
	size_t size_bytes;		/* message size of this run */
	uint64_t samples;		/* measured samples (warmup excluded) */
	uint64_t msgs;			/* messages completed, warmup included */
	uint64_t bytes;
	/* Latency (ticks). rtt = T_W - T_L, wire = T_W - T_P, loop = T_L - T_P. */
	struct hist *rtt;
	struct hist *wire;
	struct hist *loop;
	/*
	 * Samples whose loopback completed after the wire SEND (T_L > T_W):
	 * their RTT is negative. They enter @rtt as 0 (so percentiles stay over
	 * every sample) and @rtt_neg with the magnitude T_L - T_W.
	 */
	uint64_t loop_after_wire;
	struct hist *rtt_neg;
	/*
	 * lat --clock hw|both: the RTT by the NIC's completion timestamps,
	 * (T_W - T_L) in the NIC's ticks less (T_PW - T_PL) in them, in the
	 * NIC's ticks (NULL when not asked; negatives as in @rtt, counted in
	 * @nic_loop_after_wire).
	 */
	struct hist *rtt_nic;
	uint64_t nic_loop_after_wire;
	uint64_t retrans;		/* port retransmission counters, delta */
	/* lat: signed T_W - T_L summed, and samples, by posting order
	 * ([0] wire first, [1] loopback first): flow_result_order_bias_ticks(). */
	double order_rtt_sum_ticks[2];
	uint64_t order_n[2];
	/* Bandwidth (bw): sent = @msgs/@bytes completed in @elapsed_ticks;
	 * received = what the server counted for the flow, when it said. */
	uint64_t elapsed_ticks;
	bool rx_valid;
	uint64_t rx_msgs;
	uint64_t rx_bytes;
	/* The receiver's port counters over the flow (bw): RNR NAKs it sent
	 * and messages it dropped for want of a RECV; -1: not counted there. */
	int64_t rx_rnr_naks_sent;
	int64_t rx_out_of_buffer;
	int status;			/* 0: ran to the end; -errno: stopped early */
	char error[256];		/* why it stopped, when status != 0 */
};

/* Allocate the histograms; 0 or -ENOMEM. */
int flow_result_init(struct flow_result *r, size_t size_bytes);
void flow_result_release(struct flow_result *r);
/* Allocate @rtt_nic too (after flow_result_init); 0 or -ENOMEM. */
int flow_result_init_nic(struct flow_result *r);
/* Add @src into @dst (same size): histograms, counters; the first error
 * wins; the received counts stay valid only if both were (so start a sum
 * of bw results with rx_valid set). */
int flow_result_merge(struct flow_result *dst, const struct flow_result *src);

/*
 * lat: the residual bias of the posting order in @r: mean (T_W - T_L) of
 * the samples whose wire SEND went first, minus that of those whose
 * loopback went first, in ticks (signed; flow/figures turns them into
 * ns). Each order is half the samples, so the RTT carries half of it at
 * most. False when an order has no sample.
 */
bool flow_result_order_bias_ticks(const struct flow_result *r, double *bias_ticks);

#endif
