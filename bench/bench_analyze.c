/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * How long one `rperf analyze` takes.
 *
 * bench/bench_analyze [ITERATIONS]: on the largest tables a port can
 * hold (64 high and 64 low entries, every SL saturating): ib-packet with
 * only its configured semantics, ib-packet comparing every semantics
 * (the default), and dtable on the high table.
 *
 * bench/bench_analyze worst [CONFIGS [SEED [DIR]]]: a search for the slowest
 * port. CONFIGS tables are drawn to be slow (long periods: co-prime and
 * sub-packet weights, limit 0 and 1, odd packet sizes, a VL in both
 * tables, up to 64 + 64 entries), each analyzed as `rperf analyze` does
 * by default: once backlogged (every SL saturating, one packet size per
 * VL: the exact period's machine) and once loaded (some SLs light, the
 * SLs of a VL of different sizes: the loaded arbiter's). The slowest few
 * of each kind are printed with their time and the tables and options
 * that reproduce them (`rperf analyze` reads the table lines; the
 * options line is its command line), then the slowest of each kind
 * against its limit (1 ms backlogged, 50 ms loaded): exit 1 when one is
 * over. With DIR, the slowest backlogged tables are written there as
 * opensm.conf files (kept in tests/fuzz/corpus/opensm, so that every
 * replay holds them to its time limit). Times are this thread's CPU time, the least of three runs for
 * the slowest.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qos/arb.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 64 + 64 entries over VL0-7, with varied weights and limit 4. */
static void full_config(struct arb_config *cfg)
{
	int i;

	arb_config_init(cfg, ARB_KIND_VLARB);
	for (i = 0; i < ARB_MAX_ENTRIES; i++) {
		cfg->high.entries[i].vl = i % 4;
		cfg->high.entries[i].weight = 8 + (i * 7) % 32;
		cfg->low.entries[i].vl = 4 + i % 4;
		cfg->low.entries[i].weight = 16 + (i * 13) % 64;
	}
	cfg->high.n_entries = ARB_MAX_ENTRIES;
	cfg->low.n_entries = ARB_MAX_ENTRIES;
	cfg->limit = 4;
	cfg->limit_known = true;
}

/* This thread's CPU time: another process on the machine does not count. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench(const struct arb_config *cfg, enum arb_model model,
		  bool compare, long iters)
{
	struct arb_params params;
	static struct arb_result res;
	double t0, dt;
	long i;

	arb_params_init(&params);
	params.model = model;
	params.compare_semantics = compare;
	t0 = now_s();
	for (i = 0; i < iters; i++)
		arb_analyze(cfg, &params, &res);
	dt = now_s() - t0;
	printf("%-9s %-22s 64 + 64 entries: %8.1f us per analysis "
	       "(%ld analyses, period %llu packets, SL0 %.2f %%)\n",
	       arb_model_name(model), compare ? "every semantics" : "one semantics",
	       dt / iters * 1e6, iters, (unsigned long long)res.period_packets,
	       res.sls[0].share_pct);
}

/* ------------------------------------------------------------------ */
/* The search for the slowest port                                      */
/* ------------------------------------------------------------------ */

#define WORST_KEEP	4
#define WORST_SAT_LIMIT_S	1e-3
#define WORST_LOAD_LIMIT_S	50e-3

struct worst_case {
	double s;
	struct arb_config cfg;
	struct arb_params params;
};

static uint64_t worst_rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	worst_rng ^= worst_rng << 13;
	worst_rng ^= worst_rng >> 7;
	worst_rng ^= worst_rng << 17;
	return (unsigned)(worst_rng % n);
}

/* A weight drawn to make periods long: small, prime, or anything. */
static int slow_weight(void)
{
	static const int primes[] = { 1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31,
				      37, 41, 43, 47, 53, 59, 61, 127, 251 };

	switch (rnd(3)) {
	case 0:
		return 1 + rnd(4);
	case 1:
		return primes[rnd(sizeof(primes) / sizeof(primes[0]))];
	default:
		return 1 + rnd(255);
	}
}

static void slow_table(struct arb_table *t, int n, int vls, int first_vl)
{
	int i;

	t->n_entries = n;
	for (i = 0; i < n; i++) {
		t->entries[i].vl = first_vl + rnd(vls);
		t->entries[i].weight = rnd(16) ? slow_weight() : 0;
	}
}

/* 1 + an earlier SL on @sl's VL, or 0. */
static int sl2vl_seen(const struct arb_config *cfg, int sl)
{
	int i;

	for (i = 0; i < sl; i++)
		if (cfg->sl2vl[i] == cfg->sl2vl[sl])
			return i + 1;
	return 0;
}

static void slow_config(struct arb_config *cfg, struct arb_params *params, bool loaded)
{
	static const int limits[] = { 0, 1, 1, 2, 3, 255 };
	static const uint32_t sizes[] = { 1, 64, 256, 512, 1000, 1024, 2048, 4095, 4096 };
	int vls = 2 + rnd(14), sl, lo_vl = rnd(2) ? 0 : vls / 2;

	arb_config_init(cfg, ARB_KIND_VLARB);
	slow_table(&cfg->high, rnd(4) ? 64 : 1 + rnd(64), vls, 0);
	slow_table(&cfg->low, rnd(4) ? 1 + rnd(64) : 64, vls - lo_vl, lo_vl);
	cfg->limit = rnd(3) ? limits[rnd(sizeof(limits) / sizeof(limits[0]))] : (int)rnd(256);
	cfg->limit_known = true;
	arb_params_init(params);
	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		cfg->sl2vl[sl] = rnd(vls);
	/* backlogged: one size per VL (the exact period); loaded: any */
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		params->packet_bytes[sl] = rnd(2) ? 4096 : sizes[rnd(sizeof(sizes) / sizeof(sizes[0]))];
		if (!loaded && sl > 0 && sl2vl_seen(cfg, sl))
			params->packet_bytes[sl] = params->packet_bytes[sl2vl_seen(cfg, sl) - 1];
		if (loaded && rnd(3) == 0)
			params->load_gbps[sl] = 0.5 + rnd(4000) / 100.0;
	}
	cfg->sl2vl_explicit = true;
}

static void worst_keep(struct worst_case *top, const struct worst_case *c)
{
	int i, at = -1;

	for (i = 0; i < WORST_KEEP; i++)
		if (c->s > top[i].s && (at < 0 || top[i].s < top[at].s))
			at = i;
	if (at >= 0)
		top[at] = *c;
}

static int worst_cmp(const void *a, const void *b)
{
	double x = ((const struct worst_case *)a)->s, y = ((const struct worst_case *)b)->s;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* A case as the table lines and the options `rperf analyze` takes. */
static void worst_print(const struct worst_case *c)
{
	const struct arb_table *t;
	int k, i, sl;

	printf("%.3f ms: rperf analyze --limit %d --sl2vl ", c->s * 1e3, c->cfg.limit);
	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		printf("%s%d", sl ? "," : "", c->cfg.sl2vl[sl]);
	printf(" --packet-size ");
	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		printf("%s%d:%u", sl ? "," : "", sl, c->params.packet_bytes[sl]);
	printf(" --load ");
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		if (c->params.load_gbps[sl] < 0)
			printf("%s%d:sat", sl ? "," : "", sl);
		else
			printf("%s%d:%.2f", sl ? "," : "", sl, c->params.load_gbps[sl]);
	}
	printf(" TABLE\n");
	for (k = 0; k < 2; k++) {
		t = k ? &c->cfg.low : &c->cfg.high;
		for (i = 0; i < t->n_entries; i++)
			printf("  %s,%d,%d\n", k ? "low" : "high", t->entries[i].vl,
			       t->entries[i].weight);
	}
}

/* The case's tables as an opensm.conf, @path: a kept input of fuzz_opensm. */
static int worst_save(const struct worst_case *c, const char *path)
{
	const struct arb_table *t;
	FILE *f = fopen(path, "w");
	int k, i;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "# slow to analyze: bench/bench_analyze worst\nqos TRUE\nqos_max_vls 15\n"
		"qos_high_limit %d\n", c->cfg.limit);
	for (k = 0; k < 2; k++) {
		t = k ? &c->cfg.low : &c->cfg.high;
		fprintf(f, "qos_vlarb_%s ", k ? "low" : "high");
		for (i = 0; i < t->n_entries; i++)
			fprintf(f, "%s%d:%d", i ? "," : "", t->entries[i].vl, t->entries[i].weight);
		fprintf(f, "\n");
	}
	fprintf(f, "qos_sl2vl ");
	for (i = 0; i < ARB_NUM_SLS; i++)
		fprintf(f, "%s%d", i ? "," : "", c->cfg.sl2vl[i]);
	fprintf(f, "\n");
	return fclose(f);
}

static int worst(long configs, const char *dir)
{
	char path[4096];
	static struct worst_case top[2][WORST_KEEP];
	static struct arb_result res;
	static const char *kind[2] = { "backlogged (exact period)", "loaded" };
	static const double limit_s[2] = { WORST_SAT_LIMIT_S, WORST_LOAD_LIMIT_S };
	static struct worst_case c;
	double t0;
	long n;
	int k, i, rc = 0;

	for (n = 0; n < configs; n++) {
		for (k = 0; k < 2; k++) {
			slow_config(&c.cfg, &c.params, k);
			t0 = cpu_s();
			arb_analyze(&c.cfg, &c.params, &res);
			c.s = cpu_s() - t0;
			worst_keep(top[k], &c);
		}
	}
	/* the slowest timed again: the least of three, so a preemption does not count */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < WORST_KEEP; i++) {
			for (n = 0; n < 3; n++) {
				t0 = cpu_s();
				arb_analyze(&top[k][i].cfg, &top[k][i].params, &res);
				top[k][i].s = fmin(top[k][i].s, cpu_s() - t0);
			}
		}
	}
	for (k = 0; k < 2; k++) {
		qsort(top[k], WORST_KEEP, sizeof(top[k][0]), worst_cmp);
		printf("the %d slowest %s ports of %ld:\n", WORST_KEEP, kind[k], configs);
		for (i = 0; i < WORST_KEEP; i++)
			worst_print(&top[k][i]);
	}
	for (i = 0; dir && i < WORST_KEEP; i++) {
		snprintf(path, sizeof(path), "%s/slow-%llx-%d.opensm.conf", dir,
			 (unsigned long long)worst_rng, i);
		if (worst_save(&top[0][i], path))
			return 2;
	}
	for (k = 0; k < 2; k++) {
		printf("slowest %s port: %.3f ms (limit %.0f ms)%s\n", kind[k],
		       top[k][0].s * 1e3, limit_s[k] * 1e3,
		       top[k][0].s > limit_s[k] ? ": OVER" : "");
		rc |= top[k][0].s > limit_s[k];
	}
	return rc;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200;
	struct arb_config cfg;

	if (argc > 1 && !strcmp(argv[1], "worst")) {
		if (argc > 3)
			worst_rng = strtoull(argv[3], NULL, 0) | 1;
		return worst(argc > 2 ? atol(argv[2]) : 2000, argc > 4 ? argv[4] : NULL);
	}

	if (iters < 1) {
		fprintf(stderr, "usage: %s [ITERATIONS]\n", argv[0]);
		return 2;
	}
	full_config(&cfg);
	bench(&cfg, ARB_MODEL_IB_PACKET, false, iters);
	bench(&cfg, ARB_MODEL_IB_PACKET, true, iters);
	bench(&cfg, ARB_MODEL_DTABLE, false, iters);
	return 0;
}
