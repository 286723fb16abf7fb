/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* log: the return contract that lets callers write `return log_error(...)`. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/log.h"

static void test_error_returns_minus_one(void **state)
{
	(void)state;
	log_set_level(LOG_LEVEL_QUIET);
	assert_int_equal(log_error("x %d", 1), -1);
	assert_int_equal(log_errno(-EINVAL, "bad '%s'", "y"), -EINVAL);
}

static void test_level_roundtrip(void **state)
{
	(void)state;
	log_set_level(LOG_LEVEL_DEBUG);
	assert_int_equal(log_get_level(), LOG_LEVEL_DEBUG);
	log_set_level(LOG_LEVEL_WARN);
	assert_int_equal(log_get_level(), LOG_LEVEL_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_returns_minus_one),
		cmocka_unit_test(test_level_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
