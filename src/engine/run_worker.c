/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one shape of every run's workers (run_int.h): the gate a source's
 * workers start at, the worker's thread (pin, make, connect, the gate,
 * run, release), the crew's start, readiness, reap and join, and the lat
 * and bw bodies with the retransmission counters read around them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "base/pin.h"
#include "base/stop.h"
#include "engine/client.h"
#include "engine/run_int.h"

/* ------------------------------------------------------------------ */
/* The gate                                                            */
/* ------------------------------------------------------------------ */

int run_gate_init(struct run_gate *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	if (pthread_mutex_init(&g->mu, NULL))
		return errbuf_set(err, errlen, -ENOMEM, "cannot make a lock");
	if (pthread_cond_init(&g->cv, NULL)) {
		pthread_mutex_destroy(&g->mu);
		return errbuf_set(err, errlen, -ENOMEM, "cannot make a condition");
	}
	g->init = true;
	return 0;
}

/* Set @flag (go or quit) under the gate's lock and wake the workers. */
static void run_gate_set(struct run_gate *g, bool *flag)
{
	if (!g->init)
		return;
	pthread_mutex_lock(&g->mu);
	*flag = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

void run_gate_open(struct run_gate *g, uint64_t at_ns, uint64_t warmup_ns,
		   uint64_t duration_ns)
{
	if (!g->init)
		return;
	pthread_mutex_lock(&g->mu);
	g->at_ns = at_ns;
	g->warmup_ns = warmup_ns;
	g->duration_ns = duration_ns;
	pthread_mutex_unlock(&g->mu);
	run_gate_set(g, &g->go);
}

void run_gate_quit(struct run_gate *g)
{
	run_gate_set(g, &g->quit);
}

void run_gate_destroy(struct run_gate *g)
{
	if (!g->init)
		return;
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	g->init = false;
}

/* Wait for the gate: true to run (the window then in @g), false to end. */
static bool run_gate_wait(struct run_gate *g)
{
	bool go;

	pthread_mutex_lock(&g->mu);
	while (!g->go && !g->quit)
		pthread_cond_wait(&g->cv, &g->mu);
	go = g->go;
	pthread_mutex_unlock(&g->mu);
	return go;
}

static uint64_t run_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Instant @ns of CLOCK_MONOTONIC as a deadline for the waits that take one. */
static struct timespec run_ts_of_ns(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

/* Slices of the sleep to the instant: a stop or a quit is seen within one. */
#define RUN_SLEEP_SLICE_NS	50000000u

void run_gate_sleep(struct run_gate *g, volatile sig_atomic_t *stop)
{
	uint64_t at_ns = g->at_ns, t;
	struct timespec ts;

	for (;;) {
		if ((stop && *stop) || __atomic_load_n(&g->quit, __ATOMIC_RELAXED))
			return;
		t = run_now_ns();
		if (t >= at_ns)
			return;
		t = at_ns - t > RUN_SLEEP_SLICE_NS ? t + RUN_SLEEP_SLICE_NS : at_ns;
		ts = run_ts_of_ns(t);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
}

/* ------------------------------------------------------------------ */
/* A worker's thread                                                   */
/* ------------------------------------------------------------------ */

/*
 * Pin the calling worker @w, before it allocates, so that its queues and
 * buffers land on its CPU's node (first touch): the CLI's --cpu or the
 * NIC's cores, a failure its error; a source's where the NIC's cores
 * allow, best effort.
 */
static int run_worker_pin(struct run_worker *w)
{
	struct run_crew *c = w->crew;
	int cpu;

	if (c->flow) {
		cpu = client_pin_worker(c->flow, c->dev->ctx, w->index, w->err, sizeof(w->err));
		w->cpu = cpu >= 0 ? cpu : -1;
		return cpu < 0 ? cpu : 0;
	}
	w->cpu = pin_pick_cpu(c->dev->ctx, c->first_cpu + (int)w->index, w->err, sizeof(w->err));
	if (w->cpu >= 0)
		pin_thread(w->cpu, w->err, sizeof(w->err));
	w->err[0] = '\0';
	return 0;
}

/* Worker @w's crew has one more made and connected, or failed. */
static void run_crew_mark_ready(struct run_crew *c)
{
	pthread_mutex_lock(&c->mu);
	c->n_ready++;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

/* The crew's gate for @w: true to run (at once without one), false to end. */
static bool run_worker_pass(struct run_worker *w)
{
	struct run_gate *g = w->crew->gate;

	if (!g)
		return true;
	if (!run_gate_wait(g))
		return false;
	run_gate_sleep(g, w->crew->stop);
	w->started_ns = run_now_ns();
	return true;
}

static void *run_worker_main(void *arg)
{
	struct run_worker *w = arg;
	struct run_crew *c = w->crew;
	int ret;

	ret = run_worker_pin(w);
	if (!ret)
		ret = c->ops->init(w);
	if (!ret)
		ret = c->ops->connect(w);
	w->status = ret;
	run_crew_mark_ready(c);
	if (!ret && run_worker_pass(w))
		w->status = c->ops->run(w);
	if (!c->keep)
		c->ops->release(w);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The crew                                                            */
/* ------------------------------------------------------------------ */

struct run_worker *run_crew_at(const struct run_crew *c, unsigned i)
{
	return (struct run_worker *)((char *)c->ws + (size_t)i * c->stride);
}

int run_crew_start(struct run_crew *c, char *err, size_t errlen)
{
	struct run_worker *w;
	pthread_condattr_t ca;
	unsigned i;
	int ret;

	pthread_mutex_init(&c->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* ready's deadline */
	pthread_cond_init(&c->cv, &ca);
	pthread_condattr_destroy(&ca);
	c->made = true;
	for (i = 0; i < c->n; i++)
		*run_crew_at(c, i) = (struct run_worker){ .crew = c, .index = i, .fd = -1 };
	for (c->started = 0; c->started < c->n; c->started++) {
		w = run_crew_at(c, c->started);
		ret = pthread_create(&w->tid, NULL, run_worker_main, w);
		if (ret) {
			w->status = -ret;
			snprintf(w->err, sizeof(w->err), "cannot start a thread: %s", strerror(ret));
			return errbuf_set(err, errlen, -ret, "cannot start a worker thread: %s",
					  strerror(ret));
		}
		w->running = true;
	}
	return 0;
}

void run_crew_go(struct run_crew *c, const struct run_worker_ops *ops, struct run_common *rc,
		 void *ws, size_t stride)
{
	char err[256];

	*c = (struct run_crew){ .ops = ops, .dev = &rc->dev, .flow = rc->flow, .counters = true,
				.stop = stop_flag(), .ws = ws, .stride = stride,
				.n = rc->flow->spec.threads };
	if (run_crew_start(c, err, sizeof(err)))
		stop_request();		/* the others end too: the run is short a worker */
}

int run_crew_ready(struct run_crew *c, unsigned timeout_ms, char *err, size_t errlen)
{
	struct timespec end = run_ts_of_ns(run_now_ns() + (uint64_t)timeout_ms * 1000000u);
	struct run_worker *w;
	unsigned i, ready;
	int ret = 0;

	pthread_mutex_lock(&c->mu);
	while (c->n_ready < c->started && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&c->cv, &c->mu, &end);
	ready = c->n_ready;
	pthread_mutex_unlock(&c->mu);
	if (ready < c->started)
		return errbuf_set(err, errlen, -ETIMEDOUT,
				  "%u of %u workers not connected within %u ms", c->started - ready,
				  c->started, timeout_ms);
	for (i = 0; i < c->started; i++) {
		w = run_crew_at(c, i);
		if (w->status)
			return errbuf_set(err, errlen, w->status, "%s", w->err);
	}
	return 0;
}

bool run_crew_reap(struct run_crew *c)
{
	struct run_worker *w;
	unsigned i, done = 0;

	for (i = 0; i < c->n; i++) {
		w = run_crew_at(c, i);
		if (w->running && __atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
			pthread_join(w->tid, NULL);
			w->running = false;
		}
		done += !w->running;
	}
	return done == c->n;
}

void run_crew_join(struct run_crew *c, struct run_common *rc)
{
	struct run_worker *w;
	unsigned i;

	for (i = 0; i < c->n; i++) {
		w = run_crew_at(c, i);
		if (w->running)
			pthread_join(w->tid, NULL);
		w->running = false;
		if (!rc)
			continue;
		if (w->status && !rc->error)
			rc->error = w->err;
		run_env_worker(&rc->env, i, w->cpu);
	}
	if (rc)
		rc->got_huge = c->n && run_crew_at(c, 0)->got_huge;
}

void run_crew_release(struct run_crew *c)
{
	unsigned i;

	if (!c->made)
		return;
	run_crew_join(c, NULL);
	for (i = 0; c->keep && i < c->n; i++)
		c->ops->release(run_crew_at(c, i));
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	c->made = false;
}

/* ------------------------------------------------------------------ */
/* The engines and their bodies                                        */
/* ------------------------------------------------------------------ */

/* Huge pages: only as the CLI's --hugepages asks. */
static bool run_crew_huge(const struct run_crew *c)
{
	return c->flow && c->flow->hugepages;
}

int run_worker_probe_init(struct run_worker *w, size_t max_bytes, bool nic,
			  const struct verbs_path *path)
{
	int ret = probe_init(&w->probe, w->crew->dev, max_bytes, run_crew_huge(w->crew), nic, path,
			     &w->got_huge, w->err, sizeof(w->err));

	w->probe_ok = !ret;
	return ret;
}

int run_worker_load_init(struct run_worker *w, unsigned n_qps, uint32_t tx_depth,
			 size_t size_bytes, bool event)
{
	int ret = load_init(&w->load, w->crew->dev, n_qps, tx_depth, size_bytes,
			    run_crew_huge(w->crew), event, &w->got_huge, w->err, sizeof(w->err));

	w->load_ok = !ret;
	return ret;
}

void run_worker_engine_release(struct run_worker *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->probe_ok)
		probe_release(&w->probe);
	w->probe_ok = false;
	if (w->load_ok)
		load_release(&w->load);
	w->load_ok = false;
}

_Static_assert(sizeof(((struct run_worker *)0)->err) ==
	       sizeof(((struct flow_result *)0)->error), "an engine's error is a worker's");

/*
 * Worker @w's probe window (@pc) or else its load's run (@lc) into @res
 * (its first result the worker's), with the port's retransmission
 * counters around it when its crew reads them; the engine's error into
 * w->err. As run_lat_body().
 */
static int run_body(struct run_worker *w, const struct probe_cfg *pc, const struct load_cfg *lc,
		    struct flow_result *res)
{
	const struct verbs_dev *dev = w->crew->counters ? w->crew->dev : NULL;
	struct verbs_counters before, after;
	int ret;

	if (dev)
		verbs_counters_read(dev, &before);
	ret = pc ? probe_run(&w->probe, pc, res) : load_run(&w->load, lc, res);
	if (dev && !verbs_counters_read(dev, &after))
		res[0].retrans = verbs_counters_retrans(&before, &after);
	if (ret)
		memcpy(w->err, res[0].error, sizeof(w->err));
	return ret;
}

int run_lat_body(struct run_worker *w, const struct probe_cfg *cfg, struct flow_result *res)
{
	return run_body(w, cfg, NULL, res);
}

int run_bw_body(struct run_worker *w, const struct load_cfg *cfg, struct flow_result *res)
{
	return run_body(w, NULL, cfg, res);
}
