/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The compact sketch: a window of log-linear buckets, its exact
 * statistics, its percentiles through hist_quantile_ranks(). See sketch.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/loglin.h"
#include "base/sketch.h"

/* Buckets of the geometry up to 2^SKETCH_TOP_BITS - 1; the last holds every value above too. */
#define SKETCH_BUCKETS	((size_t)(SKETCH_TOP_BITS - SKETCH_SUB_BITS + 1) << SKETCH_SUB_BITS)

struct sketch {
	struct sketch_totals t;		/* its zeros are not in the window */
	uint16_t first;			/* the window's first bucket (above 0) */
	uint16_t n;			/* its buckets; 0: no sample above 0 */
	uint32_t counts[];
};

_Static_assert(sizeof(struct sketch) + SKETCH_BUCKETS * sizeof(uint32_t) <= SKETCH_MAX_BYTES,
	       "a sketch of every bucket exceeds SKETCH_MAX_BYTES");

/* The bucket of @value: the last for every value from the top on. */
static size_t sketch_index(uint64_t value)
{
	size_t i = loglin_index(value, SKETCH_SUB_BITS);

	return i < SKETCH_BUCKETS ? i : SKETCH_BUCKETS - 1;
}

/* The lowest and highest value bucket @i holds. */
static void sketch_bounds(size_t i, uint64_t *low, uint64_t *high)
{
	*low = loglin_low(i, SKETCH_SUB_BITS);
	*high = i == SKETCH_BUCKETS - 1 ? UINT64_MAX :
		*low + loglin_width(i, SKETCH_SUB_BITS) - 1;
}

/* A new empty sketch whose window is bucket @i alone (@n 1) or none (@n 0). */
static struct sketch *sketch_new(size_t i, size_t n)
{
	struct sketch *s = calloc(1, sizeof(*s) + n * sizeof(s->counts[0]));

	if (!s)
		return NULL;
	s->t.min = UINT64_MAX;
	s->first = (uint16_t)i;
	s->n = (uint16_t)n;
	return s;
}

/* *@s's window grown to hold buckets @lo .. @hi (1 .. SKETCH_BUCKETS - 1;
 * allocated when NULL): 0 or -ENOMEM (*@s unchanged). */
static int sketch_window(struct sketch **s, size_t lo, size_t hi)
{
	struct sketch *t = *s;
	size_t first, last, n, old, shift;

	if (!t)
		return (*s = sketch_new(lo, hi - lo + 1)) ? 0 : -ENOMEM;
	old = t->n;
	first = old && t->first < lo ? t->first : lo;
	last = old && (size_t)t->first + old - 1 > hi ? (size_t)t->first + old - 1 : hi;
	n = last - first + 1;
	if (old == n)
		return 0;
	t = realloc(t, sizeof(*t) + n * sizeof(t->counts[0]));
	if (!t)
		return -ENOMEM;
	shift = old ? t->first - first : 0;
	if (old)
		memmove(&t->counts[shift], t->counts, old * sizeof(t->counts[0]));
	memset(t->counts, 0, shift * sizeof(t->counts[0]));
	memset(&t->counts[shift + old], 0, (n - shift - old) * sizeof(t->counts[0]));
	t->first = (uint16_t)first;
	t->n = (uint16_t)n;
	*s = t;
	return 0;
}

/* The exact figures of samples joining *@s (their window already grown). */
static void sketch_stats(struct sketch *s, const struct sketch_totals *add)
{
	s->t.count += add->count;
	s->t.zeros += add->zeros;
	s->t.min = add->min < s->t.min ? add->min : s->t.min;
	s->t.max = add->max > s->t.max ? add->max : s->t.max;
	s->t.sum += add->sum;
}

/*
 * Room in *@s for @add's figures (its window: buckets @lo .. @hi, none
 * when @lo is 0): the sketch allocated or its window grown. 0, -ENOMEM,
 * -EOVERFLOW; *@s unchanged but for its window.
 */
static int sketch_room(struct sketch **s, const struct sketch_totals *add, size_t lo, size_t hi)
{
	uint64_t had = *s ? (*s)->t.count - (*s)->t.zeros : 0;

	if (*s && (*s)->t.count + add->count < (*s)->t.count)
		return -EOVERFLOW;
	if (had + add->count - add->zeros > UINT32_MAX)
		return -EOVERFLOW;
	if (lo)
		return sketch_window(s, lo, hi);
	return *s || (*s = sketch_new(0, 0)) ? 0 : -ENOMEM;
}

/* A histogram joining a sketch: its samples' window (the smallest and
 * largest bucket above 0) and their sum, then their counts into @s. */
struct hist_join {
	double factor;
	size_t lo, hi;
	uint64_t zeros;			/* placeholders, or scaled down to 0 */
	unsigned __int128 sum;
	struct sketch *s;		/* the second pass: where the counts go */
};

static uint64_t hist_join_value(const struct hist_join *j, uint64_t value)
{
	return j->factor == 1.0 ? value : hist_scale_value(value, j->factor);
}

static void hist_join_window(uint64_t value, uint64_t count, void *arg)
{
	struct hist_join *j = arg;
	uint64_t v = hist_join_value(j, value);
	size_t i = sketch_index(v);

	j->sum += (unsigned __int128)v * count;
	if (!v) {
		j->zeros += count;
		return;
	}
	j->lo = j->lo && j->lo < i ? j->lo : i;
	j->hi = j->hi > i ? j->hi : i;
}

static void hist_join_counts(uint64_t value, uint64_t count, void *arg)
{
	struct hist_join *j = arg;
	uint64_t v = hist_join_value(j, value);

	if (v)
		j->s->counts[sketch_index(v) - j->s->first] += (uint32_t)count;
}

int sketch_add_hist(struct sketch **s, const struct hist *h, double factor)
{
	struct hist_join j = { .factor = factor };
	struct sketch_totals add = { .count = hist_count(h), .min = UINT64_MAX };
	int ret;

	if (!(factor > 0.0) || !isfinite(factor))
		return -EINVAL;
	hist_foreach(h, hist_join_window, &j);
	if (add.count) {
		add.min = hist_join_value(&j, hist_min(h));
		add.max = hist_join_value(&j, hist_max(h));
	}
	add.sum = factor == 1.0 ? hist_sum(h) : j.sum;
	add.zeros = j.zeros;
	ret = sketch_room(s, &add, j.lo, j.hi);
	if (ret)
		return ret;
	j.s = *s;
	hist_foreach(h, hist_join_counts, &j);
	sketch_stats(*s, &add);
	return 0;
}

int sketch_merge(struct sketch **dst, const struct sketch *src)
{
	size_t i;
	int ret;

	ret = sketch_room(dst, &src->t, src->n ? src->first : 0, (size_t)src->first + src->n - 1);
	if (ret)
		return ret;
	for (i = 0; i < src->n; i++)
		(*dst)->counts[src->first + i - (*dst)->first] += src->counts[i];
	sketch_stats(*dst, &src->t);
	return 0;
}

void sketch_free(struct sketch *s)
{
	free(s);
}

const struct sketch_totals *sketch_totals(const struct sketch *s)
{
	return &s->t;
}

/* The bounds of the bucket of nearest rank @rank (the zeros first). */
static void sketch_rank_bounds(const void *d, uint64_t rank, uint64_t *low, uint64_t *high)
{
	const struct sketch *s = d;
	uint64_t seen = s->t.zeros;
	size_t i;

	if (rank <= seen || !s->n) {
		*low = *high = 0;
		return;
	}
	for (i = 0; i + 1 < s->n; i++) {
		seen += s->counts[i];
		if (seen >= rank)
			break;
	}
	sketch_bounds(s->first + i, low, high);
}

void sketch_quantile(const struct sketch *s, double pct, struct hist_quantile *q)
{
	const struct hist_ranks r = { .count = s->t.count, .min = s->t.min, .max = s->t.max,
				      .bucket = sketch_rank_bounds, .d = s };

	hist_quantile_ranks(&r, pct, s->t.zeros, q);
}

size_t sketch_memory_bytes(const struct sketch *s)
{
	return sizeof(*s) + s->n * sizeof(s->counts[0]);
}
