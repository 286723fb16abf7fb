/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The dcb reader: a RoCE NIC's or switch's DCB configuration as iproute2's
 * dcb shows it, `dcb -j ets show dev DEV` (per traffic class: tc_tsa,
 * tc_bw; prio_tc) and `dcb -j app show dev DEV` (dscp_prio,
 * default_prio), in one file or two. It exists so that rperf analyzes the
 * ETS that the port runs, read from the tool that set it.
 *
 * A DSCP goes to a priority (dscp_prio; else default_prio, else 0), the
 * priority to a traffic class (prio_tc), the class to a band. Bands are
 * the classes some priority uses: the strict ones first, the highest
 * class first (802.1Qaz serves a higher strict class first), then the
 * ets ones in class order with their tc_bw percentage as the DRR weight
 * (the quantum column of rperf analyze).
 */
#include <stdio.h>
#include <string.h>

#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

#define DCB_TSA_STRICT	0
#define DCB_TSA_ETS	1

/* ------------------------------------------------------------------ */
/* The two objects                                                     */
/* ------------------------------------------------------------------ */

/* An array of 8 numbers 0..@hi (tc_bw, prio_tc). */
static int dcb_u8s(struct qosconf_parser *p, const json_t *o, const char *key, long hi,
		   uint8_t *out)
{
	const json_t *a = json_object_get(o, key), *v;
	size_t i;

	if (json_array_size(a) != ARB_NUM_PRIOS)
		return qosconf_lex_error(p, "'%s': expected %d values", key, ARB_NUM_PRIOS);
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > hi)
			return qosconf_lex_error(p, "'%s' entry %zu: expected 0 to %ld", key, i,
						 hi);
		out[i] = (uint8_t)json_integer_value(v);
	}
	return 0;
}

static int dcb_ets(struct qosconf_parser *p, const json_t *o)
{
	const json_t *a = json_object_get(o, "tc_tsa"), *v;
	const char *tsa;
	size_t i;
	int err;

	if (p->dcb_ets_line)
		return qosconf_lex_error(p, "a second 'dcb ets' output (the first at line %d)",
					 p->dcb_ets_line);
	if (json_array_size(a) != ARB_NUM_PRIOS)
		return qosconf_lex_error(p, "'tc_tsa': expected %d values", ARB_NUM_PRIOS);
	json_array_foreach(a, i, v) {
		tsa = json_string_value(v);
		if (tsa && !strcmp(tsa, "strict"))
			p->dcb_tsa[i] = DCB_TSA_STRICT;
		else if (tsa && !strcmp(tsa, "ets"))
			p->dcb_tsa[i] = DCB_TSA_ETS;
		else
			return qosconf_lex_error(p, "'tc_tsa' of class %zu: '%s': rperf models "
						 "strict and ets", i, tsa ? tsa : "");
	}
	err = dcb_u8s(p, o, "tc_bw", 100, p->dcb_bw);
	if (!err)
		err = dcb_u8s(p, o, "prio_tc", ARB_NUM_PRIOS - 1, p->dcb_prio_tc);
	p->dcb_ets_line = p->line;
	return err;
}

/* dscp_prio: [[DSCP, PRIO, " "], ...] (dcb prints a blank after each pair). */
static int dcb_app(struct qosconf_parser *p, const json_t *o)
{
	const json_t *a = json_object_get(o, "dscp_prio"), *e, *d, *pr;
	long def;
	size_t i;

	if (p->dcb_app_line)
		return qosconf_lex_error(p, "a second 'dcb app' output (the first at line %d)",
					 p->dcb_app_line);
	json_array_foreach(a, i, e) {
		d = json_array_get(e, 0);
		pr = json_array_get(e, 1);
		if (!json_is_integer(d) || !json_is_integer(pr) || json_integer_value(d) < 0 ||
		    json_integer_value(d) >= ARB_NUM_DSCPS || json_integer_value(pr) < 0 ||
		    json_integer_value(pr) >= ARB_NUM_PRIOS)
			return qosconf_lex_error(p, "'dscp_prio' entry %zu: expected [DSCP 0-63, "
						 "PRIO 0-7]", i);
		p->dcb_dscp_prio[json_integer_value(d)] = (int8_t)json_integer_value(pr);
	}
	a = json_object_get(o, "default_prio");
	if (json_array_size(a)) {
		if (!json_is_integer(json_array_get(a, 0)))
			return qosconf_lex_error(p, "'default_prio': expected a priority");
		def = (long)json_integer_value(json_array_get(a, 0));
		if (def < 0 || def >= ARB_NUM_PRIOS)
			return qosconf_lex_error(p, "'default_prio' %ld: expected 0 to 7", def);
		p->dcb_default_prio = (int)def;
	}
	p->dcb_app_line = p->line;
	return 0;
}

static int dcb_doc(struct qosconf_parser *p, json_t *v)
{
	if (json_is_object(v) && json_object_get(v, "tc_tsa"))
		return dcb_ets(p, v);
	if (json_is_object(v))
		return dcb_app(p, v);
	return qosconf_lex_error(p, "expected the object 'dcb -j ets show' or 'dcb -j app "
				 "show' prints");
}

bool qosconf_dcb_detect(const char *s)
{
	return s[0] == '{';
}

void qosconf_dcb_start(struct qosconf_parser *p)
{
	memset(p->dcb_dscp_prio, -1, sizeof(p->dcb_dscp_prio));
	p->dcb_default_prio = -1;
}

int qosconf_dcb_text(struct qosconf_parser *p, const char *text)
{
	return qosconf_lex_json_each(p, text, dcb_doc);
}

/* ------------------------------------------------------------------ */
/* The whole input                                                     */
/* ------------------------------------------------------------------ */

/* Number the classes in use as bands; band_of[tc] = -1 for the others. */
static int dcb_bands(struct qosconf_parser *p, int band_of[ARB_NUM_PRIOS])
{
	bool used[ARB_NUM_PRIOS] = { false };
	int tc, prio, n = 0;

	for (prio = 0; prio < ARB_NUM_PRIOS; prio++)
		used[p->dcb_prio_tc[prio]] = true;
	for (tc = ARB_NUM_PRIOS - 1; tc >= 0; tc--) {
		band_of[tc] = -1;
		if (used[tc] && p->dcb_tsa[tc] == DCB_TSA_STRICT) {
			p->cfg->bands[n].strict = true;
			band_of[tc] = n++;
		}
	}
	for (tc = 0; tc < ARB_NUM_PRIOS; tc++) {
		if (!used[tc] || p->dcb_tsa[tc] != DCB_TSA_ETS)
			continue;
		if (!p->dcb_bw[tc])
			return qosconf_lex_error_line(p, p->dcb_ets_line, "an ets traffic class "
						      "that priorities use has tc_bw 0");
		p->cfg->bands[n].quantum_bytes = p->dcb_bw[tc];
		band_of[tc] = n++;
	}
	p->cfg->n_bands = n;
	return 0;
}

int qosconf_dcb_finish(struct qosconf_parser *p)
{
	struct arb_config *cfg = p->cfg;
	int band_of[ARB_NUM_PRIOS], d, prio, err;

	if (!p->dcb_ets_line)
		return qosconf_lex_error(p, "no 'dcb -j ets show' output (tc_tsa, tc_bw, prio_tc)");
	err = dcb_bands(p, band_of);
	if (err)
		return err;
	for (prio = 0; prio < ARB_NUM_PRIOS; prio++)
		cfg->prio_band[prio] = (int8_t)band_of[p->dcb_prio_tc[prio]];
	prio = p->dcb_default_prio >= 0 ? p->dcb_default_prio : 0;
	cfg->default_band = cfg->prio_band[prio];
	for (d = 0; d < ARB_NUM_DSCPS; d++)
		if (p->dcb_dscp_prio[d] >= 0)
			cfg->dscp_band[d] = cfg->prio_band[p->dcb_dscp_prio[d]];
	return 0;
}
