/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The unit tests' random samples: xorshift64*, deterministic, so a
 * failure reproduces. A test seeds rng_state where it wants a fixed
 * sequence. Include once per test program.
 */
#ifndef RPERF_TESTS_RNG_H
#define RPERF_TESTS_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Uniform in (0, 1]. */
static double rng_unit(void)
{
	return ((double)(rng_next() >> 11) + 1.0) / 9007199254740992.0;
}

#endif
