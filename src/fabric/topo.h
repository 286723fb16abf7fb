/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A fabric's topology: its nodes (hosts and switches) and the links
 * between them, read from what the fabric's own tools print
 * (ibnetdiscover for InfiniBand, its default output or -p or -g;
 * `lldpcli -f json show neighbors` for
 * Ethernet/RoCE hosts and switches) or from a simple topology file, and
 * the routes a pair of hosts takes through it (shortest paths).
 */
#ifndef RPERF_FABRIC_TOPO_H
#define RPERF_FABRIC_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#define TOPO_NAME_MAX 64
#define TOPO_PORT_MAX 32
#define TOPO_LINK_NAME_MAX 160

struct topo_node {
	char name[TOPO_NAME_MAX];
	bool is_switch;
};

/*
 * One link between nodes a and b (indices into topo.nodes); a_port and
 * b_port are the ports' names ("" when the source gives none). name is
 * how the link is shown: "h1 - sw1:eth1", "sw1:eth3 - sw2:eth3" (a
 * switch's side, or the side of a node with several links, names its
 * port when it is known).
 */
struct topo_link {
	int a, b;
	char a_port[TOPO_PORT_MAX], b_port[TOPO_PORT_MAX];
	char name[TOPO_LINK_NAME_MAX];
};

struct topo_index;

struct topo {
	struct topo_node *nodes;
	size_t n_nodes;
	struct topo_link *links;
	size_t n_links;
	struct topo_index *index;	/* lookups by name and by node, made on reading */
	size_t nodes_cap, links_cap;	/* room in nodes and links, grown by doubling */
};

/*
 * Read the topology from @n_paths files into @t (zeroed by the caller or
 * freed before), merging them: nodes are one by name, and a link that
 * two files report from its two ends (same nodes and ports) is one.
 * @format: "ibnetdiscover", "lldp", "file", or NULL to tell each file's
 * format from its content. An lldp file is one chassis's neighbors: it
 * names its own chassis when it also holds `lldpcli -f json show chassis`
 * (the two outputs one after the other), or when given as HOST=FILE.
 * Returns 0, or -errno with the reason ("file:line: what") in @err; on
 * error @t holds nothing.
 */
int topo_read(struct topo *t, const char *const *paths, size_t n_paths,
	      const char *format, char *err, size_t errlen);

/*
 * The same for one source already in memory (@text, NUL-terminated),
 * named @name in messages; @host names the local chassis of an lldp
 * source (NULL: from the text). Adds to what @t already holds. On error
 * @t may hold part of the source: topo_free() it.
 */
int topo_parse(struct topo *t, const char *name, const char *text, const char *format,
	       const char *host, char *err, size_t errlen);

/* The format topo_read() would take @text for: "ibnetdiscover", "lldp" or
 * "file". */
const char *topo_detect(const char *text);

/* Free what @t holds and zero it. */
void topo_free(struct topo *t);

/*
 * The index of the node named @name, or -1. An InfiniBand CA is named
 * by its node description ("h1 mlx5_0"); @name matches it whole, or as
 * HOST/DEVICE ("h1/mlx5_1": one rail of a host with several), or its
 * first word when exactly one node's first word is @name (a host of
 * several devices is then ambiguous: -1).
 */
int topo_host(const struct topo *t, const char *name);
/* How many nodes' first word is @name: the devices of host @name. */
size_t topo_host_devices(const struct topo *t, const char *name);

/*
 * An endpoint of a measurement: a node, and the link it sends and
 * receives by (-1: any of its links). A host of several rails is one
 * node per CA on InfiniBand ("h1 mlx5_1", found by topo_host()), or one
 * node with a link per NIC where the topology names the host's ports
 * (a topology file's "h1:mlx5_1 L2", an lldp host's "h1:eth1"): there
 * HOST/PORT names the rail, the node leaving by the link of that port.
 */
struct topo_end {
	int node, link;
};

/* The endpoint named @name into @e: a node as topo_host() finds it, or
 * HOST/PORT (a host node and its link at PORT). 0, or -1 when there is
 * no such endpoint. */
int topo_endpoint(const struct topo *t, const char *name, struct topo_end *e);
/* Whether @a and @b are one endpoint (the same node by the same link, or
 * the same node when either may take any). */
bool topo_end_same(const struct topo_end *a, const struct topo_end *b);

/*
 * The links a path from node @src to node @dst crosses (shortest path,
 * in hops; no path passes through a host other than its ends), in order
 * from @src, into @links (at most @max); *n gets their count. *ecmp is
 * set when several shortest paths exist (parallel links count as
 * several): then the one whose links have the lowest indices at each
 * step is returned. Returns 0, or -EINVAL/-ENOENT/-ENOSPC with @err set
 * (a bad index, no path, more than @max links).
 */
int topo_route(const struct topo *t, int src, int dst, int *links, size_t max,
	       size_t *n, bool *ecmp, char *err, size_t errlen);

#endif
