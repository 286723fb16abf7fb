/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh's round-robin schedule (the circle method), pure: apart from
 * mesh.h so that the sampled schedule (mesh_sample.h), which runs it
 * under each leaf, and the engine (mesh.c) both build on it.
 */
#ifndef RPERF_MESH_ROUND_H
#define RPERF_MESH_ROUND_H

#include <stddef.h>

#include "coord/mesh_run.h"

/* One pairing of a round: hosts @a and @b (indices into the host list). */
struct mesh_match {
	int a, b;
};

/* Rounds of the circle method for @n hosts: n - 1 (even n), n (odd n), 0 (n < 2). */
size_t mesh_n_rounds(size_t n);
/*
 * The pairings of round @r (0 .. mesh_n_rounds(n) - 1) of @n hosts into
 * @out (room for n / 2): host 0 stays, the others turn one place a
 * round; for an odd @n a phantom host makes the bye and its pairing is
 * left out. Returns how many pairings: n / 2.
 */
size_t mesh_round(size_t n, size_t r, struct mesh_match *out);
/* The steps a round of @n hosts takes per class and direction: its
 * pairings MESH_STEP_FLOWS at a time (1 for n < 2). */
size_t mesh_round_parts(size_t n);
/* Part @p of a round's @k pairings: how many it holds (at most
 * MESH_STEP_FLOWS; 0 past the last), the first at *@at. */
size_t mesh_round_part(size_t k, size_t p, size_t *at);

#endif
