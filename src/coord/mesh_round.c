/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The round-robin schedule of rperf mesh (mesh_round.h): N - 1 rounds of
 * N / 2 disjoint pairings by the circle method, and a round's pairings
 * MESH_STEP_FLOWS at a time.
 */
#include "coord/mesh_round.h"

size_t mesh_n_rounds(size_t n)
{
	return n < 2 ? 0 : n % 2 ? n : n - 1;
}

/* Who sits at place @i (0 .. m - 1) of the circle of @m places in round @r. */
static size_t mesh_place(size_t m, size_t r, size_t i)
{
	return i == 0 ? 0 : 1 + (i - 1 + r) % (m - 1);
}

size_t mesh_round(size_t n, size_t r, struct mesh_match *out)
{
	size_t m = n % 2 ? n + 1 : n, i, k = 0, a, b;

	if (n < 2)
		return 0;
	for (i = 0; i < m / 2; i++) {
		a = mesh_place(m, r, i);
		b = mesh_place(m, r, m - 1 - i);
		if (a == n || b == n)
			continue;	/* the phantom's pairing: a bye */
		/* Alternate who starts, so a host is not always first. */
		out[k++] = (r + i) % 2 ? (struct mesh_match){ (int)b, (int)a } :
					 (struct mesh_match){ (int)a, (int)b };
	}
	return k;
}

size_t mesh_round_parts(size_t n)
{
	size_t k = n / 2;

	return k ? (k + MESH_STEP_FLOWS - 1) / MESH_STEP_FLOWS : 1;
}

size_t mesh_round_part(size_t k, size_t p, size_t *at)
{
	*at = p * MESH_STEP_FLOWS;
	if (*at >= k)
		return 0;
	return k - *at < MESH_STEP_FLOWS ? k - *at : MESH_STEP_FLOWS;
}
