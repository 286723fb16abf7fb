/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A topology read: its nodes found by name (a host, HOST/DEVICE, a host
 * of several rails), its endpoints, and its release. Reads what the
 * readers built, through the names' index (topo_index.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/topo_int.h"

void topo_free(struct topo *t)
{
	topo_index_free(t);
	free(t->nodes);
	free(t->links);
	memset(t, 0, sizeof(*t));
}

/* The node named by the @len bytes at @name (@prefix: the lowest whose
 * name begins with them and a blank), *count how many; -1 when none. */
static int topo_find(const struct topo *t, const char *name, size_t len, bool prefix,
		     size_t *count)
{
	int found = topo_index_find(t, name, len, prefix, count);

	if (found != -2)
		return found;
	found = -1;
	*count = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const char *v = t->nodes[i].name;

		if (strncmp(v, name, len) || v[len] != (prefix ? ' ' : '\0'))
			continue;
		found = found < 0 ? (int)i : found;
		++*count;
	}
	return found;
}

int topo_host(const struct topo *t, const char *name)
{
	const char *slash = strchr(name, '/');
	char ca[TOPO_NAME_MAX];
	size_t len = strlen(name), n;
	int v = topo_find(t, name, len, false, &n);

	if (v >= 0)
		return v;
	/* HOST/DEVICE: the CA whose node description is "HOST DEVICE" */
	if (slash) {
		if (len >= sizeof(ca))
			return -1;
		memcpy(ca, name, len + 1);
		ca[slash - name] = ' ';
		return topo_find(t, ca, len, false, &n);
	}
	v = len ? topo_find(t, name, len, true, &n) : -1;
	return n == 1 ? v : -1;	/* two nodes of that host: ambiguous */
}

size_t topo_host_devices(const struct topo *t, const char *name)
{
	size_t n = 0, len = strlen(name);

	if (len)
		topo_find(t, name, len, true, &n);
	return n;
}

/* The link of host node @v whose port on @v's side is @port, or -1. */
static int topo_rail_link(const struct topo *t, int v, const char *port)
{
	for (size_t l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];

		if ((k->a == v && !strcmp(k->a_port, port)) || (k->b == v && !strcmp(k->b_port, port)))
			return (int)l;
	}
	return -1;
}

int topo_endpoint(const struct topo *t, const char *name, struct topo_end *e)
{
	const char *slash = strchr(name, '/');
	char host[TOPO_NAME_MAX];

	e->link = -1;
	e->node = topo_host(t, name);
	if (e->node >= 0 || !slash || !slash[1] || (size_t)(slash - name) >= sizeof(host))
		return e->node >= 0 ? 0 : -1;
	snprintf(host, sizeof(host), "%.*s", (int)(slash - name), name);
	e->node = topo_host(t, host);
	if (e->node < 0 || t->nodes[e->node].is_switch)
		return -1;
	e->link = topo_rail_link(t, e->node, slash + 1);
	return e->link >= 0 ? 0 : -1;
}

bool topo_end_same(const struct topo_end *a, const struct topo_end *b)
{
	return a->node == b->node && (a->link < 0 || b->link < 0 || a->link == b->link);
}
