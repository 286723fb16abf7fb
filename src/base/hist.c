/*
 * Log-linear histogram: bucket geometry, exact running statistics, queries.
 * See hist.h for the layout and the error bound.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"

#define SUB_COUNT	((uint64_t)1 << HIST_SUB_BITS)
/* Values below this have a bucket each. */
#define EXACT_LIMIT	(SUB_COUNT << 1)
/* Shifts run 0 .. 64 - HIST_SUB_BITS - 1, each adding SUB_COUNT buckets. */
#define HIST_BUCKETS	((size_t)(64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS)

struct hist {
	uint64_t count;
	uint64_t min;			/* UINT64_MAX while empty */
	uint64_t max;
	/* Sum of values: < 2^64 samples of < 2^64 each, so 128 bits hold it. */
	unsigned __int128 sum;
	/* Sum of squares, < 2^192: low 128 bits, then bits 128..191. */
	unsigned __int128 sumsq_lo;
	uint64_t sumsq_hi;
	uint64_t buckets[HIST_BUCKETS];
};

/* ---------------------------------------------------------------------- */
/* Bucket geometry */

/*
 * The shift drops the bits below the 10 most significant ones (none for
 * values under EXACT_LIMIT); the kept bits, which lie in
 * [SUB_COUNT, EXACT_LIMIT) once shifted, are the sub-bucket, and each shift
 * step moves the index up by SUB_COUNT. No branch, no division.
 */
static inline size_t bucket_index(uint64_t value)
{
	unsigned int msb = 63 - (unsigned int)__builtin_clzll(value | (EXACT_LIMIT - 1));
	unsigned int shift = msb - HIST_SUB_BITS;

	return ((size_t)shift << HIST_SUB_BITS) + (size_t)(value >> shift);
}

size_t hist_bucket_index(uint64_t value)
{
	return bucket_index(value);
}

static unsigned int bucket_shift(size_t idx)
{
	return idx < EXACT_LIMIT ? 0 : (unsigned int)(idx >> HIST_SUB_BITS) - 1;
}

uint64_t hist_bucket_low(size_t idx)
{
	unsigned int shift = bucket_shift(idx);

	return (uint64_t)(idx - ((size_t)shift << HIST_SUB_BITS)) << shift;
}

uint64_t hist_bucket_width(size_t idx)
{
	return (uint64_t)1 << bucket_shift(idx);
}

/* Midpoint of the bucket, clamped to the exact range of recorded values. */
static uint64_t bucket_value(const struct hist *h, size_t idx)
{
	uint64_t v = hist_bucket_low(idx) + (hist_bucket_width(idx) >> 1);

	if (v < h->min)
		return h->min;
	if (v > h->max)
		return h->max;
	return v;
}

/* ---------------------------------------------------------------------- */
/* Lifecycle and recording */

struct hist *hist_new(void)
{
	struct hist *h = malloc(sizeof(*h));

	if (h)
		hist_reset(h);
	return h;
}

void hist_free(struct hist *h)
{
	free(h);
}

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_record(struct hist *h, uint64_t value)
{
	unsigned __int128 sq = (unsigned __int128)value * value;

	h->count++;
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	h->sum += value;
	h->sumsq_lo += sq;
	h->sumsq_hi += h->sumsq_lo < sq;
	h->buckets[bucket_index(value)]++;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	size_t i;

	if (!dst || !src)
		return -EINVAL;
	if (dst->count + src->count < dst->count)
		return -EOVERFLOW;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sumsq_lo += src->sumsq_lo;
	dst->sumsq_hi += src->sumsq_hi + (dst->sumsq_lo < src->sumsq_lo);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Exact statistics */

uint64_t hist_count(const struct hist *h)
{
	return h->count;
}

uint64_t hist_min(const struct hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t hist_max(const struct hist *h)
{
	return h->max;
}

double hist_mean(const struct hist *h)
{
	if (!h->count)
		return 0.0;
	return (double)((long double)h->sum / (long double)h->count);
}

/* out[0 .. na + nb) = a * b, little-endian 64-bit limbs. */
static void limbs_mul(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		      uint64_t *out)
{
	size_t i, j;

	memset(out, 0, (na + nb) * sizeof(*out));
	for (i = 0; i < na; i++) {
		unsigned __int128 carry = 0;

		for (j = 0; j < nb; j++) {
			carry += (unsigned __int128)a[i] * b[j] + out[i + j];
			out[i + j] = (uint64_t)carry;
			carry >>= 64;
		}
		out[i + nb] = (uint64_t)carry;
	}
}

/* a -= b over n limbs; the caller knows a >= b. */
static void limbs_sub(uint64_t *a, const uint64_t *b, size_t n)
{
	unsigned int borrow = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t d = a[i] - b[i] - borrow;

		borrow = a[i] < b[i] || (a[i] == b[i] && borrow);
		a[i] = d;
	}
}

static long double limbs_to_ld(const uint64_t *a, size_t n)
{
	long double v = 0.0L;

	while (n--)
		v = ldexpl(v, 64) + (long double)a[n];
	return v;
}

/*
 * n^2 * variance = n * sum(x^2) - sum(x)^2, computed exactly in 256 bits
 * (non-negative by Cauchy-Schwarz), so the only rounding is the final
 * conversion and division: no cancellation, whatever the offset of the data.
 */
double hist_stdev(const struct hist *h)
{
	uint64_t n = h->count;
	uint64_t s1[2] = { (uint64_t)h->sum, (uint64_t)(h->sum >> 64) };
	uint64_t s2[3] = { (uint64_t)h->sumsq_lo, (uint64_t)(h->sumsq_lo >> 64),
			   h->sumsq_hi };
	uint64_t lhs[4], rhs[4];
	long double var;

	if (n < 2)
		return 0.0;
	limbs_mul(&n, 1, s2, 3, lhs);
	limbs_mul(s1, 2, s1, 2, rhs);
	limbs_sub(lhs, rhs, 4);
	var = limbs_to_ld(lhs, 4) / (long double)n / (long double)n;
	return (double)sqrtl(var);
}

/* ---------------------------------------------------------------------- */
/* Queries over buckets */

/*
 * ceil(pct / 100 * n), at least 1. pct = 99.9 is not exact in binary and
 * would make 99.9 % of 1000 come out as 999.00000000000006 and round up to
 * 1000, so a relative 1e-12 is taken off first: below one rank for any
 * count under 10^12, and far below the precision of pct beyond that.
 */
static uint64_t percentile_rank(double pct, uint64_t n)
{
	long double x;

	if (!(pct > 0.0))
		return 1;
	if (pct >= 100.0)
		return n;
	x = (long double)pct / 100.0L * (long double)n;
	x = ceill(x - x * 1e-12L);
	if (x < 1.0L)
		return 1;
	if (x >= (long double)n)
		return n;
	return (uint64_t)x;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
	size_t i, last;
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = percentile_rank(pct, h->count);
	if (rank == 1)
		return h->min;
	if (rank == h->count)
		return h->max;
	last = bucket_index(h->max);
	for (i = bucket_index(h->min); i < last; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	return bucket_value(h, i);
}

void hist_foreach(const struct hist *h,
		  void (*fn)(uint64_t value, uint64_t count, void *arg), void *arg)
{
	size_t i, last;

	if (!h->count)
		return;
	last = bucket_index(h->max);
	for (i = bucket_index(h->min); i <= last; i++) {
		if (h->buckets[i])
			fn(bucket_value(h, i), h->buckets[i], arg);
	}
}

size_t hist_memory_bytes(const struct hist *h)
{
	(void)h;
	return sizeof(struct hist);
}
