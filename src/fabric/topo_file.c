/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The simple topology file: one link a line, its two ends as NODE or
 * NODE:PORT ("h1 sw1:eth1", "sw1:eth3 sw2:eth3"), '#' starts a comment.
 * "switch NAME..." and "host NAME..." lines say what a node is; a node
 * not declared is a switch when it has several links, a host otherwise.
 * Every error names the file and the line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "fabric/topo_int.h"

#define FILE_LINE_MAX 4096

/* A word's node and port: "NAME" or "NAME:PORT". */
static int file_end(struct topo_src *s, int line, char *word, bool is_switch,
		    const char **port)
{
	char *colon = strchr(word, ':');

	*port = "";
	if (colon) {
		*colon = '\0';
		*port = colon + 1;
		if (!**port || strchr(*port, ':'))
			return topo_src_error(s, line, "bad port in '%s:%s' (NODE:PORT)", word,
					      *port);
	}
	return topo_src_node(s, line, word, is_switch);
}

/* A "switch ..." or "host ..." declaration; hosts noted in @hosts. */
static int file_declare(struct topo_src *s, int line, char *rest, bool is_switch,
			bool **hosts, size_t *n_hosts)
{
	char *save, *w;
	int v, n = 0;

	for (w = strtok_r(rest, " \t", &save); w; w = strtok_r(NULL, " \t", &save), n++) {
		if (strchr(w, ':'))
			return topo_src_error(s, line, "'%s': a declaration names nodes, not ports", w);
		v = topo_src_node(s, line, w, is_switch);
		if (v < 0)
			return v;
		if (!is_switch && s->t->nodes[v].is_switch)
			return topo_src_error(s, line, "'%s' declared a host, but is a switch", w);
		if ((size_t)v >= *n_hosts) {
			size_t want = (size_t)v + 1 > 2 * *n_hosts ? (size_t)v + 1 : 2 * *n_hosts;
			bool *h = realloc(*hosts, want * sizeof(*h));

			if (!h)
				return errbuf_set(s->err, s->errlen, -ENOMEM,
						  "%s: out of memory", s->name);
			memset(h + *n_hosts, 0, (want - *n_hosts) * sizeof(*h));
			*hosts = h;
			*n_hosts = want;
		}
		(*hosts)[v] |= !is_switch;
	}
	return n ? 0 : topo_src_error(s, line, "'%s' names no node", is_switch ? "switch" : "host");
}

/* One line without its comment: a declaration, a link, or nothing. */
static int file_line(struct topo_src *s, int line, char *text, bool **hosts, size_t *n_hosts)
{
	char *save, *w[3];
	const char *pa, *pb;
	int a, b;

	w[0] = strtok_r(text, " \t\r", &save);
	if (!w[0])
		return 0;
	if (!strcmp(w[0], "switch") || !strcmp(w[0], "host"))
		return file_declare(s, line, save, w[0][0] == 's', hosts, n_hosts);
	w[1] = strtok_r(NULL, " \t\r", &save);
	w[2] = strtok_r(NULL, " \t\r", &save);
	if (!w[1] || w[2])
		return topo_src_error(s, line, "want a link as two ends, 'A B' or 'A:PORT B:PORT'");
	a = file_end(s, line, w[0], false, &pa);
	if (a < 0)
		return a;
	b = file_end(s, line, w[1], false, &pb);
	if (b < 0)
		return b;
	return topo_src_link(s, line, a, pa, b, pb, false);
}

/* Nodes on this source's links (from link @first on) that have several
 * links and were not declared hosts become switches. 0 or -ENOMEM. */
static int file_infer(struct topo_src *s, size_t first, const bool *hosts, size_t n_hosts)
{
	struct topo *t = s->t;
	size_t i, *deg = malloc((t->n_nodes + 1) * sizeof(*deg));

	if (!deg)
		return errbuf_set(s->err, s->errlen, -ENOMEM, "%s: out of memory", s->name);
	topo_degrees(t, deg);
	for (i = first; i < t->n_links; i++) {
		int ends[2] = { t->links[i].a, t->links[i].b };

		for (int e = 0; e < 2; e++) {
			int v = ends[e];

			if (((size_t)v >= n_hosts || !hosts[v]) && deg[v] > 1)
				t->nodes[v].is_switch = true;
		}
	}
	free(deg);
	return 0;
}

int topo_file_parse(struct topo_src *s, const char *text)
{
	char buf[FILE_LINE_MAX];
	size_t first = s->t->n_links, n_hosts = 0;
	bool *hosts = NULL;
	int line = 0, rc = 0;

	while (*text && !rc) {
		const char *end = strchr(text, '\n');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		char *hash;

		line++;
		if (len >= sizeof(buf)) {
			rc = topo_src_error(s, line, "line longer than %d characters", FILE_LINE_MAX - 1);
			break;
		}
		memcpy(buf, text, len);
		buf[len] = '\0';
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		rc = file_line(s, line, buf, &hosts, &n_hosts);
		text += len + (end != NULL);
	}
	if (!rc)
		rc = file_infer(s, first, hosts, n_hosts);
	free(hosts);
	return rc;
}
