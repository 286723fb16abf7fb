/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * flow_result_merge: what adding one flow's result into a sum does to
 * counters (added), elapsed time (the longest), the received counts
 * (valid only if every part had them), histograms (merged sample for
 * sample), and how the run ended (the first error wins).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/result.h"

static struct flow_result sum, part;

static int setup(void **state)
{
	(void)state;
	if (flow_result_init(&sum, 64) || flow_result_init(&part, 64))
		return -1;
	sum.rx_valid = true;	/* a sum of bw results starts valid */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	flow_result_release(&sum);
	flow_result_release(&part);
	return 0;
}

/* @r's counters as one flow of a run leaves them; @k scales them. */
static void result_fill(struct flow_result *r, uint64_t k)
{
	r->samples = 10 * k;
	r->msgs = 11 * k;
	r->bytes = 704 * k;
	r->loop_after_wire = k;
	r->retrans = 2 * k;
	r->elapsed_ticks = 1000 * k;
	r->rx_valid = true;
	r->rx_msgs = 9 * k;
	r->rx_bytes = 576 * k;
}

static void test_counters_add(void **state)
{
	(void)state;
	result_fill(&part, 1);
	assert_int_equal(flow_result_merge(&sum, &part), 0);
	result_fill(&part, 3);
	assert_int_equal(flow_result_merge(&sum, &part), 0);
	assert_int_equal(sum.samples, 40);
	assert_int_equal(sum.msgs, 44);
	assert_int_equal(sum.bytes, 2816);
	assert_int_equal(sum.loop_after_wire, 4);
	assert_int_equal(sum.retrans, 8);
	assert_true(sum.rx_valid);
	assert_int_equal(sum.rx_msgs, 36);
	assert_int_equal(sum.rx_bytes, 2304);
	assert_int_equal(sum.size_bytes, 64);
	assert_int_equal(sum.status, 0);
}

/* Flows of a run overlap in time: the sum lasted as long as the longest. */
static void test_elapsed_is_longest(void **state)
{
	(void)state;
	result_fill(&part, 3);
	flow_result_merge(&sum, &part);
	result_fill(&part, 2);
	flow_result_merge(&sum, &part);
	assert_int_equal(sum.elapsed_ticks, 3000);
}

/* One part the server said nothing about makes the received sum unknown. */
static void test_rx_valid_only_if_all(void **state)
{
	(void)state;
	result_fill(&part, 1);
	part.rx_valid = false;
	flow_result_merge(&sum, &part);
	assert_false(sum.rx_valid);
	result_fill(&part, 1);
	flow_result_merge(&sum, &part);
	assert_false(sum.rx_valid);
}

static void test_histograms_merge(void **state)
{
	uint64_t v;

	(void)state;
	for (v = 1; v <= 100; v++) {
		hist_record(part.rtt, v);
		hist_record(part.wire, 2 * v);
		hist_record(part.loop, 3 * v);
	}
	hist_record(part.rtt_neg, 7);
	hist_record(sum.rtt, 1000);
	assert_int_equal(flow_result_merge(&sum, &part), 0);
	assert_int_equal(hist_count(sum.rtt), 101);
	assert_int_equal(hist_min(sum.rtt), 1);
	assert_int_equal(hist_max(sum.rtt), 1000);
	assert_int_equal(hist_count(sum.wire), 100);
	assert_int_equal(hist_max(sum.wire), 200);
	assert_int_equal(hist_min(sum.loop), 3);
	assert_int_equal(hist_count(sum.rtt_neg), 1);
	/* the part is left as it was */
	assert_int_equal(hist_count(part.rtt), 100);
	assert_int_equal(hist_max(part.rtt), 100);
}

/* The first part that stopped early says how the sum ended. */
static void test_first_error_wins(void **state)
{
	(void)state;
	result_fill(&part, 1);
	flow_result_merge(&sum, &part);
	assert_int_equal(sum.status, 0);
	assert_string_equal(sum.error, "");
	part.status = -ETIMEDOUT;
	strcpy(part.error, "server gone");
	flow_result_merge(&sum, &part);
	part.status = -ECONNRESET;
	strcpy(part.error, "reset");
	flow_result_merge(&sum, &part);
	assert_int_equal(sum.status, -ETIMEDOUT);
	assert_string_equal(sum.error, "server gone");
	/* an error is not undone by a later part that ran to the end */
	part.status = 0;
	part.error[0] = '\0';
	flow_result_merge(&sum, &part);
	assert_int_equal(sum.status, -ETIMEDOUT);
	assert_string_equal(sum.error, "server gone");
}

/* The posting order's residual bias: wire-first mean minus loop-first
 * mean of T_W - T_L; unknown until both orders have samples; merged. */
static void test_order_bias(void **state)
{
	double b;

	(void)state;
	assert_false(flow_result_order_bias_ticks(&part, &b));
	part.order_rtt_sum_ticks[0] = 3000;	/* 3 samples, mean 1000 ticks */
	part.order_n[0] = 3;
	assert_false(flow_result_order_bias_ticks(&part, &b));
	part.order_rtt_sum_ticks[1] = 1800;	/* 2 samples, mean 900 ticks */
	part.order_n[1] = 2;
	assert_true(flow_result_order_bias_ticks(&part, &b));
	assert_true(b > 99.999 && b < 100.001);
	/* Negative RTTs (loopback after the wire) count signed. */
	part.order_rtt_sum_ticks[1] = -200;
	assert_true(flow_result_order_bias_ticks(&part, &b));
	assert_true(b > 1099.999 && b < 1100.001);
	flow_result_merge(&sum, &part);
	flow_result_merge(&sum, &part);
	assert_int_equal(sum.order_n[0], 6);
	assert_int_equal(sum.order_n[1], 4);
	assert_true(flow_result_order_bias_ticks(&sum, &b));
	assert_true(b > 1099.999 && b < 1100.001);
}

#define RESULT_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RESULT_TEST(test_counters_add),
		RESULT_TEST(test_elapsed_is_longest),
		RESULT_TEST(test_rx_valid_only_if_all),
		RESULT_TEST(test_histograms_merge),
		RESULT_TEST(test_first_error_wins),
		RESULT_TEST(test_order_bias),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
