/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * order: doubles sorted ascending in place (negatives, ties, one value),
 * and the median of an odd count (the middle one) and of an even
 * count (the mean of the middle two), whatever order they came in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/order.h"
#include "unit.h"

static void test_sorted(void **state)
{
	double v[] = { 3.5, -1, 0, 3.5, -7.25, 2 };
	const double want[] = { -7.25, -1, 0, 2, 3.5, 3.5 };
	double one = 4;
	size_t i;

	(void)state;
	order_doubles(v, 6);
	for (i = 0; i < 6; i++)
		assert_near(v[i], want[i], 0);
	order_doubles(&one, 1);
	assert_near(one, 4, 0);
}

static void test_median(void **state)
{
	double odd[] = { 9, 1, 5 }, even[] = { 10, 2, 8, 4 }, one[] = { -3 };

	(void)state;
	assert_near(order_median(odd, 3), 5, 0);
	assert_near(order_median(even, 4), 6, 0);	/* (4 + 8) / 2 */
	assert_near(even[0], 2, 0);			/* sorted in place */
	assert_near(even[3], 10, 0);
	assert_near(order_median(one, 1), -3, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted),
		cmocka_unit_test(test_median),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
