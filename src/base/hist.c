/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Log-linear histogram: bucket geometry, exact running statistics, queries.
 * See hist.h for the layout and the error bound.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/hist.h"
#include "base/loglin.h"

/* Shifts run 0 .. 64 - HIST_SUB_BITS - 1, each adding 2^HIST_SUB_BITS buckets. */
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
/* Bucket geometry: base/loglin.h at HIST_SUB_BITS */

static inline size_t bucket_index(uint64_t value)
{
	return loglin_index(value, HIST_SUB_BITS);
}

size_t hist_bucket_index(uint64_t value)
{
	return bucket_index(value);
}

uint64_t hist_bucket_low(size_t idx)
{
	return loglin_low(idx, HIST_SUB_BITS);
}

uint64_t hist_bucket_width(size_t idx)
{
	return loglin_width(idx, HIST_SUB_BITS);
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

unsigned __int128 hist_sum(const struct hist *h)
{
	return h->sum;
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
	return h->count ? hist_at_rank(h, percentile_rank(pct, h->count)) : 0;
}

/* The bucket holding nearest rank @rank (1 .. count). */
static size_t rank_bucket(const struct hist *h, uint64_t rank)
{
	size_t i, last = bucket_index(h->max);
	uint64_t seen = 0;

	for (i = bucket_index(h->min); i < last; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	return i;
}

uint64_t hist_at_rank(const struct hist *h, uint64_t rank)
{
	if (!h->count)
		return 0;
	rank = rank < 1 ? 1 : rank > h->count ? h->count : rank;
	if (rank == 1)
		return h->min;
	if (rank == h->count)
		return h->max;
	return bucket_value(h, rank_bucket(h, rank));
}

uint64_t hist_zeros(const struct hist *h)
{
	return h->buckets[0];
}

/* log P(X = k) for X ~ Binomial(n, q). */
static double binom_log_pmf(uint64_t n, uint64_t k, double q)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
	       (double)k * log(q) + (double)(n - k) * log1p(-q);
}

/*
 * The distribution function is summed over mean +- 12 standard
 * deviations (plus a margin for small n): the mass outside is below
 * 1e-30, far under any confidence asked for. Each term is the last one
 * times (n - k + 1) / k * q / (1 - q), a product where three lgammas
 * were (a mesh takes two intervals a pair); from the lgammas while the
 * terms are too small for a product to keep its digits.
 */
#define RANK_CI_TERM_MIN	1e-250

int hist_rank_ci(uint64_t n, double q, double conf, uint64_t *lo, uint64_t *hi)
{
	double mu = (double)n * q, sd = sqrt((double)n * q * (1 - q)), tail = (1 - conf) / 2;
	double k0d = floor(mu - 12 * sd - 2), k1d = ceil(mu + 12 * sd + 2), cum = 0;
	double odds = q / (1 - q), pmf = 0;
	uint64_t k, k0, k1;

	if (!n || !(q > 0 && q < 1) || !(conf > 0 && conf < 1))
		return -EINVAL;
	k0 = k0d < 0 ? 0 : (uint64_t)k0d;
	k1 = k1d > (double)n ? n : (uint64_t)k1d;
	*lo = k0;	/* F(k0 - 1) is below 1e-30; 0 when k0 is 0: open */
	*hi = n + 1;
	for (k = k0; k <= k1 && k < n; k++) {
		pmf = pmf > RANK_CI_TERM_MIN ? pmf * ((double)(n - k + 1) / (double)k * odds) :
		      exp(binom_log_pmf(n, k, q));
		cum += pmf;	/* cum = F(k) */
		if (cum <= tail)
			*lo = k + 1;
		if (cum >= 1 - tail) {
			*hi = k + 1;
			break;
		}
	}
	return 0;
}

/* ceil(HIST_MIN_ABOVE / (1 - q)), a relative 1e-9 taken off against 1 - 0.9999 != 0.0001. */
static uint64_t quantile_needed(double q)
{
	double x = HIST_MIN_ABOVE / (1 - q);

	return (uint64_t)ceil(x - x * 1e-9);
}

/* The bucket of @rank's midpoint: its representative, clamped to the exact min and max. */
static uint64_t ranks_value(const struct hist_ranks *r, uint64_t rank)
{
	uint64_t low, high, v;

	if (rank == 1)
		return r->min;
	if (rank == r->count)
		return r->max;
	r->bucket(r->d, rank, &low, &high);
	v = low + (high - low) / 2 + ((high - low) & 1);
	return v < r->min ? r->min : v > r->max ? r->max : v;
}

void hist_quantile_ranks(const struct hist_ranks *r, double pct, uint64_t unresolved,
			 struct hist_quantile *q)
{
	double p = pct / 100;
	uint64_t low, high;

	memset(q, 0, sizeof(*q));
	q->state = HIST_Q_EMPTY;
	if (!r->count || hist_rank_ci(r->count, p, HIST_CI_CONFIDENCE, &q->lo_rank, &q->hi_rank))
		return;
	q->rank = percentile_rank(pct, r->count);
	q->lo_unresolved = q->lo_rank && q->lo_rank <= unresolved;
	/* The placeholders may lie above the interval's high rank. */
	q->hi_rank = q->hi_rank + unresolved > r->count ? r->count + 1 : q->hi_rank + unresolved;
	if (q->lo_rank) {
		r->bucket(r->d, q->lo_rank, &low, &high);
		q->lo = low < r->min ? r->min : low;
	}
	if (q->hi_rank <= r->count) {
		r->bucket(r->d, q->hi_rank, &low, &high);
		q->hi = high > r->max ? r->max : high;
	}
	q->needed = quantile_needed(p);
	if (q->rank <= unresolved) {
		q->state = HIST_Q_UNRESOLVED;
	} else if (r->count < q->needed) {
		q->state = HIST_Q_TOO_FEW;
	} else {
		q->state = HIST_Q_RESOLVED;
		q->value = ranks_value(r, q->rank);
		q->lower_bound = unresolved > 0;
	}
}

/* The bounds of the bucket of @rank in histogram @d. */
static void hist_rank_bounds(const void *d, uint64_t rank, uint64_t *low, uint64_t *high)
{
	size_t i = rank_bucket(d, rank);

	*low = hist_bucket_low(i);
	*high = *low + hist_bucket_width(i) - 1;
}

void hist_quantile(const struct hist *h, double pct, uint64_t unresolved,
		   struct hist_quantile *q)
{
	const struct hist_ranks r = { .count = h->count, .min = h->min, .max = h->max,
				      .bucket = hist_rank_bounds, .d = h };

	hist_quantile_ranks(&r, pct, unresolved, q);
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

/* ---------------------------------------------------------------------- */
/* Scaled merge */

/* h->sumsq += c * v^2, in 192 bits. */
static void sumsq_add(struct hist *h, uint64_t v, uint64_t c)
{
	uint64_t sq[2] = { (uint64_t)((unsigned __int128)v * v),
			   (uint64_t)(((unsigned __int128)v * v) >> 64) };
	uint64_t p[3];
	unsigned __int128 lo;

	limbs_mul(&c, 1, sq, 2, p);
	lo = (unsigned __int128)p[1] << 64 | p[0];
	h->sumsq_lo += lo;
	h->sumsq_hi += p[2] + (h->sumsq_lo < lo);
}

uint64_t hist_scale_value(uint64_t v, double factor)
{
	long double x = (long double)v * factor + 0.5L;

	if (!(x > 0.0L))
		return 0;
	if (x >= 18446744073709551615.0L)
		return UINT64_MAX;
	return (uint64_t)x;
}

int hist_merge_scaled(struct hist *dst, const struct hist *src, double factor)
{
	uint64_t v, lo, hi;
	size_t i;

	if (!dst || !src || !(factor > 0.0) || !isfinite(factor))
		return -EINVAL;
	if (factor == 1.0)
		return hist_merge(dst, src);
	if (dst->count + src->count < dst->count)
		return -EOVERFLOW;
	if (!src->count)
		return 0;
	for (i = bucket_index(src->min); i <= bucket_index(src->max); i++) {
		if (!src->buckets[i])
			continue;
		v = hist_scale_value(bucket_value(src, i), factor);
		dst->buckets[bucket_index(v)] += src->buckets[i];
		dst->sum += (unsigned __int128)v * src->buckets[i];
		sumsq_add(dst, v, src->buckets[i]);
	}
	lo = hist_scale_value(src->min, factor);
	hi = hist_scale_value(src->max, factor);
	dst->count += src->count;
	dst->min = lo < dst->min ? lo : dst->min;
	dst->max = hi > dst->max ? hi : dst->max;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Wire format */

#define WIRE_SUM_DIGITS		32	/* hex digits of 128 bits */
#define WIRE_SUMSQ_DIGITS	48	/* of 192 bits */

/* @n limbs as lowercase hex without leading zeros ("0" for zero). */
static json_t *wire_hex(const uint64_t *a, size_t n)
{
	char buf[WIRE_SUMSQ_DIGITS + 1], *p = buf;
	size_t i;

	for (i = n; i-- > 0;) {
		if (p != buf)
			p += sprintf(p, "%016" PRIx64, a[i]);
		else if (a[i])
			p += sprintf(p, "%" PRIx64, a[i]);
	}
	return json_string(p == buf ? "0" : buf);
}

json_t *hist_wire_pack(const struct hist *h)
{
	uint64_t sum[2] = { (uint64_t)h->sum, (uint64_t)(h->sum >> 64) };
	uint64_t sumsq[3] = { (uint64_t)h->sumsq_lo, (uint64_t)(h->sumsq_lo >> 64),
			      h->sumsq_hi };
	json_t *o, *buckets, *pair;
	size_t i;

	if (h->count > INT64_MAX || h->max > INT64_MAX)
		return NULL;
	o = json_object();
	buckets = json_array();
	for (i = 0; h->count && i <= bucket_index(h->max); i++) {
		if (!h->buckets[i])
			continue;
		pair = json_pack("[II]", (json_int_t)i, (json_int_t)h->buckets[i]);
		json_array_append_new(buckets, pair);
	}
	json_object_set_new(o, "count", json_integer((json_int_t)h->count));
	json_object_set_new(o, "min", json_integer((json_int_t)hist_min(h)));
	json_object_set_new(o, "max", json_integer((json_int_t)h->max));
	json_object_set_new(o, "sum", wire_hex(sum, 2));
	json_object_set_new(o, "sumsq", wire_hex(sumsq, 3));
	json_object_set_new(o, "buckets", buckets);
	return o;
}

/* Hex string @v (at most @n limbs' worth of digits) into @a. 0 or -EPROTO. */
static int wire_unhex(const json_t *v, uint64_t *a, size_t n)
{
	const char *s = json_string_value(v);
	size_t len, i;
	int d;

	memset(a, 0, n * sizeof(*a));
	len = s ? strlen(s) : 0;
	if (!len || len > n * 16)
		return -EPROTO;
	for (i = 0; i < len; i++) {
		d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' :
		    s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 : -1;
		if (d < 0)
			return -EPROTO;
		a[(len - 1 - i) / 16] |= (uint64_t)d << 4 * ((len - 1 - i) % 16);
	}
	return 0;
}

/* @o's field @k as a non-negative integer. 0 or -EPROTO. */
static int wire_uint(const json_t *o, const char *k, uint64_t *out)
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -EPROTO;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* The buckets: [index, count] pairs, indices rising, counts adding up to @count. */
static int wire_buckets(const json_t *arr, uint64_t count, struct hist *h, size_t *first,
			size_t *last, char *err, size_t errlen)
{
	uint64_t total = 0, idx, c;
	const json_t *pair;
	size_t i;

	if (!json_is_array(arr))
		return errbuf_set(err, errlen, -EPROTO, "histogram: 'buckets' must be an array");
	json_array_foreach(arr, i, pair) {
		if (json_array_size(pair) != 2 || !json_is_integer(json_array_get(pair, 0)) ||
		    !json_is_integer(json_array_get(pair, 1)) ||
		    json_integer_value(json_array_get(pair, 0)) < 0 ||
		    json_integer_value(json_array_get(pair, 1)) < 1)
			return errbuf_set(err, errlen, -EPROTO,
					  "histogram: bucket %zu is not [index, count]", i);
		idx = (uint64_t)json_integer_value(json_array_get(pair, 0));
		c = (uint64_t)json_integer_value(json_array_get(pair, 1));
		if (idx >= HIST_BUCKETS || (i && idx <= *last) || c > count - total)
			return errbuf_set(err, errlen, -EPROTO, "histogram: bucket %zu (index "
					  "%" PRIu64 ") is out of order, range or count", i, idx);
		*first = i ? *first : (size_t)idx;
		*last = (size_t)idx;
		total += c;
		if (h)
			h->buckets[idx] = c;
	}
	if (total != count)
		return errbuf_set(err, errlen, -EPROTO, "histogram: buckets hold %" PRIu64
				  " samples, count says %" PRIu64, total, count);
	return 0;
}

/* Whether the exact statistics can belong to the buckets: min, max, sums. */
static int wire_consistent(const struct hist *w, size_t first, size_t last)
{
	uint64_t n = w->count, s1[2] = { (uint64_t)w->sum, (uint64_t)(w->sum >> 64) };
	uint64_t s2[3] = { (uint64_t)w->sumsq_lo, (uint64_t)(w->sumsq_lo >> 64), w->sumsq_hi };
	uint64_t lhs[4], rhs[4];
	size_t i;

	if (!n)
		return !w->min && !w->max && !w->sum && !w->sumsq_lo && !w->sumsq_hi;
	if (w->min > w->max || bucket_index(w->min) != first || bucket_index(w->max) != last ||
	    w->sum < (unsigned __int128)n * w->min || w->sum > (unsigned __int128)n * w->max)
		return 0;
	/* n * sum(x^2) >= sum(x)^2 (Cauchy-Schwarz): the variance is not negative. */
	limbs_mul(&n, 1, s2, 3, lhs);
	limbs_mul(s1, 2, s1, 2, rhs);
	for (i = 4; i-- > 0;)
		if (lhs[i] != rhs[i])
			return lhs[i] > rhs[i];
	return 1;
}

int hist_wire_unpack(const json_t *o, struct hist *h, char *err, size_t errlen)
{
	static const char *const keys[] = { "count", "min", "max", "sum", "sumsq", "buckets" };
	uint64_t sum[2], sumsq[3];
	struct hist w = { 0 };
	size_t i, first = 0, last = 0;
	const char *key;
	json_t *v;
	int ret;

	if (!json_is_object(o))
		return errbuf_set(err, errlen, -EPROTO, "histogram: not an object");
	json_object_foreach((json_t *)o, key, v) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[i], key); i++)
			;
		if (i == sizeof(keys) / sizeof(keys[0]))
			return errbuf_set(err, errlen, -EPROTO, "histogram: unknown field '%s'", key);
	}
	if (wire_uint(o, "count", &w.count) || wire_uint(o, "min", &w.min) ||
	    wire_uint(o, "max", &w.max))
		return errbuf_set(err, errlen, -EPROTO,
				  "histogram: 'count', 'min' and 'max' must be integers from 0");
	if (wire_unhex(json_object_get(o, "sum"), sum, 2) ||
	    wire_unhex(json_object_get(o, "sumsq"), sumsq, 3))
		return errbuf_set(err, errlen, -EPROTO,
				  "histogram: 'sum' and 'sumsq' must be hex strings of 128 and 192 bits");
	w.sum = (unsigned __int128)sum[1] << 64 | sum[0];
	w.sumsq_lo = (unsigned __int128)sumsq[1] << 64 | sumsq[0];
	w.sumsq_hi = sumsq[2];
	ret = wire_buckets(json_object_get(o, "buckets"), w.count, NULL, &first, &last, err,
			   errlen);
	if (ret)
		return ret;
	if (!wire_consistent(&w, first, last))
		return errbuf_set(err, errlen, -EPROTO,
				  "histogram: min, max and sums do not fit its buckets");
	if (!h)
		return 0;
	hist_reset(h);
	wire_buckets(json_object_get(o, "buckets"), w.count, h, &first, &last, err, errlen);
	h->count = w.count;
	h->min = w.count ? w.min : UINT64_MAX;
	h->max = w.max;
	h->sum = w.sum;
	h->sumsq_lo = w.sumsq_lo;
	h->sumsq_hi = w.sumsq_hi;
	return 0;
}
