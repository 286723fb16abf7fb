/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * topo_probe FILE...: what the topology readers make of FILEs (format
 * detected), one fact a line, sorted by the caller if it compares:
 *   node NAME switch|host
 *   link NAME
 *   route SRC DST LINKS [ecmp]     for every ordered pair of hosts
 * tests/ib/live.sh feeds it ibnetdiscover's live output under ibsim.
 */
#include <stdio.h>

#include "fabric/topo.h"

int main(int argc, char **argv)
{
	struct topo t = { 0 };
	char err[512];
	int links[64];
	size_t i, j, n;
	bool ecmp;

	if (argc < 2) {
		fprintf(stderr, "usage: topo_probe FILE...\n");
		return 2;
	}
	if (topo_read(&t, (const char *const *)argv + 1, (size_t)argc - 1, NULL, err,
		      sizeof(err))) {
		fprintf(stderr, "topo_probe: %s\n", err);
		return 1;
	}
	for (i = 0; i < t.n_nodes; i++)
		printf("node %s %s\n", t.nodes[i].name, t.nodes[i].is_switch ? "switch" : "host");
	for (i = 0; i < t.n_links; i++)
		printf("link %s\n", t.links[i].name);
	for (i = 0; i < t.n_nodes; i++)
		for (j = 0; j < t.n_nodes; j++) {
			if (i == j || t.nodes[i].is_switch || t.nodes[j].is_switch)
				continue;
			if (topo_route(&t, (int)i, (int)j, links, 64, &n, &ecmp, err, sizeof(err))) {
				printf("route %s %s none: %s\n", t.nodes[i].name, t.nodes[j].name, err);
				continue;
			}
			printf("route %s %s %zu%s\n", t.nodes[i].name, t.nodes[j].name, n,
			       ecmp ? " ecmp" : "");
		}
	topo_free(&t);
	return 0;
}
