/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What a topology's searches look up over and over, made once when the
 * topology is read: every node's links (compressed rows), and a hash
 * table of node names and of the names' leading words ("h1" of
 * "h1 mlx5_0"), so that a fabric of thousands of hosts is not scanned
 * by name or by link for every pair. Lookups answer exactly what the
 * scans would (the lowest index first); without an index, or with one
 * older than the topology, the callers scan as before.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/topo_int.h"

/* One name in the table: node @node's first @len bytes (its whole name,
 * or a leading part ending before a blank when @prefix), @count nodes
 * sharing it (prefixes only), @node the lowest of them; node -1: empty. */
struct index_slot {
	int node, count;
	unsigned short len;
	bool prefix;
};

struct topo_index {
	size_t n_nodes, n_links, mask;
	struct index_slot *slot;
	struct topo_adj adj;
};

int topo_adj_build(const struct topo *t, struct topo_adj *g)
{
	size_t i, *fill;

	g->start = calloc(t->n_nodes + 1, sizeof(*g->start));
	g->adj = malloc((2 * t->n_links + 1) * sizeof(*g->adj));
	fill = calloc(t->n_nodes + 1, sizeof(*fill));
	if (!g->start || !g->adj || !fill) {
		free(fill);
		topo_adj_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < t->n_links; i++) {
		g->start[t->links[i].a + 1]++;
		g->start[t->links[i].b + 1]++;
	}
	for (i = 0; i < t->n_nodes; i++)
		g->start[i + 1] += g->start[i];
	for (i = 0; i < t->n_links; i++) {
		int a = t->links[i].a, b = t->links[i].b;

		g->adj[g->start[a] + fill[a]++] = (int)i;
		g->adj[g->start[b] + fill[b]++] = (int)i;
	}
	free(fill);
	return 0;
}

void topo_adj_free(struct topo_adj *g)
{
	free(g->start);
	free(g->adj);
	g->start = NULL;
	g->adj = NULL;
}

/* @t's index when it was made from the topology as it is now. */
static const struct topo_index *index_fresh(const struct topo *t)
{
	const struct topo_index *x = t->index;

	return x && x->n_nodes == t->n_nodes && x->n_links == t->n_links ? x : NULL;
}

const struct topo_adj *topo_adj_get(const struct topo *t, struct topo_adj *own)
{
	const struct topo_index *x = index_fresh(t);

	own->start = NULL;
	own->adj = NULL;
	if (x)
		return &x->adj;
	return topo_adj_build(t, own) ? NULL : own;
}

/* FNV-1a of the key's bytes, a prefix told from a whole name. */
static size_t index_hash(const char *key, size_t len, bool prefix)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
	return (size_t)(h ^ prefix);
}

/* ------------------------------------------------------------------ */
/* The names' table of the sources being read                          */
/* ------------------------------------------------------------------ */

/* The slot of @name in @x, or the empty one where it would go. */
static int *names_slot(const struct topo_names *x, const struct topo *t, const char *name)
{
	size_t i = index_hash(name, strlen(name), false) & x->mask;

	for (; x->slot[i] >= 0; i = (i + 1) & x->mask)
		if (!strcmp(t->nodes[x->slot[i]].name, name))
			break;
	return &x->slot[i];
}

/* Room for @n names at most half full: the table made again. 0 or -ENOMEM. */
static int names_grow(struct topo_names *x, const struct topo *t, size_t n)
{
	size_t cap = 64, i;
	int *slot;

	while (cap < 2 * n)
		cap *= 2;
	if (cap <= x->mask + 1 && x->slot)
		return 0;
	slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		slot[i] = -1;
	free(x->slot);
	x->slot = slot;
	x->mask = cap - 1;
	for (i = 0; i < x->n_nodes; i++)
		*names_slot(x, t, t->nodes[i].name) = (int)i;
	return 0;
}

int topo_names_find(struct topo_names *x, const struct topo *t, const char *name)
{
	if (x->n_nodes > t->n_nodes)
		topo_names_free(x);	/* a topology read anew: start again */
	if (names_grow(x, t, t->n_nodes + 1))
		return -ENOMEM;
	for (; x->n_nodes < t->n_nodes; x->n_nodes++)
		*names_slot(x, t, t->nodes[x->n_nodes].name) = (int)x->n_nodes;
	return *names_slot(x, t, name);
}

void topo_names_free(struct topo_names *x)
{
	free(x->slot);
	*x = (struct topo_names){ 0 };
}

void topo_degrees(const struct topo *t, size_t *deg)
{
	memset(deg, 0, t->n_nodes * sizeof(*deg));
	for (size_t i = 0; i < t->n_links; i++) {
		deg[t->links[i].a]++;
		deg[t->links[i].b]++;
	}
}

/* ------------------------------------------------------------------ */
/* The index                                                           */
/* ------------------------------------------------------------------ */

/* The slot holding the key, or the empty one where it would go. */
static struct index_slot *index_slot(const struct topo_index *x, const struct topo *t,
				     const char *key, size_t len, bool prefix)
{
	size_t i = index_hash(key, len, prefix) & x->mask;

	for (;; i = (i + 1) & x->mask) {
		struct index_slot *s = &x->slot[i];

		if (s->node < 0 || (s->prefix == prefix && s->len == len &&
				    !memcmp(t->nodes[s->node].name, key, len)))
			return s;
	}
}

static void index_add(struct topo_index *x, const struct topo *t, int v, size_t len,
		      bool prefix)
{
	struct index_slot *s = index_slot(x, t, t->nodes[v].name, len, prefix);

	if (s->node >= 0) {
		s->count++;
		return;
	}
	*s = (struct index_slot){ .node = v, .count = 1, .len = (unsigned short)len,
		.prefix = prefix };
}

/* Every name and every leading part of it ending before a blank. */
static void index_fill(struct topo_index *x, const struct topo *t)
{
	for (size_t v = 0; v < t->n_nodes; v++) {
		const char *name = t->nodes[v].name;
		size_t p;

		for (p = 1; name[0] && name[p]; p++)
			if (name[p] == ' ')
				index_add(x, t, (int)v, p, true);
		index_add(x, t, (int)v, strlen(name), false);
	}
}

static size_t index_keys(const struct topo *t)
{
	size_t n = 0;

	for (size_t v = 0; v < t->n_nodes; v++)
		for (const char *p = t->nodes[v].name; *p; p++)
			n += p > t->nodes[v].name && *p == ' ';
	return n + t->n_nodes;
}

int topo_index_build(struct topo *t)
{
	struct topo_index *x = calloc(1, sizeof(*x));
	size_t cap = 16, keys = index_keys(t);

	topo_index_free(t);
	while (cap < 2 * keys)
		cap *= 2;
	if (!x || !(x->slot = malloc(cap * sizeof(*x->slot))) || topo_adj_build(t, &x->adj)) {
		if (x)
			free(x->slot);
		free(x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		x->slot[i].node = -1;
	x->mask = cap - 1;
	x->n_nodes = t->n_nodes;
	x->n_links = t->n_links;
	index_fill(x, t);
	t->index = x;
	return 0;
}

void topo_index_free(struct topo *t)
{
	if (!t->index)
		return;
	topo_adj_free(&t->index->adj);
	free(t->index->slot);
	free(t->index);
	t->index = NULL;
}

int topo_index_find(const struct topo *t, const char *key, size_t len, bool prefix,
		    size_t *count)
{
	const struct topo_index *x = index_fresh(t);
	const struct index_slot *s;

	if (!x)
		return -2;
	s = len < TOPO_NAME_MAX ? index_slot(x, t, key, len, prefix) : NULL;
	*count = s && s->node >= 0 ? (size_t)s->count : 0;
	return *count ? s->node : -1;
}
