/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Samples of doubles put in order, and their median: what the mesh's
 * outlier rule, its reference floor, converge's start figures and the
 * localization's findings all take from a handful of figures, with one
 * comparison so that they order alike.
 */
#ifndef RPERF_ORDER_H
#define RPERF_ORDER_H

#include <stddef.h>

/* Sort the @n values of @v in place, ascending. */
void order_doubles(double *v, size_t n);
/* The median of the @n > 0 values of @v (sorted in place); of an even
 * count, the mean of the middle two. */
double order_median(double *v, size_t n);

#endif
