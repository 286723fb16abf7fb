/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The sampled schedule of rperf mesh (mesh_sample.h), as Pingmesh does
 * it: a full tournament costs 2 (N - 1) steps a class, too many to run
 * continuously at thousands of hosts, while the pairs under one leaf and
 * a few across leaves already see every host's link and every leaf's
 * uplinks on each pass.
 *
 * The leaves are padded to the largest, leaf_max places each; a place
 * with no host is a bye. The pairs under each leaf run as the circle
 * method over leaf_max places (mesh_round()), every leaf in the same
 * step. Across leaves, a host at (leaf g, place o) walks the cross
 * places c = 0 .. (leaves - 1) * leaf_max - 1, each naming the host at
 * (g + 1 + c % (leaves - 1), o + c / (leaves - 1)), modulo the leaves
 * and leaf_max: for one c that is a permutation of the places, so each
 * host sends one and receives one, and its pairs split into at most
 * three steps with no host twice (a pair meets at most two others). Pass
 * p takes c = p * k .. p * k + k - 1 (modulo the cross places): the
 * leaf changes fastest, so every pair of leaves is crossed within
 * ceil((leaves - 1) / k) passes, and every ordered pair within
 * ceil(cross / k).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coord/mesh_sample.h"

/* The leaves renumbered in order of first use, and their sizes. */
static int mesh_sample_leaves(struct mesh_sample *s, const size_t *leaf, size_t *id,
			      size_t *size)
{
	size_t i;

	for (i = 0; i < s->n_hosts; i++) {
		if (leaf[i] >= s->n_hosts)
			return -EINVAL;
		if (id[leaf[i]] == (size_t)-1)
			id[leaf[i]] = s->n_leaves++;
		if (++size[id[leaf[i]]] > s->leaf_max)
			s->leaf_max = size[id[leaf[i]]];
	}
	return 0;
}

int mesh_sample_init(struct mesh_sample *s, const size_t *leaf, size_t n, size_t k)
{
	size_t *id = malloc(n * sizeof(*id)), *size = calloc(n ? n : 1, sizeof(*size)), i, g;
	int ret = n < 2 ? -EINVAL : !id || !size ? -ENOMEM : 0;

	memset(s, 0, sizeof(*s));
	s->n_hosts = n;
	if (!ret) {
		memset(id, 0xff, n * sizeof(*id));
		ret = mesh_sample_leaves(s, leaf, id, size);
	}
	if (!ret) {
		s->cross = (s->n_leaves - 1) * s->leaf_max;
		s->k = k < s->cross ? k : s->cross;
		s->slot = malloc(s->n_leaves * s->leaf_max * sizeof(*s->slot));
		ret = s->slot ? 0 : -ENOMEM;
	}
	if (!ret) {
		memset(s->slot, 0xff, s->n_leaves * s->leaf_max * sizeof(*s->slot));
		memset(size, 0, n * sizeof(*size));
		for (i = 0; i < n; i++) {
			g = id[leaf[i]];
			s->slot[g * s->leaf_max + size[g]++] = (int)i;
		}
	}
	free(id);
	free(size);
	if (ret)
		mesh_sample_free(s);
	return ret;
}

void mesh_sample_free(struct mesh_sample *s)
{
	free(s->slot);
	s->slot = NULL;
}

size_t mesh_sample_n_passes(const struct mesh_sample *s)
{
	return s->k ? (s->cross + s->k - 1) / s->k : 1;
}

/* A step ends at the pairs so far; empty steps are dropped. */
static void mesh_sample_step_end(struct mesh_sample_pass *p)
{
	if (p->n_pairs > p->step_at[p->n_steps])
		p->step_at[++p->n_steps] = p->n_pairs;
}

/* The pairs under every leaf: 2 * mesh_n_rounds(leaf_max) steps. */
static void mesh_sample_intra(const struct mesh_sample *s, struct mesh_sample_pass *p,
			      struct mesh_match *mt)
{
	size_t rounds = mesh_n_rounds(s->leaf_max), r, h, g, i, k;
	const int *leaf;
	int a, b;

	for (r = 0; r < rounds; r++) {
		k = mesh_round(s->leaf_max, r, mt);
		for (h = 0; h < 2; h++) {
			for (g = 0; g < s->n_leaves; g++) {
				leaf = s->slot + g * s->leaf_max;
				for (i = 0; i < k; i++) {
					a = leaf[h ? mt[i].b : mt[i].a];
					b = leaf[h ? mt[i].a : mt[i].b];
					if (a >= 0 && b >= 0)
						p->pairs[p->n_pairs++] = (struct mesh_match){ a, b };
				}
			}
			mesh_sample_step_end(p);
		}
	}
}

/*
 * The pairs of cross place @c into at most three steps, each pair into
 * the first where neither of its hosts is busy (@busy: 3 * n_hosts,
 * clear; @tmp: room for 3 * n_hosts pairs).
 */
static void mesh_sample_cross(const struct mesh_sample *s, size_t c, struct mesh_sample_pass *p,
			      unsigned char *busy, struct mesh_match *tmp)
{
	size_t shift = 1 + c % (s->n_leaves - 1), q = c / (s->n_leaves - 1), n = s->n_hosts;
	size_t g, o, t, in[3] = { 0 };
	int a, b;

	for (g = 0; g < s->n_leaves; g++)
		for (o = 0; o < s->leaf_max; o++) {
			a = s->slot[g * s->leaf_max + o];
			b = s->slot[(g + shift) % s->n_leaves * s->leaf_max + (o + q) % s->leaf_max];
			if (a < 0 || b < 0)
				continue;
			for (t = 0; busy[t * n + (size_t)a] || busy[t * n + (size_t)b]; t++)
				;
			busy[t * n + (size_t)a] = busy[t * n + (size_t)b] = 1;
			tmp[t * n + in[t]++] = (struct mesh_match){ a, b };
		}
	for (t = 0; t < 3; t++) {
		memcpy(p->pairs + p->n_pairs, tmp + t * n, in[t] * sizeof(*tmp));
		p->n_pairs += in[t];
		mesh_sample_step_end(p);
	}
}

int mesh_sample_pass(const struct mesh_sample *s, size_t pass, struct mesh_sample_pass *out)
{
	size_t n = s->n_hosts, rounds = mesh_n_rounds(s->leaf_max), j;
	size_t max_steps = 2 * rounds + 3 * s->k;
	struct mesh_match *tmp = malloc(3 * n * sizeof(*tmp));
	unsigned char *busy = malloc(3 * n);
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->pairs = malloc((2 * rounds * (n / 2) + s->k * n + 1) * sizeof(*out->pairs));
	out->step_at = calloc(max_steps + 1, sizeof(*out->step_at));
	if (!tmp || !busy || !out->pairs || !out->step_at) {
		ret = -ENOMEM;
		mesh_sample_pass_free(out);
	} else {
		mesh_sample_intra(s, out, tmp);
		out->n_intra_steps = out->n_steps;
		for (j = 0; j < s->k; j++) {
			memset(busy, 0, 3 * n);
			mesh_sample_cross(s, ((pass % s->cross) * s->k + j) % s->cross, out, busy,
					  tmp);
		}
	}
	free(tmp);
	free(busy);
	return ret;
}

void mesh_sample_pass_free(struct mesh_sample_pass *p)
{
	free(p->pairs);
	free(p->step_at);
	memset(p, 0, sizeof(*p));
}
