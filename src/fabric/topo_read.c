/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The topology dispatcher: it tells each source's format, reads the file,
 * hands it to its reader (topo_file.c, topo_ib.c, topo_lldp.c) and names
 * every link once all sources are in. Nothing below calls back up here:
 * the readers add through topo_src.c, and the queries (topo_query.c)
 * read what they built.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/errbuf.h"
#include "fabric/topo_int.h"

#define TOPO_FILE_MAX_BYTES (64u << 20)

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
