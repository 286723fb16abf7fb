/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The topology dispatcher: it tells each source's format, reads the file,
 * hands it to its reader, and keeps what every reader adds consistent
 * (one node per name, one link per pair of ends, link names). Above the
 * readers (topo_file.c, topo_ib.c, topo_lldp.c), which only call the
 * helpers here through topo_int.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/errbuf.h"
#include "fabric/topo_int.h"

#define TOPO_FILE_MAX_BYTES (64u << 20)

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

/* Room for one more of @n items of @size in *@arr (@cap of them now),
 * doubling: 0 or -ENOMEM. */
static int topo_room(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? 2 * *cap : 64;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*arr, want * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = want;
	return 0;
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
	    topo_room((void **)&t->nodes, &t->nodes_cap, t->n_nodes, sizeof(*t->nodes)))
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
	if (topo_room((void **)&t->links, &t->links_cap, t->n_links, sizeof(*t->links)))
		return errbuf_set(s->err, s->errlen, -ENOMEM, "%s: out of memory", s->name);
	l = &t->links[t->n_links++];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	strcpy(l->a_port, a_port);
	strcpy(l->b_port, b_port);
	return 0;
}

const char *topo_detect(const char *text)
{
	const char *p = text;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p == '{' || *p == '[')
		return "lldp";
	return topo_ib_detect(text) ? "ibnetdiscover" : "file";
}

/* One end of a link as shown: "node" or "node:port" (a switch, or a
 * node with several links by @deg, names its port when known). */
static void end_name(const struct topo *t, const size_t *deg, int v, const char *port,
		     char *out, size_t len)
{
	if (port[0] && (t->nodes[v].is_switch || deg[v] > 1))
		snprintf(out, len, "%s:%s", t->nodes[v].name, port);
	else
		snprintf(out, len, "%s", t->nodes[v].name);
}

/* Name every link from its ends, the host's first, once all sources
 * are in (a reader may learn what a node is after its links). 0 or
 * -ENOMEM. */
static int name_links(struct topo *t)
{
	char a[TOPO_NAME_MAX + TOPO_PORT_MAX], b[TOPO_NAME_MAX + TOPO_PORT_MAX];
	size_t i, *deg = malloc((t->n_nodes + 1) * sizeof(*deg));

	if (!deg)
		return -ENOMEM;
	topo_degrees(t, deg);

	for (i = 0; i < t->n_links; i++) {
		struct topo_link *l = &t->links[i];

		if (t->nodes[l->a].is_switch && !t->nodes[l->b].is_switch) {
			struct topo_link k = *l;

			l->a = k.b;
			l->b = k.a;
			memcpy(l->a_port, k.b_port, sizeof(l->a_port));
			memcpy(l->b_port, k.a_port, sizeof(l->b_port));
		}

		end_name(t, deg, l->a, l->a_port, a, sizeof(a));
		end_name(t, deg, l->b, l->b_port, b, sizeof(b));
		snprintf(l->name, sizeof(l->name), "%.78s - %.78s", a, b);
	}
	free(deg);
	return 0;
}

int topo_parse(struct topo *t, const char *name, const char *text, const char *format,
	       const char *host, char *err, size_t errlen)
{
	struct topo_src s = { .name = name, .t = t, .err = err, .errlen = errlen };
	int rc;

	if (!format)
		format = topo_detect(text);
	if (!strcmp(format, "ibnetdiscover"))
		rc = topo_ib_parse(&s, text);
	else if (!strcmp(format, "lldp"))
		rc = topo_lldp_parse(&s, text, host);
	else if (!strcmp(format, "file"))
		rc = topo_file_parse(&s, text);
	else
		return errbuf_set(err, errlen, -EINVAL,
				  "unknown topology format '%s' (ibnetdiscover, lldp, file)", format);
	topo_src_release(&s);
	topo_index_free(t);
	if (!rc && (name_links(t) || topo_index_build(t)))
		rc = errbuf_set(err, errlen, -ENOMEM, "%s: out of memory", name);
	return rc;
}

/* The whole of @path, NUL-terminated, into *text (a NUL inside is refused). */
int topo_read_text(const char *path, char **text, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	size_t len;
	char *buf;

	if (!f)
		return errbuf_set(err, errlen, -errno, "cannot open '%s': %s", path, strerror(errno));
	buf = malloc(TOPO_FILE_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return errbuf_set(err, errlen, -ENOMEM, "out of memory reading '%s'", path);
	}
	len = fread(buf, 1, TOPO_FILE_MAX_BYTES + 1, f);
	if (ferror(f) || len > TOPO_FILE_MAX_BYTES || memchr(buf, '\0', len)) {
		int bad = ferror(f);

		fclose(f);
		free(buf);
		return errbuf_set(err, errlen, -EINVAL, "'%s': %s", path,
				  bad ? "read error" : len > TOPO_FILE_MAX_BYTES ?
				  "larger than 64 MiB" : "not text (holds a NUL byte)");
	}
	fclose(f);
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/*
 * One path argument: FILE, or HOST=FILE for an lldp file that does not
 * name its own chassis (taken as HOST=FILE only when FILE exists and
 * the whole argument does not).
 */
static void split_host(const char *arg, char *host, size_t hostlen, const char **path)
{
	const char *eq = strchr(arg, '=');
	struct stat st;

	host[0] = '\0';
	*path = arg;
	if (!eq || (size_t)(eq - arg) >= hostlen || !stat(arg, &st) || stat(eq + 1, &st))
		return;
	memcpy(host, arg, (size_t)(eq - arg));
	host[eq - arg] = '\0';
	*path = eq + 1;
}

int topo_read(struct topo *t, const char *const *paths, size_t n_paths,
	      const char *format, char *err, size_t errlen)
{
	char host[TOPO_NAME_MAX];
	const char *path;
	size_t i;
	int rc = 0;

	if (!n_paths)
		return errbuf_set(err, errlen, -EINVAL, "no topology file given");
	for (i = 0; i < n_paths && !rc; i++) {
		char *text = NULL;

		split_host(paths[i], host, sizeof(host), &path);
		rc = topo_read_text(path, &text, err, errlen);
		if (rc)
			break;
		rc = topo_parse(t, path, text, format, host[0] ? host : NULL, err, errlen);
		free(text);
	}
	if (!rc && !t->n_links)
		rc = errbuf_set(err, errlen, -EINVAL, "'%s': no link in the topology", paths[0]);
	if (rc)
		topo_free(t);
	return rc;
}

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
