/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh's sampled schedule (coord/mesh_sample.h), by enumeration
 * over leaf shapes: equal, uneven, odd, one host a leaf, one leaf, hosts
 * of a leaf not next to each other, K beyond the cross-leaf pairs. For
 * each: no host twice in a step; every pair under a leaf once in every
 * pass; every ordered cross-leaf pair within mesh_sample_n_passes()
 * passes (and, for equal leaves, not one pass sooner); every pair of
 * leaves crossed within ceil((leaves - 1) / K) passes; the steps a pass.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "coord/mesh_sample.h"
#include "unit.h"

#define MAX_N 40

/* A shape: the leaf sizes, and whether a leaf's hosts are dealt round. */
struct shape {
	size_t sizes[MAX_N], n_leaves, k;
	int interleave;
};

/* Each host's leaf, by @sh; returns the hosts. */
static size_t shape_leaves(const struct shape *sh, size_t *leaf)
{
	size_t n = 0, g, i, left[MAX_N];

	memcpy(left, sh->sizes, sizeof(left));
	if (!sh->interleave) {
		for (g = 0; g < sh->n_leaves; g++)
			for (i = 0; i < sh->sizes[g]; i++)
				leaf[n++] = g;
		return n;
	}
	for (i = 0; i < MAX_N; i++)
		for (g = 0; g < sh->n_leaves; g++)
			if (left[g] && left[g]--)
				leaf[n++] = g;
	return n;
}

static size_t ceil_div(size_t a, size_t b)
{
	return (a + b - 1) / b;
}

/* The pairs of step @i of @p: in range, no host twice; into @seen per pass. */
static void check_step(const struct mesh_sample_pass *p, size_t i, size_t n,
		       unsigned seen[MAX_N][MAX_N])
{
	unsigned busy[MAX_N] = { 0 };
	size_t j;
	int a, b;

	assert_true(p->step_at[i + 1] > p->step_at[i]);
	for (j = p->step_at[i]; j < p->step_at[i + 1]; j++) {
		a = p->pairs[j].a;
		b = p->pairs[j].b;
		assert_true(a >= 0 && (size_t)a < n && b >= 0 && (size_t)b < n);
		assert_int_not_equal(a, b);
		if (busy[a]++ || busy[b]++)
			fail_msg("step %zu: host %d or %d in two pairs", i, a, b);
		seen[a][b]++;
	}
}

/* Pass @pass of @s: its steps, its pairs under each leaf (each once), its
 * cross-leaf pairs (at most k a host) into @ever. */
static void check_pass(const struct mesh_sample *s, const size_t *leaf, size_t pass,
		       unsigned ever[MAX_N][MAX_N], unsigned leaf_ever[MAX_N][MAX_N])
{
	static unsigned seen[MAX_N][MAX_N];
	struct mesh_sample_pass p;
	size_t i, n = s->n_hosts, sent[MAX_N] = { 0 }, rounds = mesh_n_rounds(s->leaf_max);
	int a, b;

	memset(seen, 0, sizeof(seen));
	assert_int_equal(mesh_sample_pass(s, pass, &p), 0);
	assert_int_equal(p.n_intra_steps, 2 * rounds);
	assert_true(p.n_steps - p.n_intra_steps >= (s->k ? 1 : 0));
	assert_true(p.n_steps - p.n_intra_steps <= 3 * s->k);
	for (i = 0; i < p.n_steps; i++)
		check_step(&p, i, n, seen);
	for (i = p.step_at[p.n_intra_steps]; i < p.n_pairs; i++) {
		a = p.pairs[i].a;
		b = p.pairs[i].b;
		assert_int_not_equal(leaf[a], leaf[b]);
		sent[a]++;
		ever[a][b]++;
		leaf_ever[leaf[a]][leaf[b]]++;
	}
	for (a = 0; (size_t)a < n; a++) {
		assert_true(sent[a] <= s->k);
		for (b = 0; (size_t)b < n; b++)
			if (a != b && leaf[a] == leaf[b] && seen[a][b] != 1)
				fail_msg("pass %zu: %d -> %d under one leaf measured %u times",
					 pass, a, b, seen[a][b]);
	}
	mesh_sample_pass_free(&p);
}

/* Every cross-leaf ordered pair in @ever? The first missing one into *@a, *@b. */
static int all_crossed(const size_t *leaf, size_t n, unsigned ever[MAX_N][MAX_N], int *a, int *b)
{
	for (*a = 0; (size_t)*a < n; (*a)++)
		for (*b = 0; (size_t)*b < n; (*b)++)
			if (leaf[*a] != leaf[*b] && !ever[*a][*b])
				return 0;
	return 1;
}

/* Leaf pair (g, h), g != h, crossed in @leaf_ever? Fails with the first not. */
static void check_leaves_crossed(const struct shape *sh, size_t passes,
				 unsigned leaf_ever[MAX_N][MAX_N])
{
	size_t g, h;

	for (g = 0; g < sh->n_leaves; g++)
		for (h = 0; h < sh->n_leaves; h++)
			if (g != h && !leaf_ever[g][h])
				fail_msg("leaf %zu -> %zu not crossed in %zu passes", g, h, passes);
}

static void check_shape(const struct shape *sh)
{
	static unsigned ever[MAX_N][MAX_N], leaf_ever[MAX_N][MAX_N];
	size_t leaf[MAX_N], n = shape_leaves(sh, leaf), g, lmax = 0, cross, k, passes, p;
	int equal = 1, a, b;
	struct mesh_sample s;

	for (g = 0; g < sh->n_leaves; g++) {
		lmax = sh->sizes[g] > lmax ? sh->sizes[g] : lmax;
		equal = equal && sh->sizes[g] == sh->sizes[0];
	}
	cross = (sh->n_leaves - 1) * lmax;
	k = sh->k < cross ? sh->k : cross;
	passes = k ? ceil_div(cross, k) : 1;
	assert_int_equal(mesh_sample_init(&s, leaf, n, sh->k), 0);
	assert_int_equal(s.n_leaves, sh->n_leaves);
	assert_int_equal(s.leaf_max, lmax);
	assert_int_equal(s.k, k);
	assert_int_equal(mesh_sample_n_passes(&s), passes);
	if (equal && k)
		assert_int_equal(passes, ceil_div(n - sh->sizes[0], k));
	memset(ever, 0, sizeof(ever));
	memset(leaf_ever, 0, sizeof(leaf_ever));
	for (p = 0; p < passes; p++) {
		if (equal && p + 1 == passes && passes > 1 && all_crossed(leaf, n, ever, &a, &b))
			fail_msg("every cross-leaf pair measured in %zu passes, fewer than said", p);
		check_pass(&s, leaf, p, ever, leaf_ever);
		if (k && p + 1 == ceil_div(sh->n_leaves - 1, k))
			check_leaves_crossed(sh, p + 1, leaf_ever);
	}
	if (!all_crossed(leaf, n, ever, &a, &b))
		fail_msg("%d -> %d (leaves %zu, %zu) not measured in %zu passes", a, b, leaf[a],
			 leaf[b], passes);
	mesh_sample_free(&s);
}

static void test_equal_leaves(void **state)
{
	(void)state;
	check_shape(&(struct shape){ .sizes = { 4, 4, 4, 4 }, .n_leaves = 4, .k = 3 });
	check_shape(&(struct shape){ .sizes = { 3, 3, 3, 3, 3, 3 }, .n_leaves = 6, .k = 2 });
	check_shape(&(struct shape){ .sizes = { 2, 2 }, .n_leaves = 2, .k = 1 });
}

static void test_odd_leaves(void **state)
{
	(void)state;
	check_shape(&(struct shape){ .sizes = { 5, 5, 5 }, .n_leaves = 3, .k = 4 });
	check_shape(&(struct shape){ .sizes = { 7, 7, 7, 7, 7 }, .n_leaves = 5, .k = 5 });
	check_shape(&(struct shape){ .sizes = { 1, 1, 1, 1, 1, 1, 1 }, .n_leaves = 7, .k = 2 });
}

static void test_uneven_leaves(void **state)
{
	(void)state;
	check_shape(&(struct shape){ .sizes = { 5, 2, 3, 1 }, .n_leaves = 4, .k = 3 });
	check_shape(&(struct shape){ .sizes = { 1, 8, 2 }, .n_leaves = 3, .k = 1 });
	check_shape(&(struct shape){ .sizes = { 6, 3, 4, 5, 2 }, .n_leaves = 5, .k = 4,
				     .interleave = 1 });
}

/* K beyond the cross-leaf places, none across (one leaf), none asked (K 0). */
static void test_k_edges(void **state)
{
	(void)state;
	check_shape(&(struct shape){ .sizes = { 3, 3 }, .n_leaves = 2, .k = 100 });
	check_shape(&(struct shape){ .sizes = { 4, 1 }, .n_leaves = 2, .k = 9 });
	check_shape(&(struct shape){ .sizes = { 9 }, .n_leaves = 1, .k = 4 });
	check_shape(&(struct shape){ .sizes = { 6 }, .n_leaves = 1, .k = 0 });
}

/* Passes go on past the last: pass n_passes is pass 0 again. */
static void test_wraps(void **state)
{
	size_t leaf[9] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	struct mesh_sample_pass p0, pn;
	struct mesh_sample s;

	(void)state;
	assert_int_equal(mesh_sample_init(&s, leaf, 9, 2), 0);
	assert_int_equal(mesh_sample_n_passes(&s), 3);
	assert_int_equal(mesh_sample_pass(&s, 0, &p0), 0);
	assert_int_equal(mesh_sample_pass(&s, 3, &pn), 0);
	assert_int_equal(p0.n_pairs, pn.n_pairs);
	assert_memory_equal(p0.pairs, pn.pairs, p0.n_pairs * sizeof(*p0.pairs));
	mesh_sample_pass_free(&p0);
	mesh_sample_pass_free(&pn);
	mesh_sample_free(&s);
}

static void test_refused(void **state)
{
	size_t leaf[3] = { 0, 3, 1 };
	struct mesh_sample s;

	(void)state;
	assert_int_equal(mesh_sample_init(&s, leaf, 3, 1), -EINVAL);
	assert_int_equal(mesh_sample_init(&s, leaf, 1, 1), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_leaves),
		cmocka_unit_test(test_odd_leaves),
		cmocka_unit_test(test_uneven_leaves),
		cmocka_unit_test(test_k_edges),
		cmocka_unit_test(test_wraps),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
