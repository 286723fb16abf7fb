/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The tc reader: an ETS port as Linux shows it, `tc -j qdisc show dev
 * PORT` (the ets qdisc: bands, strict bands, quanta, priomap) and `tc -j
 * filter show dev PORT parent HANDLE` (flower filters on ip_tos that send
 * a DSCP to a band by classid, or set its priority with skbedit, which
 * the priomap maps), in one file or two. It exists so that rperf analyzes
 * the configuration a switch port really runs, read from the tool that
 * set it, not a description written beside it.
 *
 * The DSCP map follows the kernel's ets_classify(): a filter's classid
 * MAJ:MIN of the ets qdisc picks band MIN-1 (MIN past the last band: the
 * band of priority 0); a priority whose major is the qdisc's picks its
 * band the same way, any other goes through the priomap; traffic no
 * filter matches takes the priomap's band of priority 0 (a bridge leaves
 * it at 0), the ETS description's default. skbedit filters are taken as
 * those of the clsact egress hook, which set the priority before the
 * qdisc: tc -j does not say where a filter hangs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"
#include "qos/qosconf_tc.h"

#define TC_PRIOMAP_LEN	16
#define TC_HOW_CLASSID	1
#define TC_HOW_PRIORITY	2

/* ------------------------------------------------------------------ */
/* The ets qdisc                                                       */
/* ------------------------------------------------------------------ */

/* "10:" or "1:1" (hex, either part may be empty) into major and minor. */
static int tc_handle_parse(const char *s, uint32_t *major, uint32_t *minor)
{
	char *end;
	unsigned long v;

	v = strtoul(s, &end, 16);
	if (end == s)
		v = 0;
	if (*end != ':' || v > 0xffff)
		return -1;
	*major = (uint32_t)v;
	s = end + 1;
	v = *s ? strtoul(s, &end, 16) : 0;
	if ((*s && *end) || v > 0xffff)
		return -1;
	*minor = (uint32_t)v;
	return 0;
}

static int tc_quanta(struct qosconf_parser *p, const json_t *opt, long bands, long strict)
{
	const json_t *q = json_object_get(opt, "quanta"), *v;
	size_t i;

	if (json_array_size(q) != (size_t)(bands - strict))
		return qosconf_lex_error(p, "ets qdisc: %ld bands, %ld strict, but %zu quanta",
					 bands, strict, json_array_size(q));
	json_array_foreach(q, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > INT32_MAX)
			return qosconf_lex_error(p, "ets qdisc: quantum %zu is not a positive "
						 "integer", i);
		p->cfg->bands[strict + (long)i].quantum_bytes = (uint32_t)json_integer_value(v);
	}
	return 0;
}

static int tc_priomap(struct qosconf_parser *p, const json_t *opt, long bands)
{
	const json_t *m = json_object_get(opt, "priomap"), *v;
	size_t i;

	if (json_array_size(m) != TC_PRIOMAP_LEN)
		return qosconf_lex_error(p, "ets qdisc: expected a priomap of %d bands",
					 TC_PRIOMAP_LEN);
	json_array_foreach(m, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= bands)
			return qosconf_lex_error(p, "ets qdisc: priomap entry %zu is not a band "
						 "from 0 to %ld", i, bands - 1);
		p->tc_priomap[i] = (uint8_t)json_integer_value(v);
	}
	return 0;
}

static int tc_qdisc_ets(struct qosconf_parser *p, const json_t *q)
{
	const json_t *opt = json_object_get(q, "options");
	const char *handle = json_string_value(json_object_get(q, "handle"));
	uint32_t minor;
	long bands, strict = 0;
	int err, i;

	if (p->tc_qdisc_seen)
		return qosconf_lex_error(p, "a second ets qdisc (the first at line %d): give "
					 "the output for one port", p->tc_qdisc_line);
	if (!handle || tc_handle_parse(handle, &p->tc_major, &minor))
		return qosconf_lex_error(p, "ets qdisc: handle '%s' is not MAJOR:",
					 handle ? handle : "");
	err = qosconf_lex_json_int(p, opt, "bands", 1, ARB_MAX_BANDS, &bands);
	if (!err && json_object_get(opt, "strict"))
		err = qosconf_lex_json_int(p, opt, "strict", 0, bands, &strict);
	if (!err)
		err = tc_quanta(p, opt, bands, strict);
	if (!err)
		err = tc_priomap(p, opt, bands);
	if (err)
		return err;
	for (i = 0; i < strict; i++)
		p->cfg->bands[i].strict = true;
	p->cfg->n_bands = (int)bands;
	p->tc_qdisc_seen = true;
	p->tc_qdisc_line = p->line;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Filters                                                             */
/* ------------------------------------------------------------------ */

/* Where a matching packet goes: the classid, or an skbedit priority. */
static int tc_filter_target(struct qosconf_parser *p, const json_t *opt, uint8_t *how,
			    uint32_t *to)
{
	const char *s = json_string_value(json_object_get(opt, "classid"));
	const json_t *acts = json_object_get(opt, "actions"), *a;
	const char *kind;
	uint32_t major, minor;
	size_t i;

	*how = 0;
	if (s) {
		if (tc_handle_parse(s, &major, &minor))
			return qosconf_lex_error(p, "filter: classid '%s' is not MAJOR:MINOR", s);
		*how = TC_HOW_CLASSID;
		*to = major << 16 | minor;
	}
	json_array_foreach(acts, i, a) {
		kind = json_string_value(json_object_get(a, "kind"));
		s = json_string_value(json_object_get(a, "priority"));
		if (!kind || strcmp(kind, "skbedit") || !s)
			return qosconf_lex_error(p, "filter: action '%s' does not set a priority: "
						 "rperf reads classid and skbedit priority",
						 kind ? kind : "");
		if (tc_handle_parse(s, &major, &minor))
			return qosconf_lex_error(p, "filter: priority '%s' is not MAJOR:MINOR", s);
		if (!*how) {
			*how = TC_HOW_PRIORITY;
			*to = major << 16 | minor;
		}
	}
	if (!*how)
		return qosconf_lex_error(p, "filter: neither a classid nor an skbedit priority");
	return 0;
}

/* The TOS value and mask a flower filter matches (mask 0: any). */
static int tc_filter_tos(struct qosconf_parser *p, const json_t *keys, uint32_t *tos,
			 uint32_t *mask)
{
	const char *k, *m;
	json_t *v;
	char *end;

	*tos = 0;
	*mask = 0;
	json_object_foreach((json_t *)keys, k, v) {
		if (!strcmp(k, "eth_type") || !strcmp(k, "ip_tos_mask"))
			continue;
		if (strcmp(k, "ip_tos"))
			return qosconf_lex_error(p, "filter: it matches on '%s': rperf reads "
						 "filters on ip_tos alone", k);
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 255)
			return qosconf_lex_error(p, "filter: ip_tos is not 0 to 255");
		*tos = (uint32_t)json_integer_value(v);
		*mask = 0xff;
		m = json_string_value(json_object_get(keys, "ip_tos_mask"));
		if (m) {
			*mask = (uint32_t)strtoul(m, &end, 16);
			if (end == m || *end || *mask > 0xff)
				return qosconf_lex_error(p, "filter: ip_tos_mask '%s' is not a "
							 "hex byte", m);
		}
	}
	return 0;
}

static int tc_filter(struct qosconf_parser *p, const json_t *f)
{
	const char *kind = json_string_value(json_object_get(f, "kind"));
	const json_t *opt = json_object_get(f, "options");
	uint32_t tos, mask, to = 0;
	uint8_t how;
	int d, err;

	if (!kind || strcmp(kind, "flower"))
		return qosconf_lex_error(p, "filter kind '%s': rperf reads flower filters",
					 kind ? kind : "");
	if (!opt)
		return 0;	/* the line tc prints for the filter's chain */
	err = tc_filter_tos(p, json_object_get(opt, "keys"), &tos, &mask);
	if (!err)
		err = tc_filter_target(p, opt, &how, &to);
	if (err)
		return err;
	/* In the order tc lists them, which is the kernel's: the first match wins. */
	for (d = 0; d < ARB_NUM_DSCPS; d++) {
		if (p->tc_dscp_how[d] || (((uint32_t)d << 2) & mask) != (tos & mask))
			continue;
		p->tc_dscp_how[d] = how;
		p->tc_dscp_to[d] = to;
		p->tc_dscp_line[d] = p->line;
	}
	return 0;
}

/* One JSON value: a list of qdiscs or of filters. */
static int tc_doc(struct qosconf_parser *p, json_t *v)
{
	const char *kind;
	json_t *o;
	size_t i;
	int err = 0;

	if (!json_is_array(v))
		return qosconf_lex_error(p, "expected the list 'tc -j qdisc show' or 'tc -j "
					 "filter show' prints");
	json_array_foreach(v, i, o) {
		kind = json_string_value(json_object_get(o, "kind"));
		if (!json_is_object(o) || !kind)
			err = qosconf_lex_error(p, "entry %zu has no 'kind'", i);
		else if (json_object_get(o, "pref"))
			err = tc_filter(p, o);
		else if (!strcmp(kind, "ets"))
			err = tc_qdisc_ets(p, o);
		if (err)
			return err;
	}
	return 0;
}

bool qosconf_tc_detect(const char *s)
{
	return s[0] == '[';
}

int qosconf_tc_text(struct qosconf_parser *p, const char *text)
{
	return qosconf_lex_json_each(p, text, tc_doc);
}

/* ------------------------------------------------------------------ */
/* The whole input                                                     */
/* ------------------------------------------------------------------ */

/* The band a classid or a priority of the filter at @line picks. */
static int tc_band(struct qosconf_parser *p, uint8_t how, uint32_t to, int line, int *band)
{
	uint32_t major = to >> 16, minor = to & 0xffff;
	char msg[128];

	if (how == TC_HOW_CLASSID && major != p->tc_major) {
		snprintf(msg, sizeof(msg), "filter: classid %x:%x is not a class of the ets "
			 "qdisc %x:", major, minor, p->tc_major);
		return qosconf_lex_error_line(p, line, msg);
	}
	if (major == p->tc_major)
		*band = minor >= 1 && (int)minor <= p->cfg->n_bands ? (int)minor - 1 :
			p->tc_priomap[0];
	else
		*band = p->tc_priomap[minor & (TC_PRIOMAP_LEN - 1)];
	return 0;
}

int qosconf_tc_finish(struct qosconf_parser *p)
{
	struct arb_config *cfg = p->cfg;
	int d, band = 0, err = 0;

	if (!p->tc_qdisc_seen)
		return qosconf_lex_error(p, "no ets qdisc: give 'tc -j qdisc show dev PORT' "
					 "of an ETS port");
	cfg->default_band = p->tc_priomap[0];
	for (d = 0; d < ARB_NUM_PRIOS; d++)
		cfg->prio_band[d] = (int8_t)p->tc_priomap[d];
	for (d = 0; !err && d < ARB_NUM_DSCPS; d++) {
		if (!p->tc_dscp_how[d])
			continue;
		err = tc_band(p, p->tc_dscp_how[d], p->tc_dscp_to[d], p->tc_dscp_line[d], &band);
		cfg->dscp_band[d] = (int8_t)band;
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* Counters (tc -s)                                                    */
/* ------------------------------------------------------------------ */

/* The ets qdisc of @list: its handle's major and its band count; -1 if none. */
static int tc_stats_ets(const json_t *list, uint32_t *major, int *n_bands)
{
	const char *kind, *handle;
	const json_t *q;
	uint32_t minor;
	size_t i;

	json_array_foreach(list, i, q) {
		kind = json_string_value(json_object_get(q, "kind"));
		handle = json_string_value(json_object_get(q, "handle"));
		if (!kind || strcmp(kind, "ets") || !handle ||
		    tc_handle_parse(handle, major, &minor))
			continue;
		*n_bands = (int)json_integer_value(json_object_get(json_object_get(q, "options"),
								   "bands"));
		return *n_bands >= 1 && *n_bands <= ARB_MAX_BANDS ? 0 : -1;
	}
	return -1;
}

int qosconf_tc_band_bytes(const char *text, uint64_t bytes[ARB_MAX_BANDS], int *n_bands,
			  char *err, size_t errlen)
{
	json_t *list = json_loads(text, 0, NULL);
	const json_t *q, *b;
	uint32_t major, pmajor, pminor;
	const char *parent;
	int seen = 0;
	size_t i;

	memset(bytes, 0, sizeof(uint64_t) * ARB_MAX_BANDS);
	if (!json_is_array(list) || tc_stats_ets(list, &major, n_bands)) {
		json_decref(list);
		return errbuf_set(err, errlen, -EINVAL, "no ets qdisc in the counters: expected "
				  "'tc -s -j qdisc show dev PORT invisible'");
	}
	json_array_foreach(list, i, q) {
		parent = json_string_value(json_object_get(q, "parent"));
		b = json_object_get(q, "bytes");
		if (!parent || !json_is_integer(b) || tc_handle_parse(parent, &pmajor, &pminor) ||
		    pmajor != major || pminor < 1 || (int)pminor > *n_bands)
			continue;
		bytes[pminor - 1] = (uint64_t)json_integer_value(b);
		seen++;
	}
	json_decref(list);
	if (seen < *n_bands)
		return errbuf_set(err, errlen, -EINVAL, "counters of %d of the %d bands: expected "
				  "'tc -s -j qdisc show dev PORT invisible'", seen, *n_bands);
	return 0;
}
