/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The client's arithmetic: when RC gives up, how long a worker waits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"
#include "engine/client.h"
#include "rdma/verbs.h"

/* retry + 1 attempts of 4.096 us * 2^timeout. */
static void test_give_up_ns(void **state)
{
	struct verbs_path p = { .timeout = 0, .retry = 0 };

	(void)state;
	assert_near(verbs_path_give_up_ns(&p), 4096.0, 0);
	p.retry = 7;
	assert_near(verbs_path_give_up_ns(&p), 8 * 4096.0, 0);
	/* The default path: about 34.4 s. */
	p.timeout = 20;
	assert_near(verbs_path_give_up_ns(&p), 34359738368.0, 0);
	/* The largest timeout the verbs take: no overflow on the way. */
	p.timeout = 31;
	assert_near(verbs_path_give_up_ns(&p), 8 * 4096.0 * 2147483648.0, 0);
}

/* Twice RC's give-up time plus 5 s, in ticks of the clock. */
static void test_completion_timeout(void **state)
{
	static const struct clock_cal clk = { .ticks_per_ns = 2.0 };
	struct verbs_path p = { .timeout = 0, .retry = 0 };

	(void)state;
	assert_int_equal(client_completion_timeout_ticks(&clk, &p),
			 (uint64_t)(2 * 4096 + 5000000000ull) * 2);
	p.timeout = 20;
	p.retry = 7;
	assert_int_equal(client_completion_timeout_ticks(&clk, &p),
			 (2 * 34359738368ull + 5000000000ull) * 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_give_up_ns),
		cmocka_unit_test(test_completion_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
