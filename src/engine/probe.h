/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The latency engine (RPerf's method). Per sample it reads the clock
 * (T_P), posts an RC SEND to the server ("wire") and at once an RC SEND on
 * a loopback QP pair on the same port (which first alternates from sample
 * to sample, so the post between them biases neither; SENDs inline up to
 * what the device takes, at most 1 KiB), then polls both send CQs and stamps
 * each completion: T_L for the loopback, T_W for the wire. An RC SEND
 * completes when the remote NIC's ACK is back, before any remote software
 * runs, and the loopback absorbs the local posting, PCIe fetch and NIC
 * queueing both requests share, so RTT = T_W - T_L.
 *
 * One probe per worker thread; the engine never prints. Errors end the
 * run with a message in the result and everything measured so far kept.
 */
#ifndef RPERF_PROBE_H
#define RPERF_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"
#include "engine/result.h"
#include "rdma/verbs.h"

struct probe {
	struct verbs_dev *dev;
	struct verbs_qp wire;		/* to the server */
	struct verbs_qp loop_tx;	/* loopback pair: tx SENDs to rx */
	struct verbs_qp loop_rx;
	void *buf[3];			/* wire, loop_tx, loop_rx */
	bool buf_huge[3];
	size_t buf_bytes;
	uint32_t rx_posted;		/* RECVs outstanding on loop_rx */
};

/* One sample's raw timestamps, in ticks. */
struct probe_sample {
	uint64_t index;			/* 0-based, warmup included */
	bool warmup;
	bool loop_first;		/* the loopback SEND was posted first (odd samples) */
	bool loop_polled_first;		/* each pass polled the loopback CQ first */
	uint64_t t_p, t_l, t_w;
	uint64_t t_pw, t_pl;		/* just before the wire's and the loopback's post */
	uint64_t nic_w, nic_l;		/* the NIC's completion timestamps (--clock hw) */
};

#define PROBE_RX_DEPTH 64		/* loopback RECVs kept posted */

/* The sample's RTT in ticks, signed: negative when the loopback completed last. */
int64_t probe_sample_rtt_ticks(const struct probe_sample *s);

struct probe_cfg {
	size_t size_bytes;
	uint64_t iterations;		/* measured samples; 0: run for duration_ticks */
	uint64_t duration_ticks;
	uint64_t warmup;		/* samples run first and not recorded */
	uint64_t sample_timeout_ticks;	/* no completion within this: give up */
	const struct clock_cal *clk;
	int ctl_fd;			/* the server's TCP socket to watch, or -1 */
	bool ctl_any_event;		/* ctl_fd is an rdma_cm channel: any event ends it */
	const char *peer;		/* the server's name for messages */
	volatile sig_atomic_t *stop;	/* set asynchronously to end the run */
	bool yield;			/* sched_yield() between polls (software NICs) */
	void (*on_sample)(void *arg, const struct probe_sample *s);
	void *arg;
	/*
	 * The receiver's port counters (RNR NAKs it sent, messages it dropped
	 * for want of a RECV; -1 each where it has none), asked for as the
	 * measured samples begin and after the last: a receiver that ran out
	 * of RECVs stalls SENDs for an RNR timer each, and that tail is its,
	 * not the fabric's. 0 or -errno; NULL: not asked (the result keeps -1).
	 */
	int (*rx_trouble)(void *arg, struct verbs_rx_trouble *t);
	void *rx_arg;
	/*
	 * --clock hw|both: the send CQs carry the NIC's completion timestamps
	 * (probe_init's @nic_ts), @nic_mask their valid bits; a host tick is
	 * @nic_per_host of the NIC's. 0: none (res->rtt_nic stays empty).
	 */
	uint64_t nic_mask;
	double nic_per_host;
};

/*
 * The sample's RTT by the NIC's clock, in its ticks: (T_W - T_L) as the
 * NIC stamped them, less (T_PW - T_PL), the host's interval between the
 * posts, in the NIC's ticks; signed.
 */
int64_t probe_sample_nic_rtt_ticks(const struct probe_sample *s, const struct probe_cfg *cfg);

/*
 * Create the wire QP (left in RESET for the caller to connect) and the
 * connected loopback pair, with buffers of @max_bytes (huge pages if
 * @hugepages; *@got_huge says whether all of them got them); with
 * @nic_ts, the send CQs stamp completions with the NIC's clock.
 */
int probe_init(struct probe *p, struct verbs_dev *dev, size_t max_bytes, bool hugepages,
	       bool nic_ts, const struct verbs_path *path, bool *got_huge, char *err,
	       size_t errlen);
void probe_release(struct probe *p);

/*
 * Run one size: warmup, then iterations (or duration). Fills @res, which
 * the caller initialized for cfg->size_bytes. Returns 0, or -errno with
 * res->status and res->error set; samples measured before the error stay.
 */
int probe_run(struct probe *p, const struct probe_cfg *cfg, struct flow_result *res);


#endif
