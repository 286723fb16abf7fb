/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Pass/fail criteria (flow/criteria.c) and their report: a maximum
 * passes at its limit and fails above it, a minimum the other way round,
 * a figure never measured fails, and the line and JSON name the figure,
 * the limit and the unit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "flow/criteria.h"
#include "report/report.h"

static void test_judge(void **state)
{
	struct criteria cs = { 0 };
	struct criterion *p99, *p50, *gbps, *none;

	(void)state;
	p99 = criteria_add(&cs, "max_p99", CRITERION_MAX, "us", 10, "size 64");
	p50 = criteria_add(&cs, "max_p50", CRITERION_MAX, "us", 10, "size 64");
	gbps = criteria_add(&cs, "min_gbps", CRITERION_MIN, "gbps", 0.005, "total received");
	none = criteria_add(&cs, "min_share", CRITERION_MIN, "pct", 20, "class ef");
	criterion_judge(p99, true, 12.5);
	criterion_judge(p50, true, 10);
	criterion_judge(gbps, true, 0.005);
	criterion_judge(none, false, 99);
	assert_false(p99->passed);
	assert_true(p50->passed);
	assert_true(gbps->passed);
	assert_false(none->passed);
	assert_int_equal(criteria_failed(&cs), 2);
	criterion_judge(gbps, true, 0.0049);
	assert_false(gbps->passed);
	assert_int_equal(criteria_failed(&cs), 3);
}

static void test_full(void **state)
{
	struct criteria cs = { 0 };
	int i;

	(void)state;
	for (i = 0; i < CRITERIA_MAX; i++)
		assert_non_null(criteria_add(&cs, "max_p99", CRITERION_MAX, "us", 1, "x"));
	assert_null(criteria_add(&cs, "max_p99", CRITERION_MAX, "us", 1, "x"));
}

static void test_report(void **state)
{
	struct criteria cs = { 0 };
	char line[256];
	json_t *arr, *o;

	(void)state;
	criterion_judge(criteria_add(&cs, "max_p99", CRITERION_MAX, "us", 10, "size 64"),
			true, 12.5);
	criterion_judge(criteria_add(&cs, "min_gbps", CRITERION_MIN, "gbps", 2, "total sent"),
			false, 0);
	report_criterion_line(&cs.c[0], line, sizeof(line));
	assert_string_equal(line, "max_p99 (size 64): 12.5 us, above 10 us");
	report_criterion_line(&cs.c[1], line, sizeof(line));
	assert_string_equal(line, "min_gbps (total sent): not measured, limit 2 Gb/s");
	arr = report_criteria_json(&cs);
	assert_int_equal(json_array_size(arr), 2);
	o = json_array_get(arr, 0);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "max");
	assert_true(json_real_value(json_object_get(o, "limit_us")) == 10);
	assert_true(json_real_value(json_object_get(o, "value_us")) == 12.5);
	assert_true(json_is_false(json_object_get(o, "passed")));
	o = json_array_get(arr, 1);
	assert_true(json_is_null(json_object_get(o, "value_gbps")));
	assert_string_equal(json_string_value(json_object_get(o, "scope")), "total sent");
	json_decref(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
