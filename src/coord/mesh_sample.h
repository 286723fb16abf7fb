/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh's sampled schedule (mesh_sample.c), for meshes too large to
 * measure every pair on every pass: every ordered pair under each leaf
 * switch, and K targets across leaves per host, rotated pass after pass
 * so that every ordered cross-leaf pair is measured within
 * mesh_sample_n_passes() passes. Pure: no agents, no I/O.
 */
#ifndef RPERF_MESH_SAMPLE_H
#define RPERF_MESH_SAMPLE_H

#include <stddef.h>

#include "coord/mesh_round.h"

/* The hosts grouped by leaf, each leaf padded to the largest one. */
struct mesh_sample {
	size_t n_hosts, k;		/* k: cross-leaf targets a host per pass */
	size_t n_leaves, leaf_max;	/* leaves, and the hosts of the largest */
	size_t cross;			/* cross-leaf places a host walks: (leaves - 1) * leaf_max */
	int *slot;			/* leaf * leaf_max + place: a host, -1 none */
};

/* One pass's steps: step i is pairs[step_at[i] .. step_at[i + 1]), a -> b. */
struct mesh_sample_pass {
	struct mesh_match *pairs;
	size_t *step_at;		/* n_steps + 1 */
	size_t n_pairs, n_steps;
	size_t n_intra_steps;		/* the first ones: the pairs under each leaf */
};

/*
 * @s over @n hosts, host i under leaf @leaf[i] (any numbers below @n),
 * @k cross-leaf targets a host per pass (clamped to what there is; 0:
 * none). 0, -EINVAL (a leaf number of @n or more, fewer than two hosts)
 * or -ENOMEM.
 */
int mesh_sample_init(struct mesh_sample *s, const size_t *leaf, size_t n, size_t k);
void mesh_sample_free(struct mesh_sample *s);

/*
 * The passes until every ordered cross-leaf pair has been measured:
 * ceil(cross / k), which is ceil((N - L) / K) for leaves of L hosts
 * each; 1 when there is nothing across leaves to measure.
 */
size_t mesh_sample_n_passes(const struct mesh_sample *s);

/*
 * Pass @pass (0, 1, ...; it wraps after mesh_sample_n_passes()) into
 * @out: first 2 * mesh_n_rounds(leaf_max) steps of the pairs under each
 * leaf (the circle method on every leaf at once, a -> b then b -> a),
 * then two or three steps for each of the k cross-leaf targets. No host
 * is in two pairs of a step. 0 or -ENOMEM; mesh_sample_pass_free() after.
 */
int mesh_sample_pass(const struct mesh_sample *s, size_t pass, struct mesh_sample_pass *out);
void mesh_sample_pass_free(struct mesh_sample_pass *p);

#endif
