/*
 * Readers for arbitration configurations (see qosconf.h).
 *
 * Each format has a line parser working on one struct qosconf_parser; a
 * finish step checks what only the whole input can tell (a missing table,
 * a truncated capture, a band used but never defined). Every error names
 * the file and the line it was found on, and the value that is wrong.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qosconf.h"

/* OpenSM's built-in defaults (include/opensm/osm_base.h). */
#define OPENSM_DEFAULT_MAX_VLS		15
#define OPENSM_DEFAULT_HIGH_LIMIT	0
#define OPENSM_DEFAULT_VLARB_HIGH \
	"0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0"
#define OPENSM_DEFAULT_VLARB_LOW \
	"0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"
#define OPENSM_DEFAULT_SL2VL		"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

#define SMP_BLOCK_ENTRIES	32	/* smpquery prints 32 entries a row */

static const char *const format_names[] = {
	[QOSCONF_FORMAT_AUTO] = "auto",
	[QOSCONF_FORMAT_OPENSM] = "opensm",
	[QOSCONF_FORMAT_SMPQUERY] = "smpquery",
	[QOSCONF_FORMAT_TABLE] = "table",
	[QOSCONF_FORMAT_ETS] = "ets",
};

/* Also the key prefixes: qos_ca_, qos_swe_, ... */
static const char *const node_type_names[] = {
	[QOSCONF_NODE_CA] = "ca",
	[QOSCONF_NODE_SWE] = "swe",
	[QOSCONF_NODE_SW0] = "sw0",
	[QOSCONF_NODE_SW2SW] = "sw2sw",
	[QOSCONF_NODE_RTR] = "rtr",
};

/* One set of qos_ keys: the generic one or a node type's. */
struct opensm_set {
	int max_vls;		/* 0: unset */
	int high_limit;		/* -1: unset */
	bool has_high, has_low, has_sl2vl;
	struct arb_table high, low;
	uint8_t sl2vl[ARB_NUM_SLS];
};

struct qosconf_parser {
	const struct qosconf_opts *opts;
	struct arb_config *cfg;
	struct qosconf_err *err;
	const char *name;	/* current file */
	int line;		/* current line, from 1 */

	/* opensm: index QOSCONF_NODE_COUNT holds the generic qos_ keys */
	struct opensm_set sets[QOSCONF_NODE_COUNT + 1];

	/* smpquery */
	bool vlarb_seen;
	int vlarb_line;
	const char *vlarb_name;
	struct arb_table *table;	/* table the next rows belong to */
	int table_line;
	int vl_row[SMP_BLOCK_ENTRIES];	/* VL row awaiting its WEIGHT row */
	int vl_row_count;		/* -1: none pending */
	bool sl2vl_header;		/* SL2VL header awaiting a ports line */
	int sl2vl_header_line;
	bool sl2vl_seen;

	/* ets */
	int dscp_line[ARB_NUM_DSCPS];
	int prio_line[ARB_NUM_PRIOS];
	int default_line;
	bool drr_seen;

	int n_items;		/* meaningful lines seen in all files */
};

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static int __attribute__((format(printf, 2, 3)))
qc_error(struct qosconf_parser *p, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(p->err->msg, sizeof(p->err->msg), "%s:%d: %s", p->name,
		 p->line, what);
	return -EINVAL;
}

static int __attribute__((format(printf, 2, 3)))
err_set(struct qosconf_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return (char *)s;
}

static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* Cut a '#' comment and surrounding blanks; returns the trimmed start. */
static char *strip_comment(char *s)
{
	char *hash = strchr(s, '#');

	if (hash)
		*hash = '\0';
	trim_end(s);
	return skip_space(s);
}

/*
 * Parse one whole integer token in C syntax into [lo, hi]. Returns 0,
 * -EINVAL when @s is not a number, -ERANGE when it is out of range.
 */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	s = skip_space(s);
	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 0);
	if (end == s || *skip_space(end))
		return -EINVAL;
	if (errno || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

/* parse_long with the message every caller wants. */
static int qc_number(struct qosconf_parser *p, const char *what, const char *s,
		     long lo, long hi, long *out)
{
	int err = parse_long(s, lo, hi, out);

	if (err == -EINVAL)
		return qc_error(p, "%s '%s' is not a number", what, s);
	if (err)
		return qc_error(p, "%s %s out of range %ld-%ld", what, s, lo, hi);
	return 0;
}

int qosconf_parse_list(const char *s, long lo, long hi, int max,
		       uint8_t *out, int *count, struct qosconf_err *err)
{
	char buf[512], *tok, *save;
	long v;
	int n = 0, rc;

	if (strlen(s) >= sizeof(buf))
		return err_set(err, "list too long");
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return err_set(err, "more than %d values in '%s'", max, s);
		rc = parse_long(tok, lo, hi, &v);
		if (rc == -EINVAL)
			return err_set(err, "'%s' is not a number", tok);
		if (rc)
			return err_set(err, "%s out of range %ld-%ld", tok, lo, hi);
		out[n++] = v;
	}
	if (!n)
		return err_set(err, "empty list");
	*count = n;
	return 0;
}

static int table_add(struct qosconf_parser *p, struct arb_table *t,
		     const char *which, long vl, long weight)
{
	if (t->n_entries == ARB_MAX_ENTRIES)
		return qc_error(p, "more than %d entries in the %s table",
				ARB_MAX_ENTRIES, which);
	t->entries[t->n_entries].vl = vl;
	t->entries[t->n_entries].weight = weight;
	t->n_entries++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Table format: high,VL,WEIGHT                                        */
/* ------------------------------------------------------------------ */

static int table_line(struct qosconf_parser *p, char *s)
{
	char *f[4], *save;
	long vl, weight;
	int n = 0, err;
	struct arb_table *t;

	for (f[n] = strtok_r(s, ",", &save); f[n] && n < 3;)
		f[++n] = strtok_r(NULL, ",", &save);
	if (n != 3 || f[3])
		return qc_error(p, "malformed line: expected high|low,VL,WEIGHT");
	trim_end(f[0]);
	f[0] = skip_space(f[0]);
	if (!strcasecmp(f[0], "high"))
		t = &p->cfg->high;
	else if (!strcasecmp(f[0], "low"))
		t = &p->cfg->low;
	else
		return qc_error(p, "unknown table '%s': expected high or low", f[0]);
	err = qc_number(p, "VL", f[1], 0, ARB_VL15, &vl);
	if (!err)
		err = qc_number(p, "weight", f[2], 0, ARB_MAX_WEIGHT, &weight);
	if (!err)
		err = table_add(p, t, t == &p->cfg->high ? "high" : "low", vl, weight);
	return err;
}

static int table_finish(struct qosconf_parser *p)
{
	if (!p->cfg->high.n_entries && !p->cfg->low.n_entries)
		return qc_error(p, "no high or low entries");
	return 0;
}

/* ------------------------------------------------------------------ */
/* opensm.conf                                                         */
/* ------------------------------------------------------------------ */

/* "vl:weight,vl:weight,..." as OpenSM's qos_vlarb_* keys take it. */
static int opensm_vlarb(struct qosconf_parser *p, const char *key,
			const char *value, struct arb_table *t)
{
	char buf[1024], *tok, *save, *colon;
	long vl, weight;
	int err;

	if (strlen(value) >= sizeof(buf))
		return qc_error(p, "%s: value too long", key);
	strcpy(buf, value);
	t->n_entries = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			return qc_error(p, "%s: entry '%s' is not VL:WEIGHT", key,
					skip_space(tok));
		*colon = '\0';
		err = qc_number(p, "VL", tok, 0, ARB_VL15, &vl);
		if (!err)
			err = qc_number(p, "weight", colon + 1, 0, ARB_MAX_WEIGHT,
					&weight);
		if (!err)
			err = table_add(p, t, key, vl, weight);
		if (err)
			return err;
	}
	return 0;
}

static int opensm_sl2vl(struct qosconf_parser *p, const char *key,
			const char *value, uint8_t *sl2vl)
{
	struct qosconf_err lerr;
	int n;

	if (qosconf_parse_list(value, 0, ARB_VL15, ARB_NUM_SLS, sl2vl, &n, &lerr))
		return qc_error(p, "%s: %s", key, lerr.msg);
	if (n != ARB_NUM_SLS)
		return qc_error(p, "%s: %d VLs given, expected %d", key, n,
				ARB_NUM_SLS);
	return 0;
}

/* Split "qos_<prefix>_<field>" into its set and field; NULL if unknown. */
static const char *opensm_key_field(const char *key, struct opensm_set *sets,
				    struct opensm_set **set)
{
	size_t len;
	int i;

	key += strlen("qos_");
	for (i = 0; i < QOSCONF_NODE_COUNT; i++) {
		len = strlen(node_type_names[i]);
		if (!strncmp(key, node_type_names[i], len) && key[len] == '_') {
			*set = &sets[i];
			return key + len + 1;
		}
	}
	*set = &sets[QOSCONF_NODE_COUNT];
	return key;
}

static int opensm_set_value(struct qosconf_parser *p, const char *key,
			    const char *field, const char *value,
			    struct opensm_set *set)
{
	long v;
	int err;

	if (!strcmp(field, "max_vls")) {
		err = qc_number(p, key, value, 0, ARB_VL15, &v);
		set->max_vls = v;
	} else if (!strcmp(field, "high_limit")) {
		err = qc_number(p, key, value, -1, ARB_MAX_LIMIT, &v);
		set->high_limit = v;
	} else if (!strcmp(field, "vlarb_high")) {
		err = opensm_vlarb(p, key, value, &set->high);
		set->has_high = true;
	} else if (!strcmp(field, "vlarb_low")) {
		err = opensm_vlarb(p, key, value, &set->low);
		set->has_low = true;
	} else if (!strcmp(field, "sl2vl")) {
		err = opensm_sl2vl(p, key, value, set->sl2vl);
		set->has_sl2vl = true;
	} else {
		return qc_error(p, "unknown key '%s'", key);
	}
	return err;
}

static int opensm_line(struct qosconf_parser *p, char *s)
{
	struct opensm_set *set;
	const char *field;
	char *value;
	size_t klen = strcspn(s, " \t");

	value = skip_space(s + klen);
	s[klen] = '\0';
	if (strncmp(s, "qos_", 4))
		return 0;	/* "qos" itself and every other key */
	if (!strcmp(s, "qos_policy_file"))
		return 0;
	if (!*value)
		return qc_error(p, "key '%s' has no value", s);
	field = opensm_key_field(s, p->sets, &set);
	if (!strcmp(value, "(null)")) {
		if (strcmp(field, "max_vls") && strcmp(field, "high_limit") &&
		    strcmp(field, "vlarb_high") && strcmp(field, "vlarb_low") &&
		    strcmp(field, "sl2vl"))
			return qc_error(p, "unknown key '%s'", s);
		return 0;	/* written out by OpenSM for unset keys */
	}
	return opensm_set_value(p, s, field, value, set);
}

static void opensm_defaults(struct qosconf_parser *p, struct opensm_set *def)
{
	struct qosconf_err lerr;
	int n;

	memset(def, 0, sizeof(*def));
	opensm_vlarb(p, "qos_vlarb_high", OPENSM_DEFAULT_VLARB_HIGH, &def->high);
	opensm_vlarb(p, "qos_vlarb_low", OPENSM_DEFAULT_VLARB_LOW, &def->low);
	qosconf_parse_list(OPENSM_DEFAULT_SL2VL, 0, ARB_VL15, ARB_NUM_SLS,
			   def->sl2vl, &n, &lerr);
}

static int opensm_finish(struct qosconf_parser *p)
{
	const struct opensm_set *own = &p->sets[p->opts->node_type];
	const struct opensm_set *generic = &p->sets[QOSCONF_NODE_COUNT];
	const struct opensm_set *s;
	struct arb_config *cfg = p->cfg;
	struct opensm_set def;

	opensm_defaults(p, &def);
	cfg->oper_vls = own->max_vls ? own->max_vls :
			generic->max_vls ? generic->max_vls : OPENSM_DEFAULT_MAX_VLS;
	cfg->limit = own->high_limit >= 0 ? own->high_limit :
		     generic->high_limit >= 0 ? generic->high_limit :
		     OPENSM_DEFAULT_HIGH_LIMIT;
	cfg->limit_known = true;
	/* A node type's key overrides the generic one, as in OpenSM. */
	s = own->has_high ? own : generic->has_high ? generic : &def;
	cfg->high = s->high;
	s = own->has_low ? own : generic->has_low ? generic : &def;
	cfg->low = s->low;
	s = own->has_sl2vl ? own : generic->has_sl2vl ? generic : &def;
	memcpy(cfg->sl2vl, s->sl2vl, sizeof(cfg->sl2vl));
	cfg->sl2vl_explicit = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* smpquery vlarb / sl2vl / portinfo text                              */
/* ------------------------------------------------------------------ */

static int qc_error_line(struct qosconf_parser *p, int line, const char *what)
{
	p->line = line;
	return qc_error(p, "%s", what);
}

/* Numbers between '|' after the row's label: "VL    : |0x0 |0x1 |". */
static int smp_cells(struct qosconf_parser *p, const char *s, const char *what,
		     long hi, long *cells, int max)
{
	char buf[1024], *tok, *save, *end;
	int n = 0, err;

	s = strchr(s, ':') + 1;
	if (strlen(s) >= sizeof(buf))
		return qc_error(p, "%s row too long", what);
	strcpy(buf, s);
	trim_end(buf);
	end = buf + strlen(buf);
	if (end == buf || end[-1] != '|')
		return qc_error(p, "truncated %s row (no closing '|')", what);
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		if (!*skip_space(tok))
			continue;
		if (n == max)
			return qc_error(p, "more than %d cells in the %s row", max, what);
		err = qc_number(p, what, tok, 0, hi, &cells[n]);
		if (err)
			return err;
		n++;
	}
	if (!n)
		return qc_error(p, "truncated %s row (no values)", what);
	return n;
}

static int smp_vl_row(struct qosconf_parser *p, const char *s)
{
	long cells[SMP_BLOCK_ENTRIES];
	int n, i;

	if (!p->table)
		return qc_error(p, "VL row outside a VL Arbitration table");
	if (p->vl_row_count >= 0)
		return qc_error(p, "VL row where a WEIGHT row was expected");
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
		return qc_error(p, "WEIGHT row without a VL row before it");
	n = smp_cells(p, s, "weight", ARB_MAX_WEIGHT, cells, SMP_BLOCK_ENTRIES);
	if (n < 0)
		return n;
	if (n != p->vl_row_count)
		return qc_error(p, "truncated WEIGHT row: %d weights for %d VLs",
				n, p->vl_row_count);
	for (i = 0; i < n; i++) {
		err = table_add(p, p->table, which, p->vl_row[i], cells[i]);
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
		return qc_error_line(p, p->table_line,
				     "truncated table: VL row without its WEIGHT row");
	if (!t->n_entries)
		return qc_error_line(p, p->table_line,
				     "truncated table: no VL/WEIGHT rows");
	if (t->cap && t->n_entries < t->cap) {
		snprintf(what, sizeof(what), "truncated table: %d entries, the "
			 "capture's header announced %d", t->n_entries, t->cap);
		return qc_error_line(p, p->table_line, what);
	}
	return 0;
}

static int smp_cap(const char *s, const char *label)
{
	const char *at = strstr(s, label);

	return at ? (int)strtol(at + strlen(label), NULL, 0) : 0;
}

static int smp_vlarb_header(struct qosconf_parser *p, const char *s)
{
	int low_cap = smp_cap(s, "LowCap"), high_cap = smp_cap(s, "HighCap");

	if (p->vlarb_seen)
		return qc_error(p, "second VL Arbitration capture (the first is "
				"at %s:%d): give one port's captures",
				p->vlarb_name, p->vlarb_line);
	if (low_cap < 0 || low_cap > ARB_MAX_ENTRIES ||
	    high_cap < 0 || high_cap > ARB_MAX_ENTRIES)
		return qc_error(p, "table sizes LowCap %d HighCap %d out of "
				"range 0-%d", low_cap, high_cap, ARB_MAX_ENTRIES);
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
		return qc_error(p, "%s priority table given twice",
				t == &p->cfg->high ? "high" : "low");
	p->table = t;
	p->table_line = p->line;
	return 0;
}

/* "# ..." lines: section headers, or comments. */
static int smp_comment(struct qosconf_parser *p, const char *s)
{
	int err = 0;

	if (strstr(s, "VLArbitration tables:"))
		err = smp_close_table(p) ?: smp_vlarb_header(p, s);
	else if (strstr(s, "Low priority VL Arbitration Table"))
		err = smp_close_table(p) ?: smp_table_header(p, &p->cfg->low);
	else if (strstr(s, "High priority VL Arbitration Table"))
		err = smp_close_table(p) ?: smp_table_header(p, &p->cfg->high);
	else if (strstr(s, "SL2VL table")) {
		err = smp_close_table(p);
		if (!err && p->sl2vl_seen)
			err = qc_error(p, "second SL2VL capture");
		p->sl2vl_header = true;
		p->sl2vl_header_line = p->line;
	}
	return err;
}

/* "ports: in  0, out  1: | 0| 1| ...|": one line per input port. */
static int smp_ports(struct qosconf_parser *p, const char *s)
{
	const char *ports = skip_space(s + strlen("ports:"));
	const char *row = strchr(ports, ':');
	long cells[ARB_NUM_SLS + 1];
	long in_port;
	int n, sl, err;

	err = smp_close_table(p);
	if (err)
		return err;
	if (p->sl2vl_seen)
		return 0;	/* another input port of the same capture */
	/* Both are needed before anything reads past them. */
	if (strncmp(ports, "in", 2) || !row)
		return qc_error(p, "malformed SL2VL line (want 'ports: in N, out M: |...|')");
	in_port = strtol(ports + 2, NULL, 10);
	if (p->opts->in_port >= 0 && in_port != p->opts->in_port)
		return 0;
	n = smp_cells(p, row, "SL2VL", ARB_VL15, cells, ARB_NUM_SLS + 1);
	if (n < 0)
		return n;
	if (n != ARB_NUM_SLS)
		return qc_error(p, "truncated SL2VL row: %d VLs, expected %d",
				n, ARB_NUM_SLS);
	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		p->cfg->sl2vl[sl] = cells[sl];
	p->cfg->sl2vl_explicit = true;
	p->sl2vl_seen = true;
	p->sl2vl_header = false;
	return 0;
}

/* "OperVLs:....VL0-3" */
static int smp_oper_vls(struct qosconf_parser *p, const char *value)
{
	long last;

	if (!strcmp(value, "VL0")) {
		p->cfg->oper_vls = 1;
		return 0;
	}
	if (strncmp(value, "VL0-", 4) || parse_long(value + 4, 1, 14, &last))
		return qc_error(p, "OperVLs '%s' not understood", value);
	p->cfg->oper_vls = last + 1;
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
	value = skip_space(value);
	if (!strcmp(s, "VLHighLimit")) {
		if (p->cfg->limit_known)
			return qc_error(p, "VLHighLimit given twice");
		err = qc_number(p, s, value, 0, ARB_MAX_LIMIT, &v);
		p->cfg->limit = v;
		p->cfg->limit_known = true;
		return err;
	}
	if (!strcmp(s, "VLArbHighCap") || !strcmp(s, "VLArbLowCap")) {
		err = qc_number(p, s, value, 0, ARB_MAX_ENTRIES, &v);
		if (!err && s[6] == 'H')
			p->cfg->high.cap = v;
		else if (!err)
			p->cfg->low.cap = v;
		return err;
	}
	if (!strcmp(s, "OperVLs"))
		return smp_oper_vls(p, value);
	return 0;
}

static bool smp_is_row(const char *s, const char *label)
{
	size_t n = strlen(label);

	return !strncmp(s, label, n) && *skip_space(s + n) == ':';
}

static bool smp_is_portinfo(const char *s)
{
	const char *c = s;

	while (isalnum((unsigned char)*c) || *c == '_')
		c++;
	return c != s && c[0] == ':' && c[1] == '.';
}

static int smp_line(struct qosconf_parser *p, char *s)
{
	trim_end(s);
	s = skip_space(s);
	if (!*s)
		return 0;
	if (*s == '#')
		return smp_comment(p, s);
	if (smp_is_row(s, "VL"))
		return smp_vl_row(p, s);
	if (smp_is_row(s, "WEIGHT"))
		return smp_weight_row(p, s);
	if (!strncmp(s, "ports:", 6))
		return smp_ports(p, s);
	if (smp_is_portinfo(s))
		return smp_close_table(p) ?: smp_portinfo(p, s);
	if (!strncmp(s, "ibwarn:", 7))
		return 0;
	return qc_error(p, "unrecognised line '%.40s'", s);
}

/* End of one file: whatever it opened must be complete. */
static int smp_file_end(struct qosconf_parser *p)
{
	int err = smp_close_table(p);

	if (err)
		return err;
	if (p->sl2vl_header)
		return qc_error_line(p, p->sl2vl_header_line,
				     "truncated SL2VL capture: no 'ports:' line");
	if (p->vlarb_seen && p->vlarb_name == p->name &&
	    ((p->cfg->high.cap && !p->cfg->high.n_entries) ||
	     (p->cfg->low.cap && !p->cfg->low.n_entries)))
		return qc_error_line(p, p->vlarb_line,
				     "truncated capture: a priority table is missing");
	return 0;
}

static int smp_finish(struct qosconf_parser *p)
{
	if (!p->vlarb_seen && !p->cfg->high.n_entries && !p->cfg->low.n_entries)
		return qc_error(p, "no VL Arbitration table (smpquery vlarb) "
				"in the input");
	return 0;
}

/* ------------------------------------------------------------------ */
/* ETS description                                                     */
/* ------------------------------------------------------------------ */

static int ets_band(struct qosconf_parser *p, char **tok, int n)
{
	struct arb_config *cfg = p->cfg;
	struct arb_band *b;
	long id, quantum;
	int err;

	if (n < 3)
		return qc_error(p, "malformed band line: expected 'band N strict' "
				"or 'band N drr QUANTUM'");
	err = qc_number(p, "band", tok[1], 0, ARB_MAX_BANDS - 1, &id);
	if (err)
		return err;
	if (id != cfg->n_bands)
		return qc_error(p, "band %ld out of order: bands are numbered "
				"consecutively from 0, expected %d", id, cfg->n_bands);
	b = &cfg->bands[id];
	if (!strcmp(tok[2], "strict") && n == 3) {
		if (p->drr_seen)
			return qc_error(p, "strict band %ld after a drr band: "
					"strict bands come first", id);
		b->strict = true;
	} else if (!strcmp(tok[2], "drr") && n == 4) {
		err = qc_number(p, "quantum", tok[3], 1, INT32_MAX, &quantum);
		if (err)
			return err;
		b->quantum_bytes = quantum;
		p->drr_seen = true;
	} else {
		return qc_error(p, "band %ld: expected 'strict' or 'drr QUANTUM'", id);
	}
	cfg->n_bands++;
	return 0;
}

/* "dscp D B", "prio P B": the band is checked once all bands are known. */
static int ets_map(struct qosconf_parser *p, char **tok, int n, long max,
		   int8_t *map, int *lines)
{
	long key, band;
	int err;

	if (n != 3)
		return qc_error(p, "malformed %s line: expected '%s VALUE BAND'",
				tok[0], tok[0]);
	err = qc_number(p, tok[0], tok[1], 0, max, &key);
	if (!err)
		err = qc_number(p, "band", tok[2], 0, ARB_MAX_BANDS - 1, &band);
	if (err)
		return err;
	if (lines[key])
		return qc_error(p, "%s %ld already mapped at line %d", tok[0],
				key, lines[key]);
	map[key] = band;
	lines[key] = p->line;
	return 0;
}

static int ets_default(struct qosconf_parser *p, char **tok, int n)
{
	long band;
	int err;

	if (n != 2)
		return qc_error(p, "malformed default line: expected 'default BAND'");
	if (p->default_line)
		return qc_error(p, "default given twice (first at line %d)",
				p->default_line);
	err = qc_number(p, "band", tok[1], 0, ARB_MAX_BANDS - 1, &band);
	if (err)
		return err;
	p->cfg->default_band = band;
	p->default_line = p->line;
	return 0;
}

static int ets_line(struct qosconf_parser *p, char *s)
{
	char *tok[6], *save;
	int n = 0;

	for (tok[n] = strtok_r(s, " \t", &save); tok[n] && n < 5;)
		tok[++n] = strtok_r(NULL, " \t", &save);
	if (n == 5)
		return qc_error(p, "too many fields on a '%s' line", tok[0]);
	if (!strcmp(tok[0], "band"))
		return ets_band(p, tok, n);
	if (!strcmp(tok[0], "dscp"))
		return ets_map(p, tok, n, ARB_NUM_DSCPS - 1, p->cfg->dscp_band,
			       p->dscp_line);
	if (!strcmp(tok[0], "prio"))
		return ets_map(p, tok, n, ARB_NUM_PRIOS - 1, p->cfg->prio_band,
			       p->prio_line);
	if (!strcmp(tok[0], "default"))
		return ets_default(p, tok, n);
	return qc_error(p, "unknown keyword '%s': expected band, dscp, prio "
			"or default", tok[0]);
}

static int ets_check_band(struct qosconf_parser *p, int band, int line,
			  const char *what)
{
	char msg[128];

	if (band < p->cfg->n_bands)
		return 0;
	snprintf(msg, sizeof(msg), "%s maps to band %d, but only %d bands are "
		 "defined", what, band, p->cfg->n_bands);
	return qc_error_line(p, line, msg);
}

static int ets_finish(struct qosconf_parser *p)
{
	struct arb_config *cfg = p->cfg;
	int i, err = 0;

	if (!cfg->n_bands)
		return qc_error(p, "no band lines");
	if (!p->default_line)
		return qc_error(p, "no 'default BAND' line (it is required)");
	err = ets_check_band(p, cfg->default_band, p->default_line, "default");
	for (i = 0; !err && i < ARB_NUM_DSCPS; i++)
		if (p->dscp_line[i])
			err = ets_check_band(p, cfg->dscp_band[i],
					     p->dscp_line[i], "dscp");
	for (i = 0; !err && i < ARB_NUM_PRIOS; i++)
		if (p->prio_line[i])
			err = ets_check_band(p, cfg->prio_band[i],
					     p->prio_line[i], "prio");
	return err;
}

/* ------------------------------------------------------------------ */
/* Detection and driver                                                */
/* ------------------------------------------------------------------ */

void qosconf_opts_init(struct qosconf_opts *opts)
{
	opts->format = QOSCONF_FORMAT_AUTO;
	opts->node_type = QOSCONF_NODE_SWE;
	opts->in_port = -1;
}

static int name_lookup(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -EINVAL;
}

const char *qosconf_format_name(enum qosconf_format format)
{
	return format_names[format];
}

int qosconf_format_parse(const char *name, enum qosconf_format *format)
{
	int i = name_lookup(format_names, QOSCONF_FORMAT_ETS + 1, name);

	if (i < 0)
		return i;
	*format = i;
	return 0;
}

const char *qosconf_node_type_name(enum qosconf_node_type type)
{
	return node_type_names[type];
}

int qosconf_node_type_parse(const char *name, enum qosconf_node_type *type)
{
	int i = name_lookup(node_type_names, QOSCONF_NODE_COUNT, name);

	if (i < 0)
		return i;
	*type = i;
	return 0;
}

/* What the first meaningful line of a non-smpquery file looks like. */
static enum qosconf_format detect_line(const char *s)
{
	size_t word = strcspn(s, " \t,");

	if (s[word] == ',' && (!strncasecmp(s, "high", word) ||
			       !strncasecmp(s, "low", word)))
		return QOSCONF_FORMAT_TABLE;
	if (!strncmp(s, "band", word) || !strncmp(s, "dscp", word) ||
	    !strncmp(s, "prio", word) || !strncmp(s, "default", word))
		return QOSCONF_FORMAT_ETS;
	if (isalpha((unsigned char)*s) && (s[word] == ' ' || s[word] == '\t'))
		return QOSCONF_FORMAT_OPENSM;
	return QOSCONF_FORMAT_AUTO;
}

static bool detect_smpquery(const char *s)
{
	return strstr(s, "VLArbitration tables:") || strstr(s, "SL2VL table") ||
	       smp_is_row(s, "VL") || smp_is_row(s, "WEIGHT") ||
	       !strncmp(s, "ports:", 6) || smp_is_portinfo(s);
}

enum qosconf_format qosconf_detect(const char *text)
{
	enum qosconf_format first = QOSCONF_FORMAT_AUTO;
	const char *s = text, *eol;
	char line[256];
	size_t n;

	for (; *s; s = *eol ? eol + 1 : eol) {
		eol = s + strcspn(s, "\n");
		n = (size_t)(eol - s) < sizeof(line) ? (size_t)(eol - s) : sizeof(line) - 1;
		memcpy(line, s, n);
		line[n] = '\0';
		trim_end(line);
		if (detect_smpquery(skip_space(line)))
			return QOSCONF_FORMAT_SMPQUERY;
		if (first == QOSCONF_FORMAT_AUTO && *strip_comment(line))
			first = detect_line(strip_comment(line));
	}
	return first;
}

typedef int (*line_fn)(struct qosconf_parser *p, char *s);

static line_fn format_line_fn(enum qosconf_format format)
{
	switch (format) {
	case QOSCONF_FORMAT_OPENSM:
		return opensm_line;
	case QOSCONF_FORMAT_SMPQUERY:
		return smp_line;
	case QOSCONF_FORMAT_TABLE:
		return table_line;
	default:
		return ets_line;
	}
}

/* Feed every line of one source; smpquery lines keep their '#' headers. */
static int parse_source(struct qosconf_parser *p, const char *text,
			enum qosconf_format format)
{
	line_fn fn = format_line_fn(format);
	char *buf = strdup(text), *s, *eol;
	char *body;
	int err = 0;

	if (!buf)
		return err_set(p->err, "%s: out of memory", p->name);
	p->line = 0;
	for (s = buf; !err && *s; s = eol) {
		eol = s + strcspn(s, "\n");
		if (*eol)
			*eol++ = '\0';
		p->line++;
		body = format == QOSCONF_FORMAT_SMPQUERY ? skip_space(s) :
			strip_comment(s);
		if (*body && *body != '#')
			p->n_items++;
		if (*body)
			err = fn(p, body);
	}
	if (!p->line)
		p->line = 1;
	free(buf);
	if (!err && format == QOSCONF_FORMAT_SMPQUERY)
		err = smp_file_end(p);
	return err;
}

static int parse_finish(struct qosconf_parser *p, enum qosconf_format format)
{
	if (!p->n_items)
		return qc_error(p, "empty: no %s configuration found",
				format_names[format]);
	switch (format) {
	case QOSCONF_FORMAT_OPENSM:
		return opensm_finish(p);
	case QOSCONF_FORMAT_SMPQUERY:
		return smp_finish(p);
	case QOSCONF_FORMAT_TABLE:
		return table_finish(p);
	default:
		return ets_finish(p);
	}
}

static int source_format(const struct qosconf_source *src,
			 const struct qosconf_opts *opts,
			 enum qosconf_format *format, struct qosconf_err *err)
{
	enum qosconf_format f = opts->format;

	if (f == QOSCONF_FORMAT_AUTO)
		f = qosconf_detect(src->text);
	if (f == QOSCONF_FORMAT_AUTO && !*skip_space(src->text))
		return err_set(err, "%s:1: empty file", src->name);
	if (f == QOSCONF_FORMAT_AUTO)
		return err_set(err, "%s:1: cannot tell the format (opensm, "
			       "smpquery, table or ets): give it with --format",
			       src->name);
	if (*format != QOSCONF_FORMAT_AUTO && f != *format)
		return err_set(err, "%s:1: %s input, but the earlier files are %s",
			       src->name, format_names[f], format_names[*format]);
	*format = f;
	return 0;
}

static void parser_init(struct qosconf_parser *p, const struct qosconf_opts *opts,
			struct arb_config *cfg, struct qosconf_err *err)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->opts = opts;
	p->cfg = cfg;
	p->err = err;
	p->vl_row_count = -1;
	for (i = 0; i <= QOSCONF_NODE_COUNT; i++)
		p->sets[i].high_limit = -1;
}

int qosconf_parse(const struct qosconf_source *src, int n_src,
		  const struct qosconf_opts *opts, struct arb_config *cfg,
		  enum qosconf_format *format_out, struct qosconf_err *err)
{
	enum qosconf_format format = QOSCONF_FORMAT_AUTO;
	struct qosconf_parser *p;
	int i, rc = 0;

	err->msg[0] = '\0';
	for (i = 0; !rc && i < n_src; i++)
		rc = source_format(&src[i], opts, &format, err);
	if (rc || !n_src)
		return rc ? rc : err_set(err, "no input");
	p = malloc(sizeof(*p));
	if (!p)
		return err_set(err, "out of memory");
	parser_init(p, opts, cfg, err);
	arb_config_init(cfg, format == QOSCONF_FORMAT_ETS ? ARB_KIND_ETS :
			ARB_KIND_VLARB);
	for (i = 0; !rc && i < n_src; i++) {
		p->name = src[i].name;
		rc = parse_source(p, src[i].text, format);
	}
	if (!rc)
		rc = parse_finish(p, format);
	free(p);
	*format_out = format;
	return rc;
}

int qosconf_read_file(const char *path, char **text, struct qosconf_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;
	int rc = 0;

	if (!f) {
		rc = -errno;
		err_set(err, "'%s': %s", path, strerror(-rc));
		return rc;
	}
	buf = malloc(QOSCONF_MAX_FILE_BYTES + 1);
	if (!buf)
		rc = -ENOMEM;
	else
		n = fread(buf, 1, QOSCONF_MAX_FILE_BYTES + 1, f);
	if (!rc && ferror(f))
		rc = -EIO;
	else if (!rc && n > QOSCONF_MAX_FILE_BYTES)
		rc = -EFBIG;
	fclose(f);
	if (rc) {
		free(buf);
		err_set(err, "'%s': %s", path, rc == -EFBIG ?
			"larger than the 4 MiB accepted" : strerror(-rc));
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}
