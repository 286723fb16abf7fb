/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf lat's report (see report_lat.h): its document (config, each size's
 * RTT, wire and loopback histograms, the NIC's clock where asked, the
 * differences from a --reference document), its tables (one block a
 * metric, the --ci intervals, the notes on unresolved and too-few
 * percentiles) and its per-sample CSV. The histogram figures it prints
 * are report.c's; the reference document is read by reference.c.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report_int.h"
#include "report/report_lat_int.h"
#include "flow/figures.h"

static double ns(const struct clock_cal *clk, double ticks)
{
	return figures_ns(clk, ticks);
}
/* ------------------------------------------------------------------ */
/* The config and a size's result, each described once                */
/* ------------------------------------------------------------------ */

#define INFO(m)		REPORT_MEMBER(NULL, struct lat_report_info, m)

static void get_link_layer(const void *row, const char *arg, struct report_value *v)
{
	rv_str(v, ((const struct lat_report_info *)row)->roce ? "Ethernet" : "InfiniBand");
}

/* Where the path's SL (@arg "sl") or traffic class came from. */
static void get_path_source(const void *row, const char *arg, struct report_value *v)
{
	const struct verbs_path *p = &((const struct lat_report_info *)row)->path;

	rv_str(v, verbs_path_source_name(!strcmp(arg, "sl") ? p->sl_source : p->tclass_source));
}

static void get_connection(const void *row, const char *arg, struct report_value *v)
{
	rv_str(v, ((const struct lat_report_info *)row)->rdma_cm ? "rdma_cm" : "tcp");
}

/* The config keys every client command reports: where and how it sent
 * (common.schema.json's flow_config). */
static const struct report_field flow_config_fields[] = {
	{ .key = "server", INFO(server) },
	{ .key = "device", INFO(device) },
	{ .key = "port", INFO(port) },
	{ .key = "link_layer", .get = get_link_layer },
	{ .key = "gid_index", REPORT_MEMBER_GATED(NULL, struct lat_report_info, gid_index,
						  RG_NON_NEGATIVE) },
	{ .key = "mtu", INFO(mtu) },
	{ .key = "sl", INFO(path.sl) },
	{ .key = "tclass", INFO(path.tclass) },
	{ .key = "sl_source", .arg = "sl", .get = get_path_source },
	{ .key = "tclass_source", .arg = "tclass", .get = get_path_source },
	{ .key = "qp_timeout", INFO(path.timeout) },
	{ .key = "retry", INFO(path.retry) },
	{ .key = "threads", INFO(threads) },
	{ .key = "connection", .get = get_connection },
	{ .key = "hugepages", INFO(hugepages) },
};

static const char *const rtt_clock_names[] = {
	[FLOW_RTT_HOST] = "host", [FLOW_RTT_NIC] = "hw", [FLOW_RTT_BOTH] = "both",
};

static void get_rtt_clock(const void *row, const char *arg, struct report_value *v)
{
	rv_str(v, rtt_clock_names[((const struct lat_report_info *)row)->rtt_clock]);
}

/* What lat's config adds (lat.schema.json's config). */
static const struct report_field lat_config_fields[] = {
	{ .key = "iterations", INFO(iterations) },
	{ .key = "duration_s", INFO(duration_s) },
	{ .key = "warmup", INFO(warmup) },
	{ .key = "rtt_clock", .get = get_rtt_clock },
};

#undef INFO

/* A size's result row: the result and the clock its ticks are of. */
struct lat_result_row {
	const struct flow_result *r;
	const struct clock_cal *clk;
};

static const void *lat_result_of(const void *row)
{
	return ((const struct lat_result_row *)row)->r;
}

#define RES(m)		REPORT_MEMBER(lat_result_of, struct flow_result, m)

static void get_complete(const void *row, const char *arg, struct report_value *v)
{
	rv_bool(v, !((const struct lat_result_row *)row)->r->status);
}

/* Histogram @arg ("rtt_ns", "wire_ns", ...) of the size, summarised. */
static void get_hist(const void *row, const char *arg, struct report_value *v)
{
	const struct lat_result_row *w = row;
	const struct flow_result *r = w->r;
	bool rtt = !strcmp(arg, "rtt_ns");
	const struct hist *h = rtt ? r->rtt : !strcmp(arg, "wire_ns") ? r->wire :
			       !strcmp(arg, "loopback_ns") ? r->loop : r->rtt_neg;

	v->type = RV_JSON;
	v->json = report_hist_json(h, w->clk, rtt);
}

static void get_receiver(const void *row, const char *arg, struct report_value *v)
{
	v->type = RV_JSON;
	v->json = report_receiver_json(((const struct lat_result_row *)row)->r);
}

static void get_post_order_bias(const void *row, const char *arg, struct report_value *v)
{
	const struct lat_result_row *w = row;
	double bias_ticks = 0;

	rv_real_or_null(v, flow_result_order_bias_ticks(w->r, &bias_ticks),
			ns(w->clk, bias_ticks));
}

#define HIST(k)		.key = (k), .arg = (k), .get = get_hist

/* A size's figures in lat's results (lat.schema.json's result, but for
 * what report_lat_size_json() adds: the NIC's and the reference's). */
static const struct report_field lat_result_fields[] = {
	{ .key = "size_bytes", RES(size_bytes) },
	{ .key = "samples", RES(samples) },
	{ .key = "complete", .get = get_complete },
	{ HIST("rtt_ns") },
	{ HIST("wire_ns") },
	{ HIST("loopback_ns") },
	{ .key = "loopback_after_wire", RES(loop_after_wire) },
	{ HIST("negative_rtt_ns") },
	{ .key = "retransmissions", RES(retrans) },
	{ .key = "receiver", .get = get_receiver },
	{ .key = "post_order_bias_ns", .get = get_post_order_bias },
};

#undef RES
#undef HIST


const struct report_field *report_lat_fields(enum report_lat_list l, size_t *n)
{
	static const struct { const struct report_field *f; size_t n; } lists[] = {
		[RL_FLOW_CONFIG] = { flow_config_fields, N_OF(flow_config_fields) },
		[RL_LAT_CONFIG] = { lat_config_fields, N_OF(lat_config_fields) },
		[RL_RESULT] = { lat_result_fields, N_OF(lat_result_fields) },
	};

	*n = lists[l].n;
	return lists[l].f;
}

json_t *report_flow_config_json(const struct lat_report_info *in)
{
	return report_fields_json(flow_config_fields, N_OF(flow_config_fields), in, 0);
}

void report_lat_info(struct lat_report_info *info, const struct run_lat *r, bool ci)
{
	const struct flow_opts *f = r->cfg->flow;

	*info = (struct lat_report_info){
		.criteria = &r->crit, .env = &r->c.env, .server = f->host,
		.device = r->c.dev.name, .port = r->c.dev.port, .gid_index = r->c.dev.gid_index,
		.roce = r->c.dev.roce, .mtu = verbs_mtu_str(r->c.dev.port_attr.active_mtu),
		.path = r->c.path, .clk = &r->c.clk, .threads = f->spec.threads,
		.rdma_cm = f->rdma_cm, .authenticated = f->token_file != NULL,
		.hugepages = f->hugepages && r->c.got_huge,
		.iterations = r->cfg->iterations, .duration_s = r->cfg->duration_s,
		.warmup = r->cfg->warmup, .ci = ci, .rtt_clock = f->rtt_clock,
		.nic_clk = r->nic ? &r->nic_clk : NULL,
	};
}

json_t *report_lat_config_json(const struct lat_report_info *in)
{
	return report_fields_json_add(report_flow_config_json(in), lat_config_fields,
				      N_OF(lat_config_fields), in, 0);
}

json_t *report_lat_result_json(const struct flow_result *r, const struct clock_cal *clk)
{
	const struct lat_result_row w = { r, clk };

	return report_fields_json(lat_result_fields, N_OF(lat_result_fields), &w, 0);
}

/*
 * Size @r's differences against the reference's @rs, in ref_pct_keys'
 * order, and the measured percentiles they come from.
 */
static void lat_ref_diffs(const struct flow_result *r, const struct ref_size *rs,
			  const struct clock_cal *clk, struct ref_pct *m, struct ref_diff *d)
{
	uint64_t unres = hist_zeros(r->rtt);
	struct report_figure fig;
	size_t i, j, nf;
	const struct report_field *f = report_hist_fields(&nf);

	for (i = 0; i < REF_N_PCTS; i++) {
		for (j = 0; strcmp(f[j].key, ref_pct_keys[i]); j++)
			;
		report_hist_figure(r->rtt, unres, &f[j], clk, &fig);
		report_figure_pct(&fig, unres, hist_count(r->rtt), &m[i]);
		ref_diff(&m[i], &rs->pct[i], &d[i]);
	}
}

/* Why difference @d of percentile @key is not a figure, in words. */
static void ref_why(const struct ref_diff *d, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "the %s %s %s", d->by_reference ? "reference's" : "measured", key,
		 d->state == HIST_Q_UNRESOLVED ? "is unresolved" : d->state == HIST_Q_TOO_FEW ?
		 "has too few samples" : "has no samples");
}

/* {"p50": {"state", "value_ns", "ci_low_ns", "ci_high_ns", "reference_ns", "reason"}, ...} */
static json_t *lat_ref_json(const struct flow_result *r, const struct ref_size *rs,
			    const struct clock_cal *clk)
{
	struct ref_pct m[REF_N_PCTS];
	struct ref_diff d[REF_N_PCTS];
	json_t *o = json_object(), *x;
	char why[96];
	size_t i;

	lat_ref_diffs(r, rs, clk, m, d);
	for (i = 0; i < REF_N_PCTS; i++) {
		bool ok = d[i].state == HIST_Q_RESOLVED;

		ref_why(&d[i], ref_pct_keys[i], why, sizeof(why));
		x = json_object();
		json_object_set_new(x, "state", json_string(report_state_word(d[i].state)));
		json_object_set_new(x, "value_ns", ok ? report_json_ns(d[i].value_ns) :
				    json_null());
		json_object_set_new(x, "ci_low_ns", ok && d[i].has_lo ? report_json_ns(d[i].lo_ns) :
				    json_null());
		json_object_set_new(x, "ci_high_ns", ok && d[i].has_hi ?
				    report_json_ns(d[i].hi_ns) : json_null());
		json_object_set_new(x, "reference_ns", rs->pct[i].state == HIST_Q_RESOLVED ?
				    report_json_ns(rs->pct[i].value_ns) : json_null());
		json_object_set_new(x, "reason", ok ? json_null() : json_string(why));
		json_object_set_new(o, ref_pct_keys[i], x);
	}
	return o;
}

/* The document's "reference": the file, and what its differences' intervals cover. */
static json_t *lat_ref_head_json(const struct ref_doc *ref)
{
	json_t *o = json_object();

	json_object_set_new(o, "file", json_string(ref->path));
	json_object_set_new(o, "confidence", json_real(round(REF_CONFIDENCE * 1000) / 1000));
	json_object_set_new(o, "method", json_string("measured minus reference percentile; "
			    "interval [low measured - high reference, high measured - low "
			    "reference] of the two 95 % intervals (Bonferroni)"));
	return o;
}

/* The NIC's percentile @pct minus the host's, in ns; false when either is not resolved. */
static bool nic_minus_host_ns(const struct lat_report_info *info, const struct flow_result *r,
			      double pct, double *d_ns)
{
	struct hist_quantile qh, qn;

	hist_quantile(r->rtt, pct, hist_zeros(r->rtt), &qh);
	hist_quantile(r->rtt_nic, pct, hist_zeros(r->rtt_nic), &qn);
	if (qh.state != HIST_Q_RESOLVED || qn.state != HIST_Q_RESOLVED)
		return false;
	*d_ns = ns(info->nic_clk, (double)qn.value) - ns(info->clk, (double)qh.value);
	return true;
}

/* --clock hw|both: "rtt_nic_ns" and "nic_minus_host_ns" {p50, p99} (null: not asked). */
static void lat_nic_json(json_t *o, const struct lat_report_info *info,
			 const struct flow_result *r)
{
	static const struct { const char *key; double pct; } d[] = { { "p50", 50 }, { "p99", 99 } };
	json_t *diff;
	double v;
	size_t i;

	if (!info->nic_clk || !r->rtt_nic) {
		json_object_set_new(o, "rtt_nic_ns", json_null());
		json_object_set_new(o, "nic_minus_host_ns", json_null());
		return;
	}
	json_object_set_new(o, "rtt_nic_ns", report_hist_json(r->rtt_nic, info->nic_clk, true));
	diff = json_object();
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		json_object_set_new(diff, d[i].key, nic_minus_host_ns(info, r, d[i].pct, &v) ?
				    json_real(v) : json_null());
	json_object_set_new(o, "nic_minus_host_ns", diff);
}

json_t *report_lat_size_json(const struct lat_report_info *info, const struct flow_result *r)
{
	json_t *o = report_lat_result_json(r, info->clk);
	const struct ref_size *rs;

	lat_nic_json(o, info, r);
	if (info->ref) {
		rs = ref_doc_find(info->ref, r->size_bytes);
		json_object_set_new(o, "reference", rs ? lat_ref_json(r, rs, info->clk) : json_null());
	}
	return o;
}

json_t *report_lat_json(const struct lat_report_info *info, const struct flow_result *res,
			size_t n, const char *error)
{
	json_t *root = report_doc_new("lat"), *arr = json_array();
	size_t i;

	json_object_set_new(root, "config", report_lat_config_json(info));
	/* Connected with a token: each end proved it to the other. */
	json_object_set_new(root, "authenticated", json_boolean(info->authenticated));
	json_object_set_new(root, "clock", report_clock_json(info->clk));
	json_object_set_new(root, "nic_clock", info->nic_clk ? report_clock_json(info->nic_clk) :
			    json_null());
	for (i = 0; i < n; i++)
		json_array_append_new(arr, report_lat_size_json(info, &res[i]));
	json_object_set_new(root, "results", arr);
	if (info->ref)
		json_object_set_new(root, "reference", lat_ref_head_json(info->ref));
	json_object_set_new(root, "environment", run_env_json(info->env));
	json_object_set_new(root, "criteria", report_criteria_json(info->criteria));
	report_end_set(root, !error, error);
	return root;
}

enum lat_metric { LAT_RTT, LAT_WIRE, LAT_LOOP, LAT_RTT_NIC };

static const struct hist *lat_hist(const struct flow_result *r, enum lat_metric m)
{
	return m == LAT_RTT ? r->rtt : m == LAT_WIRE ? r->wire : m == LAT_LOOP ? r->loop :
	       r->rtt_nic;
}

/* A table cell: the figure in us, or what it is instead of a number. */
static void lat_cell(FILE *out, const struct report_field *f, const struct report_figure *fig)
{
	if (f->stat == RF_COUNT)
		fprintf(out, " %10.0f", fig->ns);
	else if (fig->state == HIST_Q_RESOLVED)
		fprintf(out, " %10.3f", report_us(fig->ns));
	else
		fprintf(out, " %10s", fig->state == HIST_Q_TOO_FEW ? "too few" : "unresolved");
}

/*
 * A cell of the --ci block: "[lo, hi]" in us; a side among the unresolved
 * samples "?", one the count cannot bound "-".
 */
static void lat_ci_cell(FILE *out, const struct report_figure *fig, uint64_t unresolved,
			uint64_t n)
{
	char lo[16] = "-", hi[16] = "-", cell[40];

	if (fig->q.state == HIST_Q_EMPTY || fig->q.state == HIST_Q_TOO_FEW) {
		fprintf(out, " %21s", fig->q.state == HIST_Q_EMPTY ? "-" : "too few");
		return;
	}
	if (fig->q.lo_unresolved)
		snprintf(lo, sizeof(lo), "?");
	else if (fig->q.lo_rank)
		snprintf(lo, sizeof(lo), "%.3f", report_us(fig->lo_ns));
	if (fig->q.hi_rank <= unresolved)
		snprintf(hi, sizeof(hi), "?");
	else if (fig->q.hi_rank <= n)
		snprintf(hi, sizeof(hi), "%.3f", report_us(fig->hi_ns));
	snprintf(cell, sizeof(cell), "[%s, %s]", lo, hi);
	fprintf(out, " %21s", cell);
}

/* One row per size: the figures of hist_fields, or (@ci) each percentile's interval. */
static void lat_table_block(FILE *out, const char *title, const struct flow_result *res,
			    size_t n, enum lat_metric m, const struct clock_cal *clk, bool ci)
{
	size_t i, j, nf;
	const struct report_field *f = report_hist_fields(&nf);
	struct report_figure fig;
	uint64_t unres;

	fprintf(out, "%s, us%s\n%9s", title, ci ? ", 95 % confidence intervals" : "", "bytes");
	for (j = 0; j < nf; j++)
		if (!ci || f[j].stat == RF_PCT)
			fprintf(out, ci ? " %21s" : " %10s", f[j].head[0]);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		unres = m == LAT_RTT || m == LAT_RTT_NIC ? hist_zeros(lat_hist(&res[i], m)) : 0;
		fprintf(out, "%9zu", res[i].size_bytes);
		for (j = 0; j < nf; j++) {
			if (ci && f[j].stat != RF_PCT)
				continue;
			report_hist_figure(lat_hist(&res[i], m), unres, &f[j], clk, &fig);
			if (ci)
				lat_ci_cell(out, &fig, unres, hist_count(lat_hist(&res[i], m)));
			else
				lat_cell(out, &f[j], &fig);
		}
		fputc('\n', out);
	}
}

/* Under the RTT block: what the words in it stand for, per size. */
static void lat_table_notes(FILE *out, const struct flow_result *res, size_t n)
{
	const struct report_field *f;
	struct hist_quantile q;
	uint64_t unres, cnt;
	size_t i, j, nf;

	f = report_hist_fields(&nf);
	for (i = 0; i < n; i++) {
		if (res[i].rx_rnr_naks_sent > 0 || res[i].rx_out_of_buffer > 0)
			fprintf(out, "size %zu: the receiver fell behind (its port: %" PRId64 " RNR NAKs "
				"sent, %" PRId64 " out-of-buffer drops): its RECVs ran out, so the tail "
				"is the receiver's (see rperf server --ring), not the fabric's\n",
				res[i].size_bytes, res[i].rx_rnr_naks_sent, res[i].rx_out_of_buffer);
		unres = hist_zeros(res[i].rtt);
		cnt = hist_count(res[i].rtt);
		if (unres)
			fprintf(out, "size %zu: %" PRIu64 " of %" PRIu64 " samples (%.1f %%) unresolved, "
				"%s; percentiles up to p%.4g are unresolved\n", res[i].size_bytes,
				unres, cnt, 100.0 * (double)unres / (double)cnt,
				REPORT_UNRESOLVED_WHY, 100.0 * (double)unres / (double)cnt);
		for (j = 0; j < nf; j++) {
			if (f[j].stat != RF_PCT)
				continue;
			hist_quantile(res[i].rtt, f[j].pct, unres, &q);
			if (q.state == HIST_Q_TOO_FEW)
				fprintf(out, "size %zu: %s needs %" PRIu64 " samples (%" PRIu64
					" measured): too few samples\n", res[i].size_bytes, f[j].key,
					q.needed, cnt);
		}
	}
}

/* A cell of the reference block: "value [lo, hi]" in us, or why it is no figure. */
static void lat_ref_cell(FILE *out, const struct ref_diff *d)
{
	char lo[16] = "-", hi[16] = "-", cell[64];

	if (d->state != HIST_Q_RESOLVED) {
		snprintf(cell, sizeof(cell), "%s (%s)", d->state == HIST_Q_UNRESOLVED ?
			 "unresolved" : d->state == HIST_Q_TOO_FEW ? "too few" : "no samples",
			 d->by_reference ? "reference" : "measured");
		fprintf(out, " %31s", cell);
		return;
	}
	if (d->has_lo)
		snprintf(lo, sizeof(lo), "%.3f", report_us(d->lo_ns));
	if (d->has_hi)
		snprintf(hi, sizeof(hi), "%.3f", report_us(d->hi_ns));
	snprintf(cell, sizeof(cell), "%.3f [%s, %s]", report_us(d->value_ns), lo, hi);
	fprintf(out, " %31s", cell);
}

/* What the path adds to the reference's, per size: one row each. */
static void lat_table_ref(FILE *out, const struct ref_doc *ref, const struct flow_result *res,
			  size_t n, const struct clock_cal *clk)
{
	struct ref_pct m[REF_N_PCTS];
	struct ref_diff d[REF_N_PCTS];
	const struct ref_size *rs;
	size_t i, j;

	fprintf(out, "\nadded to the reference '%s' (this RTT's percentile minus the reference's), "
		"us, %.0f %% intervals\n%9s", ref->path, REF_CONFIDENCE * 100, "bytes");
	for (j = 0; j < REF_N_PCTS; j++)
		fprintf(out, " %31s", ref_pct_keys[j]);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		fprintf(out, "%9zu", res[i].size_bytes);
		rs = ref_doc_find(ref, res[i].size_bytes);
		if (!rs) {
			fprintf(out, " %31s\n", "not in the reference");
			continue;
		}
		lat_ref_diffs(&res[i], rs, clk, m, d);
		for (j = 0; j < REF_N_PCTS; j++)
			lat_ref_cell(out, &d[j]);
		fputc('\n', out);
	}
	fprintf(out, "(a difference of percentiles, not a percentile of differences: the medians' "
		"is the shift between the paths; the tails' mean as much only when the two "
		"distributions differ by a shift; -: a side the counts cannot bound)\n");
}

/* --clock hw|both: the NIC's RTT table, and with both what it differs by. */
static void lat_table_nic(FILE *out, const struct lat_report_info *info,
			  const struct flow_result *res, size_t n)
{
	double p50, p99;
	size_t i;

	if (info->rtt_clock == FLOW_RTT_BOTH)
		fputc('\n', out);
	lat_table_block(out, "RTT by the NIC's completion timestamps", res, n, LAT_RTT_NIC,
			info->nic_clk, false);
	for (i = 0; i < n && info->rtt_clock == FLOW_RTT_BOTH; i++) {
		if (!res[i].rtt_nic)
			continue;
		fprintf(out, "size %zu: NIC minus host, p50 ", res[i].size_bytes);
		if (nic_minus_host_ns(info, &res[i], 50, &p50))
			fprintf(out, "%.3f us", report_us(p50));
		else
			fprintf(out, "no figure");
		if (nic_minus_host_ns(info, &res[i], 99, &p99))
			fprintf(out, ", p99 %.3f us\n", report_us(p99));
		else
			fprintf(out, ", p99 no figure\n");
	}
}

void report_lat_table(FILE *out, const struct lat_report_info *info,
		      const struct flow_result *res, size_t n)
{
	size_t i;

	fprintf(out, "rperf lat to %s: %s port %u, %s, MTU %s, SL %u (%s), tclass %u (%s), "
		"%u thread%s, clock %s (%s)\n\n", info->server, info->device, info->port,
		info->roce ? "RoCE" : "InfiniBand", info->mtu, info->path.sl,
		verbs_path_source_name(info->path.sl_source), info->path.tclass,
		verbs_path_source_name(info->path.tclass_source),
		info->threads, info->threads == 1 ? "" : "s", clock_source_name(info->clk->source),
		info->clk->method ? info->clk->method : "");
	if (info->rtt_clock != FLOW_RTT_NIC)
		lat_table_block(out, "RTT = (T_W - T_PW) - (T_L - T_PL)", res, n, LAT_RTT, info->clk,
				false);
	if (info->nic_clk)
		lat_table_nic(out, info, res, n);
	lat_table_notes(out, res, n);
	if (info->ref)
		lat_table_ref(out, info->ref, res, n, info->clk);
	if (info->ci) {
		fputc('\n', out);
		lat_table_block(out, "RTT", res, n, LAT_RTT, info->clk, true);
		fprintf(out, "(ranks of the order statistics, binomial on the count; their values "
			"through the histogram, resolution %.3f %%; ?: a bound among the unresolved "
			"samples, -: none at this count)\n", HIST_REL_ERROR * 100);
	}
	fputc('\n', out);
	lat_table_block(out, "wire = T_W - T_PW", res, n, LAT_WIRE, info->clk, false);
	fputc('\n', out);
	lat_table_block(out, "loopback = T_L - T_PL", res, n, LAT_LOOP, info->clk, false);
	fprintf(out, "\n%9s %19s %15s %9s\n", "bytes", "loopback_after_wire", "retransmissions",
		"complete");
	for (i = 0; i < n; i++)
		fprintf(out, "%9zu %19" PRIu64 " %15" PRIu64 " %9s\n", res[i].size_bytes,
			res[i].loop_after_wire, res[i].retrans, res[i].status ? "no" : "yes");
}

void report_lat_csv_header(FILE *out)
{
	fprintf(out, "thread,size_bytes,sample,t_pw_ticks,t_l_ticks,t_w_ticks,wire_ns,"
		     "loopback_ns,rtt_ns,t_pl_ticks\n");
}

void report_lat_csv_row(FILE *out, unsigned thread, size_t size_bytes, uint64_t warmup,
			const struct probe_sample *s, const struct clock_cal *clk)
{
	double rtt = ns(clk, (double)probe_sample_rtt_ticks(s));

	/* One fprintf per line: stdio locks the stream, lines never mix. */
	fprintf(out, "%u,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%.1f,%" PRIu64
		"\n", thread, size_bytes, s->index - warmup, s->t_pw, s->t_l, s->t_w,
		ns(clk, s->t_w - s->t_pw), ns(clk, s->t_l - s->t_pl), rtt, s->t_pl);
}
