/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * How long one `rperf analyze` takes on the largest tables a port can
 * hold: 64 high and 64 low entries, every SL saturating. The arbiter runs
 * to an exact period (57058 packets for this table under the default
 * semantics), so --runs does not matter. Timed: ib-packet with only its
 * configured semantics, ib-packet comparing every semantics (the
 * default), and dtable on the high table.
 *
 * usage: bench/bench_analyze [ITERATIONS]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200;
	struct arb_config cfg;

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
