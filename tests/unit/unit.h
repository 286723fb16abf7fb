/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Helpers cmocka lacks in the versions we build against (1.1 has no
 * assert_double_equal). Include after <cmocka.h>.
 */
#ifndef RPERF_TESTS_UNIT_H
#define RPERF_TESTS_UNIT_H

#include <math.h>

/* |a - b| <= tol, NaN never passes; prints both values on failure. */
#define assert_near(a, b, tol) do {						\
	double a_ = (a), b_ = (b), tol_ = (tol);				\
	if (!(fabs(a_ - b_) <= tol_))						\
		fail_msg("%s = %.17g, expected %.17g +- %g", #a, a_, b_, tol_);	\
} while (0)

#endif
