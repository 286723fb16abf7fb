/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The run engine: one lat or bw test against an `rperf server`, from the
 * device to the judged results. It opens the device and calibrates the
 * clock, starts one worker thread per --threads (each pinned, with its
 * own QPs), connects them, runs the sizes in turn (lat) or the paced or
 * open-loop load (bw), joins them, merges their results and judges the
 * pass/fail criteria. The commands (cli/) parse, call it and report; it
 * never prints: results, warnings and errors come back in the structs
 * and error buffers.
 *
 * A source (run_src_*, below) is the same workers for a caller that
 * holds the device and clock and connects its own way (rperf agent):
 * its workers have the lat and bw runs' one shape (run_int.h), made and
 * connected up front and started by a gate; the CLI's are a crew whose
 * gate opens at once.
 *
 * Use: run_*_prepare() (0 or -errno with the reason in @err; the setup
 * errors that are the user's tell by client_error_is_usage()), then
 * run_*_go() once, read the results, run_*_release() (always, also after
 * a failed prepare).
 */
#ifndef RPERF_RUN_H
#define RPERF_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/clock.h"
#include "base/env.h"
#include "engine/bw_client.h"
#include "engine/client.h"
#include "flow/criteria.h"
#include "engine/flow_opts.h"
#include "engine/load.h"
#include "engine/probe.h"
#include "engine/result.h"
#include "rdma/conn.h"
#include "rdma/verbs.h"

#define RUN_MAX_SIZES 32
#define RUN_SWEEP_MAX_BYTES (1u << 23)	/* -a: 2 .. 2^23, as perftest */

/* The -a sweep: powers of two from 2 up to min(@max_bytes, 2^23). */
size_t run_sweep_sizes(size_t max_bytes, size_t *sizes, size_t cap);

/* What one run shares with its workers, read-only once they start. */
struct run_common {
	const struct flow_opts *flow;
	struct verbs_dev dev;
	struct verbs_path path;
	struct clock_cal clk;
	struct conn_cm cm0;		/* rdma_cm: worker 0's id, resolved up front */
	struct run_env env;
	const char *error;		/* the first worker's error; NULL: none */
	bool got_huge;			/* worker 0's buffers are on huge pages */
	/* What the path ignores of the options (client_path_warnings). */
	char warnings[2][CLIENT_WARNING_BYTES];
	size_t n_warnings;
	char tick_warning[CLIENT_WARNING_BYTES];	/* after the run: the clock's tick
							 * too coarse for a median; "": fine */
};

/*
 * A flow's load, as every bw source runs it (rperf bw's workers, an
 * agent's): @cfg's size, each QP's share of the flow's rate, its on/off
 * bursts, how long to wait for the last completions on @path, and the
 * clock, from @spec; the caller sets the rest (depth, duration, stop).
 */
void run_load_cfg_init(struct load_cfg *cfg, const struct flow_spec *spec,
		       const struct clock_cal *clk, const struct verbs_path *path);
/* A lat probe of @size_bytes on @path, as every lat source runs it: the
 * clock and how long a sample may take; the caller sets the rest. */
void run_probe_cfg_init(struct probe_cfg *cfg, size_t size_bytes, const struct clock_cal *clk,
			const struct verbs_path *path);

/*
 * The clock, the path, the device (resolved through rdma_cm with
 * --rdma-cm) and the host's environment for @flow's run. 0 or -errno with
 * the reason in @err; run_common_release() in any case.
 */
int run_common_prepare(struct run_common *c, const struct flow_opts *flow, char *err,
		       size_t errlen);
void run_common_release(struct run_common *c);

struct run_worker;
struct run_worker_ops;
struct run_gate;

/* The workers of one run or source, and what they share (their kind,
 * struct run_worker_ops, and their life: run_int.h). */
struct run_crew {
	const struct run_worker_ops *ops;
	struct verbs_dev *dev;
	/* The CLI's options: --cpu, --hugepages, a pin that fails is the
	 * worker's error. NULL (a source): from first_cpu on, as the NIC's
	 * cores allow, best effort, and no huge pages. */
	const struct flow_opts *flow;
	int first_cpu;
	bool counters;			/* read the port's retransmissions around a body */
	bool keep;			/* release after join, not as each thread ends */
	struct run_gate *gate;		/* NULL: each runs once connected */
	volatile sig_atomic_t *stop;	/* seen while waiting for the gate's instant */
	void *ws;			/* the workers: @n of @stride bytes */
	size_t stride;
	unsigned n, started;
	/* how many have made and connected their engine, or failed to */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n_ready;
	bool made;			/* started: the lock is made */
};

/* ------------------------------------------------------------------ */
/* lat                                                                 */
/* ------------------------------------------------------------------ */

struct run_lat_cfg {
	const struct flow_opts *flow;
	uint64_t iterations;		/* 0: for duration_s */
	double duration_s;
	uint64_t warmup;
	const size_t *sizes;		/* ignored with all_sizes */
	size_t n_sizes;
	bool all_sizes;			/* the sweep up to what the port allows */
	/* Pass/fail: the RTT's percentile at most this, per size; 0: none. */
	double max_p50_s, max_p99_s, max_p99_9_s;
	/* Each measured sample of worker @index at @size_bytes, as it comes
	 * (from the worker's thread); NULL: none. */
	void (*on_sample)(void *arg, unsigned index, size_t size_bytes,
			  const struct probe_sample *s);
	/* Each size once every worker has run it through, merged (the
	 * r->merged[k] it will keep): from the thread of the worker that
	 * ended it last, one call at a time, in size order. A size that a
	 * worker could not end (an error, a stop) is never given. NULL: none. */
	void (*on_size)(void *arg, size_t index, const struct flow_result *merged);
	/* During a size, about every progress_s, its samples so far: every
	 * worker's as of its own last look (each looks every progress_s),
	 * merged; from the first worker's thread, never after the size's
	 * on_size. NULL or progress_s 0: none. */
	void (*on_progress)(void *arg, size_t index, const struct flow_result *sofar);
	double progress_s;
	void *arg;
};

struct run_lat_worker;

struct run_lat {
	struct run_common c;
	const struct run_lat_cfg *cfg;
	struct run_crew crew;
	size_t sizes[RUN_MAX_SIZES];
	size_t n_sizes;
	size_t max_bytes;
	struct run_lat_worker *w;
	unsigned ended[RUN_MAX_SIZES];	/* per size, the workers that ended it (atomic) */
	bool merged_early[RUN_MAX_SIZES];	/* merged[k] was made for on_size */
	/* on_progress: the workers' copies under progress_mu, their sum */
	pthread_mutex_t progress_mu;
	uint64_t progress_ticks;
	struct flow_result sofar;
	/* after run_lat_go(): per size, every worker's merged; judged */
	struct flow_result merged[RUN_MAX_SIZES];
	size_t n_merged;
	struct criteria crit;
	/* --clock hw|both: the NIC's completion clock and its timestamps' bits */
	bool nic;
	struct clock_cal nic_clk;
	uint64_t nic_mask;
};

int run_lat_prepare(struct run_lat *r, const struct run_lat_cfg *cfg, char *err, size_t errlen);
/* Run the workers to the end (a stop request ends them early), merge
 * and judge; the first worker's error is r->c.error. */
void run_lat_go(struct run_lat *r);
void run_lat_release(struct run_lat *r);

/* ------------------------------------------------------------------ */
/* bw                                                                  */
/* ------------------------------------------------------------------ */

struct run_bw_cfg {
	const struct flow_opts *flow;	/* flow->spec: size, QPs, the whole run's rate */
	double duration_s, interval_s;
	uint32_t tx_depth, batch, cq_mod;
	uint64_t hw_rate_bps;		/* per QP; 0: none */
	bool write, event;
	uint64_t min_bps;		/* pass/fail on the total; 0: none */
	/* Each interval as the workers' sums give it, from the calling thread. */
	void (*on_interval)(void *arg, const struct bw_interval *iv);
	void *arg;
};

struct run_bw_worker;

struct run_bw {
	struct run_common c;
	const struct run_bw_cfg *cfg;
	struct run_crew crew;
	size_t max_snaps;
	struct run_bw_worker *w;
	/* after run_bw_go(): the intervals, the total, judged */
	struct bw_interval *iv;
	size_t n_iv;
	struct flow_result total;
	bool total_ok;
	char rx_warning[256];		/* why the received figures are unknown; "": known */
	uint64_t hw_rate_applied_bps;	/* --hw-rate as applied, the slowest QP's; 0: none */
	struct criteria crit;
};

int run_bw_prepare(struct run_bw *r, const struct run_bw_cfg *cfg, char *err, size_t errlen);
/* As run_lat_go(), following the intervals as they come. */
void run_bw_go(struct run_bw *r);
void run_bw_release(struct run_bw *r);

/* ------------------------------------------------------------------ */
/* a source: one flow's workers on a borrowed device, from one instant */
/* ------------------------------------------------------------------ */

/*
 * Where a caller that opens the device and clock itself (rperf agent)
 * runs a flow: its workers' threads are started, pinned and connected
 * up front, each by the caller's hook, and wait for the gate; the gate
 * starts every source made on it at one instant, each with a timed
 * warm-up before its window. The caller follows them (run_src_reap),
 * then takes each flow's merged result (run_src_finish).
 *
 * Use: run_gate_init(); per flow run_src_prepare(); run_gate_open() (or
 * nothing, for a step that ends unstarted); run_src_reap() until true;
 * run_src_finish(); run_gate_quit(); per flow run_src_release()
 * (always); run_gate_destroy().
 */

/* The start the workers of one or more sources wait for. */
struct run_gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool init;			/* mu and cv are made */
	bool go, quit;			/* under mu: run from at_ns; end unstarted */
	uint64_t at_ns;			/* CLOCK_MONOTONIC: when they start */
	uint64_t warmup_ns, duration_ns;	/* then warm up, then the window */
};

/* 0, or -ENOMEM with the reason in @err. */
int run_gate_init(struct run_gate *g, char *err, size_t errlen);
/* Release the workers: each sleeps to @at_ns (CLOCK_MONOTONIC), then
 * warms up for @warmup_ns and measures for @duration_ns. */
void run_gate_open(struct run_gate *g, uint64_t at_ns, uint64_t warmup_ns,
		   uint64_t duration_ns);
/* Workers that still wait end unstarted; the gate stays made. */
void run_gate_quit(struct run_gate *g);
/*
 * A worker's sleep to the open gate's instant: until then, or until
 * @stop (may be NULL) is set or the gate quits, whichever comes first,
 * each seen within 50 ms; so no start, however far ahead, holds a worker
 * past a stop. The last slice ends at the instant itself.
 */
void run_gate_sleep(struct run_gate *g, volatile sig_atomic_t *stop);
void run_gate_destroy(struct run_gate *g);

struct run_src_cfg {
	struct verbs_dev *dev;		/* borrowed: open, outlives the source */
	const struct clock_cal *clk;	/* borrowed */
	const struct flow_spec *spec;	/* size, threads, QPs, the flow's rate */
	const struct verbs_path *path;
	const struct run_worker_ops *ops;	/* run_src_lat_ops or run_src_bw_ops */
	const char *peer;		/* named in the engines' errors */
	uint32_t tx_depth, batch, cq_mod;	/* bw */
	uint64_t tail_ns;		/* bw: runs on this long past the window */
	int first_cpu;			/* its first worker's index for pin_pick_cpu() */
	/*
	 * Connect one worker, in the worker's thread, pinned to its CPU
	 * (several workers' at once): lat (@l NULL): @p's wire QP,
	 * returning its socket (>= 0), the probe's control socket; bw (@p
	 * NULL): each of @l's QPs, setting its ctl_fd, returning 0. -errno with the reason in @err. The
	 * sockets become the source's: run_src_release() closes them.
	 */
	int (*connect)(void *arg, struct probe *p, struct load *l, char *err, size_t errlen);
	void *arg;
	unsigned ready_ms;		/* every worker connected within, or run_src_prepare() fails */
	struct run_gate *gate;
	volatile sig_atomic_t *stop;	/* set by the caller to end the run early */
	bool yield;
};

/* The kinds of a source's workers: the lat probe, the bw load. */
extern const struct run_worker_ops run_src_lat_ops, run_src_bw_ops;

struct run_src_worker;

struct run_src {
	const struct run_src_cfg *cfg;
	struct run_crew crew;
	struct run_src_worker *w;
	unsigned n_w;			/* made: the flow's threads */
	/* after run_src_finish(): the workers' results merged (no
	 * retransmission counts: the caller counts its host's) */
	struct flow_result total;
	bool total_ok;
	const char *error;		/* the first worker's error; NULL: none */
	bool stopped;			/* that error is a stop (cfg->stop, a signal) */
	bool started;			/* every worker passed the start instant */
	uint64_t late_ns;		/* the latest worker's start past the instant */
};

/*
 * Start the workers of @cfg's flow, each a thread that pins itself, makes
 * and connects its engine and waits at the (made) gate; return once each
 * is connected or failed. 0 or -errno with the reason in @err (the
 * first worker's, or a thread that cannot start: no stop request, the
 * caller ends the step); run_src_release() in any case.
 */
int run_src_prepare(struct run_src *r, const struct run_src_cfg *cfg, char *err, size_t errlen);
/* The workers' sockets to the peer, in worker order; how many (<= @cap). */
size_t run_src_fds(const struct run_src *r, int *fds, size_t cap);
/* Join the workers that ended; true when none runs. Never waits. */
bool run_src_reap(struct run_src *r);
/* Once reaped: merge the workers' results and find the first error
 * (once; a second call keeps the first's). */
void run_src_finish(struct run_src *r);
/* Join (run_gate_quit() first for unstarted workers), close, free. */
void run_src_release(struct run_src *r);

#endif
