/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The paths a fabric really takes: a routes file (one path a line) or
 * InfiniBand linear forwarding tables as dump_lfts prints them, over a
 * topology. See topo_paths.h for the formats.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/errbuf.h"
#include "fabric/topo_int.h"
#include "fabric/topo_paths.h"

#define PATHS_LINE_MAX 4096
#define PATHS_MAX_LIDS 49152	/* the unicast LID space */

/* The end of the line at @p: its '\n' or the string's end. */
static const char *line_end(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl : p + strlen(p);
}

static int paths_error(const char *name, int line, char *err, size_t errlen, const char *what,
		       const char *a, const char *b)
{
	return errbuf_set(err, errlen, -EINVAL, "%s:%d: %s '%s'%s%s%s", name, line, what, a,
			  b ? " and '" : "", b ? b : "", b ? "'" : "");
}

/* The link of node @v at port @port (""), toward @w (-1: any); -1 if none,
 * -2 when several match and no port tells them apart. */
static int link_of(const struct topo *t, int v, const char *port, int w)
{
	int found = -1;

	for (size_t l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];
		const char *vp;
		int other;

		if (k->a == v) {
			vp = k->a_port;
			other = k->b;
		} else if (k->b == v) {
			vp = k->b_port;
			other = k->a;
		} else {
			continue;
		}
		if ((w >= 0 && other != w) || (*port && strcmp(vp, port)))
			continue;
		if (found >= 0)
			return -2;
		found = (int)l;
	}
	return found;
}

static int paths_add(struct topo_paths *r, int src, int dst, const int *links, size_t n)
{
	struct topo_path *p = realloc(r->paths, (r->n_paths + 1) * sizeof(*p));
	int *l;

	if (!p)
		return -ENOMEM;
	r->paths = p;
	l = realloc(r->links, (r->n_links + n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	r->links = l;
	memcpy(l + r->n_links, links, n * sizeof(*l));
	p[r->n_paths++] = (struct topo_path){ .src = src, .dst = dst, .off = r->n_links, .n = n,
		.first = links[0], .last = links[n - 1] };
	r->n_links += n;
	return 0;
}

/* Whether link @l joins nodes @v and @w. */
static bool link_joins(const struct topo *t, int l, int v, int w)
{
	const struct topo_link *k = &t->links[l];

	return (k->a == v && k->b == w) || (k->a == w && k->b == v);
}

/* The link from @prev (its end @pe, its port @port) to the node of @e:
 * a rail's own link when either end names one; -1 none, -2 several. */
static int routes_step(const struct topo *t, const struct topo_end *pe, const char *port,
		       const struct topo_end *e)
{
	int l = pe->link >= 0 ? pe->link : e->link;

	if (l >= 0)
		return link_joins(t, l, pe->node, e->node) ? l : -1;
	return link_of(t, pe->node, port, e->node);
}

/* One line of a routes file: its nodes, the links between them. */
static int routes_line(struct topo_paths *r, const char *name, int line, char *text, char *err,
		       size_t errlen)
{
	int links[TOPO_PORT_MAX * 8], first = -1, l;
	char *save, *w, *colon, prev_port[TOPO_PORT_MAX] = "", prev_name[TOPO_NAME_MAX] = "";
	struct topo_end prev = { -1, -1 }, e;
	size_t n = 0;

	for (w = strtok_r(text, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		colon = strchr(w, ':');
		if (colon)
			*colon = '\0';
		if (topo_endpoint(r->t, w, &e))
			return paths_error(name, line, err, errlen, "no node", w, NULL);
		if (prev.node >= 0) {
			l = routes_step(r->t, &prev, prev_port, &e);
			if (l == -1)
				return paths_error(name, line, err, errlen, "no link joins", prev_name,
						   w);
			if (l == -2)
				return paths_error(name, line, err, errlen, "several links join "
						   "(say the port as NODE:PORT)", prev_name, w);
			if (n == sizeof(links) / sizeof(*links))
				return paths_error(name, line, err, errlen, "too long a path from",
						   r->t->nodes[first].name, NULL);
			links[n++] = l;
		} else {
			first = e.node;
		}
		prev = e;
		if (n)
			prev.link = -1;	/* only the first node's rail says how it leaves */
		snprintf(prev_name, sizeof(prev_name), "%s", w);
		snprintf(prev_port, sizeof(prev_port), "%s", colon ? colon + 1 : "");
	}
	if (prev.node < 0)
		return 0;	/* a blank line */
	if (!n)
		return paths_error(name, line, err, errlen, "a path needs two nodes or more, not",
				   prev_name, NULL);
	return paths_add(r, first, prev.node, links, n) ?
	       errbuf_set(err, errlen, -ENOMEM, "%s: out of memory", name) : 0;
}

/* What a parser does with line @line of @name, @s without its newline. */
typedef int paths_line_fn(struct topo_paths *r, const char *name, int line, char *s, char *err,
			  size_t errlen);

/*
 * Each line of @text to @fn, numbered from 1, until @fn fails (its return).
 * A line of PATHS_LINE_MAX bytes or more is refused when @refuse_long
 * (-EINVAL, said in @err), else cut to fit.
 */
static int paths_each_line(struct topo_paths *r, const char *name, const char *text,
			   bool refuse_long, paths_line_fn *fn, char *err, size_t errlen)
{
	char buf[PATHS_LINE_MAX];
	const char *p = text, *nl;
	int line = 0, rc = 0;

	for (; *p && !rc; p = *nl ? nl + 1 : nl) {
		size_t len;

		nl = line_end(p);
		len = (size_t)(nl - p);
		line++;
		if (len >= sizeof(buf) && refuse_long)
			return paths_error(name, line, err, errlen, "line longer than", "4095", NULL);
		len = len < sizeof(buf) ? len : sizeof(buf) - 1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		rc = fn(r, name, line, buf, err, errlen);
	}
	return rc;
}

/* Paths by their ends, then by the links they leave and arrive by (the
 * rails of a host of several). */
static int path_cmp(const void *x, const void *y)
{
	const struct topo_path *a = x, *b = y;

	if (a->src != b->src)
		return (a->src > b->src) - (a->src < b->src);
	if (a->dst != b->dst)
		return (a->dst > b->dst) - (a->dst < b->dst);
	if (a->first != b->first)
		return (a->first > b->first) - (a->first < b->first);
	return (a->last > b->last) - (a->last < b->last);
}

/* A line of the paths file with its comment ("# ...") cut off. */
static int routes_commented_line(struct topo_paths *r, const char *name, int line, char *s,
				 char *err, size_t errlen)
{
	if (strchr(s, '#'))
		*strchr(s, '#') = '\0';
	return routes_line(r, name, line, s, err, errlen);
}

static int routes_parse(struct topo_paths *r, const char *name, const char *text, char *err,
			size_t errlen)
{
	int rc = paths_each_line(r, name, text, true, routes_commented_line, err, errlen);

	if (rc)
		return rc;
	if (!r->n_paths)
		return errbuf_set(err, errlen, -EINVAL, "%s: no path", name);
	qsort(r->paths, r->n_paths, sizeof(*r->paths), path_cmp);
	for (size_t i = 1; i < r->n_paths; i++)
		if (!path_cmp(&r->paths[i - 1], &r->paths[i]))
			return errbuf_set(err, errlen, -EINVAL, "%s: two paths from '%s' to '%s'",
					  name, r->t->nodes[r->paths[i].src].name,
					  r->t->nodes[r->paths[i].dst].name);
	return 0;
}

/* ------------------------------------------------------------------ */
/* InfiniBand forwarding tables                                        */
/* ------------------------------------------------------------------ */

/* "Unicast lids [...] of switch Lid N guid 0x... (DESC):": the switch. */
static int lft_header(struct topo_paths *r, const char *name, int line, char *s, char *err,
		      size_t errlen)
{
	char *open = strstr(s, " guid "), *close = strrchr(s, ')');
	struct topo_lft *f;
	int v;

	open = open ? strchr(open, '(') : NULL;
	if (!open || !close || close < open)
		return paths_error(name, line, err, errlen, "no switch name in", s, NULL);
	*close = '\0';
	v = topo_host(r->t, open + 1);
	if (v < 0 || !r->t->nodes[v].is_switch)
		return paths_error(name, line, err, errlen, "no switch in the topology named",
				   open + 1, NULL);
	f = array_push((void **)&r->lfts, &r->n_lfts, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->node = v;
	return 0;
}

/* Grow a table of LIDs to hold @lid, new entries -1. */
static int lid_grow(int **v, size_t *n, size_t lid)
{
	int *g;

	if (lid < *n)
		return 0;
	g = realloc(*v, (lid + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (size_t i = *n; i <= lid; i++)
		g[i] = -1;
	*v = g;
	*n = lid + 1;
	return 0;
}

/* "0x0002 001 : (Channel Adapter portguid 0x...: 'h1 mlx5_0')": an entry. */
static int lft_entry(struct topo_paths *r, const char *name, int line, char *s, char *err,
		     size_t errlen)
{
	struct topo_lft *f = &r->lfts[r->n_lfts - 1];
	char *q = strchr(s, '\''), *qe = strrchr(s, '\'');
	unsigned lid, port;
	int v;

	if (sscanf(s, "%x %u", &lid, &port) != 2 || lid >= PATHS_MAX_LIDS || port > 255)
		return paths_error(name, line, err, errlen, "bad forwarding entry", s, NULL);
	if (lid_grow(&f->port, &f->n_lids, lid))
		return -ENOMEM;
	f->port[lid] = (int)port;
	if (!q || qe == q)
		return 0;	/* "(unknown node and type)" */
	*qe = '\0';
	v = topo_host(r->t, q + 1);
	if (v < 0)
		return 0;	/* a node the topology leaves out */
	if (lid_grow(&r->lid_node, &r->n_lids, lid))
		return -ENOMEM;
	r->lid_node[lid] = v;
	return 0;
}

/* A line of ibroute's output: a switch's header, one of its entries, or neither. */
static int lft_line(struct topo_paths *r, const char *name, int line, char *s, char *err,
		    size_t errlen)
{
	if (strstr(s, "Unicast lids"))
		return lft_header(r, name, line, s, err, errlen);
	if (!strncmp(s, "0x", 2) && r->n_lfts)
		return lft_entry(r, name, line, s, err, errlen);
	return 0;
}

static int lft_parse(struct topo_paths *r, const char *name, const char *text, char *err,
		     size_t errlen)
{
	int rc = paths_each_line(r, name, text, false, lft_line, err, errlen);

	if (rc == -ENOMEM)
		return errbuf_set(err, errlen, rc, "%s: out of memory", name);
	return rc;
}

/* The first LID of node @v, or -1. */
static int lid_of(const struct topo_paths *r, int v)
{
	for (size_t lid = 1; lid < r->n_lids; lid++)
		if (r->lid_node[lid] == v)
			return (int)lid;
	return -1;
}

static const struct topo_lft *lft_of(const struct topo_paths *r, int v)
{
	for (size_t i = 0; i < r->n_lfts; i++)
		if (r->lfts[i].node == v)
			return &r->lfts[i];
	return NULL;
}

/* Walk the tables from @src to @dst. */
static int lft_walk(const struct topo_paths *r, const struct topo_end *from, int dst,
		    int *links, size_t max, size_t *n, char *err, size_t errlen)
{
	const struct topo *t = r->t;
	int src = from->node, lid = lid_of(r, dst), v = src;
	int l = from->link >= 0 ? from->link : link_of(t, src, "", -1);
	char port[16];

	if (lid < 0)
		return errbuf_set(err, errlen, -ENOENT, "the forwarding tables give '%s' no LID",
				  t->nodes[dst].name);
	if (l == -2)	/* a CA of several ports: its first link */
		for (l = 0; t->links[l].a != src && t->links[l].b != src; l++)
			;
	while (l >= 0) {
		const struct topo_lft *f;

		if (*n == max)
			return errbuf_set(err, errlen, -ELOOP, "the forwarding tables loop from '%s' "
					  "to '%s'", t->nodes[src].name, t->nodes[dst].name);
		links[(*n)++] = l;
		v = t->links[l].a == v ? t->links[l].b : t->links[l].a;
		if (v == dst)
			return 0;
		f = lft_of(r, v);
		if (!f || (size_t)lid >= f->n_lids || f->port[lid] <= 0)
			break;
		snprintf(port, sizeof(port), "%d", f->port[lid]);
		l = link_of(t, v, port, -1);
	}
	return errbuf_set(err, errlen, -ENOENT, "switch '%s' has no link toward '%s' (lid %d) in "
			  "its forwarding table", t->nodes[v].name, t->nodes[dst].name, lid);
}

/* ------------------------------------------------------------------ */

int topo_paths_parse(struct topo_paths *r, const struct topo *t, const char *name,
		     const char *text, char *err, size_t errlen)
{
	bool lft = strstr(text, "Unicast lids") != NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	r->t = t;
	snprintf(r->source, sizeof(r->source), "%s", lft ? "lft" : "routes");
	rc = lft ? lft_parse(r, name, text, err, errlen) : routes_parse(r, name, text, err, errlen);
	if (!rc && lft && !r->n_lids)
		rc = errbuf_set(err, errlen, -EINVAL, "%s: no LID of the topology's nodes", name);
	if (rc)
		topo_paths_free(r);
	return rc;
}

int topo_paths_read(struct topo_paths *r, const struct topo *t, const char *path, char *err,
		    size_t errlen)
{
	char *text = NULL;
	int rc = topo_read_text(path, &text, err, errlen);

	if (!rc)
		rc = topo_paths_parse(r, t, path, text, err, errlen);
	free(text);
	return rc;
}

/* Whether path @p leaves and arrives by the rails @src and @dst ask for. */
static bool path_fits(const struct topo_path *p, const struct topo_end *src,
		      const struct topo_end *dst)
{
	return p->src == src->node && p->dst == dst->node &&
	       (src->link < 0 || p->first == src->link) && (dst->link < 0 || p->last == dst->link);
}

int topo_paths_get_end(const struct topo_paths *r, const struct topo_end *src,
		       const struct topo_end *dst, int *links, size_t max, size_t *n, char *err,
		       size_t errlen)
{
	const struct topo_path key = { .src = src->node, .dst = dst->node, .first = INT_MIN,
		.last = INT_MIN }, *p;
	size_t lo = 0, hi = r->n_paths;

	*n = 0;
	if (r->n_lfts)
		return lft_walk(r, src, dst->node, links, max, n, err, errlen);
	while (lo < hi) {	/* the first path not before @key */
		size_t mid = lo + (hi - lo) / 2;

		if (path_cmp(&r->paths[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (p = r->paths + lo; p < r->paths + r->n_paths && !path_fits(p, src, dst) &&
	     p->src == src->node && p->dst == dst->node; p++)
		;
	if (p == r->paths + r->n_paths || !path_fits(p, src, dst))
		return errbuf_set(err, errlen, -ENOENT, "the routes give no path from '%s' to '%s'",
				  r->t->nodes[src->node].name, r->t->nodes[dst->node].name);
	if (p->n > max)
		return errbuf_set(err, errlen, -ELOOP, "the path from '%s' to '%s' has more than "
				  "%zu links", r->t->nodes[src->node].name, r->t->nodes[dst->node].name,
				  max);
	memcpy(links, r->links + p->off, p->n * sizeof(*links));
	*n = p->n;
	return 0;
}

int topo_paths_get(const struct topo_paths *r, int src, int dst, int *links, size_t max,
		   size_t *n, char *err, size_t errlen)
{
	const struct topo_end s = { src, -1 }, d = { dst, -1 };

	return topo_paths_get_end(r, &s, &d, links, max, n, err, errlen);
}

void topo_paths_free(struct topo_paths *r)
{
	for (size_t i = 0; i < r->n_lfts; i++)
		free(r->lfts[i].port);
	free(r->lfts);
	free(r->paths);
	free(r->links);
	free(r->lid_node);
	memset(r, 0, sizeof(*r));
}
