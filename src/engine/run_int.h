/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the run engine's worker paths share inside engine/ (run.c): the
 * thread start and join of their workers, and one body per engine that
 * both the CLI's runs (run_lat.c, run_bw.c) and a source (run_src.c)
 * call on a made, connected probe or load.
 */
#ifndef RPERF_RUN_INT_H
#define RPERF_RUN_INT_H

#include "engine/run.h"

/* What each worker of a run or a source has, first in its own struct. */
struct run_worker {
	pthread_t tid;
	unsigned index;
	int status;			/* 0 or -errno with err */
	char err[256];
	bool got_huge;			/* its buffers are on huge pages */
	int cpu;			/* where it was pinned; -1: not */
};

/*
 * Start @n workers on @main: the i-th is at @ws + i * @stride, a struct
 * whose first member is a struct run_worker, given to @main. A thread
 * that cannot start is its worker's error (status and err) and no more
 * start after it; the caller decides whether that stops the others.
 * Returns how many started (the first ones).
 */
unsigned run_workers_start(void *ws, size_t stride, unsigned n, void *(*main)(void *));
/* Join the @started of @n workers; the first error, worker 0's huge
 * pages and each worker's CPU into @c. */
void run_workers_end(struct run_common *c, void *ws, size_t stride, unsigned n,
		     unsigned started);

/*
 * The lat body: one measured probe window on worker @w's made and
 * connected probe @p, as @cfg says (run_probe_cfg_init() and the
 * caller's duration or iterations, warm-up, control socket, stop and
 * yield), into @res (made, of cfg's size), with @dev's retransmission
 * counters read around it into res->retrans (@dev NULL: not read; a
 * read takes a millisecond on a slow host). 0, or the probe's -errno
 * with its error copied into w->err.
 */
int run_lat_body(struct run_worker *w, const struct verbs_dev *dev, struct probe *p,
		 const struct probe_cfg *cfg, struct flow_result *res);
/*
 * The bw body: the load on worker @w's made load @l, its QPs connected,
 * as @cfg says (run_load_cfg_init() and the caller's depth, duration,
 * intervals, stop and yield), into @res (one made per QP), with @dev's
 * retransmission counters read around it into res[0].retrans (the
 * port's, once per worker; @dev NULL: not read). 0, or the load's
 * -errno with its error copied into w->err.
 */
int run_bw_body(struct run_worker *w, const struct verbs_dev *dev, struct load *l,
		const struct load_cfg *cfg, struct flow_result *res);

#endif
