/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A virtual HCA for tests: a device whose QPs and CQs are a discrete-event
 * model with its own clock, so the latency engine's real code runs on it
 * and its bias can be measured to the nanosecond. libibverbs dispatches
 * post and poll through the context's ops table (and the extended verbs
 * through struct verbs_context), so the model is an ibv_context whose ops
 * are ours: nothing of libibverbs' own runs. README.md says what the model
 * holds and what it leaves out.
 */
#ifndef RPERF_TESTS_VHCA_H
#define RPERF_TESTS_VHCA_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "base/clock.h"
#include "engine/probe.h"

#define VHCA_CQ_DEPTH 256
#define VHCA_REMOTE_MAX 256

/* Every time in ns of the model's clock. */
struct vhca_params {
	uint64_t post_ns;		/* CPU time of one ibv_post_send; the doorbell
					 * is written as the call returns */
	uint64_t poll_ns;		/* CPU time of one poll; it sees the CQEs that
					 * were visible when it began */
	uint64_t poll_jitter_ns;	/* each poll: uniform extra in [0, j] */
	uint64_t read_ns;		/* CPU time of one clock read */
	uint64_t pcie_ns;		/* one PCIe crossing (doorbell in, CQE out) */
	uint64_t nic_ns;		/* WQE to packet out; QPs run in parallel */
	uint64_t loop_ns;		/* loopback: packet out to its ACK in the NIC */
	uint64_t cable_ns;		/* one cable, one way */
	bool has_switch;		/* else the two NICs are back to back */
	uint64_t switch_ns;		/* residence, each traversal */
	uint64_t switch_jitter_ns;	/* each traversal: uniform in [-j, +j] */
	uint64_t remote_ns;		/* remote NIC: SEND in to ACK out */
	uint64_t cqe_jitter_ns;		/* each CQE write: uniform extra in [0, j] */
	/* The receiver: RECVs it keeps posted, and its software posting a
	 * consumed one again after repost_ns; between stall_from_ns and
	 * stall_from_ns + stall_ns that software does not run. */
	uint32_t remote_rx_depth;
	uint64_t remote_repost_ns;
	uint64_t stall_from_ns, stall_ns;
	uint64_t rnr_timer_ns;		/* the sender's wait after an RNR NAK */
	/* Completion timestamps: the device clock's rate and offset. */
	bool hw_ts;
	double hw_ticks_per_ns;
	uint64_t hw_offset_ticks;
	uint64_t hw_mask;		/* the timestamps' valid bits (they wrap) */
	uint64_t seed;
};

/* Defaults of a ConnectX-like host, back to back, no jitter but the CQEs'. */
void vhca_params_default(struct vhca_params *p);

struct vhca;

/* A model device named @name; NULL on ENOMEM. */
struct vhca *vhca_new(const struct vhca_params *p, const char *name);
void vhca_free(struct vhca *h);
struct ibv_context *vhca_context(struct vhca *h);
/* The device as the engine holds it (named as given to vhca_new). */
struct verbs_dev *vhca_dev(struct vhca *h);
/* The model's clock for the engine: ticks are ns, reads cost read_ns. */
void vhca_clock(struct vhca *h, struct clock_cal *clk);
uint64_t vhca_now_ns(const struct vhca *h);

/*
 * Fill @p as probe_init() would, on the model: the wire QP "connected" to
 * the model's receiver, the loopback pair with its RECVs posted. With
 * @hw_ts, the send CQs are extended CQs that carry completion timestamps.
 */
int vhca_probe_attach(struct vhca *h, struct probe *p, bool hw_ts);

/* The receiver's counters since the model began (what its port counts). */
uint64_t vhca_rnr_naks_sent(const struct vhca *h);
/*
 * The RTT an unbiased method reports for a sample with no jitter: the
 * wire's round trip beyond the loopback's, from the parameters.
 */
double vhca_true_rtt_ns(const struct vhca_params *p);

#endif
