/*
 * How long one `rperf analyze` model run takes on the largest tables a
 * port can hold: 64 high and 64 low entries, 300 runs (the paper's
 * setting), every SL saturating, for both InfiniBand models. The target
 * is well under a millisecond per analysis.
 *
 * usage: bench/bench_analyze [ITERATIONS]
 */
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

static void bench(const struct arb_config *cfg, enum arb_model model, long iters)
{
	struct arb_params params;
	static struct arb_result res;
	double t0, dt;
	long i;

	arb_params_init(&params);
	params.model = model;
	params.runs = 300;
	t0 = now_s();
	for (i = 0; i < iters; i++)
		arb_analyze(cfg, &params, &res);
	dt = now_s() - t0;
	printf("%-9s 64 high + 64 low entries, 300 runs: %.1f us per analysis "
	       "(%ld analyses, SL0 %.2f %%)\n", arb_model_name(model),
	       dt / iters * 1e6, iters, res.sls[0].share_pct);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000;
	struct arb_config cfg;

	if (iters < 1) {
		fprintf(stderr, "usage: %s [ITERATIONS]\n", argv[0]);
		return 2;
	}
	full_config(&cfg);
	bench(&cfg, ARB_MODEL_IB_FLUID, iters);
	bench(&cfg, ARB_MODEL_IB_PACKET, iters);
	return 0;
}
