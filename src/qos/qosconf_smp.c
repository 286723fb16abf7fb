/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The reader of text captured from infiniband-diags (smpquery vlarb,
 * sl2vl, portinfo): VL/WEIGHT rows, SL2VL port lines and portinfo fields,
 * with the checks that tell a complete capture from a truncated one. The
 * largest of the formats, so it has a file of its own.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

/* ------------------------------------------------------------------ */
/* smpquery vlarb / sl2vl / portinfo text                              */
/* ------------------------------------------------------------------ */

/* Numbers between '|' after the row's label: "VL    : |0x0 |0x1 |". */
static int smp_cells(struct qosconf_parser *p, const char *s, const char *what,
		     long hi, long *cells, int max)
{
	char buf[1024], *tok, *save, *end;
	int n = 0, err;

	s = strchr(s, ':') + 1;
	if (strlen(s) >= sizeof(buf))
		return qosconf_lex_error(p, "%s row too long", what);
	strcpy(buf, s);
	qosconf_lex_trim_end(buf);
	end = buf + strlen(buf);
	if (end == buf || end[-1] != '|')
		return qosconf_lex_error(p, "truncated %s row (no closing '|')", what);
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		if (!*qosconf_lex_skip_space(tok))
			continue;
		if (n == max)
			return qosconf_lex_error(p, "more than %d cells in the %s row", max, what);
		err = qosconf_lex_number(p, what, tok, 0, hi, &cells[n]);
		if (err)
			return err;
		n++;
	}
	if (!n)
		return qosconf_lex_error(p, "truncated %s row (no values)", what);
	return n;
}

static int smp_vl_row(struct qosconf_parser *p, const char *s)
{
	long cells[SMP_BLOCK_ENTRIES];
	int n, i;

	if (!p->table)
		return qosconf_lex_error(p, "VL row outside a VL Arbitration table");
	if (p->vl_row_count >= 0)
		return qosconf_lex_error(p, "VL row where a WEIGHT row was expected");
	n = smp_cells(p, s, "VL", ARB_VL15, cells, SMP_BLOCK_ENTRIES);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		p->vl_row[i] = cells[i];
	p->vl_row_count = n;
	p->table_line = p->line;
	return 0;
}

static int smp_weight_row(struct qosconf_parser *p, const char *s)
{
	const char *which = p->table == &p->cfg->high ? "high" : "low";
	long cells[SMP_BLOCK_ENTRIES];
	int n, i, err;

	if (p->vl_row_count < 0)
		return qosconf_lex_error(p, "WEIGHT row without a VL row before it");
	n = smp_cells(p, s, "weight", ARB_MAX_WEIGHT, cells, SMP_BLOCK_ENTRIES);
	if (n < 0)
		return n;
	if (n != p->vl_row_count)
		return qosconf_lex_error(p, "truncated WEIGHT row: %d weights for %d VLs",
				n, p->vl_row_count);
	for (i = 0; i < n; i++) {
		err = qosconf_lex_table_add(p, p->table, which, p->vl_row[i], cells[i]);
		if (err)
			return err;
	}
	p->vl_row_count = -1;
	return 0;
}

/* Close the table being read: it must be complete. */
static int smp_close_table(struct qosconf_parser *p)
{
	const struct arb_table *t = p->table;
	char what[128];

	if (!t)
		return 0;
	p->table = NULL;
	if (p->vl_row_count >= 0)
		return qosconf_lex_error_line(p, p->table_line,
				     "truncated table: VL row without its WEIGHT row");
	if (!t->n_entries)
		return qosconf_lex_error_line(p, p->table_line,
				     "truncated table: no VL/WEIGHT rows");
	if (t->cap && t->n_entries < t->cap) {
		snprintf(what, sizeof(what), "truncated table: %d entries, the "
			 "capture's header announced %d", t->n_entries, t->cap);
		return qosconf_lex_error_line(p, p->table_line, what);
	}
	return 0;
}

static int smp_cap(const char *s, const char *label)
{
	const char *at = strstr(s, label);

	return at ? (int)strtol(at + strlen(label), NULL, 0) : 0;
}

/*
 * Every capture names its port ("Lid 1 port 3"; SL2VL names the lid in
 * its header and the port in its rows): captures of two ports given
 * together are an error, named by both places.
 */
static int smp_identity(struct qosconf_parser *p, long lid, long port)
{
	if (!p->id_seen) {
		p->id_seen = true;
		p->id_lid = lid;
		p->id_port = port;
		p->id_name = p->name;
		p->id_line = p->line;
		return 0;
	}
	if ((lid < 0 || p->id_lid < 0 || lid == p->id_lid) &&
	    (port < 0 || p->id_port < 0 || port == p->id_port)) {
		if (p->id_lid < 0)
			p->id_lid = lid;
		if (p->id_port < 0)
			p->id_port = port;
		return 0;
	}
	return qosconf_lex_error(p, "captures of different ports: lid %ld port %ld "
				 "here, lid %ld port %ld at %s:%d", lid, port,
				 p->id_lid, p->id_port, p->id_name, p->id_line);
}

/* "... Lid 1 port 3 ..." in a capture's header; port -1 when absent. */
static int smp_header_identity(struct qosconf_parser *p, const char *s)
{
	const char *lid = strstr(s, "Lid "), *port = strstr(s, " port ");

	if (!lid)
		return 0;
	return smp_identity(p, strtol(lid + 4, NULL, 10),
			    port ? strtol(port + 6, NULL, 10) : -1);
}

static int smp_vlarb_header(struct qosconf_parser *p, const char *s)
{
	int low_cap = smp_cap(s, "LowCap"), high_cap = smp_cap(s, "HighCap");

	if (p->vlarb_seen)
		return qosconf_lex_error(p, "second VL Arbitration capture (the first is "
				"at %s:%d): give one port's captures",
				p->vlarb_name, p->vlarb_line);
	if (low_cap < 0 || low_cap > ARB_MAX_ENTRIES ||
	    high_cap < 0 || high_cap > ARB_MAX_ENTRIES)
		return qosconf_lex_error(p, "table sizes LowCap %d HighCap %d out of "
				"range 0-%d", low_cap, high_cap, ARB_MAX_ENTRIES);
	if (smp_header_identity(p, s))
		return -EINVAL;
	p->vlarb_seen = true;
	p->vlarb_line = p->line;
	p->vlarb_name = p->name;
	p->cfg->low.cap = low_cap;
	p->cfg->high.cap = high_cap;
	return 0;
}

static int smp_table_header(struct qosconf_parser *p, struct arb_table *t)
{
	if (t->n_entries)
		return qosconf_lex_error(p, "%s priority table given twice",
				t == &p->cfg->high ? "high" : "low");
	p->table = t;
	p->table_line = p->line;
	return 0;
}

/* "# ..." lines: section headers, or comments. */
static int smp_comment(struct qosconf_parser *p, const char *s)
{
	int err = 0;

	if (strstr(s, "No VLArbitration tables"))
		err = smp_close_table(p) ?: smp_header_identity(p, s) ?:
		      qosconf_lex_error(p, "the port has no VL arbitration tables "
					"(a switch's base port 0, without enhanced "
					"port 0): OpenSM programs none there; capture "
					"an external port or an enhanced port 0");
	else if (strstr(s, "VLArbitration tables:"))
		err = smp_close_table(p) ?: smp_vlarb_header(p, s);
	else if (strstr(s, "Low priority VL Arbitration Table"))
		err = smp_close_table(p) ?: smp_table_header(p, &p->cfg->low);
	else if (strstr(s, "High priority VL Arbitration Table"))
		err = smp_close_table(p) ?: smp_table_header(p, &p->cfg->high);
	else if (strstr(s, "Port info:"))
		err = smp_close_table(p) ?: smp_header_identity(p, s);
	else if (strstr(s, "SL2VL table")) {
		err = smp_close_table(p) ?: smp_header_identity(p, s);
		if (!err && p->sl2vl_seen)
			err = qosconf_lex_error(p, "second SL2VL capture");
		p->sl2vl_header = true;
		p->sl2vl_header_line = p->line;
	}
	return err;
}

/* "ports: in  0, out  1: | 0| 1| ...|": one line per input port. */
static int smp_ports(struct qosconf_parser *p, const char *s)
{
	const char *ports = qosconf_lex_skip_space(s + strlen("ports:"));
	const char *row = strchr(ports, ':');
	long cells[ARB_NUM_SLS + 1];
	long in_port, out_port;
	int n, sl, err;

	const char *out = strstr(ports, "out");

	err = smp_close_table(p);
	if (err)
		return err;
	/* Both are needed before anything reads past them. */
	if (strncmp(ports, "in", 2) || !row)
		return qosconf_lex_error(p, "malformed SL2VL line (want 'ports: in N, out M: |...|')");
	/* A CA's rows say "out 0" whatever its port: 0 names no port. */
	out_port = out && out < row ? strtol(out + 3, NULL, 10) : 0;
	if (out_port && smp_identity(p, p->id_seen ? p->id_lid : -1, out_port))
		return -EINVAL;
	in_port = strtol(ports + 2, NULL, 10);
	p->sl2vl_rows++;
	p->sl2vl_header = false;
	if (in_port > p->in_port_max)
		p->in_port_max = in_port;
	if (p->sl2vl_seen)
		return 0;	/* another input port of the same capture */
	if (p->opts->in_port >= 0 && in_port != p->opts->in_port)
		return 0;
	n = smp_cells(p, row, "SL2VL", ARB_VL15, cells, ARB_NUM_SLS + 1);
	if (n < 0)
		return n;
	if (n != ARB_NUM_SLS)
		return qosconf_lex_error(p, "truncated SL2VL row: %d VLs, expected %d",
				n, ARB_NUM_SLS);
	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		p->cfg->sl2vl[sl] = cells[sl];
	p->cfg->sl2vl_explicit = true;
	p->sl2vl_seen = true;
	p->sl2vl_header = false;
	return 0;
}

/* "OperVLs:....VL0-3" or "VLCap:....VL0-7": the number of data VLs. */
static int smp_vls(struct qosconf_parser *p, const char *name, const char *value,
		   int *vls)
{
	long last;

	if (!strcmp(value, "VL0")) {
		*vls = 1;
		return 0;
	}
	if (strncmp(value, "VL0-", 4) || qosconf_lex_parse_long(value + 4, 1, 14, &last))
		return qosconf_lex_error(p, "%s '%s' not understood", name, value);
	*vls = last + 1;
	return 0;
}

/* "Name:.......value" lines of smpquery portinfo. */
static int smp_portinfo(struct qosconf_parser *p, char *s)
{
	char *dots = strchr(s, ':');
	char *value = dots + strspn(dots + 1, ".") + 1;
	long v;
	int err;

	*dots = '\0';
	value = qosconf_lex_skip_space(value);
	p->capmask_names = !strcmp(s, "CapMask") || !strcmp(s, "CapabilityMask2");
	p->port.known = true;
	if (!strcmp(s, "VLHighLimit")) {
		if (p->cfg->limit_known)
			return qosconf_lex_error(p, "VLHighLimit given twice");
		err = qosconf_lex_number(p, s, value, 0, ARB_MAX_LIMIT, &v);
		p->cfg->limit = v;
		p->cfg->limit_known = true;
		p->port.vl_high_limit = v;
		return err;
	}
	if (!strcmp(s, "VLArbHighCap") || !strcmp(s, "VLArbLowCap")) {
		err = qosconf_lex_number(p, s, value, 0, ARB_MAX_ENTRIES, &v);
		if (!err && !strcmp(s, "VLArbHighCap"))
			p->cfg->high.cap = p->port.high_cap = v;
		else if (!err)
			p->cfg->low.cap = p->port.low_cap = v;
		return err;
	}
	if (!strcmp(s, "OperVLs")) {
		err = smp_vls(p, s, value, &p->port.oper_vls);
		p->cfg->oper_vls = p->port.oper_vls;
		return err;
	}
	if (!strcmp(s, "VLCap"))
		return smp_vls(p, s, value, &p->port.vl_cap);
	return 0;
}

static bool smp_is_row(const char *s, const char *label)
{
	size_t n = strlen(label);

	return !strncmp(s, label, n) && *qosconf_lex_skip_space(s + n) == ':';
}

static bool smp_is_portinfo(const char *s)
{
	const char *c = s;

	while (isalnum((unsigned char)*c) || *c == '_')
		c++;
	return c != s && c[0] == ':' && c[1] == '.';
}

/* Capability names smpquery prints under CapMask, one a line: "IsTrapSupported". */
static bool smp_is_cap_name(const char *s)
{
	const char *c = s;

	while (isalnum((unsigned char)*c))
		c++;
	return c != s && !*c;
}

/* No VL row awaits its WEIGHT row yet; nothing is known of the port. */
void qosconf_smp_start(struct qosconf_parser *p)
{
	p->vl_row_count = -1;
	p->in_port_max = -1;
	p->port.lid = p->port.port_num = -1;
}

/* A line only smpquery prints: detection in qosconf_detect(). */
bool qosconf_smp_detect(const char *s)
{
	return strstr(s, "VLArbitration tables:") || strstr(s, "SL2VL table") ||
	       strstr(s, "No VLArbitration tables") ||
	       smp_is_row(s, "VL") || smp_is_row(s, "WEIGHT") ||
	       !strncmp(s, "ports:", 6) || smp_is_portinfo(s);
}

int qosconf_smp_line(struct qosconf_parser *p, char *s)
{
	qosconf_lex_trim_end(s);
	s = qosconf_lex_skip_space(s);
	if (!*s)
		return 0;
	if (*s == '#') {
		p->capmask_names = false;
		return smp_comment(p, s);
	}
	if (smp_is_row(s, "VL"))
		return smp_vl_row(p, s);
	if (smp_is_row(s, "WEIGHT"))
		return smp_weight_row(p, s);
	if (!strncmp(s, "ports:", 6))
		return smp_ports(p, s);
	if (smp_is_portinfo(s))
		return smp_close_table(p) ?: smp_portinfo(p, s);
	if (p->capmask_names && smp_is_cap_name(s))
		return 0;
	if (!strncmp(s, "ibwarn:", 7))
		return 0;
	return qosconf_lex_error(p, "unrecognised line '%.40s'", s);
}

/* End of one file: whatever it opened must be complete. */
int qosconf_smp_file_end(struct qosconf_parser *p)
{
	int err = smp_close_table(p);

	if (err)
		return err;
	if (p->sl2vl_header)
		return qosconf_lex_error_line(p, p->sl2vl_header_line,
				     "truncated SL2VL capture: no 'ports:' line");
	if (p->vlarb_seen && p->vlarb_name == p->name &&
	    ((p->cfg->high.cap && !p->cfg->high.n_entries) ||
	     (p->cfg->low.cap && !p->cfg->low.n_entries)))
		return qosconf_lex_error_line(p, p->vlarb_line,
				     "truncated capture: a priority table is missing");
	return 0;
}

int qosconf_smp_finish(struct qosconf_parser *p)
{
	if (p->opts->in_port >= 0 && p->sl2vl_rows && !p->sl2vl_seen)
		return qosconf_lex_error(p, "no SL2VL row for input port %d: the "
					 "capture has input ports up to %d",
					 p->opts->in_port, p->in_port_max);
	p->port.lid = p->id_seen ? p->id_lid : -1;
	p->port.port_num = p->id_seen ? p->id_port : -1;
	if (!p->vlarb_seen && !p->cfg->high.n_entries && !p->cfg->low.n_entries)
		return qosconf_lex_error(p, "no VL Arbitration table (smpquery vlarb) "
				"in the input");
	return 0;
}
