/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The analyze report: what an arbitration model predicts for each SL and
 * each VL (or ETS band), as JSON and as tables. Apart from the reports of
 * runs because it formats arb.h's results, not measured histograms.
 */
#include <stdio.h>

#include "qos/arb.h"
#include "report/report.h"

/* ================================================================== */
/* analyze                                                             */
/* ================================================================== */

static json_t *analyze_offered(double gbps)
{
	return gbps < 0 ? json_string("saturate") : json_real(gbps);
}

/* The fields every SL and VL object has; returns @o. */
static json_t *analyze_rates(json_t *o, double share_pct, double gbps,
			     bool has_distance, double mean, double max)
{
	json_object_set_new(o, "share_pct", json_real(share_pct));
	json_object_set_new(o, "gbps", json_real(gbps));
	json_object_set_new(o, "mean_distance", report_real_or_null(has_distance, mean));
	json_object_set_new(o, "max_distance", report_real_or_null(has_distance, max));
	return o;
}

static json_t *analyze_sl_json(const struct arb_result *res,
			       const struct arb_params *params, int i)
{
	const struct arb_sl_result *r = &res->sls[i];
	json_t *o = json_object();

	json_object_set_new(o, "sl", json_integer(r->sl));
	json_object_set_new(o, "vl", json_integer(r->vl));
	if (res->kind == ARB_KIND_ETS)
		json_object_set_new(o, "band", json_integer(r->vl));
	else
		json_object_set_new(o, "packet_bytes",
				    json_integer(params->packet_bytes[i]));
	json_object_set_new(o, "offered_gbps", analyze_offered(r->offered_gbps));
	if (res->n_semantics) {
		json_object_set_new(o, "share_min_pct", json_real(r->share_min_pct));
		json_object_set_new(o, "share_max_pct", json_real(r->share_max_pct));
	}
	return analyze_rates(o, r->share_pct, r->gbps, r->has_distance,
			     r->mean_distance, r->max_distance);
}

/* SLs (or priorities) whose traffic lands in VL (or band) @vl. */
static json_t *analyze_members(const struct arb_result *res, int vl)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < res->n_sls; i++)
		if (res->sls[i].vl == vl)
			json_array_append_new(a, json_integer(res->sls[i].sl));
	return a;
}

static json_t *analyze_vl_json(const struct arb_result *res, int i)
{
	const struct arb_vl_result *v = &res->vls[i];
	json_t *o = json_object();

	json_object_set_new(o, "vl", json_integer(v->vl));
	if (res->model == ARB_MODEL_DTABLE) {
		/* one table: a queue is an SL, its weight its entries' */
		json_object_set_new(o, "weight", json_integer(v->high_weight));
	} else if (res->kind == ARB_KIND_VLARB) {
		json_object_set_new(o, "high_weight", json_integer(v->high_weight));
		json_object_set_new(o, "low_weight", json_integer(v->low_weight));
	}
	json_object_set_new(o, "sls", analyze_members(res, v->vl));
	return analyze_rates(o, v->share_pct, v->gbps, v->has_distance,
			     v->mean_distance, v->max_distance);
}

static json_t *analyze_band_json(const struct arb_config *cfg,
				 const struct arb_result *res, int b)
{
	const struct arb_vl_result *v = &res->vls[b];
	json_t *o = json_object(), *dscp = json_array();
	int d;

	for (d = 0; d < ARB_NUM_DSCPS; d++)
		if (cfg->dscp_band[d] == b)
			json_array_append_new(dscp, json_integer(d));
	json_object_set_new(o, "band", json_integer(b));
	json_object_set_new(o, "strict", json_boolean(v->strict));
	json_object_set_new(o, "quantum_bytes", v->strict ? json_null() :
			    json_integer(v->quantum_bytes));
	json_object_set_new(o, "share_pct", json_real(v->share_pct));
	json_object_set_new(o, "gbps", json_real(v->gbps));
	json_object_set_new(o, "dscp", dscp);
	json_object_set_new(o, "prios", analyze_members(res, b));
	json_object_set_new(o, "default", json_boolean(cfg->default_band == b));
	return o;
}

static json_t *analyze_strings(const char *const *s, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
}

static json_t *analyze_lists_json(const struct arb_config *cfg,
				  const struct arb_params *params,
				  const struct arb_result *res, json_t *root)
{
	json_t *sls = json_array(), *vls = json_array(), *bands;
	int i;

	for (i = 0; i < res->n_sls; i++)
		json_array_append_new(sls, analyze_sl_json(res, params, i));
	for (i = 0; i < res->n_vls; i++)
		json_array_append_new(vls, analyze_vl_json(res, i));
	json_object_set_new(root, "sls", sls);
	json_object_set_new(root, "vls", vls);
	if (res->kind == ARB_KIND_ETS) {
		bands = json_array();
		for (i = 0; i < res->n_vls; i++)
			json_array_append_new(bands, analyze_band_json(cfg, res, i));
		json_object_set_new(root, "bands", bands);
	}
	return root;
}

/* Each semantics' shares, SL by SL, when the model compared them. */
static json_t *analyze_semantics_json(const struct arb_result *res)
{
	json_t *a = json_array(), *o, *shares;
	char name[96];
	int i, sl;

	for (i = 0; i < res->n_semantics; i++) {
		o = json_object();
		shares = json_array();
		arb_semantics_format(&res->per_semantics[i].semantics, name, sizeof(name));
		for (sl = 0; sl < res->n_sls; sl++)
			json_array_append_new(shares,
				json_real(res->per_semantics[i].share_pct[sl]));
		json_object_set_new(o, "semantics", json_string(name));
		json_object_set_new(o, "share_pct", shares);
		json_array_append_new(a, o);
	}
	return a;
}

/* How exact the shares are, and under which reading. */
static void analyze_exactness_json(const struct arb_params *params,
				   const struct arb_result *res, json_t *root)
{
	char name[96];

	if (res->kind != ARB_KIND_VLARB)
		return;
	arb_semantics_format(&res->semantics, name, sizeof(name));
	json_object_set_new(root, "semantics", res->model == ARB_MODEL_IB_PACKET ?
			    json_string(name) : json_null());
	json_object_set_new(root, "exact", json_boolean(res->exact));
	json_object_set_new(root, "period_packets", json_integer(res->period_packets));
	json_object_set_new(root, "bound_pct", res->exact ? json_real(0) :
			    json_real(res->bound_pct));
	json_object_set_new(root, "range_pct", json_real(params->range_pct));
	json_object_set_new(root, "uncertain", json_boolean(res->uncertain));
	json_object_set_new(root, "per_semantics", analyze_semantics_json(res));
	json_object_set_new(root, "distance_unit", json_string("packets"));
}

json_t *report_analyze_json(const struct analyze_report_info *info,
			    const struct arb_config *cfg,
			    const struct arb_params *params,
			    const struct arb_result *res)
{
	json_t *root = report_doc_new("analyze"), *warnings = json_array();
	json_t *codes = json_array();
	bool ib = res->kind == ARB_KIND_VLARB;
	int i;

	for (i = 0; i < res->n_warnings; i++) {
		json_array_append_new(warnings, json_string(res->warnings[i]));
		json_array_append_new(codes, json_string(res->warning_codes[i][0] ?
							 res->warning_codes[i] : "other"));
	}
	json_object_set_new(root, "model", json_string(arb_model_name(res->model)));
	json_object_set_new(root, "runs", ib ? json_integer(res->runs) : json_null());
	json_object_set_new(root, "limit", ib && res->model != ARB_MODEL_DTABLE ?
			    json_integer(res->limit) : json_null());
	json_object_set_new(root, "link_gbps", json_real(res->link_gbps));
	json_object_set_new(root, "format", json_string(info->format));
	json_object_set_new(root, "node_type", info->node_type ?
			    json_string(info->node_type) : json_null());
	json_object_set_new(root, "source",
			    analyze_strings(info->sources, info->n_sources));
	json_object_set_new(root, "port", info->port ? json_string(info->port) : json_null());
	analyze_exactness_json(params, res, root);
	analyze_lists_json(cfg, params, res, root);
	json_object_set_new(root, "warnings", warnings);
	json_object_set_new(root, "warning_codes", codes);
	return root;
}

static void analyze_header(FILE *out, const struct analyze_report_info *info,
			   const struct arb_result *res)
{
	int i;

	fprintf(out, "rperf analyze:");
	for (i = 0; i < info->n_sources; i++)
		fprintf(out, " %s", info->sources[i]);
	fprintf(out, " (%s%s%s%s%s)\nmodel %s", info->format,
		info->node_type ? ", node type " : "",
		info->node_type ? info->node_type : "", info->port ? ", for " : "",
		info->port ? info->port : "", arb_model_name(res->model));
	char name[96];

	if (res->kind == ARB_KIND_VLARB && res->model != ARB_MODEL_DTABLE)
		fprintf(out, ", limit %d%s", res->limit,
			res->limit == ARB_LIMIT_NONE ? " (none)" : "");
	fprintf(out, ", link %.6g Gb/s\n", res->link_gbps);
	if (res->model == ARB_MODEL_IB_PACKET) {
		arb_semantics_format(&res->semantics, name, sizeof(name));
		fprintf(out, "semantics %s", name);
	}
	if (res->kind == ARB_KIND_VLARB && res->exact)
		fprintf(out, "%sexact period of %llu packets\n",
			res->model == ARB_MODEL_IB_PACKET ? "; " : "",
			(unsigned long long)res->period_packets);
	else if (res->kind == ARB_KIND_VLARB)
		fprintf(out, "%sno exact period: shares within %.2f points\n",
			res->model == ARB_MODEL_IB_PACKET ? "; " : "", res->bound_pct);
	fprintf(out, "\n");
}

static void analyze_distance_cols(FILE *out, bool has, double mean, double max)
{
	if (has)
		fprintf(out, " %9.2f %8.0f\n", mean, max);
	else
		fprintf(out, " %9s %8s\n", "-", "-");
}

/*
 * An SL's share and rate: one number each, or the ranges over the
 * semantics when they disagree by more than range_pct, so that no share
 * is printed more confidently than the models allow.
 */
static void analyze_share_col(FILE *out, const struct arb_params *params,
			      const struct arb_result *res,
			      const struct arb_sl_result *r)
{
	char range[32], gbps[32];
	double to_gbps = res->link_gbps / 100;
	int prec = res->link_gbps >= 10 ? 1 : res->link_gbps >= 1 ? 2 : 4;

	if (!res->uncertain) {
		fprintf(out, " %8.2f %8.2f", r->share_pct, r->gbps);
		return;
	}
	if (r->share_max_pct - r->share_min_pct > params->range_pct) {
		snprintf(range, sizeof(range), "%.1f-%.1f", r->share_min_pct,
			 r->share_max_pct);
		snprintf(gbps, sizeof(gbps), "%.*f-%.*f", prec, r->share_min_pct * to_gbps,
			 prec, r->share_max_pct * to_gbps);
	} else {
		snprintf(range, sizeof(range), "%.2f", r->share_pct);
		snprintf(gbps, sizeof(gbps), "%.2f", r->gbps);
	}
	fprintf(out, " %11s %11s", range, gbps);
}

static void analyze_sl_rows(FILE *out, const struct arb_params *params,
			    const struct arb_result *res)
{
	const char *unit = res->kind == ARB_KIND_ETS ? "prio" : "SL";
	const struct arb_sl_result *r;
	char offered[16];
	int i, rows = 0;

	fprintf(out, "%4s %4s %9s %*s %*s %9s %8s\n", unit,
		res->kind == ARB_KIND_ETS ? "band" : "VL", "offered",
		res->uncertain ? 11 : 8, "share %", res->uncertain ? 11 : 8, "Gb/s",
		"mean dist", "max dist");
	for (i = 0; i < res->n_sls; i++) {
		r = &res->sls[i];
		if (r->share_pct <= 0 && r->offered_gbps <= 0)
			continue;
		rows++;
		if (r->offered_gbps < 0)
			snprintf(offered, sizeof(offered), "saturate");
		else
			snprintf(offered, sizeof(offered), "%.6g", r->offered_gbps);
		fprintf(out, "%4d %4d %9s", r->sl, r->vl, offered);
		analyze_share_col(out, params, res, r);
		analyze_distance_cols(out, r->has_distance, r->mean_distance,
				      r->max_distance);
	}
	if (!rows)
		fprintf(out, "   (%s)\n", res->kind == ARB_KIND_ETS ?
			"no priority offers load of its own: the bands below carry it" :
			"none gets traffic");
}

/* "46,48" or "0-7,10": the members of @band in @map[0..n), runs joined. */
static void analyze_map_list(const int8_t *map, int n, int band, char *buf, size_t cap)
{
	size_t len = 0;
	int i, j;

	buf[0] = '\0';
	for (i = 0; i < n && len < cap; i = j) {
		if (map[i] != band) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < n && map[j] == band; j++)
			;
		len += (size_t)snprintf(buf + len, cap - len, j - i > 2 ? "%s%d-%d" :
					j - i == 2 ? "%s%d,%d" : "%s%d", len ? "," : "", i, j - 1);
	}
}

/*
 * ETS: what each band is given, DSCP and priority, one line a band
 * (continued over lines at 100 columns), and the band of the rest.
 */
static void analyze_band_map(FILE *out, const struct arb_config *cfg, const struct arb_result *res)
{
	char dscp[400], prio[40], line[512];
	size_t at, n;
	int b;

	fprintf(out, "\nband gets\n");
	for (b = 0; b < res->n_vls; b++) {
		analyze_map_list(cfg->dscp_band, ARB_NUM_DSCPS, b, dscp, sizeof(dscp));
		analyze_map_list(cfg->prio_band, ARB_NUM_PRIOS, b, prio, sizeof(prio));
		snprintf(line, sizeof(line), "%s%s%s%s%s%s", dscp[0] ? "DSCP " : "", dscp,
			 dscp[0] && prio[0] ? "; " : "", prio[0] ? "priority " : "", prio,
			 cfg->default_band == b ? (dscp[0] || prio[0] ? "; the rest (default)" :
						   "the rest (default)") : "");
		if (!line[0])
			snprintf(line, sizeof(line), "nothing");
		fprintf(out, "%4d", b);
		for (at = 0; line[at]; at += n) {
			n = strlen(line + at) > 90 ? 90 : strlen(line + at);
			fprintf(out, "%s %.*s\n", at ? "    " : "", (int)n, line + at);
		}
	}
}

/* DTable's queues are its SLs: the weight of each one's table entries. */
static void analyze_dtable_rows(FILE *out, const struct arb_result *res)
{
	const struct arb_vl_result *v;
	int i;

	fprintf(out, "\n%4s %6s %8s %8s %9s %8s\n", "SL", "weight", "share %",
		"Gb/s", "mean dist", "max dist");
	for (i = 0; i < res->n_vls; i++) {
		v = &res->vls[i];
		if (!v->high_weight && v->share_pct <= 0)
			continue;
		fprintf(out, "%4d %6d %8.2f %8.2f", v->vl, v->high_weight,
			v->share_pct, v->gbps);
		analyze_distance_cols(out, v->has_distance, v->mean_distance,
				      v->max_distance);
	}
}

static void analyze_vl_rows(FILE *out, const struct arb_result *res)
{
	const struct arb_vl_result *v;
	bool ets = res->kind == ARB_KIND_ETS;
	char a[16], b[16];
	int i;

	if (res->model == ARB_MODEL_DTABLE) {
		analyze_dtable_rows(out, res);
		return;
	}
	fprintf(out, "\n%4s %6s %7s %8s %8s %9s %8s\n", ets ? "band" : "VL",
		ets ? "kind" : "high", ets ? "quantum" : "low", "share %", "Gb/s",
		"mean dist", "max dist");
	for (i = 0; i < res->n_vls; i++) {
		v = &res->vls[i];
		if (!ets && !v->high_weight && !v->low_weight && v->share_pct <= 0)
			continue;
		snprintf(a, sizeof(a), "%s", v->strict ? "strict" : "drr");
		if (!ets)
			snprintf(a, sizeof(a), "%d", v->high_weight);
		snprintf(b, sizeof(b), "%d", ets ? (int)v->quantum_bytes : v->low_weight);
		if (ets && v->strict)
			snprintf(b, sizeof(b), "-");
		fprintf(out, "%4d %6s %7s %8.2f %8.2f", v->vl, a, b, v->share_pct,
			v->gbps);
		analyze_distance_cols(out, v->has_distance, v->mean_distance,
				      v->max_distance);
	}
}

/* What a distance counts, for the footer (rperf-analyze(1), DISTANCES). */
static const char *analyze_distance_unit(const struct arb_result *res)
{
	if (res->kind == ARB_KIND_ETS)
		return "bands served between two turns of the band";
	if (res->model == ARB_MODEL_DTABLE)
		return "packets of other SLs that start while the SL's next waits";
	return "packets of other VLs that start while the VL's next waits";
}

/* The footer's " (3 warnings; 6 notes with -v)": what stderr showed. */
static const char *analyze_warning_count(const struct analyze_report_info *info)
{
	static char buf[96];
	int n = info->n_warnings;

	if (info->quiet)
		return "";
	if (info->n_hidden)
		snprintf(buf, sizeof(buf), " (%d warning%s; %d note%s with -v)", n,
			 n == 1 ? "" : "s", info->n_hidden, info->n_hidden == 1 ? "" : "s");
	else if (info->n_notes)
		snprintf(buf, sizeof(buf), " (%d warning%s, %d note%s)", n, n == 1 ? "" : "s",
			 info->n_notes, info->n_notes == 1 ? "" : "s");
	else
		snprintf(buf, sizeof(buf), " (%d warning%s)", n, n == 1 ? "" : "s");
	return buf;
}

void report_analyze_table(FILE *out, const struct analyze_report_info *info,
			  const struct arb_config *cfg,
			  const struct arb_params *params,
			  const struct arb_result *res)
{
	analyze_header(out, info, res);
	analyze_sl_rows(out, params, res);
	analyze_vl_rows(out, res);
	if (res->kind == ARB_KIND_ETS)
		analyze_band_map(out, cfg, res);
	if (res->uncertain)
		fprintf(out, "\nA range is what the readings of the specification disagree on;\n"
			"the VL shares follow the semantics above.");
	fprintf(out, "\n%s not listed get nothing%s.\nDistances are in %s.\n",
		res->kind == ARB_KIND_ETS ? "Priorities" : "SLs and VLs",
		analyze_warning_count(info), analyze_distance_unit(res));
}
