/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The analyze report: what an arbitration model predicts for each SL and
 * each VL (or ETS band), as JSON, CSV and tables. Apart from the reports
 * of runs because it formats arb.h's results, not measured histograms.
 * Each row is described once (sl_fields, vl_fields, band_fields): the
 * table's columns, the JSON's keys and the CSV's cells read the same
 * fields. The rates are the model's own; the one the report derives, a
 * range of shares as Gb/s, is converted in one place (analyze_pct_gbps).
 */
#include <stdio.h>
#include <string.h>

#include "qos/arb.h"
#include "report/report_int.h"
#include "report/report_analyze.h"
#include "report/value.h"

/* ================================================================== */
/* analyze                                                             */
/* ================================================================== */

/* ------------------------------------------------------------------ */
/* The rows: one description for the table, the JSON and the CSV        */
/* ------------------------------------------------------------------ */

/* Row @i of a list, with what its figures are read from. */
struct analyze_row {
	const struct arb_config *cfg;
	const struct arb_params *params;
	const struct arb_result *res;
	int i;
};

/* The link's Gb/s in @pct % of it: the one place the report makes a share a rate. */
static double analyze_pct_gbps(const struct arb_result *res, double pct)
{
	return pct * res->link_gbps / 100;
}

/*
 * Whether SL @r's share is printed as the range over the semantics: they
 * disagree by more than range_pct, so that no share is printed more
 * confidently than the models allow.
 */
static bool sl_ranged(const struct analyze_row *w, const struct arb_sl_result *r)
{
	return w->res->uncertain && r->share_max_pct - r->share_min_pct > w->params->range_pct;
}

/* The structs a row's members are read from (report_member): its SL's, its VL's result. */
static const void *analyze_sl_of(const void *row)
{
	const struct analyze_row *w = row;

	return &w->res->sls[w->i];
}

static const void *analyze_vl_of(const void *row)
{
	const struct analyze_row *w = row;

	return &w->res->vls[w->i];
}

/*
 * The fields' get(), for the figures the rows compute: the figure of row
 * @w into @v, which comes zeroed (RV_ABSENT: the row has no such key).
 * ROW_SL, ROW_VL: the row's result.
 */
#define ROW_SL(w)	((const struct arb_sl_result *)analyze_sl_of(w))
#define ROW_VL(w)	((const struct arb_vl_result *)analyze_vl_of(w))

static void get_packet_bytes(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;

	rv_int(v, w->params->packet_bytes[w->i]);
}

static void get_offered(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;

	rv_real(v, ROW_SL(w)->offered_gbps);
	if (v->x < 0) {
		rv_str(v, "saturate");
	}
}

/* The range over the semantics (@arg: "min", "max"), when the model compared them. */
static void get_share_bound(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;

	if (w->res->n_semantics)
		rv_real(v, !strcmp(arg, "min") ? ROW_SL(w)->share_min_pct :
			ROW_SL(w)->share_max_pct);
}

static void get_sl_share(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;
	const struct arb_sl_result *r = ROW_SL(w);

	rv_real(v, r->share_pct);
	v->range = sl_ranged(w, r);
	v->lo = r->share_min_pct;
	v->hi = r->share_max_pct;
	v->prec = 1;
}

/* The range's rates at the precision the link's size allows. */
static void get_sl_gbps(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;
	const struct arb_sl_result *r = ROW_SL(w);
	double link = w->res->link_gbps;

	rv_real(v, r->gbps);
	v->range = sl_ranged(w, r);
	v->lo = analyze_pct_gbps(w->res, r->share_min_pct);
	v->hi = analyze_pct_gbps(w->res, r->share_max_pct);
	v->prec = link >= 10 ? 1 : link >= 1 ? 2 : 4;
}

/* SLs (or priorities) whose traffic lands in VL (or band) @vl. */
static void get_members(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;
	int i;

	v->type = RV_INTS;
	for (i = 0; i < w->res->n_sls; i++)
		if (w->res->sls[i].vl == ROW_VL(w)->vl)
			v->ints[v->n++] = w->res->sls[i].sl;
}

static void get_strict(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;

	rv_bool(v, ROW_VL(w)->strict);
	v->word = v->n ? "strict" : "drr";
}

/* A strict band has no quantum. */
static void get_quantum(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;

	rv_null(v, NULL);
	if (!ROW_VL(w)->strict)
		rv_int(v, ROW_VL(w)->quantum_bytes);
}

static void get_dscp(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;
	int d;

	v->type = RV_INTS;
	for (d = 0; d < ARB_NUM_DSCPS; d++)
		if (w->cfg->dscp_band[d] == w->i)
			v->ints[v->n++] = d;
}

static void get_default(const void *row, const char *arg, struct report_value *v)
{
	const struct analyze_row *w = row;

	rv_bool(v, w->cfg->default_band == w->i);
}

#define K(kind)		(1u << (kind))
#define IB		(K(RA_VLARB) | K(RA_DTABLE))
/* Its JSON key and CSV column, which analyze names alike. */
#define KC(k)		.key = (k), .csv = (k)
/* A member of the row's SL, VL (or band) result; null unless it has distances. */
#define SL(m)		REPORT_MEMBER(analyze_sl_of, struct arb_sl_result, m)
#define VL(m)		REPORT_MEMBER(analyze_vl_of, struct arb_vl_result, m)
#define SL_DIST(m)	REPORT_MEMBER_IF(analyze_sl_of, struct arb_sl_result, m, has_distance)
#define VL_DIST(m)	REPORT_MEMBER_IF(analyze_vl_of, struct arb_vl_result, m, has_distance)

/* Per SL (or priority): sls[]. */
static const struct report_field sl_fields[] = {
	{ KC("sl"), .kinds = RA_ALL, .head = { "SL", "SL", "prio" }, .width = 4, SL(sl) },
	{ KC("vl"), .kinds = RA_ALL, .head = { "VL", "VL", NULL }, .width = 4, SL(vl) },
	{ KC("band"), .kinds = K(RA_ETS), .head = { NULL, NULL, "band" }, .width = 4, SL(vl) },
	{ KC("packet_bytes"), .kinds = IB, .get = get_packet_bytes },
	{ KC("offered_gbps"), .kinds = RA_ALL,
	  .head = REPORT_HEADS("offered"), .width = 9, .num = { .prec = -6 }, .get = get_offered },
	{ KC("share_min_pct"), .kinds = K(RA_VLARB), .arg = "min", .get = get_share_bound },
	{ KC("share_max_pct"), .kinds = K(RA_VLARB), .arg = "max", .get = get_share_bound },
	{ KC("share_pct"), .kinds = RA_ALL,
	  .head = REPORT_HEADS("share %"), .width = 8, .wide = 11,
	  .num = { .prec = 2 }, .get = get_sl_share },
	{ KC("gbps"), .kinds = RA_ALL,
	  .head = REPORT_HEADS("Gb/s"), .width = 8, .wide = 11,
	  .num = { .prec = 2 }, .get = get_sl_gbps },
	{ KC("mean_distance"), .kinds = RA_ALL,
	  .head = REPORT_HEADS("mean dist"), .width = 9, .num = { .prec = 2 },
	  SL_DIST(mean_distance) },
	{ KC("max_seen_distance"), .kinds = RA_ALL,
	  .head = REPORT_HEADS("max seen"), .width = 8, SL_DIST(max_distance) },
};

/* Per VL (DTable: per SL, its queue): vls[]. ETS's table is of its bands.
 * DTable's one table: a queue is an SL, its weight its entries'. */
static const struct report_field vl_fields[] = {
	{ KC("vl"), .kinds = RA_ALL, .head = { "VL", "SL", NULL }, .width = 4, VL(vl) },
	{ KC("weight"), .kinds = K(RA_DTABLE),
	  .head = { NULL, "weight", NULL }, .width = 6, VL(high_weight) },
	{ KC("high_weight"), .kinds = K(RA_VLARB),
	  .head = { "high", NULL, NULL }, .width = 6, VL(high_weight) },
	{ KC("low_weight"), .kinds = K(RA_VLARB),
	  .head = { "low", NULL, NULL }, .width = 7, VL(low_weight) },
	{ KC("sls"), .kinds = RA_ALL, .get = get_members },
	{ KC("share_pct"), .kinds = RA_ALL,
	  .head = { "share %", "share %", NULL }, .width = 8, .num = { .prec = 2 },
	  VL(share_pct) },
	{ KC("gbps"), .kinds = RA_ALL,
	  .head = { "Gb/s", "Gb/s", NULL }, .width = 8, .num = { .prec = 2 }, VL(gbps) },
	{ KC("mean_distance"), .kinds = RA_ALL,
	  .head = { "mean dist", "mean dist", NULL }, .width = 9,
	  .num = { .prec = 2 }, VL_DIST(mean_distance) },
	{ KC("max_seen_distance"), .kinds = RA_ALL,
	  .head = { "max seen", "max seen", NULL }, .width = 8, VL_DIST(max_distance) },
};

/* Per ETS band: bands[]; its table's distances are its vls[] entry's. */
static const struct report_field band_fields[] = {
	{ KC("band"), .kinds = K(RA_ETS),
	  .head = { NULL, NULL, "band" }, .width = 4, VL(vl) },
	{ KC("strict"), .kinds = K(RA_ETS),
	  .head = { NULL, NULL, "kind" }, .width = 6, .get = get_strict },
	{ KC("quantum_bytes"), .kinds = K(RA_ETS),
	  .head = { NULL, NULL, "quantum" }, .width = 7, .get = get_quantum },
	{ KC("share_pct"), .kinds = K(RA_ETS),
	  .head = { NULL, NULL, "share %" }, .width = 8, .num = { .prec = 2 }, VL(share_pct) },
	{ KC("gbps"), .kinds = K(RA_ETS),
	  .head = { NULL, NULL, "Gb/s" }, .width = 8, .num = { .prec = 2 }, VL(gbps) },
	{ KC("dscp"), .kinds = K(RA_ETS), .get = get_dscp },
	{ KC("prios"), .kinds = K(RA_ETS), .get = get_members },
	{ KC("default"), .kinds = K(RA_ETS), .get = get_default },
	{ .head = { NULL, NULL, "mean dist" }, .width = 9, .num = { .prec = 2 },
	  VL_DIST(mean_distance) },
	{ .head = { NULL, NULL, "max seen" }, .width = 8, VL_DIST(max_distance) },
};

#undef K
#undef IB
#undef KC
#undef SL
#undef VL
#undef SL_DIST
#undef VL_DIST


static const struct {
	const char *name;		/* the document's key */
	const struct report_field *f;
	size_t n;
} analyze_lists[RA_N_LISTS] = {
	[RA_SLS] = { "sls", sl_fields, N_OF(sl_fields) },
	[RA_VLS] = { "vls", vl_fields, N_OF(vl_fields) },
	[RA_BANDS] = { "bands", band_fields, N_OF(band_fields) },
};

const struct report_field *report_analyze_fields(enum report_analyze_list l, size_t *n)
{
	*n = analyze_lists[l].n;
	return analyze_lists[l].f;
}

static enum report_analyze_kind analyze_kind(const struct arb_result *res)
{
	if (res->kind == ARB_KIND_ETS)
		return RA_ETS;
	return res->model == ARB_MODEL_DTABLE ? RA_DTABLE : RA_VLARB;
}

/* How many rows list @l has (bands: ETS only). */
static int analyze_rows(const struct arb_result *res, enum report_analyze_list l)
{
	if (l == RA_SLS)
		return res->n_sls;
	return l == RA_VLS || res->kind == ARB_KIND_ETS ? res->n_vls : 0;
}

/* Row @w of list @l as its JSON object: the fields its kind carries. */
static json_t *analyze_row_json(const struct analyze_row *w, enum report_analyze_list l)
{
	return report_fields_json(analyze_lists[l].f, analyze_lists[l].n, w,
				  analyze_kind(w->res));
}

static json_t *analyze_lists_json(const struct arb_config *cfg,
				  const struct arb_params *params,
				  const struct arb_result *res, json_t *root)
{
	struct analyze_row w = { cfg, params, res, 0 };
	json_t *a;
	int l;

	for (l = 0; l < RA_N_LISTS; l++) {
		if (l == RA_BANDS && res->kind != ARB_KIND_ETS)
			continue;
		a = json_array();
		for (w.i = 0; w.i < analyze_rows(res, l); w.i++)
			json_array_append_new(a, analyze_row_json(&w, l));
		json_object_set_new(root, analyze_lists[l].name, a);
	}
	return root;
}

static json_t *analyze_strings(const char *const *s, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
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
	json_object_set_new(root, "window_packets", json_integer(res->window_packets));
	json_object_set_new(root, "bound_pct", json_real(res->bound_pct));
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

/* Whether the table shows row @w of list @l: it is given or gets something. */
static bool analyze_row_shown(const struct analyze_row *w, enum report_analyze_list l)
{
	const struct arb_sl_result *r;
	const struct arb_vl_result *v;

	if (l == RA_SLS) {
		r = ROW_SL(w);
		return r->share_pct > 0 || r->offered_gbps > 0;
	}
	v = ROW_VL(w);
	if (l == RA_BANDS)
		return true;
	return v->high_weight || (w->res->model != ARB_MODEL_DTABLE && v->low_weight) ||
	       v->share_pct > 0;
}

/*
 * List @l as a table: a column per field its kind heads, a row per entry
 * shown, right-aligned, one space apart. Returns how many rows it printed.
 */
static int analyze_table_list(FILE *out, const struct analyze_row *w0, enum report_analyze_list l)
{
	enum report_analyze_kind kind = analyze_kind(w0->res);
	struct analyze_row w = *w0;
	int rows = 0;

	report_fields_table(out, analyze_lists[l].f, analyze_lists[l].n, NULL, kind,
			    w.res->uncertain);
	for (w.i = 0; w.i < analyze_rows(w.res, l); w.i++) {
		if (!analyze_row_shown(&w, l))
			continue;
		rows++;
		report_fields_table(out, analyze_lists[l].f, analyze_lists[l].n, &w, kind,
				    w.res->uncertain);
	}
	return rows;
}

/* The CSV's columns after "list": every key a kind carries, once, in the lists' order. */
static size_t analyze_csv_keys(const char **keys, size_t cap)
{
	const struct report_field *f;
	size_t n = 0, k, j;
	int l;

	for (l = 0; l < RA_N_LISTS; l++) {
		f = analyze_lists[l].f;
		for (k = 0; k < analyze_lists[l].n; k++) {
			if (!f[k].csv)
				continue;
			for (j = 0; j < n && strcmp(keys[j], f[k].csv); j++)
				;
			if (j == n && n < cap)
				keys[n++] = f[k].csv;
		}
	}
	return n;
}

/* Row @w of list @l as a CSV line under columns @keys. */
static void analyze_csv_row(FILE *out, const struct analyze_row *w, enum report_analyze_list l,
			    const char *const *keys, size_t n_keys)
{
	const struct report_field *f;
	struct report_value v;
	size_t j;

	fprintf(out, "%s", analyze_lists[l].name);
	for (j = 0; j < n_keys; j++) {
		fprintf(out, ",");
		f = report_field_by_csv(analyze_lists[l].f, analyze_lists[l].n, keys[j],
					analyze_kind(w->res));
		if (!f)
			continue;
		report_field_get(f, w, &v);
		report_value_csv(out, &v, f->csv_prec);
		report_value_clear(&v);
	}
	fprintf(out, "\n");
}

void report_analyze_csv(FILE *out, const struct arb_config *cfg,
			const struct arb_params *params, const struct arb_result *res)
{
	struct analyze_row w = { cfg, params, res, 0 };
	const char *keys[64];
	size_t n = analyze_csv_keys(keys, sizeof(keys) / sizeof(keys[0])), j;
	int l;

	fprintf(out, "list");
	for (j = 0; j < n; j++)
		fprintf(out, ",%s", keys[j]);
	fprintf(out, "\n");
	for (l = 0; l < RA_N_LISTS; l++)
		for (w.i = 0; w.i < analyze_rows(res, l); w.i++)
			analyze_csv_row(out, &w, l, keys, n);
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
	struct analyze_row w = { cfg, params, res, 0 };

	analyze_header(out, info, res);
	if (!analyze_table_list(out, &w, RA_SLS))
		fprintf(out, "   (%s)\n", res->kind == ARB_KIND_ETS ?
			"no priority offers load of its own: the bands below carry it" :
			"none gets traffic");
	fprintf(out, "\n");
	analyze_table_list(out, &w, res->kind == ARB_KIND_ETS ? RA_BANDS : RA_VLS);
	if (res->kind == ARB_KIND_ETS)
		analyze_band_map(out, cfg, res);
	if (res->uncertain)
		fprintf(out, "\nA range is what the readings of the specification disagree on;\n"
			"the VL shares follow the semantics above.");
	fprintf(out, "\n%s not listed get nothing%s.\nDistances are in %s.\n",
		res->kind == ARB_KIND_ETS ? "Priorities" : "SLs and VLs",
		analyze_warning_count(info), analyze_distance_unit(res));
}
