/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the lat run says of its own clock once its sizes are merged: a
 * tick too coarse for the smallest median (a 25 MHz generic timer's
 * 40 ns against a 300 ns RTT) is a warning the run carries to its
 * command; a fine one says nothing. Driven on merged results, no device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/hist.h"
#include "engine/run_int.h"

/* A run whose merged sizes are @n of @sizes, each RTT at @rtt_ns, on a
 * clock of ns ticks read @tick_ns apart. */
static void merged_run(struct run_lat *r, double tick_ns, const size_t *sizes,
		       const uint64_t *rtt_ns, size_t n)
{
	size_t k, i;

	memset(r, 0, sizeof(*r));
	r->c.clk = (struct clock_cal){ .source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1,
				       .ns_per_tick = tick_ns, .method = "monotonic" };
	for (k = 0; k < n; k++) {
		assert_int_equal(flow_result_init(&r->merged[k], sizes[k]), 0);
		for (i = 0; i < 1001; i++)
			hist_record(r->merged[k].rtt, rtt_ns[k]);
		r->merged[k].samples = 1001;
	}
	r->n_merged = n;
}

static void merged_free(struct run_lat *r)
{
	size_t k;

	for (k = 0; k < r->n_merged; k++)
		flow_result_release(&r->merged[k]);
}

/* 40 ns ticks, a 300 ns median at 64 bytes and 2 us at 4096: the
 * warning, naming the tick, the smaller median and its size. */
static void test_coarse_tick_warns(void **state)
{
	const size_t sizes[] = { 4096, 64 };
	const uint64_t rtt_ns[] = { 2000, 300 };
	struct run_lat r;

	(void)state;
	merged_run(&r, 40, sizes, rtt_ns, 2);
	run_lat_tick_check(&r);
	assert_string_equal(r.c.tick_warning, "the clock's tick (40 ns) is coarser than a "
			    "tenth of the median RTT (300 ns at 64 bytes): its percentiles move "
			    "by whole ticks");
	merged_free(&r);
}

/* A 1 ns tick against the same medians, and 40 ns against medians of
 * 400 ns and more: nothing. */
static void test_fine_tick_silent(void **state)
{
	const size_t sizes[] = { 4096, 64 };
	const uint64_t rtt_ns[] = { 2000, 300 }, slow_ns[] = { 2000, 400 };
	struct run_lat r;

	(void)state;
	merged_run(&r, 1, sizes, rtt_ns, 2);
	run_lat_tick_check(&r);
	assert_string_equal(r.c.tick_warning, "");
	merged_free(&r);
	merged_run(&r, 40, sizes, slow_ns, 2);
	run_lat_tick_check(&r);
	assert_string_equal(r.c.tick_warning, "");
	merged_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coarse_tick_warns),
		cmocka_unit_test(test_fine_tick_silent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
