/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The traffic patterns of a scenario (scenario_pattern.h): the table, and
 * one expansion function a row. A new pattern is one function and one row.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "coord/scenario_pattern.h"

/* One expansion: hosts @h[0 .. @n) into pairs handed to @to. */
typedef int (*pattern_fn)(const char **h, int n, const char *dst, uint64_t seed,
			  const struct scenario_pattern_sink *to, char *err, size_t errlen);

struct pattern_row {
	const char *name;
	int min_hosts;		/* sending hosts it needs at least */
	bool even;		/* an even number of them */
	bool dest;		/* 'dest' names its one destination; else it picks them */
	const char *needs;	/* its error's "the PATTERN pattern needs NEEDS hosts" */
	pattern_fn expand;
};

static int pattern_incast(const char **h, int n, const char *dst, uint64_t seed,
			  const struct scenario_pattern_sink *to, char *err, size_t errlen)
{
	int i, ret = 0;

	(void)seed;
	for (i = 0; !ret && i < n; i++)
		ret = to->flow(to->arg, h[i], dst, err, errlen);
	return ret;
}

static int pattern_all_to_all(const char **h, int n, const char *dst, uint64_t seed,
			      const struct scenario_pattern_sink *to, char *err, size_t errlen)
{
	int i, j, ret = 0;

	(void)dst, (void)seed;
	for (i = 0; i < n; i++)
		for (j = 0; !ret && j < n; j++)
			if (i != j)
				ret = to->flow(to->arg, h[i], h[j], err, errlen);
	return ret;
}

/* splitmix64: a small seeded generator, so that a seed gives the same pairs anywhere. */
static uint64_t pattern_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform permutation without a fixed point: shuffle until none. */
static int pattern_random_pairs(const char **h, int n, const char *dst, uint64_t seed,
				const struct scenario_pattern_sink *to, char *err, size_t errlen)
{
	int *perm = malloc((size_t)n * sizeof(*perm));
	int i, j, t, ret = 0;
	bool fixed;

	(void)dst;
	if (!perm)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	do {
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0; i--) {
			j = (int)(pattern_rand(&seed) % (uint64_t)(i + 1));
			t = perm[i], perm[i] = perm[j], perm[j] = t;
		}
		for (fixed = false, i = 0; i < n; i++)
			fixed = fixed || perm[i] == i;
	} while (fixed);
	for (i = 0; !ret && i < n; i++)
		ret = to->flow(to->arg, h[i], h[perm[i]], err, errlen);
	free(perm);
	return ret;
}

static int pattern_ring(const char **h, int n, const char *dst, uint64_t seed,
			const struct scenario_pattern_sink *to, char *err, size_t errlen)
{
	int i, ret = 0;

	(void)dst, (void)seed;
	for (i = 0; !ret && i < n; i++) {
		ret = to->flow(to->arg, h[i], h[(i + 1) % n], err, errlen);
		if (!ret && n > 2)
			ret = to->flow(to->arg, h[i], h[(i + n - 1) % n], err, errlen);
	}
	return ret;
}

static int pattern_flood_pairs(const char **h, int n, const char *dst, uint64_t seed,
			       const struct scenario_pattern_sink *to, char *err, size_t errlen)
{
	int i, ret = 0;

	(void)dst, (void)seed;
	for (i = 0; !ret && i < n; i += 2) {
		ret = to->flow(to->arg, h[i], h[i + 1], err, errlen);
		if (!ret)
			ret = to->flow(to->arg, h[i + 1], h[i], err, errlen);
	}
	return ret;
}

static const struct pattern_row pattern_rows[SCENARIO_PATTERN_COUNT] = {
	[SCENARIO_PATTERN_NONE] = { .name = "none" },
	[SCENARIO_PATTERN_INCAST] = { "incast", 1, false, true, "1 or more sending",
				      pattern_incast },
	[SCENARIO_PATTERN_ALL_TO_ALL] = { "all-to-all", 2, false, false, "2 or more",
					  pattern_all_to_all },
	[SCENARIO_PATTERN_RANDOM_PAIRS] = { "random-pairs", 2, false, false, "2 or more",
					    pattern_random_pairs },
	[SCENARIO_PATTERN_RING] = { "ring", 2, false, false, "2 or more", pattern_ring },
	[SCENARIO_PATTERN_FLOOD_PAIRS] = { "flood-pairs", 2, true, false, "an even number of",
					   pattern_flood_pairs },
};

const char *scenario_pattern_name(enum scenario_pattern p)
{
	return p < SCENARIO_PATTERN_COUNT ? pattern_rows[p].name : "?";
}

int scenario_pattern_parse(const char *name, enum scenario_pattern *p)
{
	int i;

	for (i = SCENARIO_PATTERN_NONE + 1; i < SCENARIO_PATTERN_COUNT; i++)
		if (!strcmp(name, pattern_rows[i].name)) {
			*p = (enum scenario_pattern)i;
			return 0;
		}
	return -EINVAL;
}

const char *scenario_pattern_choices(void)
{
	static char buf[128];
	size_t at = 0;
	int i;

	if (buf[0])
		return buf;
	for (i = SCENARIO_PATTERN_NONE + 1; i < SCENARIO_PATTERN_COUNT && at < sizeof(buf); i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s",
				       i == SCENARIO_PATTERN_NONE + 1 ? "" :
				       i + 1 < SCENARIO_PATTERN_COUNT ? ", " : " or ",
				       pattern_rows[i].name);
	return buf;
}

int scenario_pattern_check(enum scenario_pattern p, bool dest_given, const char *where,
			   char *err, size_t errlen)
{
	const struct pattern_row *r = &pattern_rows[p];

	if (!r->expand)
		return errbuf_set(err, errlen, -EINVAL, "%s: no pattern", where);
	if (!r->dest && dest_given)
		return errbuf_set(err, errlen, -EINVAL, "%s: the %s pattern picks the destinations; "
				  "'dest' is for incast", where, r->name);
	return 0;
}

int scenario_pattern_expand(enum scenario_pattern p, const char **h, int n, const char *dst,
			    uint64_t seed, const char *where, const struct scenario_pattern_sink *to,
			    char *err, size_t errlen)
{
	const struct pattern_row *r = &pattern_rows[p];
	int i, j;

	/* The destination in the list sends nothing: a whole allocation may be given. */
	for (i = 0, j = 0; r->dest && i < n; i++)
		if (strcmp(h[i], dst))
			h[j++] = h[i];
	n = r->dest ? j : n;
	if (n < r->min_hosts || (r->even && n % 2))
		return errbuf_set(err, errlen, -EINVAL, "%s: the %s pattern needs %s hosts in "
				  "'hosts' (%d given)", where, r->name, r->needs, n);
	return r->expand(h, n, dst, seed, to, err, errlen);
}
