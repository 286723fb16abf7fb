/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * hist: bucket geometry, the relative error bound of percentiles against the
 * exact nearest-rank answer on sorted samples, exact statistics, merge,
 * empty histograms, and recording that never allocates.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/hist.h"
#include "rng.h"
#include "unit.h"

#define NSAMPLES 200000

static uint64_t gen_uniform(void)
{
	return 1000 + rng_next() % 4001;
}

/* Latency-like: a floor, an exponential body and a 1 % Pareto tail to ~1e9. */
static uint64_t gen_heavy_tail(void)
{
	double v = 2000.0 - 300.0 * log(rng_unit());

	if (rng_next() % 100 == 0)
		v += fmin(1e9, 5000.0 / pow(rng_unit(), 1.5));
	return (uint64_t)v;
}

/* Log-uniform over 1 .. 1e12. */
static uint64_t gen_wide(void)
{
	return (uint64_t)exp(rng_unit() * log(1e12));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t *fill(struct hist *h, uint64_t (*gen)(void), size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	size_t i;

	assert_non_null(v);
	for (i = 0; i < n; i++) {
		v[i] = gen();
		hist_record(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	return v;
}

static void assert_close(uint64_t got, uint64_t exact)
{
	long double diff = fabsl((long double)got - (long double)exact);

	if (diff > (long double)exact * HIST_REL_ERROR || diff > (long double)exact * 0.001L)
		fail_msg("got %llu, exact %llu", (unsigned long long)got,
			 (unsigned long long)exact);
}

/* Percentiles in parts per million, the exact rank in integers. */
static void check_percentiles(const struct hist *h, const uint64_t *sorted, size_t n)
{
	static const uint64_t ppm[] = { 0, 1, 100, 10000, 250000, 500000, 900000, 990000,
					999000, 999900, 999990, 999999, 1000000 };
	size_t i;

	for (i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++) {
		uint64_t rank = (uint64_t)(((unsigned __int128)ppm[i] * n + 999999) / 1000000);

		if (rank == 0)
			rank = 1;
		assert_close(hist_percentile(h, (double)ppm[i] / 10000.0), sorted[rank - 1]);
	}
	for (i = 0; i < 200; i++) {
		uint64_t p = rng_next() % 1000001;
		uint64_t rank = (uint64_t)(((unsigned __int128)p * n + 999999) / 1000000);

		assert_close(hist_percentile(h, (double)p / 10000.0), sorted[rank ? rank - 1 : 0]);
	}
}

/* Two-pass reference in long double. */
static void check_stats(const struct hist *h, const uint64_t *v, size_t n)
{
	long double sum = 0, ss = 0, mean;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	for (i = 0; i < n; i++)
		ss += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	assert_int_equal(hist_count(h), n);
	assert_int_equal(hist_min(h), v[0]);
	assert_int_equal(hist_max(h), v[n - 1]);
	assert_near(hist_mean(h), (double)mean, (double)mean * 1e-12);
	assert_near(hist_stdev(h), (double)sqrtl(ss / n), (double)sqrtl(ss / n) * 1e-9);
}

static void check_distribution(uint64_t (*gen)(void))
{
	struct hist *h = hist_new();
	uint64_t *v;

	assert_non_null(h);
	v = fill(h, gen, NSAMPLES);
	check_percentiles(h, v, NSAMPLES);
	check_stats(h, v, NSAMPLES);
	free(v);
	hist_free(h);
}

static void test_uniform(void **state)
{
	(void)state;
	check_distribution(gen_uniform);
}

static void test_heavy_tail(void **state)
{
	(void)state;
	check_distribution(gen_heavy_tail);
}

static void test_wide_range(void **state)
{
	(void)state;
	check_distribution(gen_wide);
}

/* Every value lies in its bucket, buckets tile the range, midpoints meet the bound. */
static void check_value_in_bucket(uint64_t v)
{
	size_t idx = hist_bucket_index(v);
	uint64_t lo = hist_bucket_low(idx), w = hist_bucket_width(idx);

	assert_true(lo <= v);
	assert_true(v - lo < w);
	assert_true((long double)(w / 2) <= (long double)v * HIST_REL_ERROR || w == 1);
}

static void test_geometry(void **state)
{
	size_t idx, last = hist_bucket_index(UINT64_MAX);
	int e, i;

	(void)state;
	for (e = 0; e < 64; e++) {
		uint64_t p = (uint64_t)1 << e;

		check_value_in_bucket(p - 1);
		check_value_in_bucket(p);
		check_value_in_bucket(p + 1);
	}
	check_value_in_bucket(UINT64_MAX);
	for (i = 0; i < 100000; i++)
		check_value_in_bucket(rng_next() >> (rng_next() % 64));
	/* Exact below 1024, contiguous and increasing above. */
	for (idx = 0; idx < 1024; idx++)
		assert_int_equal(hist_bucket_low(idx), idx);
	for (idx = 1; idx <= last; idx++)
		assert_int_equal(hist_bucket_low(idx - 1) + hist_bucket_width(idx - 1),
				 hist_bucket_low(idx));
	assert_int_equal(hist_bucket_low(last) + (hist_bucket_width(last) - 1), UINT64_MAX);
}

static void test_small_exact(void **state)
{
	struct hist *h = hist_new();
	uint64_t v;

	(void)state;
	assert_non_null(h);
	for (v = 1; v <= 1000; v++)
		hist_record(h, v);
	assert_int_equal(hist_percentile(h, 0.0), 1);
	assert_int_equal(hist_percentile(h, 50.0), 500);
	assert_int_equal(hist_percentile(h, 99.0), 990);
	assert_int_equal(hist_percentile(h, 99.9), 999);
	assert_int_equal(hist_percentile(h, 100.0), 1000);
	assert_int_equal(hist_percentile(h, 150.0), 1000);
	assert_int_equal(hist_percentile(h, -3.0), 1);
	assert_near(hist_mean(h), 500.5, 0.0);
	/* population stdev of 1..n: sqrt((n^2 - 1) / 12) */
	assert_near(hist_stdev(h), sqrt((1000.0 * 1000.0 - 1.0) / 12.0), 1e-12);
	hist_free(h);
}

/*
 * Ten values just under 2^64: naive sums would lose everything. Recorded
 * into two halves and merged, so the merge's carries are exercised too.
 */
static void test_stats_huge_values(void **state)
{
	struct hist *h = hist_new(), *odd = hist_new();
	uint64_t k;

	(void)state;
	assert_non_null(h);
	assert_non_null(odd);
	for (k = 0; k < 10; k++)
		hist_record(k % 2 ? odd : h, UINT64_MAX - k);
	assert_int_equal(hist_merge(h, odd), 0);
	hist_free(odd);
	assert_int_equal(hist_min(h), UINT64_MAX - 9);
	assert_int_equal(hist_max(h), UINT64_MAX);
	assert_near(hist_mean(h), (double)((long double)UINT64_MAX - 4.5L), 0.0);
	assert_near(hist_stdev(h), sqrt(99.0 / 12.0), 1e-15);
	assert_int_equal(hist_percentile(h, 100.0), UINT64_MAX);
	assert_close(hist_percentile(h, 50.0), UINT64_MAX - 5);
	hist_free(h);
}

struct cdf {
	uint64_t values[64];
	uint64_t counts[64];
	size_t n;
	uint64_t total;
	uint64_t prev;
	int ordered;
};

static void cdf_add(uint64_t value, uint64_t count, void *arg)
{
	struct cdf *c = arg;

	if (c->n && value <= c->prev)
		c->ordered = 0;
	if (c->n < 64) {
		c->values[c->n] = value;
		c->counts[c->n] = count;
	}
	c->prev = value;
	c->n++;
	c->total += count;
}

static void test_foreach(void **state)
{
	struct hist *h = hist_new();
	struct cdf c = { .ordered = 1 };
	uint64_t *v;

	(void)state;
	assert_non_null(h);
	hist_record(h, 5);
	hist_record(h, 5);
	hist_record(h, 7);
	hist_record(h, 100000);
	hist_foreach(h, cdf_add, &c);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.values[0], 5);
	assert_int_equal(c.counts[0], 2);
	assert_int_equal(c.values[1], 7);
	assert_int_equal(c.values[2], 100000);	/* midpoint clamped to max */
	memset(&c, 0, sizeof(c));
	c.ordered = 1;
	hist_reset(h);
	v = fill(h, gen_heavy_tail, NSAMPLES);
	hist_foreach(h, cdf_add, &c);
	assert_true(c.ordered);
	assert_int_equal(c.total, NSAMPLES);
	/* Representatives stay within [min, max] and near them at the ends. */
	assert_true(c.values[0] >= v[0]);
	assert_close(c.values[0], v[0]);
	assert_true(c.prev <= v[NSAMPLES - 1]);
	assert_close(c.prev, v[NSAMPLES - 1]);
	free(v);
	hist_free(h);
}

struct collect {
	uint64_t sum_vc;
	uint64_t n;
};

static void collect(uint64_t value, uint64_t count, void *arg)
{
	struct collect *c = arg;

	c->sum_vc = c->sum_vc * 31 + value * count;
	c->n++;
}

/* Bit-identical statistics and percentiles. */
static void assert_stats_equal(const struct hist *a, const struct hist *b)
{
	double p;

	assert_int_equal(hist_count(a), hist_count(b));
	assert_int_equal(hist_min(a), hist_min(b));
	assert_int_equal(hist_max(a), hist_max(b));
	assert_true(hist_mean(a) == hist_mean(b));
	assert_true(hist_stdev(a) == hist_stdev(b));
	for (p = 0.0; p <= 100.0; p += 0.25)
		assert_int_equal(hist_percentile(a, p), hist_percentile(b, p));
}

/* The same samples into @all, and each into @a or @b at random. */
static void record_split(struct hist *a, struct hist *b, struct hist *all)
{
	int i;

	for (i = 0; i < NSAMPLES; i++) {
		uint64_t v = i % 3 ? gen_heavy_tail() : gen_wide();

		hist_record(rng_next() % 2 ? a : b, v);
		hist_record(all, v);
	}
}

static void test_merge_equals_recording_all(void **state)
{
	struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();
	struct collect ca = { 0 }, call = { 0 };

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(all);
	record_split(a, b, all);
	assert_int_equal(hist_merge(a, b), 0);
	assert_stats_equal(a, all);
	hist_foreach(a, collect, &ca);
	hist_foreach(all, collect, &call);
	assert_int_equal(ca.n, call.n);
	assert_int_equal(ca.sum_vc, call.sum_vc);
	hist_free(a);
	hist_free(b);
	hist_free(all);
}

/* Every bucket of @a and @b, index by index, and every exact statistic. */
static void assert_hist_identical(const struct hist *a, const struct hist *b)
{
	json_t *pa = hist_wire_pack(a), *pb = hist_wire_pack(b);

	assert_stats_equal(a, b);
	/* The packed form lists every bucket and the exact sums. */
	assert_non_null(pa);
	assert_non_null(pb);
	assert_true(json_equal(pa, pb));
	json_decref(pa);
	json_decref(pb);
}

static void test_wire_round_trip(void **state)
{
	struct hist *h = hist_new(), *back = hist_new();
	struct collect ch = { 0 }, cb = { 0 };
	char err[256] = "";
	json_t *w, *b, *pair;
	uint64_t total = 0;
	size_t i;

	(void)state;
	for (i = 0; i < NSAMPLES; i++)
		hist_record(h, i % 3 ? gen_heavy_tail() : gen_wide());
	w = hist_wire_pack(h);
	assert_non_null(w);
	assert_int_equal(hist_wire_unpack(w, back, err, sizeof(err)), 0);
	assert_hist_identical(h, back);
	hist_foreach(h, collect, &ch);
	hist_foreach(back, collect, &cb);
	assert_int_equal(ch.n, cb.n);
	assert_int_equal(ch.sum_vc, cb.sum_vc);
	/* Each bucket on the wire holds exactly the samples of that bucket. */
	b = json_object_get(w, "buckets");
	assert_int_equal(json_array_size(b), ch.n);
	json_array_foreach(b, i, pair)
		total += (uint64_t)json_integer_value(json_array_get(pair, 1));
	assert_int_equal(total, NSAMPLES);
	json_decref(w);
	/* An empty histogram travels too, and replaces what was there. */
	hist_reset(h);
	w = hist_wire_pack(h);
	assert_int_equal(hist_wire_unpack(w, back, err, sizeof(err)), 0);
	assert_int_equal(hist_count(back), 0);
	assert_hist_identical(h, back);
	json_decref(w);
	hist_free(h);
	hist_free(back);
}

static void test_wire_merge_equals_recording_all(void **state)
{
	struct hist *a = hist_new(), *b = hist_new(), *all = hist_new();
	struct hist *ua = hist_new(), *ub = hist_new();
	char err[256];
	json_t *wa, *wb;

	(void)state;
	record_split(a, b, all);
	wa = hist_wire_pack(a);
	wb = hist_wire_pack(b);
	assert_int_equal(hist_wire_unpack(wa, ua, err, sizeof(err)), 0);
	assert_int_equal(hist_wire_unpack(wb, ub, err, sizeof(err)), 0);
	assert_int_equal(hist_merge(ua, ub), 0);
	assert_hist_identical(ua, all);
	/* A factor of one is the exact merge too. */
	assert_int_equal(hist_wire_unpack(wa, ua, err, sizeof(err)), 0);
	assert_int_equal(hist_merge_scaled(ua, ub, 1.0), 0);
	assert_hist_identical(ua, all);
	json_decref(wa);
	json_decref(wb);
	hist_free(a);
	hist_free(b);
	hist_free(all);
	hist_free(ua);
	hist_free(ub);
}

static void test_merge_scaled(void **state)
{
	struct hist *ticks = hist_new(), *ns = hist_new(), *want = hist_new();
	double p;
	int i;

	(void)state;
	/* Ticks of a 2.5 GHz clock into ns, against the samples recorded in ns. */
	for (i = 0; i < NSAMPLES; i++) {
		uint64_t v = 1000 + gen_heavy_tail() % 10000000;

		hist_record(ticks, v * 5);
		hist_record(want, v * 2);
	}
	assert_int_equal(hist_merge_scaled(ns, ticks, 0.4), 0);
	assert_int_equal(hist_count(ns), hist_count(want));
	assert_int_equal(hist_min(ns), hist_min(want));
	assert_int_equal(hist_max(ns), hist_max(want));
	for (p = 1.0; p < 100.0; p += 1.0)
		assert_near((double)hist_percentile(ns, p), (double)hist_percentile(want, p),
			    3 * HIST_REL_ERROR * (double)hist_percentile(want, p) + 1);
	assert_near(hist_mean(ns), hist_mean(want), 2 * HIST_REL_ERROR * hist_mean(want));
	assert_int_equal(hist_merge_scaled(ns, ticks, 0.0), -EINVAL);
	assert_int_equal(hist_merge_scaled(ns, ticks, NAN), -EINVAL);
	hist_free(ticks);
	hist_free(ns);
	hist_free(want);
}

static void test_wire_malformed(void **state)
{
	static const struct { const char *json; const char *why; } bad[] = {
		{ "[1]", "not an object" },
		{ "{\"count\":0,\"min\":0,\"max\":0,\"sum\":\"0\",\"sumsq\":\"0\","
		  "\"buckets\":[],\"x\":1}", "unknown field 'x'" },
		{ "{\"count\":-1,\"min\":0,\"max\":0,\"sum\":\"0\",\"sumsq\":\"0\","
		  "\"buckets\":[]}", "must be integers" },
		{ "{\"min\":0,\"max\":0,\"sum\":\"0\",\"sumsq\":\"0\",\"buckets\":[]}",
		  "must be integers" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5g\",\"sumsq\":\"19\","
		  "\"buckets\":[[5,1]]}", "hex strings" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5\",\"sumsq\":"
		  "\"1000000000000000000000000000000000000000000000000\",\"buckets\":[[5,1]]}",
		  "hex strings" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5\",\"sumsq\":\"19\","
		  "\"buckets\":{}}", "'buckets' must be an array" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5\",\"sumsq\":\"19\","
		  "\"buckets\":[[5]]}", "bucket 0 is not [index, count]" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5\",\"sumsq\":\"19\","
		  "\"buckets\":[[5,0]]}", "bucket 0 is not [index, count]" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5\",\"sumsq\":\"19\","
		  "\"buckets\":[[99999999,1]]}", "out of order, range or count" },
		{ "{\"count\":2,\"min\":5,\"max\":6,\"sum\":\"b\",\"sumsq\":\"3d\","
		  "\"buckets\":[[6,1],[5,1]]}", "out of order, range or count" },
		{ "{\"count\":2,\"min\":5,\"max\":5,\"sum\":\"a\",\"sumsq\":\"32\","
		  "\"buckets\":[[5,1]]}", "buckets hold 1 samples, count says 2" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"6\",\"sumsq\":\"24\","
		  "\"buckets\":[[5,1]]}", "do not fit its buckets" },
		{ "{\"count\":1,\"min\":5,\"max\":5,\"sum\":\"5\",\"sumsq\":\"19\","
		  "\"buckets\":[[6,1]]}", "do not fit its buckets" },
		{ "{\"count\":2,\"min\":5,\"max\":6,\"sum\":\"b\",\"sumsq\":\"1\","
		  "\"buckets\":[[5,1],[6,1]]}", "do not fit its buckets" },
		{ "{\"count\":0,\"min\":0,\"max\":3,\"sum\":\"0\",\"sumsq\":\"0\","
		  "\"buckets\":[]}", "do not fit its buckets" },
	};
	struct hist *h = hist_new(), *keep = hist_new();
	json_error_t je;
	char err[256];
	json_t *o;
	size_t i;

	(void)state;
	hist_record(h, 7);
	hist_record(keep, 7);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = json_loads(bad[i].json, 0, &je);
		assert_non_null(o);
		err[0] = '\0';
		assert_int_equal(hist_wire_unpack(o, h, err, sizeof(err)), -EPROTO);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: '%s', expected '%s'", bad[i].json, err, bad[i].why);
		assert_hist_identical(h, keep);	/* a refused input changes nothing */
		json_decref(o);
	}
	/* The well-formed neighbour of those inputs is accepted. */
	o = json_loads("{\"count\":2,\"min\":5,\"max\":6,\"sum\":\"b\",\"sumsq\":\"3d\","
		       "\"buckets\":[[5,1],[6,1]]}", 0, &je);
	assert_int_equal(hist_wire_unpack(o, h, err, sizeof(err)), 0);
	assert_int_equal(hist_count(h), 2);
	assert_int_equal(hist_min(h), 5);
	assert_int_equal(hist_max(h), 6);
	json_decref(o);
	hist_free(h);
	hist_free(keep);
}

static void test_merge_empty_and_errors(void **state)
{
	struct hist *a = hist_new(), *e = hist_new();

	(void)state;
	assert_non_null(a);
	assert_non_null(e);
	hist_record(a, 42);
	hist_record(a, 4200);
	assert_int_equal(hist_merge(a, e), 0);
	assert_int_equal(hist_count(a), 2);
	assert_int_equal(hist_min(a), 42);
	assert_int_equal(hist_merge(e, a), 0);
	assert_int_equal(hist_count(e), 2);
	assert_int_equal(hist_min(e), 42);
	assert_int_equal(hist_max(e), 4200);
	assert_near(hist_mean(e), 2121.0, 0.0);
	assert_int_equal(hist_merge(NULL, a), -EINVAL);
	assert_int_equal(hist_merge(a, NULL), -EINVAL);
	hist_free(a);
	hist_free(e);
}

static int seen_bucket;

static void count_calls(uint64_t value, uint64_t count, void *arg)
{
	(void)value;
	(void)count;
	(void)arg;
	seen_bucket = 1;
}

static void check_empty(const struct hist *h)
{
	seen_bucket = 0;
	assert_int_equal(hist_count(h), 0);
	assert_int_equal(hist_min(h), 0);
	assert_int_equal(hist_max(h), 0);
	assert_near(hist_mean(h), 0.0, 0.0);
	assert_near(hist_stdev(h), 0.0, 0.0);
	assert_int_equal(hist_percentile(h, 50.0), 0);
	assert_int_equal(hist_percentile(h, 100.0), 0);
	hist_foreach(h, count_calls, NULL);
	assert_false(seen_bucket);
}

static void test_empty_and_reset(void **state)
{
	struct hist *h = hist_new();

	(void)state;
	assert_non_null(h);
	check_empty(h);
	hist_record(h, 12345);
	assert_int_equal(hist_percentile(h, 37.0), 12345);
	assert_near(hist_stdev(h), 0.0, 0.0);
	hist_reset(h);
	check_empty(h);
	hist_free(h);
	hist_free(NULL);
}

/*
 * The heap, counted: this test links with --wrap=malloc, calloc and
 * realloc (Makefile.am), so every allocation anyone in it makes passes
 * through here.
 */
static size_t heap_calls;

void *__real_malloc(size_t bytes);
void *__real_calloc(size_t n, size_t bytes);
void *__real_realloc(void *p, size_t bytes);
void *__wrap_malloc(size_t bytes);
void *__wrap_calloc(size_t n, size_t bytes);
void *__wrap_realloc(void *p, size_t bytes);

void *__wrap_malloc(size_t bytes)
{
	heap_calls++;
	return __real_malloc(bytes);
}

void *__wrap_calloc(size_t n, size_t bytes)
{
	heap_calls++;
	return __real_calloc(n, bytes);
}

void *__wrap_realloc(void *p, size_t bytes)
{
	heap_calls++;
	return __real_realloc(p, bytes);
}

/* A value of any magnitude: every power of two gets its share. */
static uint64_t rng_any_magnitude(void)
{
	return rng_next() >> (rng_next() % 64);
}

/*
 * Memory is fixed at creation: a million samples over the whole range
 * allocate nothing (hist_new, which must, shows the counter works), and
 * leave count, min, max, mean and the extreme percentiles exact.
 */
static void test_record_allocates_nothing(void **state)
{
	uint64_t v, lo = UINT64_MAX, hi = 0;
	long double sum = 0;
	size_t before, calls;
	struct hist *h;
	int i;

	(void)state;
	calls = heap_calls;
	h = hist_new();
	assert_non_null(h);
	assert_true(heap_calls > calls);
	before = hist_memory_bytes(h);
	assert_true(before > 0);
	assert_true(before <= 256 * 1024);
	calls = heap_calls;
	for (i = 0; i < 1000000; i++) {
		v = rng_any_magnitude();
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		sum += v;
		hist_record(h, v);
	}
	assert_int_equal(heap_calls, calls);
	assert_int_equal(hist_memory_bytes(h), before);
	assert_int_equal(hist_count(h), 1000000);
	assert_int_equal(hist_min(h), lo);
	assert_int_equal(hist_max(h), hi);
	assert_int_equal(hist_percentile(h, 0), lo);
	assert_int_equal(hist_percentile(h, 100), hi);
	assert_near(hist_mean(h), (double)(sum / 1000000), (double)(sum / 1000000) * 1e-12);
	hist_free(h);
}

/* splitmix64: a fixed sequence, so every run of the test draws the same samples. */
static uint64_t mix_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double mix_unit(uint64_t *x)
{
	return ((double)(mix_next(x) >> 11) + 0.5) / 9007199254740992.0;
}

/*
 * Coverage of the 95 % interval, by simulation: 1000 runs of 3000 samples
 * from an exponential distribution (mean 10^5) with a known quantile, each
 * recorded into a histogram (values floored to integers, as ticks are);
 * the interval [lo, hi] hist_quantile() gives covers floor(true quantile)
 * in 93-97 % of the runs, for the median, p90 and p99. (The exact
 * binomial coverage of these ranks is 95.3-95.7 %: the intervals are not
 * conservative by more than the rank's granularity.)
 */
static void test_ci_coverage(void **state)
{
	static const double qs[] = { 0.5, 0.9, 0.99 };
	struct hist *h = hist_new();
	struct hist_quantile q;
	uint64_t seed = 42, truth;
	unsigned runs, covered, i, k;

	(void)state;
	assert_non_null(h);
	for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		truth = (uint64_t)floor(-1e5 * log1p(-qs[k]));
		for (covered = 0, runs = 0; runs < 1000; runs++) {
			hist_reset(h);
			for (i = 0; i < 3000; i++)
				hist_record(h, (uint64_t)floor(-1e5 * log(mix_unit(&seed))));
			hist_quantile(h, qs[k] * 100, 0, &q);
			assert_int_equal(q.state, HIST_Q_RESOLVED);
			assert_true(q.lo <= q.value && q.value <= q.hi);
			covered += q.lo <= truth && truth <= q.hi;
		}
		print_message("q %.2f: the 95 %% interval covered the true quantile in %u of 1000 runs\n",
			      qs[k], covered);
		assert_in_range(covered, 930, 970);
	}
	hist_free(h);
}

/* The rank interval: the exact ranks of small cases, and its bounds. */
static void test_rank_ci(void **state)
{
	static const struct {
		uint64_t n;
		double q;
		uint64_t lo, hi;
	} cases[] = {
		/* The median of 1000: P(B <= 468) <= 2.5 %, P(B <= 531) >= 97.5 %. */
		{ 1000, 0.5, 469, 532 },
		{ 3000, 0.99, 2959, 2981 },
		/* Three samples bound the median on neither side (each side 12.5 %). */
		{ 3, 0.5, 0, 4 },
		/* 85 samples bound p99 from below (P(B <= 81) = 1.1 %), not above. */
		{ 85, 0.99, 82, 86 },
	};
	uint64_t lo, hi;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(hist_rank_ci(cases[i].n, cases[i].q, 0.95, &lo, &hi), 0);
		assert_int_equal(lo, cases[i].lo);
		assert_int_equal(hi, cases[i].hi);
	}
	/* A large count: a narrow interval around n q. */
	assert_int_equal(hist_rank_ci(100000000, 0.999, 0.95, &lo, &hi), 0);
	assert_true(lo < 99900000 && hi > 99900000 && hi - lo < 1300);
	assert_int_equal(hist_rank_ci(0, 0.5, 0.95, &lo, &hi), -EINVAL);
	assert_int_equal(hist_rank_ci(10, 1.0, 0.95, &lo, &hi), -EINVAL);
	assert_int_equal(hist_rank_ci(10, 0.5, 1.0, &lo, &hi), -EINVAL);
}

/* The rank interval by its definition: every term of the distribution
 * function from lgamma, summed from 0 in long double. */
static void rank_ci_defined(uint64_t n, double q, double conf, uint64_t *lo, uint64_t *hi)
{
	long double cum = 0, tail = (1 - (long double)conf) / 2;
	uint64_t k;

	*lo = *hi = 0;
	for (k = 0; k < n; k++) {
		cum += expl(lgammal((long double)n + 1) - lgammal((long double)k + 1) -
			    lgammal((long double)(n - k) + 1) + (long double)k * logl(q) +
			    (long double)(n - k) * log1pl(-q));
		*lo += cum <= tail;
		if (!*hi && cum >= 1 - tail)
			*hi = k + 1;
	}
	*hi = *hi ? *hi : n + 1;
}

/* The terms by products give the ranks of the definition, small counts to
 * large, low percentiles to high (where the first terms underflow). */
static void test_rank_ci_products(void **state)
{
	static const double qs[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999 };
	static const uint64_t ns[] = { 1, 2, 5, 30, 85, 144, 1000, 3001, 20000, 123457 };
	uint64_t lo, hi, want_lo, want_hi;
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(qs) / sizeof(qs[0]); j++) {
			assert_int_equal(hist_rank_ci(ns[i], qs[j], 0.95, &lo, &hi), 0);
			rank_ci_defined(ns[i], qs[j], 0.95, &want_lo, &want_hi);
			if (lo != want_lo || hi != want_hi)
				fail_msg("n %" PRIu64 ", q %g: [%" PRIu64 ", %" PRIu64 "], the "
					 "definition's [%" PRIu64 ", %" PRIu64 "]", ns[i], qs[j], lo,
					 hi, want_lo, want_hi);
		}
}

/* The states: unresolved at or below the unresolved fraction, too few below 10/(1-q). */
static void test_quantile_states(void **state)
{
	struct hist *h = hist_new();
	struct hist_quantile q;
	uint64_t i;

	(void)state;
	assert_non_null(h);
	hist_quantile(h, 50, 0, &q);
	assert_int_equal(q.state, HIST_Q_EMPTY);
	for (i = 0; i < 3000; i++)
		hist_record(h, i < 1121 ? 0 : 1000 + i);
	assert_int_equal(hist_zeros(h), 1121);
	hist_quantile(h, 37, hist_zeros(h), &q);	/* rank 1110 */
	assert_int_equal(q.state, HIST_Q_UNRESOLVED);
	hist_quantile(h, 38, hist_zeros(h), &q);	/* rank 1140 */
	assert_int_equal(q.state, HIST_Q_RESOLVED);
	assert_int_equal(q.rank, 1140);
	assert_true(q.lo_unresolved);
	assert_int_equal(q.value, hist_at_rank(h, 1140));
	hist_quantile(h, 99, hist_zeros(h), &q);
	assert_int_equal(q.state, HIST_Q_RESOLVED);
	assert_false(q.lo_unresolved);
	hist_quantile(h, 99.9, hist_zeros(h), &q);
	assert_int_equal(q.state, HIST_Q_TOO_FEW);
	assert_int_equal(q.needed, 10000);
	hist_quantile(h, 99.99, hist_zeros(h), &q);
	assert_int_equal(q.state, HIST_Q_TOO_FEW);
	assert_int_equal(q.needed, 100000);
	hist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_heavy_tail),
		cmocka_unit_test(test_wide_range),
		cmocka_unit_test(test_small_exact),
		cmocka_unit_test(test_stats_huge_values),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_merge_equals_recording_all),
		cmocka_unit_test(test_wire_round_trip),
		cmocka_unit_test(test_wire_merge_equals_recording_all),
		cmocka_unit_test(test_merge_scaled),
		cmocka_unit_test(test_wire_malformed),
		cmocka_unit_test(test_merge_empty_and_errors),
		cmocka_unit_test(test_empty_and_reset),
		cmocka_unit_test(test_record_allocates_nothing),
		cmocka_unit_test(test_ci_coverage),
		cmocka_unit_test(test_rank_ci),
		cmocka_unit_test(test_rank_ci_products),
		cmocka_unit_test(test_quantile_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
