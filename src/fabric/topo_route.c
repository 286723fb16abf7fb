/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Routes through a topology: breadth-first search from a host, counting
 * the shortest paths to every node (parallel links count as several), so
 * that equal-cost multipath is seen and said, never hidden. A path never
 * passes through a host other than its two ends: hosts do not forward.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "fabric/topo_int.h"

int topo_bfs(const struct topo *t, int src, int *dist, double *paths, int *via)
{
	struct topo_adj own;
	const struct topo_adj *g = topo_adj_get(t, &own);
	size_t head = 0, tail = 0, v;
	int *queue = g ? malloc((t->n_nodes + 1) * sizeof(*queue)) : NULL;

	if (!queue) {
		topo_adj_free(&own);
		return -ENOMEM;
	}
	for (v = 0; v < t->n_nodes; v++) {
		dist[v] = -1;
		paths[v] = 0;
		via[v] = -1;
	}
	dist[src] = 0;
	paths[src] = 1;
	queue[tail++] = src;
	while (head < tail) {
		int u = queue[head++];
		size_t k;

		if (u != src && !t->nodes[u].is_switch)
			continue;	/* a host ends a path, it does not forward */
		for (k = g->start[u]; k < g->start[u + 1]; k++) {
			int l = g->adj[k];
			int w = t->links[l].a == u ? t->links[l].b : t->links[l].a;

			if (dist[w] < 0) {
				dist[w] = dist[u] + 1;
				via[w] = l;
				queue[tail++] = w;
			}
			if (dist[w] == dist[u] + 1) {
				paths[w] += paths[u];
				if (l < via[w])
					via[w] = l;
			}
		}
	}
	free(queue);
	topo_adj_free(&own);
	return 0;
}

int topo_bfs_route(const struct topo *t, const int *dist, const int *via, int dst,
		   int *links, size_t max, size_t *n)
{
	int v = dst, k;

	*n = 0;
	if (dist[dst] < 0)
		return -ENOENT;
	if ((size_t)dist[dst] > max)
		return -ENOSPC;
	for (k = dist[dst] - 1; k >= 0; k--) {
		int l = via[v];

		links[k] = l;
		v = t->links[l].a == v ? t->links[l].b : t->links[l].a;
	}
	*n = (size_t)dist[dst];
	return 0;
}

int topo_route(const struct topo *t, int src, int dst, int *links, size_t max,
	       size_t *n, bool *ecmp, char *err, size_t errlen)
{
	size_t nn = t->n_nodes;
	int *dist, *via, rc;
	double *paths;

	*n = 0;
	*ecmp = false;
	if (src < 0 || dst < 0 || (size_t)src >= nn || (size_t)dst >= nn)
		return errbuf_set(err, errlen, -EINVAL, "route: node index out of range");
	dist = malloc(nn * sizeof(*dist));
	via = malloc(nn * sizeof(*via));
	paths = malloc(nn * sizeof(*paths));
	rc = dist && via && paths ? topo_bfs(t, src, dist, paths, via) : -ENOMEM;
	if (!rc) {
		rc = topo_bfs_route(t, dist, via, dst, links, max, n);
		*ecmp = !rc && paths[dst] > 1;
	}
	if (rc == -ENOMEM)
		errbuf_set(err, errlen, rc, "route: out of memory");
	else if (rc == -ENOENT)
		errbuf_set(err, errlen, rc, "no path from '%s' to '%s'", t->nodes[src].name,
			   t->nodes[dst].name);
	else if (rc == -ENOSPC)
		errbuf_set(err, errlen, rc, "the path from '%s' to '%s' has more than %zu links",
			   t->nodes[src].name, t->nodes[dst].name, max);
	free(dist);
	free(via);
	free(paths);
	return rc;
}

/* The depth-first walk of topo_bfs_paths(): links [0, k) of the path
 * to @v, back from the destination, are in cur[k - 1 .. len - 1]. */
struct paths_walk {
	const struct topo *t;
	const struct topo_adj *g;
	const int *dist;
	int src;
	size_t len, max_paths, n;
	int *cur, *out;
};

static void paths_walk(struct paths_walk *w, int v)
{
	size_t l;

	if (w->n == w->max_paths)
		return;
	if (v == w->src) {
		memcpy(w->out + w->n++ * w->len, w->cur, w->len * sizeof(*w->cur));
		return;
	}
	for (size_t j = w->g->start[v]; j < w->g->start[v + 1]; j++) {
		const struct topo_link *k = &w->t->links[l = (size_t)w->g->adj[j]];
		int u = k->a == v ? k->b : k->a;

		if (w->dist[u] != w->dist[v] - 1 ||
		    (u != w->src && !w->t->nodes[u].is_switch))
			continue;
		w->cur[w->dist[v] - 1] = (int)l;
		paths_walk(w, u);
	}
}

int topo_bfs_paths(const struct topo *t, const int *dist, int src, int dst, int *links,
		   size_t max_len, size_t max_paths, size_t *n_paths, size_t *len)
{
	struct paths_walk w = { .t = t, .dist = dist, .src = src, .max_paths = max_paths };
	struct topo_adj own;
	bool ok;

	*n_paths = *len = 0;
	if (dist[dst] < 0)
		return -ENOENT;
	if ((size_t)dist[dst] > max_len)
		return -ENOSPC;
	w.len = (size_t)dist[dst];
	w.out = links;
	w.g = topo_adj_get(t, &own);
	w.cur = w.g ? malloc((w.len + 1) * sizeof(*w.cur)) : NULL;
	ok = w.cur != NULL;
	if (ok)
		paths_walk(&w, dst);
	free(w.cur);
	topo_adj_free(&own);
	if (!ok)
		return -ENOMEM;
	*n_paths = w.n;
	*len = w.len;
	return 0;
}
