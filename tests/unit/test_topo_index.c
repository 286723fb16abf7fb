/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The topology's index (adjacency, names) gives what the scans give: on
 * a generated three-level fat tree with equal-cost paths and parallel
 * links, every pair's set of shortest paths, in order, is the one a
 * plain scan of all links finds, and every name finds the node the
 * scan of all nodes finds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/topo_int.h"

#define MAX_LEN 16
#define MAX_PATHS 16

/* The reference walk: every link scanned at each step, lowest first. */
struct ref_walk {
	const struct topo *t;
	const int *dist;
	int src;
	size_t len, n;
	int cur[MAX_LEN], out[MAX_LEN * MAX_PATHS];
};

static void ref_walk(struct ref_walk *w, int v)
{
	if (w->n == MAX_PATHS)
		return;
	if (v == w->src) {
		memcpy(w->out + w->n++ * w->len, w->cur, w->len * sizeof(*w->cur));
		return;
	}
	for (size_t l = 0; l < w->t->n_links; l++) {
		const struct topo_link *k = &w->t->links[l];
		int u = k->a == v ? k->b : k->b == v ? k->a : -1;

		if (u < 0 || w->dist[u] != w->dist[v] - 1 ||
		    (u != w->src && !w->t->nodes[u].is_switch))
			continue;
		w->cur[w->dist[v] - 1] = (int)l;
		ref_walk(w, u);
	}
}

/* Three pods of 2 leaves (3 hosts each) and 2 aggregation switches,
 * each aggregation switch linked twice (ports 0 and 1) to each of its 2
 * cores out of 4: several shortest paths, parallel links among them. */
static char *fat_tree_text(void)
{
	size_t cap = 1 << 16, o = 0;
	char *text = malloc(cap);

	for (int p = 0; text && p < 3; p++)
		for (int x = 0; x < 2; x++) {
			for (int h = 0; h < 3; h++)
				o += (size_t)snprintf(text + o, cap - o, "h%d_%d_%d leaf%d_%d\n", p, x,
						      h, p, x);
			for (int a = 0; a < 2; a++)
				o += (size_t)snprintf(text + o, cap - o, "leaf%d_%d agg%d_%d\n"
						      "agg%d_%d:%d core%d\nagg%d_%d:%d core%d\n", p, x,
						      p, a, p, x, 2 * a, 2 * x + a, p, x, 2 * a + 1,
						      2 * x + a);
		}
	return text;
}

static void test_paths_match_scan(void **state)
{
	char err[256], *text = fat_tree_text();
	struct topo t = { 0 };
	size_t pairs = 0, ecmp = 0;

	(void)state;
	assert_non_null(text);
	assert_int_equal(topo_parse(&t, "fat", text, "file", NULL, err, sizeof(err)), 0);
	assert_non_null(t.index);
	for (size_t s = 0; s < t.n_nodes; s++) {
		int *dist = malloc(t.n_nodes * sizeof(*dist)), *via = malloc(t.n_nodes * sizeof(*via));
		double *np = malloc(t.n_nodes * sizeof(*np));

		assert_int_equal(topo_bfs(&t, (int)s, dist, np, via), 0);
		for (size_t d = 0; d < t.n_nodes && !t.nodes[s].is_switch; d++) {
			struct ref_walk w = { .t = &t, .dist = dist, .src = (int)s };
			int got[MAX_LEN * MAX_PATHS];
			size_t n, len;

			if (d == s || t.nodes[d].is_switch)
				continue;
			assert_int_equal(topo_bfs_paths(&t, dist, (int)s, (int)d, got, MAX_LEN,
							MAX_PATHS, &n, &len), 0);
			w.len = (size_t)dist[d];
			ref_walk(&w, (int)d);
			assert_int_equal(n, w.n);
			assert_int_equal(len, w.len);
			assert_memory_equal(got, w.out, n * len * sizeof(*got));
			pairs++;
			ecmp += n > 1;
		}
		free(dist);
		free(via);
		free(np);
	}
	assert_int_equal(pairs, 18 * 17);
	assert_true(ecmp > pairs / 2);	/* the tree's paths are mostly several */
	topo_free(&t);
	free(text);
}

/* Every name, a host's first word, HOST/DEVICE and names of nothing,
 * found alike with the index and by the scan without it. */
static void test_names_match_scan(void **state)
{
	const char *cas[] = { "h5 dev", "h5 dev2", "h6 mlx5_0", "a b c", "a  d" };
	const char *names[] = { "h5", "h5/dev2", "h6", "h6/mlx5_0", "h6 mlx5_0", "a", "a b",
		"a/b c", "a ", "leaf1_0", "h0_0_0", "h9", "", "dev", "h6/nodev", "core3" };
	char err[256], *text = fat_tree_text();
	int with[sizeof(names) / sizeof(*names)];
	size_t dev[sizeof(names) / sizeof(*names)];
	struct topo t = { 0 };
	struct topo_src src = { .name = "cas", .t = &t, .err = err, .errlen = sizeof(err) };

	(void)state;
	assert_int_equal(topo_parse(&t, "fat", text, "file", NULL, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(cas) / sizeof(*cas); i++)
		assert_true(topo_src_node(&src, 1, cas[i], false) >= 0);
	topo_src_release(&src);
	assert_int_equal(topo_index_build(&t), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		with[i] = topo_host(&t, names[i]);
		dev[i] = topo_host_devices(&t, names[i]);
	}
	assert_int_equal(with[0], -1);	/* two devices: ambiguous */
	assert_int_equal(dev[0], 2);
	assert_true(with[1] >= 0 && with[2] >= 0 && with[2] == with[3] && with[3] == with[4]);
	assert_int_equal(with[5], -1);
	assert_int_equal(dev[5], 2);
	assert_true(with[6] >= 0 && with[6] == with[7] && with[8] >= 0 && with[10] >= 0);
	topo_index_free(&t);
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		assert_int_equal(topo_host(&t, names[i]), with[i]);
		assert_int_equal(topo_host_devices(&t, names[i]), dev[i]);
	}
	topo_free(&t);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_match_scan),
		cmocka_unit_test(test_names_match_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
