/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Cost of the hop localization (fabric/locate.h) on a two-level fabric:
 * LEAVES leaves of HOSTS hosts each, every leaf linked to each of SPINES
 * spines, every ordered pair of hosts observed (figures made from a
 * 2000 ns round trip plus 3000 ns across leaves). Prints the fabric's
 * size, the rank the pairs give and the CPU time of locate_hops(). Not a
 * test: the time depends on the machine.
 *
 * With "local" after them, only the pairs under each leaf are observed
 * (the local part of a sampled schedule): each leaf is a component of
 * its own. Each run prints the split solve's time, the same solve as one
 * block (the dense path) when the fabric has at most 2000 links, their
 * ratio, and the peak resident memory (getrusage).
 *
 * With "parse" first, only the reading of the fabric's topology file is
 * timed (topo_parse(), wall clock, the best of three) with the peak
 * resident memory: a fabric of 4096 hosts is "parse 128 32 8".
 *
 * usage: bench_locate [parse] [LEAVES HOSTS SPINES [local], default 8 8 4]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fabric/locate.h"

/* The fabric in the simple topology format; NULL when out of memory. */
static char *fabric_text(int leaves, int hosts, int spines)
{
	size_t cap = (size_t)leaves * (size_t)(hosts + spines) * 48 + 1, o = 0;
	char *text = malloc(cap);

	for (int l = 0; text && l < leaves; l++) {
		for (int h = 0; h < hosts; h++)
			o += (size_t)snprintf(text + o, cap - o, "h%d_%d leaf%d\n", l, h, l);
		for (int s = 0; s < spines; s++)
			o += (size_t)snprintf(text + o, cap - o, "leaf%d spine%d\n", l, s);
	}
	return text;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "parse LEAVES HOSTS SPINES": the topology file's reading alone. */
static int bench_parse(int leaves, int hosts, int spines)
{
	char *text = fabric_text(leaves, hosts, spines), err[512] = "";
	double best_s = INFINITY, t0;
	struct rusage ru;
	struct topo t;

	if (leaves < 1 || hosts < 1 || spines < 1 || !text) {
		fprintf(stderr, "usage: bench_locate parse LEAVES HOSTS SPINES\n");
		free(text);
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		t = (struct topo){ 0 };
		t0 = now_s();
		if (topo_parse(&t, "bench", text, "file", NULL, err, sizeof(err))) {
			fprintf(stderr, "bench_locate: %s\n", err);
			free(text);
			return 1;
		}
		best_s = fmin(best_s, now_s() - t0);
		if (i < 2)
			topo_free(&t);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%d hosts, %zu nodes, %zu links: parsed in %.4f s (best of 3), "
	       "peak resident memory %ld KiB\n", leaves * hosts, t.n_nodes, t.n_links, best_s,
	       ru.ru_maxrss);
	topo_free(&t);
	free(text);
	return 0;
}

/* The localization over the fabric, as the usage says. */
static int bench_run(int argc, char **argv)
{
	int leaves = argc > 3 ? atoi(argv[1]) : 8, hosts = argc > 3 ? atoi(argv[2]) : 8;
	int spines = argc > 3 ? atoi(argv[3]) : 4, n_hosts = leaves * hosts;
	struct locate_obs *obs = malloc(sizeof(*obs) * (size_t)n_hosts * (size_t)n_hosts + 1);
	char (*names)[32] = malloc(32 * (size_t)n_hosts + 1), err[512];
	char *text = fabric_text(leaves, hosts, spines);
	struct locate_result r;
	struct topo t = { 0 };
	size_t n = 0;
	const struct locate_opts one = { .k_mad = 3, .one_block = true };
	double split_s, dense_s;
	struct rusage ru;
	clock_t c;

	if (leaves < 1 || hosts < 1 || spines < 1 || n_hosts < 2 || !obs || !names || !text ||
	    topo_parse(&t, "bench", text, "file", NULL, err, sizeof(err))) {
		fprintf(stderr, "usage: bench_locate [LEAVES HOSTS SPINES] (%s)\n", err);
		return 2;
	}
	for (int i = 0; i < n_hosts; i++)
		snprintf(names[i], sizeof(names[i]), "h%d_%d", i / hosts, i % hosts);
	for (int i = 0; i < n_hosts; i++)
		for (int j = 0; j < n_hosts; j++) {
			double y = 2000 + (i / hosts != j / hosts ? 3000 : 0);

			if (i != j && (argc < 5 || strcmp(argv[4], "local") || i / hosts == j / hosts))
				obs[n++] = (struct locate_obs){ names[i], names[j], 0, y, y - 50,
								y + 50, true };
		}
	c = clock();
	if (locate_hops_opt(&t, obs, n, NULL, &r, err, sizeof(err))) {
		fprintf(stderr, "bench_locate: %s\n", err);
		return 1;
	}
	split_s = (double)(clock() - c) / CLOCKS_PER_SEC;
	printf("%d hosts, %zu links, %zu pairs: rank %zu, %zu components, ecmp %s, %.3f s of CPU\n",
	       n_hosts, t.n_links, n, r.rank, r.n_blocks, r.ecmp ? "yes" : "no", split_s);
	locate_free(&r);
	if (t.n_links <= 2000) {
		c = clock();
		if (locate_hops_opt(&t, obs, n, &one, &r, err, sizeof(err)))
			return 1;
		dense_s = (double)(clock() - c) / CLOCKS_PER_SEC;
		printf("as one block (dense): %.3f s, %.1f times the split solve\n", dense_s,
		       dense_s / fmax(split_s, 1e-6));
		locate_free(&r);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("peak resident memory %ld KiB\n", ru.ru_maxrss);
	topo_free(&t);
	free(text);
	free(obs);
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "parse"))
		return bench_parse(argc > 4 ? atoi(argv[2]) : 8, argc > 4 ? atoi(argv[3]) : 8,
				   argc > 4 ? atoi(argv[4]) : 4);
	return bench_run(argc, argv);
}
