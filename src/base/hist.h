/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Log-linear histogram of uint64_t values (ticks) with bounded relative error.
 *
 * Why: a latency run records millions of samples per thread and must report
 * tails (p99.99) without keeping the samples, so memory is fixed at creation
 * and independent of the number of samples. Each measuring thread owns its
 * histogram (no atomics on the hot path); totals are merged after join.
 *
 * Layout: values below 2^(HIST_SUB_BITS + 1) = 1024 have a bucket each
 * (exact); above, every power of two [2^e, 2^(e+1)) is split into
 * 2^HIST_SUB_BITS = 512 linear sub-buckets of width 2^(e - 9). A bucket's
 * representative value is its midpoint, so it is within half a width of every
 * value in the bucket: relative error <= 2^-10 = 0.0977 % over 0..UINT64_MAX.
 *
 * count, min, max, mean and stdev are exact: they come from integer running
 * sums (sum of values in 128 bits, sum of squares in 192 bits), not from the
 * buckets, so merging two histograms gives bit-identical statistics to
 * recording every sample into one.
 */
#ifndef RPERF_HIST_H
#define RPERF_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#define HIST_SUB_BITS 9
/* Upper bound of the relative error of any value reported by this module. */
#define HIST_REL_ERROR (1.0 / (double)(1u << (HIST_SUB_BITS + 1)))

struct hist;

/* A zeroed histogram, or NULL on ENOMEM. */
struct hist *hist_new(void);
void hist_free(struct hist *h);
/* Forget every sample; memory is kept. */
void hist_reset(struct hist *h);

/* Hot path: O(1), no allocation, no division, no floating point. */
void hist_record(struct hist *h, uint64_t value);

/*
 * Add every sample of src to dst. 0, -EINVAL on NULL, -EOVERFLOW when the
 * total count would not fit in 64 bits (dst is then left unchanged).
 */
int hist_merge(struct hist *dst, const struct hist *src);

/*
 * Add every sample of @src, multiplied by @factor, to @dst: a histogram
 * in one unit joins one in another (ticks of a host's clock into ns).
 * With @factor 1.0 this is hist_merge(), exact. Otherwise the count is
 * exact, min and max are the exact ones scaled (one rounding each), and
 * each bucket's samples move to the bucket of their scaled representative,
 * so percentiles, mean and stdev stay within HIST_REL_ERROR. 0, -EINVAL
 * on NULL or a factor that is not finite and above 0, -EOVERFLOW as
 * hist_merge().
 */
int hist_merge_scaled(struct hist *dst, const struct hist *src, double factor);
/* @v * @factor rounded to an integer, saturated to the uint64_t range:
 * how hist_merge_scaled() moves a value. */
uint64_t hist_scale_value(uint64_t v, double factor);

/*
 * The wire format, lossless and apart from any report: {"count", "min",
 * "max" (integers), "sum", "sumsq" (the exact 128- and 192-bit sums as
 * lowercase hex strings), "buckets": [[index, count], ...] (the non-empty
 * buckets, indices rising)}. Unpacking what was packed gives a histogram
 * identical in every bucket and statistic, so merging unpacked histograms
 * is exactly merging the originals. Values are in whatever unit was
 * recorded: the sender says which.
 *
 * hist_wire_pack: a new object, or NULL when count or max exceed INT64_MAX
 * (JSON integers are signed 64-bit).
 * hist_wire_unpack: check @o (unknown fields, types, bucket order and
 * range, counts adding up, min, max and sums that fit the buckets) and,
 * when @h is not NULL, replace @h's contents with it. 0, or -EPROTO with
 * the reason in @err (@h then unchanged).
 */
json_t *hist_wire_pack(const struct hist *h);
int hist_wire_unpack(const json_t *o, struct hist *h, char *err, size_t errlen);

uint64_t hist_count(const struct hist *h);
/* Exact smallest and largest recorded value; 0 when empty. */
uint64_t hist_min(const struct hist *h);
uint64_t hist_max(const struct hist *h);
/* The exact sum of the recorded values. */
unsigned __int128 hist_sum(const struct hist *h);
/* Exact mean and population standard deviation; 0.0 when empty. */
double hist_mean(const struct hist *h);
double hist_stdev(const struct hist *h);

/*
 * Nearest-rank percentile, pct in [0, 100] (clamped; NaN counts as 0): the
 * representative value of the first bucket at which the cumulative count
 * reaches rank = ceil(pct / 100 * count) (at least 1), clamped to
 * [min, max]. Within HIST_REL_ERROR of the exact nearest-rank sample.
 * Ranks 1 and count give the exact min and max. 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double pct);

/*
 * The value at nearest rank @rank (1 .. count, clamped): the representative
 * value of its bucket, clamped to [min, max]; ranks 1 and count give the
 * exact min and max. hist_percentile() is this at its rank. 0 when empty.
 */
uint64_t hist_at_rank(const struct hist *h, uint64_t rank);

/* Samples recorded as exactly 0 (bucket 0 holds 0 alone). */
uint64_t hist_zeros(const struct hist *h);

/*
 * A distribution-free confidence interval for the @q-quantile (0 < q < 1)
 * of @n samples, over ranks of the order statistics: the number of
 * samples below the true quantile is Binomial(n, q), so [X(lo), X(hi)]
 * covers it with probability F(hi - 1) - F(lo - 1) >= @conf, F the
 * binomial distribution function (no assumption on the samples'
 * distribution beyond continuity). @lo is the largest rank with
 * F(lo - 1) <= (1 - conf) / 2, @hi the smallest with F(hi - 1) >=
 * (1 + conf) / 2. A side the count cannot bound is open: @lo 0 when
 * even the smallest sample is not below the quantile with that
 * confidence (F(0) above the tail), @hi n + 1 when the largest is not
 * above it. -EINVAL when @n is 0 or @q or @conf is outside (0, 1).
 */
int hist_rank_ci(uint64_t n, double q, double conf, uint64_t *lo, uint64_t *hi);

/* The confidence of every interval hist_quantile() gives. */
#define HIST_CI_CONFIDENCE	0.95
/*
 * Samples that must lie above a percentile for it to be reported: with
 * fewer (n < HIST_MIN_ABOVE / (1 - q)), its interval reaches the maximum
 * and the figure is one or two samples' chance.
 */
#define HIST_MIN_ABOVE		10

/* What a percentile of a histogram can say. */
enum hist_q_state {
	HIST_Q_RESOLVED,		/* a value, with its interval */
	HIST_Q_UNRESOLVED,		/* its rank falls among unresolved samples */
	HIST_Q_TOO_FEW,			/* the count cannot support it: @needed */
	HIST_Q_EMPTY,			/* no sample */
};

struct hist_quantile {
	enum hist_q_state state;
	uint64_t rank;			/* nearest rank, 1 .. count */
	uint64_t value;			/* the value at @rank (RESOLVED only) */
	/* The HIST_CI_CONFIDENCE interval over ranks (hist_rank_ci: 0 and
	 * count + 1 are open sides, which the count cannot bound). */
	uint64_t lo_rank, hi_rank;
	bool lo_unresolved;		/* @lo_rank falls among unresolved samples */
	/* The interval's values: the lowest value of @lo_rank's bucket and
	 * the highest of @hi_rank's, so it holds the histogram's resolution
	 * (0 on an open side). */
	uint64_t lo, hi;
	uint64_t needed;		/* TOO_FEW: the count the percentile needs */
	/*
	 * RESOLVED with unresolved samples: @value is a lower bound. The
	 * placeholders, counted at 0, could lie anywhere; were they all
	 * above, the percentile would be the value @unresolved ranks higher,
	 * so @hi_rank is raised by @unresolved (open past the count).
	 */
	bool lower_bound;
};

/*
 * Percentile @pct (0 < pct < 100) of @h, whose @unresolved smallest
 * samples are placeholders a method could not resolve (recorded as 0):
 * EMPTY without samples; UNRESOLVED when its rank is at most @unresolved;
 * TOO_FEW when count < HIST_MIN_ABOVE / (1 - pct / 100), with the count
 * needed; RESOLVED otherwise (a lower bound when @unresolved > 0). The
 * ranks and their interval are set in every state but EMPTY; with
 * unresolved samples the interval's high rank is raised by their number.
 */
void hist_quantile(const struct hist *h, double pct, uint64_t unresolved,
		   struct hist_quantile *q);

/*
 * What a percentile needs of a distribution whose buckets another module
 * keeps (a coarser geometry: base/sketch.h): its count, its exact min
 * and max, and the bounds of the bucket that holds a rank.
 */
struct hist_ranks {
	uint64_t count, min, max;
	/* The lowest and highest value the bucket of nearest rank @rank
	 * (1 .. count) may hold. */
	void (*bucket)(const void *d, uint64_t rank, uint64_t *low, uint64_t *high);
	const void *d;
};

/*
 * hist_quantile() over @r: the same ranks, states and interval, each end
 * of the interval its rank's bucket bound (clamped to min and max), so
 * the interval is as wide as the buckets are; the value the midpoint of
 * its rank's bucket (ranks 1 and count: min and max).
 */
void hist_quantile_ranks(const struct hist_ranks *r, double pct, uint64_t unresolved,
			 struct hist_quantile *q);

/*
 * Calls fn(value, count, arg) for each non-empty bucket in increasing value
 * order, value being the bucket's representative (clamped to [min, max]);
 * this is what a CDF printer needs.
 */
void hist_foreach(const struct hist *h,
		  void (*fn)(uint64_t value, uint64_t count, void *arg), void *arg);

/* Bytes the histogram occupies; the same for every histogram, always. */
size_t hist_memory_bytes(const struct hist *h);

/* Bucket geometry, exposed for tests and for formatters that want bounds. */
size_t hist_bucket_index(uint64_t value);
/* Lowest value of bucket idx and its width (values lo .. lo + width - 1). */
uint64_t hist_bucket_low(size_t idx);
uint64_t hist_bucket_width(size_t idx);

#endif
