/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A start cannot hold an agent: one more than CTL_START_LEAD_MAX_S (10 s)
 * ahead (an hour) is refused, while the coordinator's own lead stays
 * under it whatever its clock sync took; and the workers' sleep to the instant of
 * one that was taken ends within a second of a stop from the coordinator
 * (the run's stop flag), of the gate's quit, or of SIGTERM (the stop
 * flag the signal sets). The workers once slept to the instant whatever
 * came, and an agent given a start far ahead ignored SIGTERM.
 */
#define _GNU_SOURCE	/* pthread_timedjoin_np */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/agent_ctl.h"
#include "agent/agent_int.h"
#include "coord/coord.h"
#include "engine/run.h"
#include "base/stop.h"

#define HOUR_NS		3600000000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void test_lead(void **state)
{
	uint64_t now = now_ns(), max = (uint64_t)CTL_START_LEAD_MAX_S * 1000000000u;
	char err[128];

	(void)state;
	assert_int_equal(agent_ctl_start_check(now + HOUR_NS, now, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a start 3600 s ahead: at most 10 s"));
	assert_int_equal(agent_ctl_start_check(UINT64_MAX, now, err, sizeof(err)), -EINVAL);
	assert_int_equal(agent_ctl_start_check(now + max, now, err, sizeof(err)), 0);
	assert_int_equal(agent_ctl_start_check(now + max + 1, now, err, sizeof(err)), -EINVAL);
	assert_int_equal(agent_ctl_start_check(now + 500000000u, now, err, sizeof(err)), 0);
	/* One already past runs at once. */
	assert_int_equal(agent_ctl_start_check(now - 1000, now, err, sizeof(err)), 0);
}

/*
 * The coordinator's lead: half a second plus its sync pass, and never as
 * far as an agent refuses, however long the pass took (it once grew
 * without a bound, under the agents' 30 s then).
 */
static void test_coord_lead(void **state)
{
	uint64_t now = now_ns(), sync_ns[] = { 0, 1000000000u, 8500000000u, 60000000000u,
					       HOUR_NS };
	char err[128];
	size_t i;

	(void)state;
	assert_int_equal(coord_start_lead_ns(0), 500000000u);
	assert_int_equal(coord_start_lead_ns(1000000000u), 1500000000u);
	for (i = 0; i < sizeof(sync_ns) / sizeof(sync_ns[0]); i++) {
		assert_true(coord_start_lead_ns(sync_ns[i]) <
			    (uint64_t)CTL_START_LEAD_MAX_S * 1000000000u);
		assert_int_equal(agent_ctl_start_check(now + coord_start_lead_ns(sync_ns[i]), now,
						       err, sizeof(err)), 0);
	}
	assert_true(CTL_START_LEAD_MAX_S <= 10);
}

struct sleeper {
	struct run_gate g;
	volatile sig_atomic_t *stop;
	volatile sig_atomic_t own;
	uint64_t woke_ns;
	pthread_t tid;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;

	run_gate_sleep(&s->g, s->stop);
	s->woke_ns = now_ns();
	return NULL;
}

/* A worker asleep to a start an hour ahead, its stop flag @stop. */
static void sleeper_start(struct sleeper *s, volatile sig_atomic_t *stop)
{
	char err[64];

	memset(s, 0, sizeof(*s));
	assert_int_equal(run_gate_init(&s->g, err, sizeof(err)), 0);
	run_gate_open(&s->g, now_ns() + HOUR_NS, 0, 1000000000u);
	s->stop = stop ? stop : &s->own;
	assert_int_equal(pthread_create(&s->tid, NULL, sleeper_main, s), 0);
	usleep(100000);
	assert_int_equal(s->woke_ns, 0);	/* still asleep */
}

/* It ends within a second of @t0 (a sleeper that does not fails the
 * test in 2 s, instead of holding it for the hour). */
static void sleeper_ends(struct sleeper *s, uint64_t t0)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 2;
	assert_int_equal(pthread_timedjoin_np(s->tid, NULL, &dl), 0);
	assert_true(s->woke_ns > 0);
	assert_true(s->woke_ns - t0 < 1000000000u);
	run_gate_destroy(&s->g);
}

static void test_stop(void **state)
{
	struct sleeper s;
	uint64_t t0;

	(void)state;
	sleeper_start(&s, NULL);
	t0 = now_ns();
	s.own = 1;
	sleeper_ends(&s, t0);
}

static void test_quit(void **state)
{
	struct sleeper s;
	uint64_t t0;

	(void)state;
	sleeper_start(&s, NULL);
	t0 = now_ns();
	run_gate_quit(&s.g);
	sleeper_ends(&s, t0);
}

static void test_sigterm(void **state)
{
	struct sleeper s;
	uint64_t t0;

	(void)state;
	stop_install();
	sleeper_start(&s, stop_flag());
	t0 = now_ns();
	assert_int_equal(raise(SIGTERM), 0);
	sleeper_ends(&s, t0);
	assert_true(stop_requested());
	stop_reset();
}

/* The instant itself, when nothing stops it: not before, and soon after. */
static void test_on_time(void **state)
{
	struct sleeper s;
	uint64_t at;
	char err[64];

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(run_gate_init(&s.g, err, sizeof(err)), 0);
	at = now_ns() + 120000000u;
	run_gate_open(&s.g, at, 0, 1000000000u);
	s.stop = &s.own;
	assert_int_equal(pthread_create(&s.tid, NULL, sleeper_main, &s), 0);
	pthread_join(s.tid, NULL);
	assert_true(s.woke_ns >= at);
	assert_true(s.woke_ns - at < 500000000u);
	run_gate_destroy(&s.g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lead),
		cmocka_unit_test(test_coord_lead),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_quit),
		cmocka_unit_test(test_sigterm),
		cmocka_unit_test(test_on_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
