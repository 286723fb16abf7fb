/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The localization over the paths a fabric really takes: a routes file
 * and InfiniBand forwarding tables read into paths (topo_paths.h), an
 * ECMP fat tree whose true paths name the slow link and whose one
 * shortest path does not fit, the hops judged against their own kind,
 * a slow switch named as the switch. Figures are made here from chosen
 * round-trip shares over the true paths.
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
#include "fabric/topo_paths.h"
#include "unit.h"

static char err[512];

static int link_named(const struct topo *t, const char *name)
{
	for (size_t i = 0; i < t->n_links; i++)
		if (!strcmp(t->links[i].name, name))
			return (int)i;
	fail_msg("no link '%s'", name);
	return -1;
}

/* A fat tree of @leaves leaves of @per hosts and @spines spines: its
 * topology text, its routes text (each pair's spine from an LCG: ECMP),
 * and every pair through spine 1 in @first (the one shortest path). */
struct fat_tree {
	char topo[4096], routes[32768], first[32768];
	int leaves, per, spines;
};

static void fat_tree(struct fat_tree *f, int leaves, int per, int spines, uint64_t seed)
{
	size_t at = 0, ar = 0, af = 0;

	f->leaves = leaves;
	f->per = per;
	f->spines = spines;
	for (int h = 0; h < leaves * per; h++)
		at += (size_t)snprintf(f->topo + at, sizeof(f->topo) - at, "h%d L%d\n", h + 1,
				       h / per + 1);
	for (int s = 0; s < spines; s++)
		for (int l = 0; l < leaves; l++)
			at += (size_t)snprintf(f->topo + at, sizeof(f->topo) - at, "L%d S%d\n", l + 1,
					       s + 1);
	for (int a = 0; a < leaves * per; a++)
		for (int b = 0; b < leaves * per; b++) {
			int la = a / per + 1, lb = b / per + 1, s;

			if (a == b)
				continue;
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			s = (int)((seed >> 33) % (uint64_t)spines) + 1;
			if (la == lb) {
				ar += (size_t)snprintf(f->routes + ar, sizeof(f->routes) - ar,
						       "h%d L%d h%d\n", a + 1, la, b + 1);
				af += (size_t)snprintf(f->first + af, sizeof(f->first) - af,
						       "h%d L%d h%d\n", a + 1, la, b + 1);
				continue;
			}
			ar += (size_t)snprintf(f->routes + ar, sizeof(f->routes) - ar,
					       "h%d L%d S%d L%d h%d\n", a + 1, la, s, lb, b + 1);
			af += (size_t)snprintf(f->first + af, sizeof(f->first) - af,
					       "h%d L%d S1 L%d h%d\n", a + 1, la, lb, b + 1);
		}
}

/* Every ordered pair's figure: half each link's round-trip share
 * @share over its true path each way (@truth), noise of sd 10 ns. */
static size_t fat_obs(const struct topo *t, const struct topo_paths *truth, const double *share,
		      char names[][16], struct locate_obs *obs)
{
	int links[16], n_hosts = 0;
	size_t n = 0, k, len;
	uint64_t s = 7;

	for (size_t v = 0; v < t->n_nodes; v++)
		n_hosts += !t->nodes[v].is_switch;
	for (int a = 1; a <= n_hosts; a++)
		for (int b = 1; b <= n_hosts; b++) {
			double y = 0;

			if (a == b)
				continue;
			snprintf(names[2 * n], 16, "h%d", a);
			snprintf(names[2 * n + 1], 16, "h%d", b);
			for (int dir = 0; dir < 2; dir++) {
				int src = topo_host(t, names[2 * n + dir]);
				int dst = topo_host(t, names[2 * n + 1 - dir]);

				assert_int_equal(topo_paths_get(truth, src, dst, links, 16, &len, err,
								sizeof(err)), 0);
				for (k = 0; k < len; k++)
					y += share[links[k]] / 2;
			}
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			y += 10 * (((double)(s >> 11) / 9007199254740992.0) * 2 - 1) * 1.7;
			obs[n] = (struct locate_obs){ .src = names[2 * n], .dst = names[2 * n + 1],
				.rtt_ns = y, .ci_low_ns = y - 19.6, .ci_high_ns = y + 19.6,
				.resolved = true };
			n++;
		}
	return n;
}

/* Shares: host links 1000 + 25 ns a host, fabric links 300 ns. */
static void fat_shares(const struct topo *t, double *share)
{
	for (size_t l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];
		int h = !t->nodes[k->a].is_switch ? k->a : !t->nodes[k->b].is_switch ? k->b : -1;

		share[l] = h >= 0 ? 1000 + 25 * atoi(t->nodes[h].name + 1) : 300;
	}
}

/* A fat tree read back: its topology, its true paths, its links' shares
 * and the observations made from them. */
struct fat_case {
	struct fat_tree f;
	struct locate_obs obs[256];
	char names[512][16];
	struct topo t;
	struct topo_paths truth;
	double share[64];
};

/* fat_tree(@leaves, @per, @spines, @seed) parsed into @c, with fat_shares. */
static void fat_case_init(struct fat_case *c, int leaves, int per, int spines, uint64_t seed)
{
	memset(&c->t, 0, sizeof(c->t));
	fat_tree(&c->f, leaves, per, spines, seed);
	assert_int_equal(topo_parse(&c->t, "ft", c->f.topo, "file", NULL, err, sizeof(err)), 0);
	assert_int_equal(topo_paths_parse(&c->truth, &c->t, "routes", c->f.routes, err,
					  sizeof(err)), 0);
	fat_shares(&c->t, c->share);
}

/* The hops located over the true paths, from the shares as they now stand. */
static void fat_case_locate(struct fat_case *c, struct locate_result *r)
{
	struct locate_opts o = { .k_mad = 3, .paths = &c->truth };
	size_t n = fat_obs(&c->t, &c->truth, c->share, c->names, c->obs);

	assert_int_equal(locate_hops_opt(&c->t, c->obs, n, &o, r, err, sizeof(err)), 0);
}

static void fat_case_free(struct fat_case *c)
{
	topo_paths_free(&c->truth);
	topo_free(&c->t);
}

static void test_fat_tree_true_routes(void **state)
{
	static struct fat_tree f;
	static struct locate_obs obs[256];
	static char names[512][16];
	struct topo_paths truth, first;
	struct locate_opts o = { .k_mad = 3 };
	struct locate_result r;
	double share[64];
	struct topo t = { 0 };
	int slow, healthy;
	size_t n;

	(void)state;
	fat_tree(&f, 4, 4, 2, 3);
	assert_int_equal(topo_parse(&t, "ft", f.topo, "file", NULL, err, sizeof(err)), 0);
	assert_int_equal(topo_paths_parse(&truth, &t, "routes", f.routes, err, sizeof(err)), 0);
	assert_int_equal(topo_paths_parse(&first, &t, "first", f.first, err, sizeof(err)), 0);
	fat_shares(&t, share);
	slow = link_named(&t, "L2 - S2");
	healthy = link_named(&t, "L2 - S1");
	share[slow] += 2000;
	n = fat_obs(&t, &truth, share, names, obs);
	assert_int_equal(n, 240);

	o.paths = &truth;	/* the true paths: L2 - S2 alone, its figure in its interval */
	assert_int_equal(locate_hops_opt(&t, obs, n, &o, &r, err, sizeof(err)), 0);
	assert_false(r.misfit);
	assert_int_equal(r.n_ecmp, 0);
	assert_int_equal(r.n_findings, 1);
	assert_int_equal(r.findings[0].kind, LOCATE_HOP);
	assert_string_equal(r.findings[0].name, "L2 - S2");
	assert_true(r.hops[slow].ci_low_ns <= 2300 && 2300 <= r.hops[slow].ci_high_ns);
	for (size_t l = 0; l < t.n_links; l++)
		assert_int_equal(r.hops[l].slow, (int)l == slow);
	locate_free(&r);

	o.paths = &first;	/* one shortest path: the healthy link takes the delay */
	assert_int_equal(locate_hops_opt(&t, obs, n, &o, &r, err, sizeof(err)), 0);
	assert_true(r.hops[healthy].est_ns > 1000);
	assert_true(r.misfit);
	assert_int_equal(r.n_findings, 1);
	assert_int_equal(r.findings[0].kind, LOCATE_MISFIT);
	assert_non_null(strstr(r.findings[0].why, "routes do not fit the measurements"));
	for (size_t l = 0; l < t.n_links; l++)
		assert_false(r.hops[l].slow);
	locate_free(&r);

	o.paths = NULL;		/* unknown paths: said, and nothing named but the verdict */
	assert_int_equal(locate_hops_opt(&t, obs, n, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_ecmp, 192);
	for (size_t l = 0; l < t.n_links; l++)
		assert_false(r.hops[l].slow);
	locate_free(&r);
	topo_paths_free(&truth);
	topo_paths_free(&first);
	topo_free(&t);
}

/* A slow spine: named as the switch; host links judged apart. */
static void test_slow_switch(void **state)
{
	static struct fat_case c;
	struct locate_result r;
	size_t l;

	(void)state;
	fat_case_init(&c, 4, 3, 3, 5);
	for (l = 0; l < c.t.n_links; l++)
		if (strstr(c.t.links[l].name, "S2"))
			c.share[l] += 1500;
	fat_case_locate(&c, &r);
	assert_int_equal(r.n_findings, 1);
	assert_int_equal(r.findings[0].kind, LOCATE_SWITCH);
	assert_string_equal(r.findings[0].name, "S2");
	for (l = 0; l < c.t.n_links; l++)	/* the host links, 1025 to 1300 ns: none slow */
		assert_int_equal(r.hops[l].slow, strstr(c.t.links[l].name, "S2") != NULL);
	locate_free(&r);
	fat_case_free(&c);
}

/* A fabric link from 300 to 1500 ns among host links of 1.0 to 1.4 us:
 * judged against the fabric links, it is named. */
static void test_kinds_apart(void **state)
{
	static struct fat_case c;
	struct locate_result r;
	int slow;

	(void)state;
	fat_case_init(&c, 4, 4, 2, 9);
	slow = link_named(&c.t, "L3 - S1");
	c.share[slow] = 1500;
	fat_case_locate(&c, &r);
	assert_int_equal(r.n_findings, 1);
	assert_string_equal(r.findings[0].name, "L3 - S1");
	assert_non_null(strstr(r.hops[slow].why, "fabric hops"));
	locate_free(&r);
	fat_case_free(&c);
}

/* A routes file's errors name the file, the line and the nodes. */
static void test_routes_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "h1 sw1 h9\n", "r:1: no node 'h9'" },
		{ "h1 sw1 h2\nh1 sw2\n", "r:2: no link joins 'h1' and 'sw2'" },
		{ "h1 sw1 sw2 h3\n", "r:1: several links join (say the port as NODE:PORT) 'sw1' and 'sw2'" },
		{ "h1\n", "r:1: a path needs two nodes or more, not 'h1'" },
		{ "h1 sw1 h2\nh1 sw1 h2\n", "r: two paths from 'h1' to 'h2'" },
		{ "# nothing\n", "r: no path" },
	};
	struct topo t = { 0 };
	struct topo_paths p;
	int links[8];
	size_t n;

	(void)state;
	assert_int_equal(topo_parse(&t, "t", "h1 sw1\nh2 sw1\nh3 sw2\nsw1:a sw2:a\nsw1:b sw2:b\n",
				    "file", NULL, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(topo_paths_parse(&p, &t, "r", bad[i].text, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, bad[i].want);
	}
	/* NODE:PORT picks one of the parallel links */
	assert_int_equal(topo_paths_parse(&p, &t, "r", "h1 sw1:b sw2 h3\n", err, sizeof(err)), 0);
	assert_int_equal(topo_paths_get(&p, topo_host(&t, "h1"), topo_host(&t, "h3"), links, 8, &n,
					err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(t.links[links[1]].name, "sw1:b - sw2:b");
	assert_int_equal(topo_paths_get(&p, topo_host(&t, "h3"), topo_host(&t, "h1"), links, 8, &n,
					err, sizeof(err)), -ENOENT);
	topo_paths_free(&p);
	topo_free(&t);
}

/* OpenSM's forwarding tables (dump_lfts on ibsim): every pair of CAs
 * walks to its destination, two switches or four; one spine a leaf's
 * CA is reached by from the other leaves. */
static void test_lft(void **state)
{
	const char *files[] = { TEST_DATA "/ib/fat-tree.ibnetdiscover.txt" };
	struct topo t = { 0 };
	struct topo_paths p;
	int links[16], cas[16], n_cas = 0;
	size_t n;

	(void)state;
	assert_int_equal(topo_read(&t, files, 1, NULL, err, sizeof(err)), 0);
	assert_int_equal(topo_paths_read(&p, &t, TEST_DATA "/ib/fat-tree.lfts.txt", err,
					 sizeof(err)), 0);
	assert_string_equal(p.source, "lft");
	assert_int_equal(p.n_lfts, 6);
	for (size_t v = 0; v < t.n_nodes; v++)
		if (!t.nodes[v].is_switch)
			cas[n_cas++] = (int)v;
	assert_int_equal(n_cas, 12);
	for (int a = 0; a < n_cas; a++)
		for (int b = 0; b < n_cas; b++) {
			if (a == b)
				continue;
			assert_int_equal(topo_paths_get(&p, cas[a], cas[b], links, 16, &n, err,
							sizeof(err)), 0);
			assert_true(n == 2 || n == 4);
			assert_true(t.links[links[n - 1]].a == cas[b] ||
				    t.links[links[n - 1]].b == cas[b]);
		}
	assert_int_equal(topo_host(&t, "h1/mlx5_1"), topo_host(&t, "h1 mlx5_1"));
	assert_int_equal(topo_host(&t, "h1"), -1);	/* two rails: ambiguous */
	assert_int_equal(topo_host_devices(&t, "h1"), 2);
	topo_paths_free(&p);
	/* a table without the destination's entry */
	assert_int_equal(topo_paths_parse(&p, &t, "l", "Unicast lids [0x0-0x2] of switch Lid 1 "
					  "guid 0x1 (L1):\n0x0002 001 : (Channel Adapter portguid "
					  "0x2: 'h1 mlx5_0')\n", err, sizeof(err)), 0);
	assert_int_equal(topo_paths_get(&p, topo_host(&t, "h2/mlx5_0"), topo_host(&t, "h1/mlx5_0"),
					links, 16, &n, err, sizeof(err)), 0);
	assert_int_equal(topo_paths_get(&p, topo_host(&t, "h1/mlx5_0"), topo_host(&t, "h2/mlx5_0"),
					links, 16, &n, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "give 'h2 mlx5_0' no LID"));
	topo_paths_free(&p);
	topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat_tree_true_routes),
		cmocka_unit_test(test_slow_switch),
		cmocka_unit_test(test_kinds_apart),
		cmocka_unit_test(test_routes_errors),
		cmocka_unit_test(test_lft),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
