/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The hop localization against known answers: figures made from chosen
 * per-link round-trip shares over the topology's routes, noiseless and
 * noisy, must give those shares back (within their intervals); hops the
 * pairs cannot separate must be said so, never given a number.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/locate.h"
#include "fabric/nnls.h"
#include "unit.h"

static char err[512];

/* A topology from the simple format, in memory. */
static void topo_of(struct topo *t, const char *text)
{
	memset(t, 0, sizeof(*t));
	assert_int_equal(topo_parse(t, "test", text, "file", NULL, err, sizeof(err)), 0);
}

static int link_of(const struct topo *t, const char *name)
{
	for (size_t i = 0; i < t->n_links; i++)
		if (!strcmp(t->links[i].name, name))
			return (int)i;
	fail_msg("no link '%s'", name);
	return -1;
}

/* A deterministic normal deviate (an LCG and Box-Muller). */
static double gauss(uint64_t *s)
{
	double u1, u2;

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	u1 = ((double)(*s >> 11) + 1) / 9007199254740993.0;
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	u2 = (double)(*s >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * Every ordered pair of @hosts, its figure the sum of the round-trip
 * shares @share_ns (one per link) along its route, plus noise of
 * standard deviation @sd_ns, with a 95 % interval of that width.
 * Routes are walked here by hand from the link names (path[] per pair).
 */
struct pair_truth {
	const char *src, *dst;
	const char *links[4];
};

static size_t make_obs(const struct topo *t, const struct pair_truth *p, size_t n_pairs,
		       const double *share_ns, double sd_ns, uint64_t seed,
		       struct locate_obs *obs)
{
	size_t i, k, n = 0;

	for (i = 0; i < n_pairs; i++)
		for (int dir = 0; dir < 2; dir++) {
			double y = 0;

			for (k = 0; k < 4 && p[i].links[k]; k++)
				y += share_ns[link_of(t, p[i].links[k])];
			y += sd_ns * gauss(&seed);
			obs[n] = (struct locate_obs){
				.src = dir ? p[i].dst : p[i].src, .dst = dir ? p[i].src : p[i].dst,
				.rtt_ns = y, .ci_low_ns = y - 1.96 * sd_ns,
				.ci_high_ns = y + 1.96 * sd_ns, .resolved = true,
			};
			n++;
		}
	return n;
}

static const char *const two_switch = "h1 sw1\nh2 sw1\nh3 sw2\nh4 sw2\nsw1:t sw2:t\n";
#define TRUNK "sw1:t - sw2:t"
static const struct pair_truth two_switch_pairs[] = {
	{ "h1", "h2", { "h1 - sw1", "h2 - sw1" } },
	{ "h3", "h4", { "h3 - sw2", "h4 - sw2" } },
	{ "h1", "h3", { "h1 - sw1", TRUNK, "h3 - sw2" } },
	{ "h1", "h4", { "h1 - sw1", TRUNK, "h4 - sw2" } },
	{ "h2", "h3", { "h2 - sw1", TRUNK, "h3 - sw2" } },
	{ "h2", "h4", { "h2 - sw1", TRUNK, "h4 - sw2" } },
};

/* Shares: the host links (host and link together) 1000..1600 ns, the
 * trunk D = 5000 ns. */
static void two_switch_truth(const struct topo *t, double *share)
{
	share[link_of(t, "h1 - sw1")] = 1000;
	share[link_of(t, "h2 - sw1")] = 1200;
	share[link_of(t, "h3 - sw2")] = 1400;
	share[link_of(t, "h4 - sw2")] = 1600;
	share[link_of(t, TRUNK)] = 5000;
}

/* Two fabrics that share no pair (two leaves, no trunk crossed, a chain
 * on one side): two components solved apart give every hop's figure,
 * interval, group and slow flag of the one-block solve, to 1e-6 ns. */
static void test_component_split(void **state)
{
	static const char fabric[] = "h1 sw1\nh2 sw1\nh3 sw1\nh4 sw1\nh5 sw2\nh6 sw2\n"
				     "h7 sw3\nsw2 sw3\nsw1 sw4\n";
	static const char *const names[] = { "h1", "h2", "h3", "h4", "h5", "h6", "h7" };
	struct locate_opts one = { .k_mad = 3, .one_block = true }, split = { .k_mad = 3 };
	struct locate_obs obs[42];
	struct locate_result a, b;
	struct topo t = { 0 };
	size_t n = 0, i, j;

	(void)state;
	assert_int_equal(topo_parse(&t, "split", fabric, "file", NULL, err, sizeof(err)), 0);
	for (i = 0; i < 7; i++)
		for (j = 0; j < 7; j++) {
			double y = 2000 + 90 * (double)i + 13 * (double)j + (i == 2 ? 3000 : 0);

			if (i != j && (i < 4) == (j < 4))
				obs[n++] = (struct locate_obs){ names[i], names[j], 0, y + (i < 4 ? 0 :
								1500), y - 40, y + 1540, true };
		}
	assert_int_equal(locate_hops_opt(&t, obs, n, &one, &a, err, sizeof(err)), 0);
	assert_int_equal(locate_hops_opt(&t, obs, n, &split, &b, err, sizeof(err)), 0);
	assert_int_equal(a.n_blocks, 1);
	assert_int_equal(b.n_blocks, 2);
	assert_int_equal(a.rank, b.rank);
	assert_near(a.residual_rms_ns, b.residual_rms_ns, 1e-6);
	for (i = 0; i < t.n_links; i++) {
		const struct locate_hop *x = &a.hops[i], *z = &b.hops[i];

		assert_int_equal(x->identifiable, z->identifiable);
		assert_int_equal(x->group, z->group);
		assert_int_equal(x->slow, z->slow);
		assert_int_equal(x->crossed, z->crossed);
		if (x->identifiable) {
			assert_near(x->est_ns, z->est_ns, 1e-6);
			assert_near(x->ci_low_ns, z->ci_low_ns, 1e-6);
			assert_near(x->ci_high_ns, z->ci_high_ns, 1e-6);
		}
		if (!isnan(x->group_est_ns))
			assert_near(x->group_est_ns, z->group_est_ns, 1e-6);
	}
	assert_true(b.hops[0].identifiable && b.hops[0].est_ns > 0);
	locate_free(&a);
	locate_free(&b);
	topo_free(&t);
}

static void test_trunk_noiseless(void **state)
{
	struct locate_obs obs[12];
	struct locate_result r;
	struct topo t;
	double share[5];
	size_t n, i;

	(void)state;
	topo_of(&t, two_switch);
	two_switch_truth(&t, share);
	n = make_obs(&t, two_switch_pairs, 6, share, 0, 1, obs);
	assert_int_equal(locate_hops(&t, obs, n, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_hops, 5);
	assert_int_equal(r.n_used, 12);
	assert_int_equal(r.rank, 5);
	assert_false(r.ecmp);
	assert_near(r.residual_rms_ns, 0, 1e-6);
	for (i = 0; i < 5; i++) {
		assert_true(r.hops[i].identifiable);
		assert_near(r.hops[i].est_ns, share[i], 1e-6);	/* D back exactly */
		assert_int_equal(r.hops[i].slow, i == (size_t)link_of(&t, TRUNK));
	}
	assert_non_null(strstr(r.hops[link_of(&t, TRUNK)].why, "above the median"));
	assert_non_null(strstr(r.hops[link_of(&t, "h2 - sw1")].why, "holds h2's own share"));
	locate_free(&r);
	topo_free(&t);
}

static void test_trunk_noisy(void **state)
{
	struct locate_obs obs[12];
	struct locate_result r;
	struct topo t;
	double share[5];
	size_t n, i;
	int trunk;

	(void)state;
	topo_of(&t, two_switch);
	trunk = link_of(&t, TRUNK);
	two_switch_truth(&t, share);
	n = make_obs(&t, two_switch_pairs, 6, share, 100, 42, obs);
	assert_int_equal(locate_hops(&t, obs, n, &r, err, sizeof(err)), 0);
	assert_true(r.residual_rms_ns > 10 && r.residual_rms_ns < 300);
	for (i = 0; i < 5; i++) {
		const struct locate_hop *h = &r.hops[i];

		assert_true(h->identifiable);
		/* the truth within the stated interval, the interval not absurd */
		if (!(h->ci_low_ns <= share[i] && share[i] <= h->ci_high_ns))
			fail_msg("hop %zu: %g outside [%g, %g]", i, share[i], h->ci_low_ns,
				 h->ci_high_ns);
		assert_true(h->ci_high_ns - h->ci_low_ns < 1000);
		assert_true(h->ci_high_ns - h->ci_low_ns > 50);
	}
	assert_near(r.hops[trunk].est_ns, 5000, 0.05 * 5000);
	assert_true(r.hops[trunk].slow);
	for (i = 0; i < 5; i++)
		assert_int_equal(r.hops[i].slow, (int)i == trunk);
	locate_free(&r);
	topo_free(&t);
}

/* One-way: the figures are the excess over a reference run: D on the
 * pairs across the trunk, zero on the others. */
static void test_excess(void **state)
{
	struct locate_opts opt = { .k_mad = 3, .excess = true, .min_excess_ns = 0 };
	struct locate_obs obs[12];
	struct locate_result r;
	struct topo t;
	double share[5] = { 0 };
	size_t n;
	int trunk;

	(void)state;
	topo_of(&t, two_switch);
	trunk = link_of(&t, TRUNK);
	share[trunk] = 800;
	n = make_obs(&t, two_switch_pairs, 6, share, 20, 7, obs);
	assert_int_equal(locate_hops_opt(&t, obs, n, &opt, &r, err, sizeof(err)), 0);
	assert_near(r.hops[trunk].est_ns, 800, 60);
	assert_true(r.hops[trunk].slow);
	assert_non_null(strstr(r.hops[trunk].why, "change "));
	for (size_t i = 0; i < 5; i++)
		if ((int)i != trunk)
			assert_false(r.hops[i].slow);
	locate_free(&r);
	topo_free(&t);
}

/* h1 - sw1 - sw2 - h2 with one pair: every link in every pair, one group. */
static void test_chain_one_group(void **state)
{
	static const struct pair_truth p[] = {
		{ "h1", "h2", { "h1 - sw1", "sw1 - sw2", "h2 - sw2" } },
	};
	struct locate_obs obs[2];
	struct locate_result r;
	struct topo t;
	double share[3] = { 100, 200, 300 };
	size_t i;

	(void)state;
	topo_of(&t, "h1 sw1\nsw1 sw2\nsw2 h2\n");
	assert_int_equal(locate_hops(&t, obs, make_obs(&t, p, 1, share, 0, 1, obs), &r, err,
				     sizeof(err)), 0);
	assert_int_equal(r.rank, 1);
	for (i = 0; i < 3; i++) {
		const struct locate_hop *h = &r.hops[i];

		assert_false(h->identifiable);
		assert_true(isnan(h->est_ns));		/* no number for it */
		assert_int_equal(h->group, r.hops[0].group);
		assert_near(h->group_est_ns, 600, 1e-6);	/* only the sum */
		assert_near(h->ci_low_ns, 0, 0);
		assert_near(h->ci_high_ns, 600, 1e-6);
		assert_false(h->slow);
		assert_non_null(strstr(h->why, "only the sum of 3 hops"));
	}
	locate_free(&r);
	topo_free(&t);
}

/* h3 alone behind the trunk: the trunk and h3's link are crossed by the
 * same pairs (one group, their sum known); h1's and h2's links are not. */
static void test_partial_group(void **state)
{
	static const struct pair_truth p[] = {
		{ "h1", "h2", { "h1 - sw1", "h2 - sw1" } },
		{ "h1", "h3", { "h1 - sw1", "sw1 - sw2", "h3 - sw2" } },
		{ "h2", "h3", { "h2 - sw1", "sw1 - sw2", "h3 - sw2" } },
	};
	struct locate_obs obs[6];
	struct locate_result r;
	struct topo t;
	double share[4];
	int trunk, h3;

	(void)state;
	topo_of(&t, "h1 sw1\nh2 sw1\nsw1 sw2\nh3 sw2\n");
	trunk = link_of(&t, "sw1 - sw2");
	h3 = link_of(&t, "h3 - sw2");
	share[link_of(&t, "h1 - sw1")] = 1000;
	share[link_of(&t, "h2 - sw1")] = 1100;
	share[trunk] = 4000;
	share[h3] = 900;
	assert_int_equal(locate_hops(&t, obs, make_obs(&t, p, 3, share, 0, 1, obs), &r, err,
				     sizeof(err)), 0);
	assert_true(r.hops[link_of(&t, "h1 - sw1")].identifiable);
	assert_near(r.hops[link_of(&t, "h2 - sw1")].est_ns, 1100, 1e-6);
	assert_false(r.hops[trunk].identifiable);
	assert_false(r.hops[h3].identifiable);
	assert_int_equal(r.hops[trunk].group, r.hops[h3].group);
	assert_int_not_equal(r.hops[trunk].group, r.hops[link_of(&t, "h1 - sw1")].group);
	assert_near(r.hops[trunk].group_est_ns, 4900, 1e-6);
	assert_non_null(strstr(r.hops[trunk].why, "h3 - sw2"));
	assert_false(r.hops[trunk].slow);	/* a group is not blamed one hop at a time */
	locate_free(&r);
	topo_free(&t);
}

/* Four hosts on one switch, pairs h1h2 h3h4 h1h3 h2h4: l1 + l4 = l2 + l3
 * over every pair, no two columns identical: rank 3 of 4, none of the
 * four identifiable, each with the most it can be. */
static void test_rank_deficient(void **state)
{
	static const struct pair_truth p[] = {
		{ "h1", "h2", { "h1 - sw", "h2 - sw" } },
		{ "h3", "h4", { "h3 - sw", "h4 - sw" } },
		{ "h1", "h3", { "h1 - sw", "h3 - sw" } },
		{ "h2", "h4", { "h2 - sw", "h4 - sw" } },
	};
	struct locate_obs obs[8];
	struct locate_result r;
	struct topo t;
	double share[4] = { 100, 200, 300, 400 };

	(void)state;
	topo_of(&t, "h1 sw\nh2 sw\nh3 sw\nh4 sw\n");
	assert_int_equal(locate_hops(&t, obs, make_obs(&t, p, 4, share, 0, 1, obs), &r, err,
				     sizeof(err)), 0);
	assert_int_equal(r.rank, 3);
	for (size_t i = 0; i < 4; i++) {
		assert_false(r.hops[i].identifiable);
		assert_true(isnan(r.hops[i].est_ns));
		assert_true(isnan(r.hops[i].group_est_ns));
		assert_non_null(strstr(r.hops[i].why, "only a combination"));
		assert_true(r.hops[i].ci_high_ns >= share[i]);	/* the bound holds the truth */
	}
	assert_near(r.hops[0].ci_high_ns, 300, 1e-6);	/* min(h1h2 300, h1h3 400) */
	assert_near(r.residual_rms_ns, 0, 1e-6);
	locate_free(&r);
	topo_free(&t);
}

/* Non-negativity binds: figures that a negative hop would fit better. */
static void test_nonnegative(void **state)
{
	struct locate_obs obs[] = {
		{ "h1", "h2", 0, 100, 100, 100, true },
		{ "h1", "h3", 0, 100, 100, 100, true },
		{ "h2", "h3", 0, 300, 300, 300, true },
	};
	struct locate_result r;
	struct topo t;

	(void)state;
	/* l1 + l2 = 100, l1 + l3 = 100, l2 + l3 = 300: unconstrained l1 = -50 */
	topo_of(&t, "h1 sw\nh2 sw\nh3 sw\n");
	assert_int_equal(locate_hops(&t, obs, 3, &r, err, sizeof(err)), 0);
	for (size_t i = 0; i < 3; i++)
		assert_true(r.hops[i].est_ns >= 0);
	assert_near(r.hops[0].est_ns, 0, 1e-9);
	/* with l1 = 0: l2, l3 fit 100 and 100 against 300: least squares 133.3 */
	assert_near(r.hops[1].est_ns, 400.0 / 3, 1e-6);
	assert_true(r.residual_rms_ns > 10);
	locate_free(&r);
	topo_free(&t);
}

static void test_errors_and_unresolved(void **state)
{
	struct locate_obs obs[] = {
		{ "h1", "h2", 0, 100, 90, 110, true },
		{ "h2", "h1", 0, NAN, NAN, NAN, false },
		{ "h1", "h3", 0, 100, 90, 110, true },
	};
	struct locate_result r;
	struct topo t;

	(void)state;
	topo_of(&t, "h1 sw\nh2 sw\nh3 sw\n");
	assert_int_equal(locate_hops(&t, obs, 3, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_used, 2);
	assert_int_equal(r.n_unresolved, 1);
	locate_free(&r);
	obs[2].dst = "h9";
	assert_int_equal(locate_hops(&t, obs, 3, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "locate: host 'h9' is not in the topology");
	assert_int_equal(locate_hops(&t, obs + 1, 1, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no resolved pair"));
	topo_free(&t);
}

static void test_ecmp_said(void **state)
{
	struct locate_obs obs[] = {
		{ "h1", "h2", 0, 100, 90, 110, true },
	};
	struct locate_result r;
	struct topo t;

	(void)state;
	topo_of(&t, "h1 sw1\nsw1 sw2\nsw1 sw2\nsw2 h2\n");
	assert_int_equal(locate_hops(&t, obs, 1, &r, err, sizeof(err)), 0);
	assert_true(r.ecmp);
	assert_int_equal(r.n_ecmp, 1);
	assert_int_equal(r.n_ecmp_undecided, 1);	/* one pair: nothing to choose by */
	assert_true(r.hops[1].crossed && r.hops[2].crossed);	/* either parallel link */
	assert_false(r.hops[1].identifiable || r.hops[2].identifiable);
	assert_non_null(strstr(r.hops[2].why, "combination"));
	locate_free(&r);
	topo_free(&t);
}

/* |A x - y|^2 for the m x n matrix A (row-major). */
static double rss(const double *A, const double *y, const double *x, size_t m, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < m; i++) {
		double r = y[i];

		for (size_t j = 0; j < n; j++)
			r -= A[i * n + j] * x[j];
		s += r * r;
	}
	return s;
}

/* The non-negative optimum by brute force: every support S, the
 * unconstrained least squares on S (Gauss-Jordan on its normal
 * equations), the best feasible one. */
static double brute_nnls(const double *A, const double *y, size_t m, size_t n, double *best_x)
{
	double best = INFINITY;

	for (unsigned mask = 0; mask < 1u << n; mask++) {
		double M[8][9] = { { 0 } }, x[8] = { 0 };
		size_t idx[8], k = 0, a, b, i;
		bool ok = true;

		for (a = 0; a < n; a++)
			if (mask >> a & 1)
				idx[k++] = a;
		for (a = 0; a < k; a++) {
			for (b = 0; b < k; b++)
				for (i = 0; i < m; i++)
					M[a][b] += A[i * n + idx[a]] * A[i * n + idx[b]];
			for (i = 0; i < m; i++)
				M[a][k] += A[i * n + idx[a]] * y[i];
		}
		for (a = 0; a < k && ok; a++) {
			ok = fabs(M[a][a]) > 1e-9;
			for (b = 0; ok && b < k; b++) {
				double f = M[b][a] / M[a][a];

				if (b == a)
					continue;
				for (i = a; i <= k; i++)
					M[b][i] -= f * M[a][i];
			}
		}
		for (a = 0; a < k && ok; a++) {
			x[idx[a]] = M[a][k] / M[a][a];
			ok = x[idx[a]] >= -1e-9;
		}
		if (ok && rss(A, y, x, m, n) < best) {
			best = rss(A, y, x, m, n);
			memcpy(best_x, x, n * sizeof(*x));
		}
	}
	return best;
}

/* Lawson-Hanson against brute force on random problems where the
 * constraints bind (figures of either sign, as differences can be). */
static void test_nnls_brute_force(void **state)
{
	uint64_t seed = 99;
	int bound = 0;

	(void)state;
	for (int trial = 0; trial < 300; trial++) {
		size_t m = 7, n = 2 + (size_t)trial % 5, i, j, k;
		double A[7 * 6], y[7], G[36] = { 0 }, h[6] = { 0 }, x[6], bx[6], want;

		for (i = 0; i < m; i++) {
			for (j = 0; j < n; j++)
				A[i * n + j] = gauss(&seed) > 0.2 ? 2 : 0;
			y[i] = 100 * gauss(&seed) + 50;
		}
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++)
				for (i = 0; i < m; i++)
					G[j * n + k] += A[i * n + j] * A[i * n + k];
		for (j = 0; j < n; j++)
			for (i = 0; i < m; i++)
				h[j] += A[i * n + j] * y[i];
		want = brute_nnls(A, y, m, n, bx);
		assert_int_equal(nnls_normal(G, h, n, x), 0);
		for (j = 0; j < n; j++)
			assert_true(x[j] >= 0);
		assert_near(rss(A, y, x, m, n), want, 1e-6 * (1 + want));
		for (j = 0; j < n; j++)
			bound += bx[j] == 0;
	}
	assert_true(bound > 100);	/* the constraints did bind, often */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trunk_noiseless),
		cmocka_unit_test(test_trunk_noisy),
		cmocka_unit_test(test_excess),
		cmocka_unit_test(test_chain_one_group),
		cmocka_unit_test(test_partial_group),
		cmocka_unit_test(test_rank_deficient),
		cmocka_unit_test(test_nonnegative),
		cmocka_unit_test(test_errors_and_unresolved),
		cmocka_unit_test(test_ecmp_said),
		cmocka_unit_test(test_nnls_brute_force),
		cmocka_unit_test(test_component_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
