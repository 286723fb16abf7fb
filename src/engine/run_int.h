/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one shape of the run engine's workers, inside engine/ (run_worker.c):
 * the CLI's lat and bw runs (run_lat.c, run_bw.c) and a source
 * (run_src.c) each make a crew of workers of one kind, a small ops table
 * (init, connect, run, release) over a probe or a load. Every worker's
 * thread pins itself before it allocates (its memory NUMA-local), makes
 * and connects its engine, waits for the crew's gate (none: it opens at
 * once) and runs; huge pages and the retransmission counters are
 * handled here, once for all.
 */
#ifndef RPERF_RUN_INT_H
#define RPERF_RUN_INT_H

#include "engine/run.h"

/*
 * A kind of worker. init, connect and run are called in the worker's own
 * thread, pinned, each only if the one before succeeded; 0 or -errno with
 * w->err. release is called once whatever happened: in the thread as it
 * ends, or, for a crew that keeps its workers, by run_crew_release().
 */
struct run_worker_ops {
	int (*init)(struct run_worker *w);
	int (*connect)(struct run_worker *w);
	int (*run)(struct run_worker *w);
	void (*release)(struct run_worker *w);
};

/* What each worker has, first in its run's own struct. */
struct run_worker {
	pthread_t tid;
	struct run_crew *crew;
	unsigned index;
	int status;			/* 0 or -errno with err */
	char err[256];
	bool got_huge;			/* its buffers are on huge pages */
	int cpu;			/* where it was pinned; -1: not */
	bool running;			/* its thread is to be joined */
	int done;			/* set by the thread as it ends (atomic) */
	uint64_t started_ns;		/* past the gate's instant (CLOCK_MONOTONIC); 0: never */
	/* its engine: lat's probe and control socket, or bw's load */
	struct probe probe;
	bool probe_ok;
	int fd;
	struct load load;
	bool load_ok;
};

/* Worker @i of crew @c. */
struct run_worker *run_crew_at(const struct run_crew *c, unsigned i);
/*
 * Start the @c->n workers at @c->ws (made by the caller, zeroed or not),
 * one thread each. A thread that cannot start is its worker's error and
 * no more start after it: 0, or that -errno with the reason in @err.
 */
int run_crew_start(struct run_crew *c, char *err, size_t errlen);
/* Start the CLI's crew of @ops at @ws for run @rc: --threads workers,
 * pinned and with huge pages as rc->flow says, the counters read, no
 * gate; a thread that cannot start is a stop request for the others. */
void run_crew_go(struct run_crew *c, const struct run_worker_ops *ops, struct run_common *rc,
		 void *ws, size_t stride);
/* Wait until every started worker has connected or failed to, for at
 * most @timeout_ms (each step is bounded by its engine's and connect's
 * own timeouts; this bound holds if one is not): the first worker's
 * error, -ETIMEDOUT naming how many are not through, 0; the reason in
 * @err. */
int run_crew_ready(struct run_crew *c, unsigned timeout_ms, char *err, size_t errlen);
/* Join the workers that ended; true when none runs. Never waits. */
bool run_crew_reap(struct run_crew *c);
/* Join every started worker; their first error, worker 0's huge pages
 * and each worker's CPU into @rc (NULL: not told). */
void run_crew_join(struct run_crew *c, struct run_common *rc);
/* Join, then release (a crew that keeps its workers) and free the lock. */
void run_crew_release(struct run_crew *c);

/* Make worker @w's probe for @max_bytes (@nic: with the NIC's
 * timestamps) or its load; huge pages as its crew says. As init. */
int run_worker_probe_init(struct run_worker *w, size_t max_bytes, bool nic,
			  const struct verbs_path *path);
int run_worker_load_init(struct run_worker *w, unsigned n_qps, uint32_t tx_depth,
			 size_t size_bytes, bool event);
/* Close its socket(s) and release its engine. */
void run_worker_engine_release(struct run_worker *w);

/*
 * The lat body: one measured probe window on worker @w's connected
 * probe, as @cfg says (run_probe_cfg_init() and the caller's duration or
 * iterations, warm-up, control socket, stop and yield), into @res (made,
 * of cfg's size); with the crew's counters, the port's retransmissions
 * around it into res->retrans (a read takes a millisecond on a slow
 * host). 0, or the probe's -errno with its error copied into w->err.
 */
int run_lat_body(struct run_worker *w, const struct probe_cfg *cfg, struct flow_result *res);
/*
 * After the merge (r->merged, r->n_merged): r->c.tick_warning says so
 * when the clock's tick is coarser than a tenth of the smallest median
 * RTT of a size, naming that size; left as it was when the tick is fine.
 */
void run_lat_tick_check(struct run_lat *r);
/*
 * The bw body: the load on worker @w's connected load, as @cfg says
 * (run_load_cfg_init() and the caller's depth, duration, intervals, stop
 * and yield), into @res (one made per QP), with the counters as lat's,
 * into res[0].retrans. 0, or the load's -errno with its error in w->err.
 */
int run_bw_body(struct run_worker *w, const struct load_cfg *cfg, struct flow_result *res);

#endif
