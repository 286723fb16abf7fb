/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* See order.h: doubles sorted, and their median. */
#include <stdlib.h>

#include "base/order.h"

static int order_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

void order_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), order_cmp_double);
}

double order_median(double *v, size_t n)
{
	order_doubles(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
