/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Inside the topology module: what the readers (topo_file.c, topo_ib.c,
 * topo_lldp.c) share with the dispatcher (topo_read.c) and the builder
 * (topo_src.c), and the breadth-first search that routes and the
 * localization use (topo_route.c). Not for other modules.
 */
#ifndef RPERF_FABRIC_TOPO_INT_H
#define RPERF_FABRIC_TOPO_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "fabric/topo.h"

/* The nodes' names hashed while sources are read, so that finding a
 * node by name costs the same for the first node and the ten thousandth:
 * slot[] holds node indices (-1: empty), @n_nodes of @t's nodes are in. */
struct topo_names {
	int *slot;
	size_t mask, n_nodes;
};

/* One source being read: its name for messages, the topology it adds to,
 * where the error goes, and its names' table (topo_src_release()). */
struct topo_src {
	const char *name;
	struct topo *t;
	char *err;
	size_t errlen;
	struct topo_names names;
};

/* What reading @s holds beyond its topology (the names' table). */
void topo_src_release(struct topo_src *s);

/* Set "name:line: what" (line 0: "name: what") in src->err; -EINVAL. */
int topo_src_error(struct topo_src *s, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The node named @name (added when new; a switch when @is_switch, and an
 * existing node becomes one when a later source says so). Its index, or
 * -EINVAL (empty or too long a name, with the message at @line) or
 * -ENOMEM.
 */
int topo_src_node(struct topo_src *s, int line, const char *name, bool is_switch);

/*
 * A link between nodes @a and @b at ports @a_port and @b_port ("" or
 * NULL: unknown). With @dedup, a link with the same ends (either way
 * round) is kept once: the sources that report a link from both ends.
 * 0, or -EINVAL (a port name too long, a node linked to itself) or
 * -ENOMEM.
 */
int topo_src_link(struct topo_src *s, int line, int a, const char *a_port,
		  int b, const char *b_port, bool dedup);

/* The readers: each adds one source's nodes and links. @host names the
 * local chassis of an lldp source (NULL: from the text). */
int topo_file_parse(struct topo_src *s, const char *text);
int topo_ib_parse(struct topo_src *s, const char *text);
int topo_lldp_parse(struct topo_src *s, const char *text, const char *host);
bool topo_ib_detect(const char *text);

/* The whole of file @path (at most 64 MiB, no NUL byte) into *@text
 * (malloc'ed, NUL-terminated). 0, or -errno with the reason in @err. */
int topo_read_text(const char *path, char **text, char *err, size_t errlen);

/* A node's links in compressed rows: the links of node v are
 * adj[start[v] .. start[v + 1]), in increasing link index. */
struct topo_adj {
	size_t *start;
	int *adj;
};

/* topo_index.c: @t's adjacency into @g (free with topo_adj_free()). 0 or
 * -ENOMEM. */
int topo_adj_build(const struct topo *t, struct topo_adj *g);
void topo_adj_free(struct topo_adj *g);
/* The adjacency made with @t's index, or when there is none (or it is
 * older than @t) one built into @own; NULL when out of memory. Free @own
 * with topo_adj_free() after use either way. */
const struct topo_adj *topo_adj_get(const struct topo *t, struct topo_adj *own);

/* Make @t's index (its adjacency, its names) again, once a source is
 * read: 0 or -ENOMEM (then @t has none, and lookups scan). */
int topo_index_build(struct topo *t);
void topo_index_free(struct topo *t);
/* The lowest node whose name is the @len bytes at @key (with @prefix: whose
 * name begins with them and a blank), *count how many; -1 (count 0) when
 * none, -2 when @t has no index as fresh as it is (then scan). */
int topo_index_find(const struct topo *t, const char *key, size_t len, bool prefix,
		    size_t *count);

/*
 * topo_index.c: the node of @t named @name in @x, after bringing @x up
 * to @t's nodes (the nodes added since, by any source): its index, -1
 * when there is none, or -ENOMEM.
 */
int topo_names_find(struct topo_names *x, const struct topo *t, const char *name);
void topo_names_free(struct topo_names *x);
/* Every node's number of links into @deg (room for n_nodes). */
void topo_degrees(const struct topo *t, size_t *deg);

/* Breadth-first search from @src over @t: dist[v] hops (-1 unreached),
 * paths[v] the number of shortest paths (saturating), via[v] the
 * lowest-index link entering v on a shortest path (-1 for src and the
 * unreached). Arrays hold n_nodes entries. 0 or -ENOMEM. */
int topo_bfs(const struct topo *t, int src, int *dist, double *paths, int *via);
/* The route to @dst from the search above, from its source: 0, -ENOENT
 * (unreached) or -ENOSPC (more than @max links). */
int topo_bfs_route(const struct topo *t, const int *dist, const int *via, int dst,
		   int *links, size_t max, size_t *n);

/* Every shortest path to @dst from the search above (at most
 * @max_paths, in a fixed order), each of *len links (at most @max_len),
 * one after the other in @links (room for max_paths * max_len); *n_paths
 * their count. 0, -ENOENT, -ENOSPC or -ENOMEM. */
int topo_bfs_paths(const struct topo *t, const int *dist, int src, int dst, int *links,
		   size_t max_len, size_t max_paths, size_t *n_paths, size_t *len);

#endif
