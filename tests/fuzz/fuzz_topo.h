/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the topology targets share: one reader on the input, then, when
 * it is taken, the checks that what it made is whole (every link's ends
 * are nodes, every name ends), and routes and the localization run on
 * it, so that a hostile topology reaches them too.
 */
#ifndef RPERF_FUZZ_TOPO_H
#define RPERF_FUZZ_TOPO_H

#include <errno.h>
#include <string.h>

#include "fabric/locate.h"
#include "fuzz.h"

/* Hosts of @t as locate observations of 100 ns, at most 6 hosts. */
static inline void fuzz_topo_locate(const struct topo *t)
{
	struct locate_obs obs[30];
	struct locate_result r;
	const char *hosts[6];
	char err[512];
	size_t i, j, nh = 0, n = 0;

	if (t->n_links > 64)
		return;		/* the solver is cubic in links: keep runs short */
	for (i = 0; i < t->n_nodes && nh < 6; i++)
		if (!t->nodes[i].is_switch && topo_host(t, t->nodes[i].name) == (int)i)
			hosts[nh++] = t->nodes[i].name;
	for (i = 0; i < nh; i++)
		for (j = 0; j < nh; j++)
			if (i != j)
				obs[n++] = (struct locate_obs){ hosts[i], hosts[j], 0, 100, 90, 110, true };
	if (!n)
		return;
	if (locate_hops(t, obs, n, &r, err, sizeof(err)) == 0) {
		if (r.n_hops != t->n_links || r.n_used != n)
			abort();
		for (i = 0; i < r.n_hops; i++)
			if (r.hops[i].identifiable && !(r.hops[i].est_ns >= 0))
				abort();	/* non-negative, a number when identifiable */
		locate_free(&r);
	} else if (!err[0]) {
		abort();		/* every refusal says why */
	}
}

/* Run reader @format on the input and check what it made. */
static inline int fuzz_topo(const uint8_t *data, size_t size, const char *format,
			    const char *host)
{
	struct topo t = { 0 };
	char err[512] = "", *text;
	size_t i, n;
	int links[64], rc;
	bool ecmp;

	text = fuzz_text(data, size);
	if (!text)
		return 0;
	rc = topo_parse(&t, "fuzz", text, format, host, err, sizeof(err));
	if (rc && (rc != -EINVAL || !err[0]))
		abort();
	for (i = 0; !rc && i < t.n_links; i++) {
		const struct topo_link *l = &t.links[i];

		if (l->a < 0 || l->b < 0 || (size_t)l->a >= t.n_nodes ||
		    (size_t)l->b >= t.n_nodes || l->a == l->b || !memchr(l->name, 0, sizeof(l->name)))
			abort();
	}
	for (i = 0; !rc && i < t.n_nodes; i++)
		if (!memchr(t.nodes[i].name, 0, sizeof(t.nodes[i].name)) || !t.nodes[i].name[0])
			abort();
	if (!rc && t.n_nodes >= 2 && topo_route(&t, 0, (int)t.n_nodes - 1, links, 64, &n, &ecmp,
						err, sizeof(err)) == 0 && n > 64)
		abort();
	if (!rc)
		fuzz_topo_locate(&t);
	topo_free(&t);
	free(text);
	return 0;
}

#endif
