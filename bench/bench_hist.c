/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Cost of hist_record on the hot path, in ns per call. Not a test: the
 * number depends on the machine. Values come from a precomputed table of
 * latency-like ticks so the loop measures recording, not random numbers.
 *
 * usage: bench_hist [records, default 100000000]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/hist.h"

#define TABLE_SIZE 65536	/* power of two, fits in L2 next to the histogram */

static void fill_table(uint64_t *v)
{
	uint64_t s = 0x853c49e6748fea9bull;
	size_t i;

	for (i = 0; i < TABLE_SIZE; i++) {
		double u;

		s = s * 6364136223846793005ull + 1442695040888963407ull;
		u = ((double)(s >> 11) + 1.0) / 9007199254740992.0;
		/* ~2 us floor at 3 ticks/ns, exponential body, rare long tail */
		v[i] = (uint64_t)(6000.0 - 900.0 * log(u)) + ((s >> 7) % 1000 == 0 ? s % 3000000 : 0);
	}
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000ull;
	uint64_t *v = malloc(TABLE_SIZE * sizeof(*v));
	struct hist *h = hist_new();
	uint64_t i, t0, t1;

	if (!v || !h || !n) {
		fprintf(stderr, "bench_hist: out of memory or zero records\n");
		return 1;
	}
	fill_table(v);
	for (i = 0; i < TABLE_SIZE; i++)	/* warm the buckets */
		hist_record(h, v[i]);
	hist_reset(h);
	t0 = clock_read_monotonic_ns();
	for (i = 0; i < n; i++)
		hist_record(h, v[i & (TABLE_SIZE - 1)]);
	t1 = clock_read_monotonic_ns();
	printf("hist_record: %.2f ns/record over %llu records (%zu bytes per histogram, p99 %llu)\n",
	       (double)(t1 - t0) / (double)n, (unsigned long long)n, hist_memory_bytes(h),
	       (unsigned long long)hist_percentile(h, 99.0));
	hist_free(h);
	free(v);
	return 0;
}
