/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one shape of the run engine's workers (engine/run_int.h), on a kind
 * that needs no device: each thread pinned where --cpu says, its engine
 * made and connected before the crew is ready, the first worker's error
 * what readiness reports, the gate the only start of a source's crew
 * (the CLI's runs at once), and release once per worker: in its thread
 * as it ends, or after join for a crew that keeps its workers.
 */
#define _GNU_SOURCE	/* sched_getaffinity */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "base/errbuf.h"
#include "engine/run_int.h"

#define N_WORKERS 3

struct fake_worker {
	struct run_worker base;		/* first: its crew's */
	bool refuse;			/* its connect fails */
	bool slow;			/* its connect waits for hold_connects to clear */
	int connected, ran, released;
	pthread_t run_tid;		/* the thread that ran it */
	bool released_in_thread;
};

static int fake_init(struct run_worker *w)
{
	w->got_huge = w->index == 0;
	return 0;
}

static int hold_connects;		/* atomic: a slow connect waits while set (at most 10 s) */

static int fake_connect(struct run_worker *w)
{
	struct fake_worker *f = (struct fake_worker *)w;
	int ms;

	for (ms = 0; f->slow && __atomic_load_n(&hold_connects, __ATOMIC_ACQUIRE) && ms < 10000;
	     ms++)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	f->connected++;
	if (f->refuse)
		return errbuf_set(w->err, sizeof(w->err), -ECONNREFUSED, "worker %u refused",
				  w->index);
	return 0;
}

static int fake_run(struct run_worker *w)
{
	struct fake_worker *f = (struct fake_worker *)w;

	f->ran++;
	f->run_tid = pthread_self();
	return 0;
}

static void fake_release(struct run_worker *w)
{
	struct fake_worker *f = (struct fake_worker *)w;

	f->released++;
	f->released_in_thread = f->ran && pthread_equal(pthread_self(), f->run_tid);
}

static const struct run_worker_ops fake_ops = {
	.init = fake_init,
	.connect = fake_connect,
	.run = fake_run,
	.release = fake_release,
};

/* --cpu: every worker on the first CPU this process may use. */
static void flow_on_one_cpu(struct flow_opts *o)
{
	cpu_set_t set;
	int cpu = 0, i;

	memset(o, 0, sizeof(*o));
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	while (!CPU_ISSET(cpu, &set))
		cpu++;
	o->n_cpus = N_WORKERS;
	for (i = 0; i < N_WORKERS; i++)
		o->cpus[i] = cpu;
}

/* Never opened: --cpu pins without asking the device where it is. */
static struct verbs_dev no_dev;

static struct run_crew crew_of(struct fake_worker *ws, const struct flow_opts *o,
			       struct run_gate *g, volatile sig_atomic_t *stop)
{
	return (struct run_crew){ .ops = &fake_ops, .dev = &no_dev, .flow = o,
				  .keep = g != NULL, .gate = g, .stop = stop, .ws = ws,
				  .stride = sizeof(*ws), .n = N_WORKERS };
}

/* The CLI's crew: no gate, each runs once connected, releases in its thread. */
static void test_cli_crew(void **state)
{
	struct fake_worker ws[N_WORKERS] = { 0 };
	struct flow_opts o;
	struct run_common rc = { 0 };
	struct run_crew c;
	char err[256];
	int i;

	(void)state;
	flow_on_one_cpu(&o);
	c = crew_of(ws, &o, NULL, NULL);
	assert_int_equal(run_crew_start(&c, err, sizeof(err)), 0);
	run_crew_join(&c, &rc);
	assert_null(rc.error);
	assert_true(rc.got_huge);
	for (i = 0; i < N_WORKERS; i++) {
		assert_int_equal(ws[i].base.cpu, o.cpus[i]);
		assert_int_equal(ws[i].ran, 1);
		assert_int_equal(ws[i].released, 1);
		assert_true(ws[i].released_in_thread);
	}
	run_crew_release(&c);
	for (i = 0; i < N_WORKERS; i++)
		assert_int_equal(ws[i].released, 1);
}

/* A source's crew: ready once all are connected, none runs before the
 * gate opens, each released once after join. */
static void test_src_crew(void **state)
{
	struct fake_worker ws[N_WORKERS] = { 0 };
	volatile sig_atomic_t stop = 0;
	struct timespec ts;
	struct flow_opts o;
	struct run_gate g;
	struct run_crew c;
	char err[256];
	int i, tries;

	(void)state;
	flow_on_one_cpu(&o);
	assert_int_equal(run_gate_init(&g, err, sizeof(err)), 0);
	c = crew_of(ws, &o, &g, &stop);
	assert_int_equal(run_crew_start(&c, err, sizeof(err)), 0);
	assert_int_equal(run_crew_ready(&c, 10000, err, sizeof(err)), 0);
	for (i = 0; i < N_WORKERS; i++) {
		assert_int_equal(ws[i].connected, 1);
		assert_int_equal(ws[i].ran, 0);
	}
	assert_false(run_crew_reap(&c));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	run_gate_open(&g, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, 0, 0);
	for (tries = 0; !run_crew_reap(&c) && tries < 1000; tries++)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	assert_true(tries < 1000);
	for (i = 0; i < N_WORKERS; i++) {
		assert_int_equal(ws[i].ran, 1);
		assert_true(ws[i].base.started_ns > 0);
		assert_int_equal(ws[i].released, 0);
	}
	run_crew_release(&c);
	for (i = 0; i < N_WORKERS; i++) {
		assert_int_equal(ws[i].released, 1);
		assert_false(ws[i].released_in_thread);
	}
	run_gate_destroy(&g);
}

/* A connect that fails: readiness says the first such worker's error;
 * the gate's quit ends the others unstarted. */
static void test_src_refused(void **state)
{
	struct fake_worker ws[N_WORKERS] = { 0 };
	struct flow_opts o;
	struct run_gate g;
	struct run_crew c;
	char err[256];
	int i;

	(void)state;
	flow_on_one_cpu(&o);
	ws[1].refuse = ws[2].refuse = true;
	assert_int_equal(run_gate_init(&g, err, sizeof(err)), 0);
	c = crew_of(ws, &o, &g, NULL);
	assert_int_equal(run_crew_start(&c, err, sizeof(err)), 0);
	assert_int_equal(run_crew_ready(&c, 10000, err, sizeof(err)), -ECONNREFUSED);
	assert_string_equal(err, "worker 1 refused");
	run_gate_quit(&g);
	run_crew_release(&c);
	for (i = 0; i < N_WORKERS; i++) {
		assert_int_equal(ws[i].ran, 0);
		assert_int_equal(ws[i].released, 1);
	}
	assert_int_equal(ws[0].base.status, 0);
	assert_int_equal(ws[2].base.status, -ECONNREFUSED);
	run_gate_destroy(&g);
}

/* A connect that does not come back: readiness ends at its bound and
 * says how many are not through; the crew is still released whole once
 * the connect returns. */
static void test_src_ready_bound(void **state)
{
	struct fake_worker ws[N_WORKERS] = { 0 };
	struct timespec t0, t1;
	struct flow_opts o;
	struct run_gate g;
	struct run_crew c;
	char err[256];
	double waited_ms;
	int i;

	(void)state;
	flow_on_one_cpu(&o);
	ws[2].slow = true;
	__atomic_store_n(&hold_connects, 1, __ATOMIC_RELEASE);
	assert_int_equal(run_gate_init(&g, err, sizeof(err)), 0);
	c = crew_of(ws, &o, &g, NULL);
	assert_int_equal(run_crew_start(&c, err, sizeof(err)), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(run_crew_ready(&c, 200, err, sizeof(err)), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	assert_true(waited_ms >= 199);
	assert_string_equal(err, "1 of 3 workers not connected within 200 ms");
	assert_int_equal(ws[2].connected, 0);
	__atomic_store_n(&hold_connects, 0, __ATOMIC_RELEASE);
	run_gate_quit(&g);
	run_crew_release(&c);
	for (i = 0; i < N_WORKERS; i++) {
		assert_int_equal(ws[i].connected, 1);
		assert_int_equal(ws[i].ran, 0);
		assert_int_equal(ws[i].released, 1);
	}
	run_gate_destroy(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_crew),
		cmocka_unit_test(test_src_crew),
		cmocka_unit_test(test_src_refused),
		cmocka_unit_test(test_src_ready_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
