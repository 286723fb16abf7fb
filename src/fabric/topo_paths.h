/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The paths a fabric really takes, when shortest paths are not enough
 * to know them (equal-cost multipath, a subnet manager's choice).
 * Two sources, read into one table over a topology:
 *
 *  - a routes file: one path a line, its nodes from source to
 *    destination separated by blanks ("h1 leaf1 spine2 leaf3 h5"), each
 *    named as topo_endpoint() takes it (HOST/DEVICE for a CA of a host
 *    with several, HOST/PORT for one rail of a host node of several
 *    links); NODE:PORT where NODE has several links to the next node
 *    says the port it leaves by; '#' starts a comment. A path from src
 *    to dst says nothing of dst to src: give both.
 *  - InfiniBand linear forwarding tables, as `dump_lfts` (or `ibroute`
 *    once per switch, one after the other) prints them: for every
 *    switch, the out port of every destination LID. A pair's path is
 *    walked from its source CA's link, switch by switch, to the LID of
 *    the destination CA (its node description, as ibnetdiscover names
 *    the node). Told from a routes file by its "Unicast lids" lines.
 */
#ifndef RPERF_FABRIC_TOPO_PATHS_H
#define RPERF_FABRIC_TOPO_PATHS_H

#include <stddef.h>

#include "fabric/topo.h"

/* One listed path: links [off, off + n) of topo_paths.links, the
 * first and the last of them (a rail's own link at a host of several). */
struct topo_path {
	int src, dst;
	size_t off, n;
	int first, last;
};

/* One switch's forwarding table: out port of each LID (-1: none). */
struct topo_lft {
	int node;
	int *port;
	size_t n_lids;
};

struct topo_paths {
	const struct topo *t;
	struct topo_path *paths;	/* sorted by (src, dst) */
	size_t n_paths;
	int *links;
	size_t n_links;
	struct topo_lft *lfts;		/* InfiniBand: one per switch read */
	size_t n_lfts;
	int *lid_node;			/* InfiniBand: the node of each LID (-1: none) */
	size_t n_lids;
	char source[16];		/* "routes" or "lft" */
};

/*
 * Read the paths of @path over @t (which must outlive @r): a routes file
 * or forwarding tables, told from the content. 0, or -errno with
 * "file:line: what" in @err (a node not in the topology, two nodes not
 * linked, a port that names no link); on error @r holds nothing.
 */
int topo_paths_read(struct topo_paths *r, const struct topo *t, const char *path, char *err,
		    size_t errlen);
/* The same for @text in memory, named @name in messages. */
int topo_paths_parse(struct topo_paths *r, const struct topo *t, const char *name,
		     const char *text, char *err, size_t errlen);

/*
 * The path from node @src to node @dst into @links (at most @max), *n
 * its length. 0; -ENOENT when the source does not know the pair (a
 * routes file without its line; a destination the tables have no LID
 * or no entry for: then @err says which switch); -ELOOP when the tables
 * send it round in a loop or past @max links.
 */
int topo_paths_get(const struct topo_paths *r, int src, int dst, int *links, size_t max,
		   size_t *n, char *err, size_t errlen);

/* The same between endpoints: a rail's path leaves (arrives) by its own
 * link. A routes file names them HOST/PORT; forwarding tables start the
 * walk on the source's link. */
int topo_paths_get_end(const struct topo_paths *r, const struct topo_end *src,
		       const struct topo_end *dst, int *links, size_t max, size_t *n, char *err,
		       size_t errlen);

void topo_paths_free(struct topo_paths *r);

#endif
