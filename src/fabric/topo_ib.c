/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The reader of ibnetdiscover's default output (infiniband-diags). A node
 * is a header line, then one line per connected port:
 *
 *   Switch	8 "S-0000000000200000"		# "sw1" base port 0 lid 1 lmc 0
 *   [1]	"H-0000000000100000"[1](100001) 		# "h1" lid 2 4xSDR
 *   Ca	1 "H-0000000000100000"		# "h1"
 *   [1](100001) 	"S-0000000000200000"[1]		# lid 2 lmc 0 "sw1" lid 1 4xSDR
 *
 * A node is named by its node description (the quoted text after '#'),
 * or by its id when the description is empty or shared by several
 * nodes. Every link is printed from both its ends: it is kept once. The
 * vendid=, devid=, *guid= lines, comments and -g's "Non-Chassis Nodes"
 * are skipped; a line that is none of these is refused with its file:line.
 *
 * ibnetdiscover -p (one port a line) is read too:
 *
 *   SW     1  8 0x0000000000200000 4x SDR - SW     3  8 0x0000000000200001 ( 'sw1' - 'sw2' )
 *   SW     1  7 0x0000000000200000 4x SDR                                    'sw1'
 *
 * a node named by its description, or its GUID when that is shared; an
 * unconnected port has no link.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/errbuf.h"
#include "fabric/topo_int.h"

#define IB_LINE_MAX 4096
#define IB_ID_MAX 64

struct ib_node {
	char id[IB_ID_MAX];
	char desc[TOPO_NAME_MAX];
	bool is_switch;
};

struct ib_nodes {
	struct ib_node *v;
	size_t n;
};

/* Skip blanks. */
static const char *ib_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* A "quoted" string at @p into @out (at most @len - 1 characters): the
 * character after the closing quote, or NULL. */
static const char *ib_quoted(const char *p, char *out, size_t len)
{
	const char *end;

	if (*p != '"')
		return NULL;
	end = strchr(p + 1, '"');
	if (!end || (size_t)(end - p - 1) >= len)
		return NULL;
	memcpy(out, p + 1, (size_t)(end - p - 1));
	out[end - p - 1] = '\0';
	return end + 1;
}

/* "[N]" then an optional "(hex)": the port's digits into @out. */
static const char *ib_port(const char *p, char *out, size_t len)
{
	size_t n = 0;

	if (*p++ != '[')
		return NULL;
	while (*p >= '0' && *p <= '9' && n + 1 < len)
		out[n++] = *p++;
	out[n] = '\0';
	if (!n || *p++ != ']')
		return NULL;
	if (*p == '(') {
		p = strchr(p, ')');
		if (!p)
			return NULL;
		p++;
	}
	return p;
}

/* A node header: "Switch|Ca|Rt N "id" [# "desc" ...]". */
static bool ib_header(const char *line, struct ib_node *node)
{
	const char *p = line;
	size_t kind;

	kind = !strncmp(p, "Switch", 6) ? 6 : (!strncmp(p, "Ca", 2) || !strncmp(p, "Rt", 2)) ? 2 : 0;
	if (!kind || (p[kind] != ' ' && p[kind] != '\t'))
		return false;
	memset(node, 0, sizeof(*node));
	node->is_switch = kind == 6;
	p = ib_blank(p + kind);
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	p = ib_quoted(ib_blank(p), node->id, sizeof(node->id));
	if (!p || !node->id[0])
		return false;
	p = ib_blank(p);
	if (*p == '#' && !ib_quoted(ib_blank(p + 1), node->desc, sizeof(node->desc)))
		node->desc[0] = '\0';
	return true;
}

/* The name of the node with @id: its description when that is unique,
 * else its id; @fallback (the description a port line's comment gives)
 * for a node with no header. */
static const char *ib_name(const struct ib_nodes *ns, const char *id, const char *fallback)
{
	const struct ib_node *me = NULL;
	size_t i, same = 0;

	for (i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i].id, id))
			me = &ns->v[i];
	if (!me)
		return fallback[0] ? fallback : id;
	for (i = 0; i < ns->n && me->desc[0]; i++)
		same += !strcmp(ns->v[i].desc, me->desc);
	return me->desc[0] && same == 1 ? me->desc : me->id;
}

/* Whether the node with @id is a switch: its header, else its id's prefix. */
static bool ib_is_switch(const struct ib_nodes *ns, const char *id)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i].id, id))
			return ns->v[i].is_switch;
	return !strncmp(id, "S-", 2);
}

/* Pass 1: every node header. */
static int ib_collect(struct topo_src *s, const char *text, struct ib_nodes *ns)
{
	char line[IB_LINE_MAX];
	struct ib_node node;

	while (*text) {
		const char *end = strchr(text, '\n');
		size_t len = end ? (size_t)(end - text) : strlen(text);

		if (len < sizeof(line)) {
			memcpy(line, text, len);
			line[len] = '\0';
			if (ib_header(line, &node)) {
				struct ib_node *v = array_push((void **)&ns->v, &ns->n, sizeof(*v));

				if (!v)
					return errbuf_set(s->err, s->errlen, -ENOMEM,
							  "%s: out of memory", s->name);
				*v = node;
			}
		}
		text += len + (end != NULL);
	}
	return 0;
}

/* A port line of node @cur: its link. */
static int ib_port_line(struct topo_src *s, int line, const struct ib_nodes *ns,
			const struct ib_node *cur, const char *p)
{
	char port[16], rport[16], rid[IB_ID_MAX], rdesc[TOPO_NAME_MAX] = "";
	const char *hash;
	int a, b;

	p = ib_port(p, port, sizeof(port));
	if (p)
		p = ib_quoted(ib_blank(p), rid, sizeof(rid));
	if (p)
		p = ib_port(p, rport, sizeof(rport));
	if (!p || !rid[0])
		return topo_src_error(s, line, "bad port line (want [N] \"id\"[M])");
	hash = strchr(p, '#');
	if (hash) {
		const char *q = strchr(hash, '"');

		if (!q || !ib_quoted(q, rdesc, sizeof(rdesc)))
			rdesc[0] = '\0';
	}
	a = topo_src_node(s, line, ib_name(ns, cur->id, ""), cur->is_switch);
	if (a < 0)
		return a;
	b = topo_src_node(s, line, ib_name(ns, rid, rdesc), ib_is_switch(ns, rid));
	if (b < 0)
		return b;
	return topo_src_link(s, line, a, port, b, rport, true);
}

/* Whether @line is one ibnetdiscover prints that carries no link. */
static bool ib_skip(const char *line)
{
	static const char *const keys[] = {
		"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "rtguid=",
	};
	size_t i;

	line = ib_blank(line);
	if (!*line || *line == '#' || !strncmp(line, "Non-Chassis Nodes", 17) ||
	    !strncmp(line, "Chassis ", 8))
		return true;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strncmp(line, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/* Pass 2: each line, the links of the node whose header came last. */
static int ib_links(struct topo_src *s, const char *text, const struct ib_nodes *ns)
{
	char line[IB_LINE_MAX];
	struct ib_node cur;
	bool have = false;
	int n = 0, rc = 0;

	while (*text && !rc) {
		const char *end = strchr(text, '\n');
		size_t len = end ? (size_t)(end - text) : strlen(text);

		n++;
		if (len >= sizeof(line))
			return topo_src_error(s, n, "line longer than %d characters", IB_LINE_MAX - 1);
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (end != NULL);
		if (ib_header(line, &cur))
			have = true;
		else if (line[0] == '[' && have)
			rc = ib_port_line(s, n, ns, &cur, line);
		else if (!ib_skip(line))
			rc = topo_src_error(s, n, "not ibnetdiscover output: '%.40s'", line);
	}
	return rc;
}

/* One end of a -p line: "SW|CA|RT LID PORT 0xGUID" at *p; the GUID
 * into @guid, the port into @port. */
static const char *ports_end(const char *p, bool *is_switch, char *port, size_t plen,
			     char *guid, size_t glen)
{
	size_t n;

	p = ib_blank(p);
	if (strncmp(p, "SW ", 3) && strncmp(p, "CA ", 3) && strncmp(p, "RT ", 3))
		return NULL;
	*is_switch = p[0] == 'S';
	p = ib_blank(p + 3);
	p += strspn(p, "0123456789");			/* the LID */
	p = ib_blank(p);
	n = strspn(p, "0123456789");
	if (!n || n >= plen)
		return NULL;
	memcpy(port, p, n);
	port[n] = '\0';
	p = ib_blank(p + n);
	n = strncmp(p, "0x", 2) ? 0 : 2 + strspn(p + 2, "0123456789abcdefABCDEF");
	if (n < 3 || n >= glen)
		return NULL;
	memcpy(guid, p, n);
	guid[n] = '\0';
	return p + n;
}

/* The two descriptions of "( 'A' - 'B' )" at the end of a -p line. */
static bool ports_descs(const char *p, char *a, char *b, size_t len)
{
	const char *open = strstr(p, "( '"), *mid, *end;

	if (!open)
		return false;
	open += 3;
	mid = strstr(open, "' - '");
	end = mid ? strstr(mid + 5, "' )") : NULL;
	if (!end || (size_t)(mid - open) >= len || (size_t)(end - mid - 5) >= len)
		return false;
	memcpy(a, open, (size_t)(mid - open));
	a[mid - open] = '\0';
	memcpy(b, mid + 5, (size_t)(end - mid - 5));
	b[end - mid - 5] = '\0';
	return true;
}

/* Whether @text is ibnetdiscover -p output (its first line is a port). */
static bool ports_detect(const char *text)
{
	char port[16], guid[IB_ID_MAX];
	bool sw;

	return ports_end(text, &sw, port, sizeof(port), guid, sizeof(guid)) != NULL;
}

/* Note node @guid with @desc (pass 1 of -p). */
static int ports_note(struct topo_src *s, struct ib_nodes *ns, const char *guid,
		      const char *desc, bool is_switch)
{
	struct ib_node *v;
	size_t i;

	for (i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i].id, guid))
			return 0;
	v = array_push((void **)&ns->v, &ns->n, sizeof(*v));
	if (!v)
		return errbuf_set(s->err, s->errlen, -ENOMEM, "%s: out of memory", s->name);
	snprintf(v->id, sizeof(v->id), "%s", guid);
	snprintf(v->desc, sizeof(v->desc), "%s", desc);
	v->is_switch = is_switch;
	return 0;
}

/* One -p line: 0 and, on pass 2, its link. */
static int ports_line(struct topo_src *s, int line, const char *text, struct ib_nodes *ns,
		      bool link)
{
	char port[16], rport[16], guid[IB_ID_MAX], rguid[IB_ID_MAX];
	char desc[TOPO_NAME_MAX], rdesc[TOPO_NAME_MAX];
	const char *p, *dash, *paren;
	bool sw, rsw;
	int a, b, rc;

	p = ports_end(text, &sw, port, sizeof(port), guid, sizeof(guid));
	if (!p)
		return topo_src_error(s, line, "not ibnetdiscover -p output: '%.40s'", text);
	paren = strstr(p, "( '");
	if (!paren) {	/* a port with nothing at its other end: "... 'desc'" */
		size_t n = strlen(p);

		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (n && p[n - 1] == '\'')
			return 0;
	}
	dash = strstr(p, " - ");
	if (!paren || !dash || dash > paren ||
	    !ports_end(dash + 3, &rsw, rport, sizeof(rport), rguid, sizeof(rguid)) ||
	    !ports_descs(dash, desc, rdesc, sizeof(desc)))
		return topo_src_error(s, line, "bad port line (want ... - TYPE LID PORT GUID "
				      "( 'a' - 'b' ))");
	if (!link) {
		rc = ports_note(s, ns, guid, desc, sw);
		return rc ? rc : ports_note(s, ns, rguid, rdesc, rsw);
	}
	a = topo_src_node(s, line, ib_name(ns, guid, ""), sw);
	if (a < 0)
		return a;
	b = topo_src_node(s, line, ib_name(ns, rguid, ""), rsw);
	return b < 0 ? b : topo_src_link(s, line, a, port, b, rport, true);
}

/* ibnetdiscover -p: pass 1 the nodes, pass 2 the links. */
static int ports_parse(struct topo_src *s, const char *text)
{
	struct ib_nodes ns = { 0 };
	char line[IB_LINE_MAX];
	int rc = 0;

	for (int pass = 0; pass < 2 && !rc; pass++) {
		const char *t = text;
		int n = 0;

		while (*t && !rc) {
			const char *end = strchr(t, '\n');
			size_t len = end ? (size_t)(end - t) : strlen(t);

			n++;
			if (len >= sizeof(line)) {
				rc = topo_src_error(s, n, "line longer than %d characters",
						    IB_LINE_MAX - 1);
				break;
			}
			memcpy(line, t, len);
			line[len] = '\0';
			t += len + (end != NULL);
			if (*ib_blank(line))
				rc = ports_line(s, n, line, &ns, pass == 1);
		}
	}
	free(ns.v);
	return rc;
}

/* @text past its blank lines. */
static const char *ib_blank_lines(const char *text)
{
	while (*text == ' ' || *text == '\t' || *text == '\r' || *text == '\n')
		text++;
	return text;
}

bool topo_ib_detect(const char *text)
{
	struct ib_node node;

	if (ports_detect(ib_blank_lines(text)))
		return true;

	while (*text) {
		const char *end = strchr(text, '\n');
		char line[256];
		size_t len = end ? (size_t)(end - text) : strlen(text);

		if (len < sizeof(line)) {
			memcpy(line, text, len);
			line[len] = '\0';
			if (ib_header(line, &node) || !strncmp(line, "switchguid=", 11) ||
			    !strncmp(line, "caguid=", 7))
				return true;
		}
		text += len + (end != NULL);
	}
	return false;
}

int topo_ib_parse(struct topo_src *s, const char *text)
{
	struct ib_nodes ns = { 0 };
	int rc;

	if (ports_detect(ib_blank_lines(text)))
		return ports_parse(s, text);
	rc = ib_collect(s, text, &ns);
	if (!rc && !ns.n)
		rc = topo_src_error(s, 0, "no Switch or Ca node in the ibnetdiscover output");
	if (!rc)
		rc = ib_links(s, text, &ns);
	free(ns.v);
	return rc;
}
