/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The opensm.conf reader. It reads the file the way OpenSM 3.3.23 does
 * (opensm/osm_subnet.c reads and checks the options, opensm/osm_qos.c
 * builds the tables and programs them on each port), because the analysis
 * must be of what OpenSM programs on the port, not of what the file says.
 * Where the two differ, one warning per change says what OpenSM programs
 * instead and why. Apart because OpenSM's rules are its own.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

#define OPENSM_VERSION			"3.3.23"

/* OpenSM's built-in defaults (include/opensm/osm_base.h). */
#define OPENSM_DEFAULT_MAX_OP_VLS	5	/* OperVLs encoding: VL0-14 */
#define OPENSM_DEFAULT_HIGH_LIMIT	0
#define OPENSM_DEFAULT_VLARB_HIGH \
	"0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0"
#define OPENSM_DEFAULT_VLARB_LOW \
	"0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"
#define OPENSM_DEFAULT_SL2VL		"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

#define OPENSM_BLOCK_ENTRIES		32	/* VLArb entries per MAD block */
#define OPENSM_SHOW_MAX			96	/* chars of a list in a warning */

/* The key prefixes of the node types: qos_ca_, qos_swe_, ... */
static const char *const opensm_node_prefixes[] = {
	[QOSCONF_NODE_CA] = "ca",
	[QOSCONF_NODE_SWE] = "swe",
	[QOSCONF_NODE_SW0] = "sw0",
	[QOSCONF_NODE_SW2SW] = "sw2sw",
	[QOSCONF_NODE_RTR] = "rtr",
};

/* A table as OpenSM holds it before programming: 64 entries, all parsed. */
struct opensm_vlarb {
	struct arb_entry entries[ARB_MAX_ENTRIES];
	int listed;		/* entries the string had before it ended */
};

const char *qosconf_opensm_node_prefix(enum qosconf_node_type type)
{
	return opensm_node_prefixes[type];
}

/* The number of data VLs an OperVLs/VLCap code (1-5) means. */
static int opensm_vls_of_code(long code)
{
	static const int vls[] = { 0, 1, 2, 4, 8, 15 };

	return code < 1 ? 0 : code > 5 ? 15 : vls[code];
}

/* OpenSM's VL mask for a port with @vls operational VLs: (1 << (code - 1)) - 1. */
static int opensm_vl_mask(int vls)
{
	return vls >= 15 ? 15 : vls - 1;
}

/* "qos" or "qos_ca": the prefix of a set's keys, for messages. */
static const char *opensm_set_prefix(int set)
{
	static const char *const names[] = {
		[QOSCONF_NODE_CA] = "qos_ca", [QOSCONF_NODE_SWE] = "qos_swe",
		[QOSCONF_NODE_SW0] = "qos_sw0", [QOSCONF_NODE_SW2SW] = "qos_sw2sw",
		[QOSCONF_NODE_RTR] = "qos_rtr", [QOSCONF_NODE_COUNT] = "qos",
	};

	return names[set];
}

/* ------------------------------------------------------------------ */
/* Reading the options (osm_subnet.c)                                  */
/* ------------------------------------------------------------------ */

/* clean_val(): blanks cut at both ends, then one pair of quotes. */
static char *opensm_clean_value(char *v)
{
	size_t n;

	v = qosconf_lex_skip_space(v);
	qosconf_lex_trim_end(v);
	n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

/* opts_strtoul(): a whole number no larger than @max, or -1. */
static long opensm_unsigned(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	v = strtoul(s, &end, 0);
	if (!*s || *end || v > max)
		return -1;
	return (long)v;
}

/* The set "qos_<prefix>_<field>" belongs to; QOSCONF_NODE_COUNT: generic. */
static int opensm_key_set(const char *key, const char **field)
{
	size_t len;
	int i;

	key += strlen("qos_");
	for (i = 0; i < QOSCONF_NODE_COUNT; i++) {
		len = strlen(opensm_node_prefixes[i]);
		if (!strncmp(key, opensm_node_prefixes[i], len) && key[len] == '_') {
			*field = key + len + 1;
			return i;
		}
	}
	*field = key;
	return QOSCONF_NODE_COUNT;
}

static bool opensm_is_field(const char *field)
{
	return !strcmp(field, "max_vls") || !strcmp(field, "high_limit") ||
	       !strcmp(field, "vlarb_high") || !strcmp(field, "vlarb_low") ||
	       !strcmp(field, "sl2vl");
}

/* A string option: "(null)" unsets it, anything else (even "") is kept. */
static void opensm_set_string(const char *value, bool *has, char *dst)
{
	*has = strcmp(value, "(null)") != 0;
	if (*has)
		snprintf(dst, OPENSM_LINE_MAX, "%s", value);
}

/* qos_high_limit is read with strtol() and no check (opts_parse_int32). */
static void opensm_high_limit(struct qosconf_parser *p, const char *key,
			      const char *value, struct qosconf_opensm_set *set)
{
	char *end;
	long v = strtol(value, &end, 0);

	set->high_limit = (int32_t)v;
	if (*end || !*value)
		qosconf_lex_warn(p, "opensm-value-read",
				 "%s '%s': OpenSM reads it as %ld", key, value,
				 set->high_limit);
}

static int opensm_set_value(struct qosconf_parser *p, const char *key,
			    const char *field, const char *value,
			    struct qosconf_opensm_set *set)
{
	long v;

	if (!strcmp(field, "max_vls")) {
		v = opensm_unsigned(value, UINT32_MAX);
		if (v < 0)
			qosconf_lex_warn(p, "opensm-line-ignored",
					 "%s '%s' is not a number: OpenSM ignores "
					 "the line", key, value);
		else
			set->max_vls = v;
	} else if (!strcmp(field, "high_limit")) {
		opensm_high_limit(p, key, value, set);
	} else if (!strcmp(field, "vlarb_high")) {
		opensm_set_string(value, &set->has_high, set->high);
	} else if (!strcmp(field, "vlarb_low")) {
		opensm_set_string(value, &set->has_low, set->low);
	} else {
		opensm_set_string(value, &set->has_sl2vl, set->sl2vl);
	}
	return 0;
}

/* Options outside the qos_ key sets that decide what OpenSM programs. */
static void opensm_general(struct qosconf_parser *p, const char *key,
			   const char *value)
{
	long v;

	if (!strcmp(key, "qos")) {
		snprintf(p->qos_value, sizeof(p->qos_value), "%s", value);
		p->qos_on = !strcmp(value, "TRUE");
		return;
	}
	v = opensm_unsigned(value, 255);
	if (v < 0)
		qosconf_lex_warn(p, "opensm-value-read",
				 "max_op_vls '%s' is not a number 0-255: OpenSM "
				 "keeps %ld", value, p->max_op_vls);
	else
		p->max_op_vls = v;
}

/* "word value": a key, then blanks. */
bool qosconf_opensm_detect(const char *s)
{
	size_t word = strcspn(s, " \t,");

	return isalpha((unsigned char)*s) && (s[word] == ' ' || s[word] == '\t');
}

/* Every set starts with its high limit unset; OpenSM's max_op_vls. */
void qosconf_opensm_start(struct qosconf_parser *p)
{
	int i;

	for (i = 0; i <= QOSCONF_NODE_COUNT; i++)
		p->sets[i].high_limit = -1;
	p->max_op_vls = OPENSM_DEFAULT_MAX_OP_VLS;
}

int qosconf_opensm_line(struct qosconf_parser *p, char *s)
{
	const char *field;
	char *value;
	size_t klen = strcspn(s, " \t");
	int set;

	value = s[klen] ? s + klen + 1 : s + klen;
	s[klen] = '\0';
	value = opensm_clean_value(value);
	if (!strcmp(s, "qos") || !strcmp(s, "max_op_vls")) {
		opensm_general(p, s, value);
		return 0;
	}
	if (strncmp(s, "qos_", 4) || !strcmp(s, "qos_policy_file"))
		return 0;	/* every other option */
	set = opensm_key_set(s, &field);
	if (!opensm_is_field(field))
		return qosconf_lex_error(p, "unknown key '%s'", s);
	if (set == QOSCONF_NODE_SW2SW) {
		qosconf_lex_warn(p, "opensm-no-sw2sw",
				 "%s: OpenSM %s has no sw2sw keys and ignores "
				 "it; inter-switch ports get the qos_swe_ keys", s,
				 OPENSM_VERSION);
		return 0;
	}
	return opensm_set_value(p, s, field, value, &p->sets[set]);
}

/* ------------------------------------------------------------------ */
/* Building the tables (osm_qos.c)                                     */
/* ------------------------------------------------------------------ */

/* parse_one_unsigned(): a number (strtoul, base 0), then one character skipped. */
static const char *opensm_number(const char *s, unsigned *val)
{
	char *end;

	*val = (unsigned)strtoul(s, &end, 0);
	if (*end)
		end++;
	return end;
}

/* The list as its writer meant it: VL:WEIGHT items split by commas or blanks. */
static int opensm_vlarb_intended(const char *s, unsigned *vl, unsigned *w)
{
	char buf[OPENSM_LINE_MAX], *tok, *save, *colon;
	long a, b;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		colon = strchr(tok, ':');
		if (!colon || n == ARB_MAX_ENTRIES)
			return -1;
		*colon = '\0';
		if (qosconf_lex_parse_long(tok, 0, 1L << 30, &a) ||
		    qosconf_lex_parse_long(colon + 1, 0, 1L << 30, &b))
			return -1;
		vl[n] = a;
		w[n++] = b;
	}
	return n;
}

/* "vl:weight,..." of the first @n entries, cut to fit a warning. */
static void opensm_vlarb_show(const unsigned *vl, const unsigned *w, int n,
			      char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && at + 16 < len; i++)
		at += snprintf(buf + at, len - at, "%s%u:%u", i ? "," : "", vl[i], w[i]);
	if (i < n)
		snprintf(buf + at, len - at, ",...");
}

/* Warn when OpenSM's reading of the list is not what it says. */
static void opensm_vlarb_misread(struct qosconf_parser *p, const char *key,
				 const char *s, const unsigned *vl,
				 const unsigned *w, int listed)
{
	unsigned want_vl[ARB_MAX_ENTRIES], want_w[ARB_MAX_ENTRIES];
	char shown[OPENSM_SHOW_MAX];
	int n = opensm_vlarb_intended(s, want_vl, want_w), i;

	for (i = 0; n == listed && i < n; i++)
		if (want_vl[i] != vl[i] || want_w[i] != w[i])
			break;
	if (n == listed && i == n)
		return;
	opensm_vlarb_show(vl, w, listed, shown, sizeof(shown));
	qosconf_lex_warn(p, "opensm-value-read", "%s '%.40s%s': OpenSM reads it as %s (it takes a "
			 "number, then skips one character)", key, s,
			 strlen(s) > 40 ? "..." : "", shown);
}

/* What OpenSM changes entry by entry: VL modulo 15, weight's low 8 bits. */
static void opensm_vlarb_entry(struct qosconf_parser *p, const char *key, int i,
			       unsigned vl, unsigned w, struct arb_entry *e)
{
	e->vl = vl % 15;
	e->weight = (uint8_t)w;
	if (e->vl != vl)
		qosconf_lex_warn(p, "opensm-vl-masked", "%s entry %d: VL %u is programmed as VL%u "
				 "(OpenSM takes the VL modulo 15)", key, i + 1, vl,
				 e->vl);
	if (e->weight != w)
		qosconf_lex_warn(p, "opensm-weight-masked",
				 "%s entry %d: weight %u is programmed as %u "
				 "(OpenSM keeps its low 8 bits)", key, i + 1, w,
				 e->weight);
}

/* parse_vlarb_entry() 64 times over @s, as qos_build_config() does. */
static void opensm_vlarb_read(struct qosconf_parser *p, const char *key,
			      const char *s, struct opensm_vlarb *t)
{
	unsigned vl[ARB_MAX_ENTRIES], w[ARB_MAX_ENTRIES];
	const char *at = s;
	int i;

	t->listed = 0;
	for (i = 0; i < ARB_MAX_ENTRIES; i++) {
		if (*at)
			t->listed = i + 1;
		at = opensm_number(at, &vl[i]);
		at = opensm_number(at, &w[i]);
		opensm_vlarb_entry(p, key, i, vl[i], w[i], &t->entries[i]);
	}
	if (*at)
		qosconf_lex_warn(p, "opensm-entries-dropped",
				 "%s lists more than %d entries: OpenSM drops "
				 "the rest", key, ARB_MAX_ENTRIES);
	opensm_vlarb_misread(p, key, s, vl, w, t->listed);
}

/*
 * How many entries OpenSM writes to a port of VLArb capacity @cap, and how
 * many of them it copies from the table: the second 32-entry block is
 * cap % 32 long, so on a 64-entry port it is written as zeros.
 */
static int opensm_vlarb_copied(int cap)
{
	if (cap <= OPENSM_BLOCK_ENTRIES)
		return cap;
	return OPENSM_BLOCK_ENTRIES + cap % OPENSM_BLOCK_ENTRIES;
}

/* Entries OpenSM cuts: beyond the port's cap, or zeroed by the block size. */
static void opensm_vlarb_cut(struct qosconf_parser *p, const char *key,
			     const char *cap_name, int cap, int copied,
			     struct arb_table *t, int listed)
{
	int i, weighted = 0;

	if (listed > cap)
		qosconf_lex_warn(p, "opensm-entries-over-cap",
				 "%s lists %d entries, the port holds %d (%s): "
				 "OpenSM programs the first %d", key, listed, cap,
				 cap_name, cap);
	for (i = copied; i < t->n_entries; i++) {
		weighted += t->entries[i].weight != 0;
		t->entries[i].weight = 0;
		t->entries[i].vl = 0;
	}
	if (weighted)
		qosconf_lex_warn(p, "opensm-second-block",
				 "%s entries %d-%d are programmed as 0:0: OpenSM "
				 "%s writes the second block %s %% 32 = %d entries "
				 "long", key, copied + 1, t->n_entries,
				 OPENSM_VERSION, cap_name, cap % OPENSM_BLOCK_ENTRIES);
}

/* The table OpenSM writes to the port: its cap, VLs masked to its OperVLs. */
static void opensm_vlarb_program(struct qosconf_parser *p, const char *key,
				 const struct opensm_vlarb *in, const char *cap_name,
				 int cap, int oper_vls, struct arb_table *t)
{
	int mask = opensm_vl_mask(oper_vls), i;
	char list[ARB_WARNING_LEN] = "";
	size_t len = 0;
	uint8_t vl;

	memcpy(t->entries, in->entries, sizeof(t->entries));
	t->n_entries = cap ? (cap < ARB_MAX_ENTRIES ? cap : ARB_MAX_ENTRIES) : in->listed;
	t->cap = cap;
	if (cap)
		opensm_vlarb_cut(p, key, cap_name, cap, opensm_vlarb_copied(cap), t,
				 in->listed);
	for (i = 0; i < t->n_entries && i < in->listed; i++) {
		vl = t->entries[i].vl & mask;
		if (vl != t->entries[i].vl && t->entries[i].weight && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%sentry %d (VL%u as VL%u)",
						len ? ", " : "", i + 1, t->entries[i].vl, vl);
		t->entries[i].vl = vl;
	}
	if (len)
		qosconf_lex_warn(p, "opensm-vl-masked", "%s: the port has %d operational VLs and "
				 "OpenSM masks the VL with %d: %s", key, oper_vls, mask, list);
}

/* The list as its writer meant it: VLs split by commas or blanks. */
static int opensm_sl2vl_intended(const char *s, unsigned *vl)
{
	char buf[OPENSM_LINE_MAX], *tok, *save;
	long v;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (n == ARB_NUM_SLS || qosconf_lex_parse_long(tok, 0, 1L << 30, &v))
			return -1;
		vl[n++] = v;
	}
	return n;
}

/* parse_sl2vl_entry() 8 times: two VLs a byte, 4 bits each. */
static int opensm_sl2vl_read(struct qosconf_parser *p, const char *key,
			     const char *s, uint8_t *sl2vl)
{
	unsigned vl[ARB_NUM_SLS], want[ARB_NUM_SLS];
	char list[ARB_WARNING_LEN] = "";
	const char *at = s;
	int sl, listed = 0, n;
	size_t len = 0;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		if (*at)
			listed = sl + 1;
		at = opensm_number(at, &vl[sl]);
		sl2vl[sl] = vl[sl] & 0xf;
		if (sl2vl[sl] != vl[sl] && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%sSL%d (%u as VL%u)",
						len ? ", " : "", sl, vl[sl], sl2vl[sl]);
	}
	if (len)
		qosconf_lex_warn(p, "opensm-sl2vl-masked", "%s: OpenSM keeps the low 4 bits of "
				 "each VL: %s", key, list);
	n = opensm_sl2vl_intended(s, want);
	if (*at)
		qosconf_lex_warn(p, "opensm-sl2vl-dropped",
				 "%s lists more than 16 VLs: OpenSM drops the "
				 "rest", key);
	else if (n >= 0 && n < ARB_NUM_SLS && n == listed)
		qosconf_lex_warn(p, "opensm-sl2vl-short",
				 "%s lists %d VLs: OpenSM maps SL%d-SL15 to VL0",
				 key, n, n);
	else if (n != listed || memcmp(want, vl, listed * sizeof(*vl)))
		qosconf_lex_warn(p, "opensm-value-read",
				 "%s '%.40s': OpenSM reads it otherwise (it takes "
				 "a number, then skips one character)", key, s);
	return listed;
}

/* sl2vl_update_table(): every VL but 15 masked to the operational VLs. */
static void opensm_sl2vl_program(struct qosconf_parser *p, const char *key,
				 uint8_t *sl2vl, int oper_vls)
{
	int mask = opensm_vl_mask(oper_vls), sl;
	char list[ARB_WARNING_LEN] = "";
	size_t len = 0;
	uint8_t vl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		if (sl2vl[sl] == ARB_VL15)
			continue;
		vl = sl2vl[sl] & mask;
		if (vl != sl2vl[sl] && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%sSL%d (VL%u as VL%u)",
						len ? ", " : "", sl, sl2vl[sl], vl);
		sl2vl[sl] = vl;
	}
	if (len)
		qosconf_lex_warn(p, "opensm-sl2vl-masked", "%s: the port has %d operational VLs "
				 "and OpenSM masks the VL with %d: %s", key, oper_vls, mask, list);
}

/* ------------------------------------------------------------------ */
/* The port and the set that apply                                     */
/* ------------------------------------------------------------------ */

/* osm_subn_verify_config(): out-of-range values fall back to the default. */
static void opensm_verify_set(struct qosconf_parser *p, int set)
{
	struct qosconf_opensm_set *s = &p->sets[set];
	const char *prefix = opensm_set_prefix(set);

	if (s->max_vls > 15)
		qosconf_lex_warn(p, "opensm-out-of-range",
				 "%s_max_vls %ld is out of range 1-15: OpenSM "
				 "uses its default", prefix, s->max_vls);
	if (s->max_vls > 15)
		s->max_vls = 0;
	if (s->high_limit > 255)
		qosconf_lex_warn(p, "opensm-out-of-range",
				 "%s_high_limit %ld is out of range 0-255: "
				 "OpenSM uses %s", prefix, s->high_limit,
				 set == QOSCONF_NODE_COUNT ? "its default 0" :
				 "the generic qos_high_limit");
	if (s->high_limit < 0 || s->high_limit > 255)
		s->high_limit = -1;
}

/* The port OpenSM programs: given, captured, or one that holds everything. */
static const struct qosconf_port *opensm_port(struct qosconf_parser *p,
					      int *oper_vls)
{
	const struct qosconf_port *port = p->opts->port;
	int max_op = opensm_vls_of_code(p->max_op_vls);

	if (!port || !port->known)
		port = p->port.known ? &p->port : NULL;
	if (port && port->oper_vls) {
		*oper_vls = port->oper_vls;
		return port;
	}
	*oper_vls = max_op ? max_op : 1;
	if (port && port->vl_cap && port->vl_cap < *oper_vls)
		*oper_vls = port->vl_cap;
	if (!port || !port->vl_cap)
		qosconf_lex_warn(p, "vlcap-unknown",
				 "%d operational VLs assumed, as max_op_vls %ld "
				 "asks: the port's VLCap is not known, and a port with "
				 "fewer data VLs gets fewer (give --port to read it)",
				 *oper_vls, p->max_op_vls);
	return port;
}

/* qos_max_vls is read by OpenSM 3.3.23 and used nowhere. */
static void opensm_warn_max_vls(struct qosconf_parser *p, int own, int oper_vls)
{
	const struct qosconf_opensm_set *s = &p->sets[own];
	int set = own;

	if (!s->max_vls) {
		set = QOSCONF_NODE_COUNT;
		s = &p->sets[set];
	}
	if (s->max_vls && s->max_vls != oper_vls)
		qosconf_lex_warn(p, "opensm-max-vls-unused",
				 "%s_max_vls %ld: OpenSM %s does not use it; the "
				 "port has %d operational VLs (max_op_vls %ld and "
				 "the VLCap of the port and its peer)",
				 opensm_set_prefix(set), s->max_vls, OPENSM_VERSION,
				 oper_vls, p->max_op_vls);
}

/* The set of @field for a node type: its own, else the generic one. */
static const char *opensm_pick(struct qosconf_parser *p, int own, int field,
			       const char *def, char *key, size_t keylen)
{
	static const char *const names[] = { "vlarb_high", "vlarb_low", "sl2vl" };
	const struct qosconf_opensm_set *s[2] = { &p->sets[own],
						  &p->sets[QOSCONF_NODE_COUNT] };
	int i;

	for (i = 0; i < 2; i++) {
		bool has = field == 0 ? s[i]->has_high : field == 1 ? s[i]->has_low :
			   s[i]->has_sl2vl;

		if (!has)
			continue;
		snprintf(key, keylen, "%s_%s", opensm_set_prefix(i ? QOSCONF_NODE_COUNT :
								 own), names[field]);
		return field == 0 ? s[i]->high : field == 1 ? s[i]->low : s[i]->sl2vl;
	}
	snprintf(key, keylen, "default %s", names[field]);
	return def;
}

/* OpenSM's node type for the keys: inter-switch ports are switch external ports. */
static int opensm_own_set(struct qosconf_parser *p)
{
	if (p->opts->node_type != QOSCONF_NODE_SW2SW)
		return p->opts->node_type;
	qosconf_lex_warn(p, "opensm-no-sw2sw", "OpenSM %s has no sw2sw key set: inter-switch ports "
			 "get the qos_swe_ keys", OPENSM_VERSION);
	return QOSCONF_NODE_SWE;
}

static void opensm_limit(struct qosconf_parser *p, int own)
{
	const struct qosconf_opensm_set *s = &p->sets[own];
	const struct qosconf_opensm_set *g = &p->sets[QOSCONF_NODE_COUNT];

	p->cfg->limit = (uint8_t)(s->high_limit >= 0 ? s->high_limit :
				  g->high_limit >= 0 ? g->high_limit :
				  OPENSM_DEFAULT_HIGH_LIMIT);
	p->cfg->limit_known = true;
}

static void opensm_tables(struct qosconf_parser *p, int own, int oper_vls,
			  const struct qosconf_port *port)
{
	struct opensm_vlarb *t = malloc(sizeof(*t));
	char key[48];
	const char *s;

	if (!t)
		return;
	s = opensm_pick(p, own, 0, OPENSM_DEFAULT_VLARB_HIGH, key, sizeof(key));
	opensm_vlarb_read(p, key, s, t);
	opensm_vlarb_program(p, key, t, "VLArbHighCap", port ? port->high_cap : 0,
			     oper_vls, &p->cfg->high);
	s = opensm_pick(p, own, 1, OPENSM_DEFAULT_VLARB_LOW, key, sizeof(key));
	opensm_vlarb_read(p, key, s, t);
	opensm_vlarb_program(p, key, t, "VLArbLowCap", port ? port->low_cap : 0,
			     oper_vls, &p->cfg->low);
	free(t);
	s = opensm_pick(p, own, 2, OPENSM_DEFAULT_SL2VL, key, sizeof(key));
	opensm_sl2vl_read(p, key, s, p->cfg->sl2vl);
	opensm_sl2vl_program(p, key, p->cfg->sl2vl, oper_vls);
	p->cfg->sl2vl_explicit = true;
}

/* Without "qos TRUE" OpenSM programs nothing: there is nothing to analyze. */
static int opensm_qos_off(struct qosconf_parser *p)
{
	if (*p->qos_value)
		return qosconf_lex_error(p, "qos is '%s', not TRUE: OpenSM %s programs "
					 "no QoS, and the port keeps the tables it "
					 "had (its power-on defaults, or an earlier "
					 "SM's): analyze those (smpquery or --port)",
					 p->qos_value, OPENSM_VERSION);
	return qosconf_lex_error(p, "no 'qos TRUE': OpenSM %s programs no QoS "
				 "(qos is FALSE by default), and the port keeps the "
				 "tables it had (its power-on defaults, or an "
				 "earlier SM's): analyze those (smpquery or --port)",
				 OPENSM_VERSION);
}

int qosconf_opensm_finish(struct qosconf_parser *p)
{
	const struct qosconf_port *port;
	int own, i, oper_vls;

	if (!p->qos_on)
		return opensm_qos_off(p);
	for (i = 0; i <= QOSCONF_NODE_COUNT; i++)
		opensm_verify_set(p, i);
	own = opensm_own_set(p);
	port = opensm_port(p, &oper_vls);
	opensm_warn_max_vls(p, own, oper_vls);
	opensm_limit(p, own);
	opensm_tables(p, own, oper_vls, port);
	p->cfg->oper_vls = oper_vls;
	if (port && port->vl_cap == 1)
		qosconf_lex_warn(p, "opensm-one-vl", "the port has one data VL: OpenSM programs no "
				 "VL arbitration on it");
	return 0;
}
