/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A compact sketch of one distribution of RTTs: what rperf mesh keeps per
 * pair, where a histogram (hist.h, 224 KiB) per pair would not fit
 * millions of pairs.
 *
 * Layout: the log-linear geometry of loglin.h at SKETCH_SUB_BITS = 6:
 * values below 128 have a bucket each, above, a power of two is split
 * into 64 buckets, so a bucket is at most 1/64 of its values wide. A
 * bucket of the sketch is a union of whole buckets of the histogram, so
 * a histogram's samples move into the sketch without a rounding. The
 * buckets above 2^36 - 1 (69 s) are one, the last, whose high bound is
 * the exact max. Samples at 0 (a method's unresolved placeholders) are a
 * count apart. Only the window of buckets between the smallest and the
 * largest sample above 0 is kept, 32-bit counts: at most
 * SKETCH_MAX_BYTES, less the narrower the distribution.
 *
 * count, zeros, min, max and sum are exact; counts are merged exactly
 * (a merge that would exceed UINT32_MAX samples is refused). A
 * percentile has the ranks, states and interval ranks of
 * hist_quantile(), and its interval's ends are the bounds of the
 * sketch's buckets at those ranks: the sketch's interval holds the
 * histogram's interval of the same samples. Its value is within
 * SKETCH_REL_ERROR of the exact nearest-rank sample below
 * 2^SKETCH_TOP_BITS; in the last bucket, it is the max.
 */
#ifndef RPERF_SKETCH_H
#define RPERF_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/hist.h"

#define SKETCH_SUB_BITS		6
/* Values from 2^SKETCH_TOP_BITS up share the last bucket. */
#define SKETCH_TOP_BITS		36
/* The largest relative distance of a bucket's midpoint to its values. */
#define SKETCH_REL_ERROR	(1.0 / (double)(1u << (SKETCH_SUB_BITS + 1)))
/* The most memory a sketch takes (its window of every bucket). */
#define SKETCH_MAX_BYTES	8192

struct sketch;

/*
 * Add every sample of histogram @h, multiplied by @factor (a unit into
 * the sketch's), to *@s, allocating it when NULL and growing its window.
 * With @factor 1.0, exact: every bucket of @h lies in one of the
 * sketch's. Otherwise each bucket's samples move as hist_merge_scaled()
 * moves them (its representative scaled, hist_scale_value()), so the
 * sketch holds what a histogram scaled so would hold. 0, -EINVAL
 * (@factor not finite and above 0), -ENOMEM, -EOVERFLOW (more than
 * UINT32_MAX samples above 0); *@s unchanged on an error.
 */
int sketch_add_hist(struct sketch **s, const struct hist *h, double factor);
/* Add every sample of @src to *@dst (allocated when NULL), exactly: as
 * sketch_add_hist(). */
int sketch_merge(struct sketch **dst, const struct sketch *src);
void sketch_free(struct sketch *s);

/* A sketch's exact figures. */
struct sketch_totals {
	uint64_t count;			/* every sample, the zeros too */
	uint64_t zeros;			/* samples at exactly 0 */
	uint64_t min;			/* the smallest; UINT64_MAX while empty */
	uint64_t max;			/* the largest; 0 while empty */
	unsigned __int128 sum;
};
const struct sketch_totals *sketch_totals(const struct sketch *s);

/*
 * Percentile @pct (0 < pct < 100), the sketch's zeros unresolved
 * placeholders: as hist_quantile() of a histogram of the same samples
 * with hist_zeros() unresolved, each end of the interval widened to its
 * rank's bucket bound in the sketch (hist_quantile_ranks()).
 */
void sketch_quantile(const struct sketch *s, double pct, struct hist_quantile *q);

/* Bytes the sketch occupies (its header and window). */
size_t sketch_memory_bytes(const struct sketch *s);

#endif
