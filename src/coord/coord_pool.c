/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The coordinator's pool of threads that work on many agents at once
 * (coord_pool.h): reached and synced, or synced again, up to
 * COORD_POOL_THREADS at a time. Apart from coord_session.c, which gives
 * it the work, because it knows nothing of the protocol.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "coord/coord_pool.h"

/* A worker of @arg (a pool): the next agent left, until none is or one failed. */
static void *coord_pool_main(void *arg)
{
	struct coord_pool *p = arg;
	struct coord_pool_out *o;
	size_t i, n = p->c->n_agents;

	for (;;) {
		pthread_mutex_lock(&p->mu);
		for (i = p->next; i < n && !p->out[i].todo; i++)
			;
		p->next = i + 1;
		if (p->failed)
			i = n;
		pthread_mutex_unlock(&p->mu);
		if (i >= n)
			return NULL;
		o = &p->out[i];
		o->ret = p->work(p, &p->c->agents[i], o);
		if (o->ret < 0) {
			pthread_mutex_lock(&p->mu);
			p->failed = true;
			pthread_mutex_unlock(&p->mu);
		}
	}
}

int coord_pool_run(struct coord *c, coord_work_fn work, struct coord_pool_out *out,
		   size_t *failed)
{
	struct coord_pool p = { .c = c, .work = work, .out = out };
	pthread_t tid[COORD_POOL_THREADS - 1];
	size_t i, n = 0, todo = 0;
	sigset_t stops, old;

	for (i = 0; i < c->n_agents; i++) {
		todo += out[i].todo;
		out[i].ret = 1;
	}
	pthread_mutex_init(&p.mu, NULL);
	/* The stop signals stay with this thread; every wait polls the flag they set. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stops, &old);
	while (n + 1 < todo && n < COORD_POOL_THREADS - 1 &&
	       !pthread_create(&tid[n], NULL, coord_pool_main, &p))
		n++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	coord_pool_main(&p);
	while (n)
		pthread_join(tid[--n], NULL);
	pthread_mutex_destroy(&p.mu);
	for (i = 0; i < c->n_agents; i++)
		if (out[i].todo && out[i].ret < 0) {
			*failed = i;
			return out[i].ret;
		}
	return 0;
}

struct coord_pool_out *coord_pool_outs(struct coord *c)
{
	struct coord_pool_out *out = calloc(c->n_agents + 1, sizeof(*out));

	if (!out)
		snprintf(c->error, sizeof(c->error), "out of memory");
	return out;
}
