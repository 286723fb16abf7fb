/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What a topology reader adds through (topo_int.h): one node per name,
 * one link per pair of ends, each refusal named at its source's line.
 * Below the readers (topo_file.c, topo_ib.c, topo_lldp.c) and the
 * dispatcher (topo_read.c); above only the names' table (topo_index.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/errbuf.h"
#include "fabric/topo_int.h"

int topo_src_error(struct topo_src *s, int line, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line > 0)
		return errbuf_set(s->err, s->errlen, -EINVAL, "%s:%d: %s", s->name, line, what);
	return errbuf_set(s->err, s->errlen, -EINVAL, "%s: %s", s->name, what);
}

int topo_src_node(struct topo_src *s, int line, const char *name, bool is_switch)
{
	struct topo *t = s->t;
	size_t len = strlen(name);
	int v;

	if (!len || len >= TOPO_NAME_MAX)
		return topo_src_error(s, line, "node name '%.40s%s' is %s", name,
				      len > 40 ? "..." : "", len ? "too long" : "empty");
	v = topo_names_find(&s->names, t, name);
	if (v >= 0) {
		t->nodes[v].is_switch |= is_switch;
		return v;
	}
	if (t->n_nodes >= (size_t)1 << 24)
		return topo_src_error(s, line, "more than %d nodes", 1 << 24);
	if (v == -ENOMEM ||
	    array_room((void **)&t->nodes, &t->nodes_cap, t->n_nodes + 1, sizeof(*t->nodes), 64))
		return errbuf_set(s->err, s->errlen, -ENOMEM, "%s: out of memory", s->name);
	memset(&t->nodes[t->n_nodes], 0, sizeof(*t->nodes));
	memcpy(t->nodes[t->n_nodes].name, name, len + 1);
	t->nodes[t->n_nodes].is_switch = is_switch;
	return (int)t->n_nodes++;
}

void topo_src_release(struct topo_src *s)
{
	topo_names_free(&s->names);
}

/* Whether link @l joins (a, a_port) and (b, b_port), either way round. */
static bool link_same(const struct topo_link *l, int a, const char *a_port, int b,
		      const char *b_port)
{
	if (l->a == a && l->b == b && !strcmp(l->a_port, a_port) && !strcmp(l->b_port, b_port))
		return true;
	return l->a == b && l->b == a && !strcmp(l->a_port, b_port) && !strcmp(l->b_port, a_port);
}

int topo_src_link(struct topo_src *s, int line, int a, const char *a_port,
		  int b, const char *b_port, bool dedup)
{
	struct topo *t = s->t;
	struct topo_link *l;
	size_t i;

	a_port = a_port ? a_port : "";
	b_port = b_port ? b_port : "";
	if (strlen(a_port) >= TOPO_PORT_MAX || strlen(b_port) >= TOPO_PORT_MAX)
		return topo_src_error(s, line, "port name longer than %d characters",
				      TOPO_PORT_MAX - 1);
	if (a == b)
		return topo_src_error(s, line, "'%s' linked to itself", t->nodes[a].name);
	for (i = 0; dedup && i < t->n_links; i++)
		if (link_same(&t->links[i], a, a_port, b, b_port))
			return 0;
	if (t->n_links >= (size_t)1 << 24)
		return topo_src_error(s, line, "more than %d links", 1 << 24);
	if (array_room((void **)&t->links, &t->links_cap, t->n_links + 1, sizeof(*t->links), 64))
		return errbuf_set(s->err, s->errlen, -ENOMEM, "%s: out of memory", s->name);
	l = &t->links[t->n_links++];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	strcpy(l->a_port, a_port);
	strcpy(l->b_port, b_port);
	return 0;
}
