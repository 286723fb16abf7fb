/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sketch: against the full histogram of the same generated samples (the
 * exact nearest-rank samples too), every percentile mesh reports has the
 * same state and ranks, a value within SKETCH_REL_ERROR of the exact
 * sample (below the sketch's top), and an interval that holds the histogram's (so the exact order
 * statistics' too); an interval left at the bucket's midpoint instead of
 * widened to its bounds fails that check on the same data. Unresolved
 * samples (at 0) keep their meaning; merges are exact; a histogram in
 * ticks joins as hist_merge_scaled() would scale it; a sketch stays
 * within SKETCH_MAX_BYTES; a merge past UINT32_MAX samples is refused.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/loglin.h"
#include "base/sketch.h"
#include "rng.h"
#include "unit.h"

/* Log-normal around @median_ns, log-spread @sigma. */
static uint64_t lognormal(double median_ns, double sigma)
{
	double z = sqrt(-2 * log(rng_unit())) * cos(2 * M_PI * rng_unit());

	return (uint64_t)(median_ns * exp(sigma * z));
}

/* A generated data set: @n samples, a fraction @zeros of them
 * unresolved (0), the rest log-normal, a fraction @far of those @tail
 * times slower. */
struct shape {
	const char *name;
	size_t n;
	double median_ns, sigma, zeros, far, tail;
};

static const struct shape shapes[] = {
	{ "narrow", 20000, 3000, 0.03, 0, 0, 1 },
	{ "tail", 50000, 2500, 0.2, 0, 0.02, 40 },
	{ "unresolved", 8000, 4000, 0.3, 0.04, 0, 1 },
	{ "mostly unresolved", 6000, 4000, 0.3, 0.6, 0, 1 },
	{ "short", 60, 1800, 0.1, 0, 0, 1 },
	{ "exact buckets", 5000, 120, 0.2, 0.1, 0, 1 },
	{ "bimodal", 30000, 2000, 0.05, 0, 0.45, 9 },
	{ "above the top", 3000, 1.0e11, 0.5, 0, 0, 1 },
};

static const double pcts[] = { 50, 90, 99, 99.9 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Shape @sh's samples, sorted, into @v (room for sh->n) and the histogram @h. */
static void generate(const struct shape *sh, uint64_t seed, uint64_t *v, struct hist *h)
{
	size_t i;

	rng_state = seed;
	hist_reset(h);
	for (i = 0; i < sh->n; i++) {
		v[i] = rng_unit() < sh->zeros ? 0 :
		       lognormal(sh->median_ns * (rng_unit() < sh->far ? sh->tail : 1), sh->sigma);
		hist_record(h, v[i]);
	}
	qsort(v, sh->n, sizeof(*v), cmp_u64);
}

/* The sample at rank @r (1 .. n) of sorted @v. */
static uint64_t at(const uint64_t *v, size_t n, uint64_t r)
{
	return v[(r < 1 ? 1 : r > n ? n : r) - 1];
}

/* A violation's message; none for the careless sketch (@what NULL). */
static void say(const char *what, const char *fmt, ...)
{
	va_list ap;

	if (!what)
		return;
	va_start(ap, fmt);
	vprint_message(fmt, ap);
	va_end(ap);
}

/*
 * What the sketch's percentile @s must be against the histogram's @h of
 * the same samples (sorted @v): the same state and ranks, its value
 * within SKETCH_REL_ERROR of the exact sample (one below the sketch's
 * top, 2^SKETCH_TOP_BITS), its interval holding the
 * histogram's and the exact order statistics'. The violations, each
 * printed (@what NULL: none).
 */
static int violations(const struct hist_quantile *h, const struct hist_quantile *s,
		      const uint64_t *v, size_t n, const char *what)
{
	uint64_t x;
	int bad = 0;

	if (s->state != h->state || s->rank != h->rank || s->lo_rank != h->lo_rank ||
	    s->hi_rank != h->hi_rank || s->lo_unresolved != h->lo_unresolved ||
	    s->lower_bound != h->lower_bound || s->needed != h->needed) {
		say(what, "%s: state or ranks differ from the histogram's\n", what);
		bad++;
	}
	x = at(v, n, h->rank);
	if (s->state == HIST_Q_RESOLVED && x >> SKETCH_TOP_BITS == 0 &&
	    !(fabs((double)s->value - (double)x) <= (double)x * SKETCH_REL_ERROR)) {
		say(what, "%s: %llu, exact %llu\n", what, (unsigned long long)s->value,
			      (unsigned long long)x);
		bad++;
	}
	if (h->state != HIST_Q_EMPTY && h->lo_rank &&
	    (s->lo > h->lo || s->lo > at(v, n, h->lo_rank))) {
		say(what, "%s: low end %llu above the histogram's %llu\n", what,
			      (unsigned long long)s->lo, (unsigned long long)h->lo);
		bad++;
	}
	if (h->state != HIST_Q_EMPTY && h->hi_rank <= n &&
	    (s->hi < h->hi || s->hi < at(v, n, h->hi_rank))) {
		say(what, "%s: high end %llu below the histogram's %llu\n", what,
			      (unsigned long long)s->hi, (unsigned long long)h->hi);
		bad++;
	}
	return bad;
}

/* The midpoint of the sketch's bucket of @x. */
static uint64_t midpoint(uint64_t x)
{
	size_t i = loglin_index(x, SKETCH_SUB_BITS);

	return loglin_low(i, SKETCH_SUB_BITS) + loglin_width(i, SKETCH_SUB_BITS) / 2;
}

/* The sketch's percentile with its interval left at its ends' bucket
 * midpoints, not widened to the bounds: what a careless sketch gives. */
static void unwidened(const struct hist_quantile *s, struct hist_quantile *b)
{
	*b = *s;
	b->lo = midpoint(s->lo);
	b->hi = midpoint(s->hi);
}

static void test_against_hist(void **state)
{
	struct hist *h = hist_new();
	struct hist_quantile hq, sq, bq;
	struct sketch *s;
	uint64_t *v = malloc(50000 * sizeof(*v));
	size_t i, j, seed;
	int bad = 0, broken = 0;
	char what[96];

	(void)state;
	assert_non_null(h);
	assert_non_null(v);
	for (seed = 1; seed <= 3; seed++)
		for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			generate(&shapes[i], seed * 0x9e3779b97f4a7c15ull, v, h);
			s = NULL;
			assert_int_equal(sketch_add_hist(&s, h, 1.0), 0);
			assert_int_equal(sketch_totals(s)->count, hist_count(h));
			assert_int_equal(sketch_totals(s)->zeros, hist_zeros(h));
			assert_int_equal(sketch_totals(s)->min, hist_min(h));
			assert_int_equal(sketch_totals(s)->max, hist_max(h));
			assert_true(sketch_totals(s)->sum == hist_sum(h));
			for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++) {
				snprintf(what, sizeof(what), "%s (seed %zu) p%g", shapes[i].name,
					 seed, pcts[j]);
				hist_quantile(h, pcts[j], hist_zeros(h), &hq);
				sketch_quantile(s, pcts[j], &sq);
				bad += violations(&hq, &sq, v, shapes[i].n, what);
				unwidened(&sq, &bq);
				broken += violations(&hq, &bq, v, shapes[i].n, NULL) > 0;
			}
			sketch_free(s);
		}
	assert_int_equal(bad, 0);
	/* The check is sharp: the same data catch an interval not widened. */
	assert_true(broken > 0);
	free(v);
	hist_free(h);
}

/* Unresolved samples: a p50 among them is unresolved, a p99 above them a
 * lower bound whose interval's high end is open. */
static void test_unresolved(void **state)
{
	struct hist *h = hist_new();
	struct sketch *s = NULL;
	struct hist_quantile q;
	int i;

	(void)state;
	for (i = 0; i < 600; i++)
		hist_record(h, 0);
	for (i = 0; i < 400; i++)
		hist_record(h, 5000 + (uint64_t)i);
	assert_int_equal(sketch_add_hist(&s, h, 1.0), 0);
	sketch_quantile(s, 50, &q);
	assert_int_equal(q.state, HIST_Q_UNRESOLVED);
	sketch_quantile(s, 99, &q);
	assert_int_equal(q.state, HIST_Q_RESOLVED);
	assert_true(q.lower_bound);
	assert_true(q.hi_rank > sketch_totals(s)->count);
	sketch_free(s);
	hist_free(h);
}

/* Joining parts one by one, or as sketches, is joining the whole. */
static void test_merge_exact(void **state)
{
	struct hist *h = hist_new(), *part = hist_new();
	struct sketch *whole = NULL, *parts = NULL, *merged = NULL, *one;
	struct hist_quantile a, b, c;
	uint64_t x;
	size_t i, k;

	(void)state;
	rng_state = 7;
	for (k = 0; k < 4; k++) {
		hist_reset(part);
		for (i = 0; i < 5000; i++) {
			x = rng_unit() < 0.02 ? 0 : lognormal(2000.0 * (double)(k + 1), 0.1);
			hist_record(part, x);
			hist_record(h, x);
		}
		assert_int_equal(sketch_add_hist(&parts, part, 1.0), 0);
		one = NULL;
		assert_int_equal(sketch_add_hist(&one, part, 1.0), 0);
		assert_int_equal(sketch_merge(&merged, one), 0);
		sketch_free(one);
	}
	assert_int_equal(sketch_add_hist(&whole, h, 1.0), 0);
	assert_int_equal(sketch_totals(parts)->count, sketch_totals(whole)->count);
	assert_int_equal(sketch_totals(merged)->count, sketch_totals(whole)->count);
	assert_int_equal(sketch_totals(merged)->zeros, sketch_totals(whole)->zeros);
	assert_true(sketch_totals(merged)->sum == sketch_totals(whole)->sum);
	assert_int_equal(sketch_memory_bytes(merged), sketch_memory_bytes(whole));
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		sketch_quantile(whole, pcts[i], &a);
		sketch_quantile(parts, pcts[i], &b);
		sketch_quantile(merged, pcts[i], &c);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_memory_equal(&a, &c, sizeof(a));
	}
	sketch_free(whole);
	sketch_free(parts);
	sketch_free(merged);
	hist_free(part);
	hist_free(h);
}

/* A histogram in ticks joins as hist_merge_scaled() moves it: the
 * sketch's intervals hold those of the scaled histogram. */
static void test_scaled(void **state)
{
	struct hist *ticks = hist_new(), *ns = hist_new();
	struct hist_quantile hq, sq;
	struct sketch *s = NULL;
	const double f = 1.0 / 2.6;	/* 2.6 ticks a ns */
	size_t i;

	(void)state;
	rng_state = 11;
	for (i = 0; i < 20000; i++)
		hist_record(ticks, rng_unit() < 0.01 ? 0 : lognormal(7800, 0.15));
	assert_int_equal(hist_merge_scaled(ns, ticks, f), 0);
	assert_int_equal(sketch_add_hist(&s, ticks, f), 0);
	assert_int_equal(sketch_totals(s)->count, hist_count(ns));
	assert_int_equal(sketch_totals(s)->zeros, hist_zeros(ns));
	assert_int_equal(sketch_totals(s)->min, hist_min(ns));
	assert_int_equal(sketch_totals(s)->max, hist_max(ns));
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		hist_quantile(ns, pcts[i], hist_zeros(ns), &hq);
		sketch_quantile(s, pcts[i], &sq);
		assert_int_equal(sq.state, hq.state);
		assert_true(sq.lo <= hq.lo && sq.hi >= hq.hi);
		assert_true(fabs((double)sq.value - (double)hq.value) <=
			    (double)hq.value * (SKETCH_REL_ERROR + HIST_REL_ERROR));
	}
	assert_int_equal(sketch_add_hist(&s, ticks, 0.0), -EINVAL);
	assert_int_equal(sketch_add_hist(&s, ticks, NAN), -EINVAL);
	sketch_free(s);
	hist_free(ns);
	hist_free(ticks);
}

/* Its memory: the window of its samples, never above SKETCH_MAX_BYTES. */
static void test_memory(void **state)
{
	struct hist *h = hist_new();
	struct sketch *narrow = NULL, *wide = NULL;
	uint64_t x;

	(void)state;
	for (x = 3000; x < 3100; x++)
		hist_record(h, x);
	assert_int_equal(sketch_add_hist(&narrow, h, 1.0), 0);
	assert_true(sketch_memory_bytes(narrow) <= 128);
	for (x = 1; x; x <<= 1)
		hist_record(h, x);
	hist_record(h, 0);
	hist_record(h, UINT64_MAX);
	assert_int_equal(sketch_add_hist(&wide, h, 1.0), 0);
	assert_int_equal(sketch_merge(&narrow, wide), 0);
	assert_true(sketch_memory_bytes(wide) <= SKETCH_MAX_BYTES);
	assert_int_equal(sketch_memory_bytes(narrow), sketch_memory_bytes(wide));
	assert_int_equal(sketch_totals(wide)->max, UINT64_MAX);
	sketch_free(narrow);
	sketch_free(wide);
	hist_free(h);
}

/* UINT32_MAX samples above 0 fit; one more is refused, the sketch unchanged. */
static void test_overflow(void **state)
{
	struct hist *h = hist_new(), *one = hist_new();
	struct sketch *s = NULL, *t = NULL;
	int i;

	(void)state;
	hist_record(h, 1000);
	for (i = 0; i < 31; i++)
		assert_int_equal(hist_merge(h, h), 0);	/* 2^31 samples */
	assert_int_equal(sketch_add_hist(&s, h, 1.0), 0);
	assert_int_equal(sketch_add_hist(&s, h, 1.0), -EOVERFLOW);
	assert_int_equal(sketch_totals(s)->count, (uint64_t)1 << 31);
	assert_int_equal(hist_merge(h, h), 0);
	assert_int_equal(sketch_add_hist(&t, h, 1.0), -EOVERFLOW);
	assert_null(t);
	hist_reset(h);
	hist_record(one, 1000);
	for (i = 0; i < 31; i++)
		hist_merge(h, h), hist_merge(h, one);	/* 2^31 - 1 */
	assert_int_equal(sketch_add_hist(&s, h, 1.0), 0);
	assert_int_equal(sketch_totals(s)->count, UINT32_MAX);
	sketch_free(s);
	hist_free(one);
	hist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_hist),
		cmocka_unit_test(test_unresolved),
		cmocka_unit_test(test_merge_exact),
		cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
