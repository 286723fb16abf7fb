/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Inside the coordinator: its pool of threads over the agents (coord_pool.c). */
#ifndef RPERF_COORD_COORD_POOL_H
#define RPERF_COORD_COORD_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "coord/coord.h"

#define COORD_POOL_THREADS	32	/* agents reached or synced at once, at most */

/*
 * Agents worked on at once (reached and synced, or synced again) by up to
 * COORD_POOL_THREADS threads, each taking the next agent left: every
 * wait of the work is bounded (the --timeout to reach an agent,
 * COORD_MSG_MS a message), each agent's channel is its thread's alone
 * while it works, and nothing is said until all are through. After a
 * failure no agent is begun; the caller names the first that failed, in
 * the agents' order, once.
 */
struct coord_pool_out {
	bool todo;			/* worked on in this pass */
	int ret;			/* 1 until done, then 0 or -errno */
	const char *state;		/* "cannot be reached", "refused", "is gone" */
	char err[512];
};

struct coord_pool;
typedef int (*coord_work_fn)(struct coord_pool *p, struct coord_agent *a,
			     struct coord_pool_out *o);

struct coord_pool {
	struct coord *c;
	coord_work_fn work;
	struct coord_pool_out *out;	/* one per agent */
	pthread_mutex_t mu;		/* next and failed below, and the launchers */
	size_t next;			/* the first agent not yet taken */
	bool failed;
};

/*
 * @work on every agent whose @out[].todo is set, COORD_POOL_THREADS at
 * once at most (fewer if threads cannot be had: the caller's works too).
 * 0, or the first failure in the agents' order (its index in *@failed;
 * the caller says it).
 */
int coord_pool_run(struct coord *c, coord_work_fn work, struct coord_pool_out *out,
		   size_t *failed);
/* The pool's work on @out (c->n_agents of them, their todo set); NULL:
 * out of memory (said in c->error). */
struct coord_pool_out *coord_pool_outs(struct coord *c);

#endif
