/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Formatting of results (see report.h): the histogram objects every
 * report shares, and the lat, server and bw reports. The analyze and converge reports have files of their own.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "report/report_int.h"
#include "engine/figures.h"
#include "engine/sink.h"

/* ================================================================== */
/* lat and server                                                      */
/* ================================================================== */

static double ns(const struct clock_cal *clk, double ticks)
{
	return figures_ns(clk, ticks);
}

/* Rounded to 0.1 ns: finer digits only repeat the clock's noise. */
static json_t *json_ns(double v)
{
	return json_real((double)(int64_t)(v * 10 + (v < 0 ? -0.5 : 0.5)) / 10);
}

json_t *report_schema_stamp(json_t *o)
{
	json_object_set_new(o, "schema_version", json_integer(REPORT_SCHEMA_VERSION));
	return o;
}

json_t *report_doc_new(const char *command)
{
	json_t *o = json_object();

	json_object_set_new(o, "command", json_string(command));
	report_schema_stamp(o);
	json_object_set_new(o, "version", json_string(PACKAGE_VERSION));
	return o;
}

json_t *report_failed_json(const char *command, const char *error)
{
	json_t *o = report_doc_new(command);

	json_object_set_new(o, "complete", json_false());
	json_object_set_new(o, "error", json_string(error && error[0] ? error : "failed"));
	return o;
}

json_t *report_real_or_null(bool has, double v)
{
	return has ? json_real(v) : json_null();
}


/* ------------------------------------------------------------------ */
/* A histogram's summary: one description for the table and the JSON   */
/* ------------------------------------------------------------------ */

/*
 * Every figure of a histogram's summary, in the table's column order:
 * its JSON key (schema/common.schema.json, hist_ns), its column head, and
 * what it is. The table, the JSON and the CSV take their figures from
 * hist_figure() over this list, so a figure is described once.
 */
static const struct report_field hist_fields[] = {
	{ "count", "samples", RF_COUNT, 0 },
	{ "p50", "p50", RF_PCT, 50 },
	{ "p90", "p90", RF_PCT, 90 },
	{ "p99", "p99", RF_PCT, 99 },
	{ "p99_9", "p99_9", RF_PCT, 99.9 },
	{ "p99_99", "p99_99", RF_PCT, 99.99 },
	{ "min", "min", RF_MIN, 0 },
	{ "max", "max", RF_MAX, 0 },
	{ "mean", "mean", RF_MEAN, 0 },
	{ "stdev", "stdev", RF_STDEV, 0 },
};

#define N_HIST_FIELDS (sizeof(hist_fields) / sizeof(hist_fields[0]))

const struct report_field *report_hist_fields(size_t *n)
{
	*n = N_HIST_FIELDS;
	return hist_fields;
}

void report_hist_figure(const struct hist *h, uint64_t unresolved, const struct report_field *f,
			const struct clock_cal *clk, struct report_figure *fig)
{
	uint64_t n = hist_count(h);

	memset(fig, 0, sizeof(*fig));
	fig->state = HIST_Q_RESOLVED;
	if (f->kind == RF_PCT) {
		hist_quantile(h, f->pct, unresolved, &fig->q);
		fig->state = fig->q.state;
		fig->ns = ns(clk, fig->q.value);
		fig->lo_ns = ns(clk, fig->q.lo);
		fig->hi_ns = ns(clk, fig->q.hi);
		if (fig->state == HIST_Q_EMPTY)
			fig->state = HIST_Q_RESOLVED;	/* an empty summary is all zero */
		return;
	}
	/* The unresolved samples are placeholders at 0: every figure over all
	 * samples but the largest is not a figure of the RTT. */
	if (n && unresolved && (f->kind != RF_MAX || unresolved == n) && f->kind != RF_COUNT)
		fig->state = HIST_Q_UNRESOLVED;
	fig->ns = f->kind == RF_COUNT ? (double)n : f->kind == RF_MIN ? ns(clk, hist_min(h)) :
		  f->kind == RF_MAX ? ns(clk, hist_max(h)) :
		  f->kind == RF_MEAN ? ns(clk, hist_mean(h)) : ns(clk, hist_stdev(h));
}

const char *report_state_word(enum hist_q_state state)
{
	return state == HIST_Q_UNRESOLVED ? "unresolved" : state == HIST_Q_TOO_FEW ?
	       "too_few_samples" : state == HIST_Q_EMPTY ? "no_samples" : "resolved";
}

/*
 * A percentile figure of a histogram of @n samples, @unresolved of them
 * placeholders, as the JSON gives it: its state, value and the sides of
 * its interval that are figures (not open, not among the unresolved).
 */
static void figure_pct(const struct report_figure *fig, uint64_t unresolved, uint64_t n,
		       struct ref_pct *p)
{
	const struct hist_quantile *q = &fig->q;
	bool ranked = q->state != HIST_Q_EMPTY;

	p->state = q->state;
	p->value_ns = fig->ns;
	p->has_lo = ranked && q->lo_rank && !q->lo_unresolved;
	p->lo_ns = fig->lo_ns;
	p->has_hi = ranked && q->hi_rank <= n && q->hi_rank > unresolved;
	p->hi_ns = fig->hi_ns;
}

/* {"state", "value_ns", "rank", "ci_low_ns", "ci_high_ns", "ci_ranks", "samples_needed", "reason"} */
static json_t *hist_pct_json(const struct report_figure *fig, uint64_t unresolved, uint64_t n)
{
	const struct hist_quantile *q = &fig->q;
	bool ok = fig->state == HIST_Q_RESOLVED;
	json_t *o = json_object();
	struct ref_pct p;

	figure_pct(fig, unresolved, n, &p);
	json_object_set_new(o, "state", json_string(report_state_word(q->state)));
	json_object_set_new(o, "value_ns", ok ? json_ns(fig->ns) : json_null());
	json_object_set_new(o, "rank", json_integer((json_int_t)q->rank));
	json_object_set_new(o, "ci_low_ns", p.has_lo ? json_ns(fig->lo_ns) : json_null());
	json_object_set_new(o, "ci_high_ns", p.has_hi ? json_ns(fig->hi_ns) : json_null());
	json_object_set_new(o, "ci_ranks", json_pack("[II]", (json_int_t)q->lo_rank,
						     (json_int_t)q->hi_rank));
	json_object_set_new(o, "samples_needed", json_integer((json_int_t)q->needed));
	json_object_set_new(o, "reason", q->state == HIST_Q_UNRESOLVED ?
			    json_sprintf("rank %" PRIu64 " of %" PRIu64 " falls among the %" PRIu64
					 " samples " REPORT_UNRESOLVED_WHY, q->rank, n, unresolved) :
			    q->state == HIST_Q_TOO_FEW ?
			    json_sprintf("%" PRIu64 " samples, %" PRIu64 " needed: fewer than %d "
					 "would lie above it", n, q->needed, HIST_MIN_ABOVE) :
			    json_null());
	return o;
}

json_t *report_rtt_pct_json(const struct hist *h, const char *key, const struct clock_cal *clk)
{
	uint64_t unresolved = hist_zeros(h);
	struct report_figure fig;
	size_t i;

	for (i = 0; i < N_HIST_FIELDS && strcmp(hist_fields[i].key, key); i++)
		;
	if (i == N_HIST_FIELDS || hist_fields[i].kind != RF_PCT)
		return NULL;
	report_hist_figure(h, unresolved, &hist_fields[i], clk, &fig);
	return hist_pct_json(&fig, unresolved, hist_count(h));
}

json_t *report_hist_json(const struct hist *h, const struct clock_cal *clk, bool rtt)
{
	uint64_t unresolved = rtt ? hist_zeros(h) : 0;
	json_t *o = json_object(), *pcts = json_object();
	struct report_figure fig;
	size_t i;

	for (i = 0; i < N_HIST_FIELDS; i++) {
		report_hist_figure(h, unresolved, &hist_fields[i], clk, &fig);
		if (hist_fields[i].kind == RF_COUNT)
			json_object_set_new(o, hist_fields[i].key, json_integer((json_int_t)fig.ns));
		else
			json_object_set_new(o, hist_fields[i].key, fig.state == HIST_Q_RESOLVED ?
					    json_ns(fig.ns) : json_null());
		if (hist_fields[i].kind == RF_PCT)
			json_object_set_new(pcts, hist_fields[i].key,
					    hist_pct_json(&fig, unresolved, hist_count(h)));
	}
	json_object_set_new(o, "unresolved", json_integer((json_int_t)unresolved));
	json_object_set_new(o, "percentiles", pcts);
	json_object_set_new(o, "confidence", json_real(HIST_CI_CONFIDENCE));
	json_object_set_new(o, "resolution", json_real(HIST_REL_ERROR));
	return o;
}

static void bucket_json(uint64_t value, uint64_t count, void *arg)
{
	json_t *pair = json_array();
	const struct clock_cal *clk = ((void **)arg)[1];

	json_array_append_new(pair, json_ns(ns(clk, value)));
	json_array_append_new(pair, json_integer((json_int_t)count));
	json_array_append_new(((void **)arg)[0], pair);
}

json_t *report_hist_buckets_json(const struct hist *h, const struct clock_cal *clk)
{
	json_t *arr = json_array();
	void *arg[2] = { arr, (void *)clk };

	hist_foreach(h, bucket_json, arg);
	return arr;
}

/* The config keys every client command reports: where and how it sent. */
static json_t *flow_config_json(const struct lat_report_info *in)
{
	json_t *o = json_object();

	json_object_set_new(o, "server", json_string(in->server));
	json_object_set_new(o, "device", json_string(in->device));
	json_object_set_new(o, "port", json_integer(in->port));
	json_object_set_new(o, "link_layer", json_string(in->roce ? "Ethernet" : "InfiniBand"));
	json_object_set_new(o, "gid_index", in->gid_index < 0 ? json_null() :
					     json_integer(in->gid_index));
	json_object_set_new(o, "mtu", json_string(in->mtu));
	json_object_set_new(o, "sl", json_integer(in->path.sl));
	json_object_set_new(o, "tclass", json_integer(in->path.tclass));
	json_object_set_new(o, "sl_source", json_string(verbs_path_source_name(in->path.sl_source)));
	json_object_set_new(o, "tclass_source",
			    json_string(verbs_path_source_name(in->path.tclass_source)));
	json_object_set_new(o, "qp_timeout", json_integer(in->path.timeout));
	json_object_set_new(o, "retry", json_integer(in->path.retry));
	json_object_set_new(o, "threads", json_integer(in->threads));
	json_object_set_new(o, "connection", json_string(in->rdma_cm ? "rdma_cm" : "tcp"));
	json_object_set_new(o, "hugepages", json_boolean(in->hugepages));
	return o;
}

void report_lat_info(struct lat_report_info *info, const struct run_lat *r, bool ci)
{
	const struct flow_opts *f = r->cfg->flow;

	*info = (struct lat_report_info){
		.criteria = &r->crit, .env = &r->c.env, .server = f->host,
		.device = r->c.dev.name, .port = r->c.dev.port, .gid_index = r->c.dev.gid_index,
		.roce = r->c.dev.roce, .mtu = verbs_mtu_str(r->c.dev.port_attr.active_mtu),
		.path = r->c.path, .clk = &r->c.clk, .threads = f->spec.threads,
		.rdma_cm = f->rdma_cm, .hugepages = f->hugepages && r->c.got_huge,
		.iterations = r->cfg->iterations, .duration_s = r->cfg->duration_s,
		.warmup = r->cfg->warmup, .ci = ci, .rtt_clock = f->rtt_clock,
		.nic_clk = r->nic ? &r->nic_clk : NULL,
	};
}

static const char *const rtt_clock_names[] = {
	[FLOW_RTT_HOST] = "host", [FLOW_RTT_NIC] = "hw", [FLOW_RTT_BOTH] = "both",
};

json_t *report_lat_config_json(const struct lat_report_info *in)
{
	json_t *o = flow_config_json(in);

	json_object_set_new(o, "iterations", json_integer((json_int_t)in->iterations));
	json_object_set_new(o, "duration_s", json_real(in->duration_s));
	json_object_set_new(o, "warmup", json_integer((json_int_t)in->warmup));
	json_object_set_new(o, "rtt_clock", json_string(rtt_clock_names[in->rtt_clock]));
	return o;
}

json_t *report_clock_json(const struct clock_cal *clk)
{
	json_t *o = json_object();

	json_object_set_new(o, "source", json_string(clock_source_name(clk->source)));
	json_object_set_new(o, "ticks_per_ns", json_real(clk->ticks_per_ns));
	json_object_set_new(o, "uncertainty_ppm", json_real(clk->uncertainty_ppm));
	json_object_set_new(o, "method", json_string(clk->method ? clk->method : ""));
	json_object_set_new(o, "ns_per_tick", json_real(clock_ns_per_tick(clk)));
	return o;
}

/* A counter of the receiver's port, or null where it has none. */
static json_t *counter_or_null(int64_t v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

/* What the receiver's port counted against the flows (lat, bw): did it keep up? */
static json_t *receiver_json(const struct flow_result *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "rnr_naks_sent", counter_or_null(r->rx_rnr_naks_sent));
	json_object_set_new(o, "out_of_buffer", counter_or_null(r->rx_out_of_buffer));
	json_object_set_new(o, "fell_behind", r->rx_rnr_naks_sent > 0 || r->rx_out_of_buffer > 0 ?
			    json_true() : r->rx_rnr_naks_sent < 0 && r->rx_out_of_buffer < 0 ?
			    json_null() : json_false());
	return o;
}

json_t *report_lat_result_json(const struct flow_result *r, const struct clock_cal *clk)
{
	json_t *o = json_object();
	double bias_ticks;

	json_object_set_new(o, "size_bytes", json_integer((json_int_t)r->size_bytes));
	json_object_set_new(o, "samples", json_integer((json_int_t)r->samples));
	json_object_set_new(o, "complete", json_boolean(!r->status));
	json_object_set_new(o, "rtt_ns", report_hist_json(r->rtt, clk, true));
	json_object_set_new(o, "wire_ns", report_hist_json(r->wire, clk, false));
	json_object_set_new(o, "loopback_ns", report_hist_json(r->loop, clk, false));
	json_object_set_new(o, "loopback_after_wire", json_integer((json_int_t)r->loop_after_wire));
	json_object_set_new(o, "negative_rtt_ns", report_hist_json(r->rtt_neg, clk, false));
	json_object_set_new(o, "retransmissions", json_integer((json_int_t)r->retrans));
	json_object_set_new(o, "receiver", receiver_json(r));
	json_object_set_new(o, "post_order_bias_ns", flow_result_order_bias_ticks(r, &bias_ticks) ?
			    json_real(ns(clk, bias_ticks)) : json_null());
	return o;
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
	size_t i, j;

	for (i = 0; i < REF_N_PCTS; i++) {
		for (j = 0; strcmp(hist_fields[j].key, ref_pct_keys[i]); j++)
			;
		report_hist_figure(r->rtt, unres, &hist_fields[j], clk, &fig);
		figure_pct(&fig, unres, hist_count(r->rtt), &m[i]);
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
		json_object_set_new(x, "value_ns", ok ? json_ns(d[i].value_ns) : json_null());
		json_object_set_new(x, "ci_low_ns", ok && d[i].has_lo ? json_ns(d[i].lo_ns) :
				    json_null());
		json_object_set_new(x, "ci_high_ns", ok && d[i].has_hi ? json_ns(d[i].hi_ns) :
				    json_null());
		json_object_set_new(x, "reference_ns", rs->pct[i].state == HIST_Q_RESOLVED ?
				    json_ns(rs->pct[i].value_ns) : json_null());
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
	json_object_set_new(root, "complete", json_boolean(!error));
	json_object_set_new(root, "error", error ? json_string(error) : json_null());
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
	if (f->kind == RF_COUNT)
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
		if (!ci || f[j].kind == RF_PCT)
			fprintf(out, ci ? " %21s" : " %10s", f[j].head);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		unres = m == LAT_RTT || m == LAT_RTT_NIC ? hist_zeros(lat_hist(&res[i], m)) : 0;
		fprintf(out, "%9zu", res[i].size_bytes);
		for (j = 0; j < nf; j++) {
			if (ci && f[j].kind != RF_PCT)
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
			if (f[j].kind != RF_PCT)
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

/* Per-SL totals over every flow, closed ones included. */
struct sl_total {
	uint64_t flows, msgs, bytes;
};

static void server_sl_totals(const struct sink *s, struct sl_total t[16])
{
	const struct sink_flow *f;
	size_t i;

	memset(t, 0, 16 * sizeof(*t));
	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		t[f->path.sl & 15].flows++;
		t[f->path.sl & 15].msgs += f->msgs;
		t[f->path.sl & 15].bytes += f->bytes;
	}
}

json_t *report_server_json(const struct sink *s, double elapsed_s)
{
	json_t *root = report_doc_new("server"), *flows = json_array(), *sls = json_array(), *o;
	const struct sink_flow *f;
	struct sl_total t[16];
	size_t i;

	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		o = json_object();
		json_object_set_new(o, "id", json_integer(f->id));
		json_object_set_new(o, "peer", json_string(f->peer));
		json_object_set_new(o, "sl", json_integer(f->path.sl));
		json_object_set_new(o, "tclass", json_integer(f->path.tclass));
		json_object_set_new(o, "gid_index", f->gid_index < 0 ? json_null() :
						    json_integer(f->gid_index));
		json_object_set_new(o, "msgs", json_integer((json_int_t)f->msgs));
		json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
		json_object_set_new(o, "errors", json_integer((json_int_t)f->errors));
		json_object_set_new(o, "active", json_boolean(f->active));
		json_array_append_new(flows, o);
	}
	server_sl_totals(s, t);
	for (i = 0; i < 16; i++) {
		if (!t[i].flows)
			continue;
		o = json_object();
		json_object_set_new(o, "sl", json_integer((json_int_t)i));
		json_object_set_new(o, "flows", json_integer((json_int_t)t[i].flows));
		json_object_set_new(o, "msgs", json_integer((json_int_t)t[i].msgs));
		json_object_set_new(o, "bytes", json_integer((json_int_t)t[i].bytes));
		json_array_append_new(sls, o);
	}
	json_object_set_new(root, "device", json_string(s->dev->name));
	json_object_set_new(root, "elapsed_s", json_real(elapsed_s));
	json_object_set_new(root, "flows", flows);
	json_object_set_new(root, "sls", sls);
	/* Side connections to rdma_cm flows from the wrong address or secret. */
	json_object_set_new(root, "side_connections_refused",
			    json_integer((json_int_t)s->attach_refused));
	return root;
}

void report_server_table(FILE *out, const struct sink *s, double elapsed_s)
{
	const struct sink_flow *f;
	struct sl_total t[16];
	size_t i;

	fprintf(out, "rperf server on %s: %zu flow%s in %.1f s\n\n%5s %-24s %3s %6s %12s %14s %7s\n",
		s->dev->name, s->n_flows, s->n_flows == 1 ? "" : "s", elapsed_s, "flow", "peer",
		"sl", "tclass", "msgs", "bytes", "errors");
	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		fprintf(out, "%5u %-24s %3u %6u %12" PRIu64 " %14" PRIu64 " %7" PRIu64 "\n", f->id,
			f->peer, f->path.sl, f->path.tclass, f->msgs, f->bytes, f->errors);
	}
	server_sl_totals(s, t);
	fprintf(out, "\n%3s %6s %12s %14s\n", "sl", "flows", "msgs", "bytes");
	for (i = 0; i < 16; i++)
		if (t[i].flows)
			fprintf(out, "%3zu %6" PRIu64 " %12" PRIu64 " %14" PRIu64 "\n", i, t[i].flows,
				t[i].msgs, t[i].bytes);
	if (s->attach_refused)
		fprintf(out, "\n%" PRIu64 " side connection%s refused (wrong address or secret)\n",
			s->attach_refused, s->attach_refused == 1 ? "" : "s");
}

/* ================================================================== */
/* bw                                                                  */
/* ================================================================== */

static double gbps(uint64_t bytes, double s)
{
	return s > 0 ? report_bps_gbps((double)bytes * 8 / s) : 0;
}

static double mpps(uint64_t msgs, double s)
{
	return s > 0 ? (double)msgs / s / 1e6 : 0;	/* millions of messages a second */
}

/*
 * A rate's figures, in the order of the JSON, the CSV and the table: the
 * JSON key (bw.schema.json's rate), whether it is a count (an integer) or
 * a rate, and its column in the table (NULL: not in the table). The
 * JSON, the CSV and the table all take them from here.
 */
static const struct bw_rate_field {
	const char *key;
	bool count;
	const char *head;
	int width;
} bw_rate_fields[] = {
	{ "msgs", true, NULL, 0 },
	{ "bytes", true, NULL, 0 },
	{ "gbps", false, "Gb/s", 12 },
	{ "mpps", false, "Mpps", 10 },
};

#define N_RATE_FIELDS (sizeof(bw_rate_fields) / sizeof(bw_rate_fields[0]))

const char *report_bw_rate_key(size_t i)
{
	return i < N_RATE_FIELDS ? bw_rate_fields[i].key : NULL;
}

/* Field @i of @msgs and @bytes over @s seconds. */
static double bw_rate_value(size_t i, uint64_t msgs, uint64_t bytes, double s)
{
	return i == 0 ? (double)msgs : i == 1 ? (double)bytes : i == 2 ? gbps(bytes, s) :
	       mpps(msgs, s);
}

/* {msgs, bytes, gbps, mpps} over @s seconds. */
static json_t *bw_rate_json(uint64_t msgs, uint64_t bytes, double s)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < N_RATE_FIELDS; i++)
		json_object_set_new(o, bw_rate_fields[i].key, bw_rate_fields[i].count ?
				    json_integer((json_int_t)(i == 0 ? msgs : bytes)) :
				    json_real(bw_rate_value(i, msgs, bytes, s)));
	return o;
}

/* The CSV's columns of a rate (",msgs,bytes,gbps,mpps"), empty when unknown. */
static void bw_rate_csv(FILE *out, bool valid, uint64_t msgs, uint64_t bytes, double s)
{
	size_t i;

	for (i = 0; i < N_RATE_FIELDS; i++)
		if (!valid)
			fputc(',', out);
		else if (bw_rate_fields[i].count)
			fprintf(out, ",%" PRIu64, i == 0 ? msgs : bytes);
		else
			fprintf(out, ",%.9f", bw_rate_value(i, msgs, bytes, s));
}

/* "PREFIX_msgs,PREFIX_bytes,...": the CSV header of a rate. */
static void bw_rate_csv_head(FILE *out, const char *prefix)
{
	size_t i;

	for (i = 0; i < N_RATE_FIELDS; i++)
		fprintf(out, ",%s_%s", prefix, bw_rate_fields[i].key);
}

/* How the sender waited for completions: "event", "yield" or "poll". */
static const char *bw_completion(const struct bw_report_info *in)
{
	return in->event ? "event" : in->yield ? "yield" : "poll";
}

void report_bw_info(struct bw_report_info *info, const struct run_bw *r)
{
	const struct run_bw_cfg *o = r->cfg;
	const struct flow_opts *f = o->flow;

	*info = (struct bw_report_info){
		.flow = {
			.server = f->host, .device = r->c.dev.name, .port = r->c.dev.port,
			.gid_index = r->c.dev.gid_index, .roce = r->c.dev.roce,
			.mtu = verbs_mtu_str(r->c.dev.port_attr.active_mtu), .path = r->c.path,
			.clk = &r->c.clk, .threads = f->spec.threads, .rdma_cm = f->rdma_cm,
			.hugepages = f->hugepages && r->c.got_huge, .duration_s = o->duration_s,
			.env = &r->c.env, .criteria = &r->crit,
		},
		.write = o->write, .size_bytes = f->spec.size_bytes, .qps = f->spec.qps,
		.tx_depth = o->tx_depth, .batch = o->batch, .cq_mod = o->cq_mod,
		.yield = f->yield, .event = o->event, .rate_bps = f->spec.rate_bps,
		.hw_rate_bps = o->hw_rate_bps, .hw_rate_applied_bps = r->hw_rate_applied_bps,
		.duration_s = o->duration_s,
		.interval_s = o->interval_s,
	};
}

json_t *report_bw_config_json(const struct bw_report_info *in)
{
	json_t *o = flow_config_json(&in->flow);

	json_object_set_new(o, "op", json_string(in->write ? "write" : "send"));
	json_object_set_new(o, "size_bytes", json_integer((json_int_t)in->size_bytes));
	json_object_set_new(o, "qps", json_integer(in->qps));
	json_object_set_new(o, "tx_depth", json_integer(in->tx_depth));
	json_object_set_new(o, "batch", json_integer(in->batch));
	json_object_set_new(o, "cq_mod", json_integer(in->cq_mod));
	json_object_set_new(o, "completion", json_string(bw_completion(in)));
	json_object_set_new(o, "rate_bps", in->rate_bps ? json_integer((json_int_t)in->rate_bps) :
							  json_null());
	json_object_set_new(o, "hw_rate_bps", in->hw_rate_bps ?
			    json_integer((json_int_t)in->hw_rate_bps) : json_null());
	json_object_set_new(o, "hw_rate_applied_bps", in->hw_rate_applied_bps ?
			    json_integer((json_int_t)in->hw_rate_applied_bps) : json_null());
	json_object_set_new(o, "hw_rate_method", in->hw_rate_bps ? json_string("static_rate") :
							    json_null());
	json_object_set_new(o, "duration_s", json_real(in->duration_s));
	json_object_set_new(o, "interval_s", json_real(in->interval_s));
	return o;
}

json_t *report_bw_interval_json(const struct bw_interval *iv)
{
	double s = iv->end_s - iv->start_s;
	json_t *o = json_object();

	json_object_set_new(o, "start_s", json_real(iv->start_s));
	json_object_set_new(o, "end_s", json_real(iv->end_s));
	json_object_set_new(o, "sent", bw_rate_json(iv->msgs, iv->bytes, s));
	json_object_set_new(o, "received", iv->rx_valid ?
			    bw_rate_json(iv->rx_msgs, iv->rx_bytes, s) : json_null());
	return o;
}

json_t *report_bw_total_json(const struct flow_result *r, const struct clock_cal *clk)
{
	double s = figures_s(clk, (double)r->elapsed_ticks);
	json_t *o = json_object();

	json_object_set_new(o, "elapsed_s", json_real(s));
	json_object_set_new(o, "sent", bw_rate_json(r->msgs, r->bytes, s));
	json_object_set_new(o, "received", r->rx_valid ? bw_rate_json(r->rx_msgs, r->rx_bytes, s) :
							  json_null());
	json_object_set_new(o, "retransmissions", json_integer((json_int_t)r->retrans));
	json_object_set_new(o, "receiver", receiver_json(r));
	return o;
}

json_t *report_bw_json(const struct bw_report_info *info, const struct flow_result *total,
		       const struct bw_interval *iv, size_t n_iv, const char *error)
{
	json_t *root = report_doc_new("bw"), *arr = json_array();
	size_t i;

	json_object_set_new(root, "config", report_bw_config_json(info));
	json_object_set_new(root, "clock", report_clock_json(info->flow.clk));
	for (i = 0; i < n_iv; i++)
		json_array_append_new(arr, report_bw_interval_json(&iv[i]));
	json_object_set_new(root, "intervals", arr);
	json_object_set_new(root, "total", report_bw_total_json(total, info->flow.clk));
	json_object_set_new(root, "environment", run_env_json(info->flow.env));
	json_object_set_new(root, "criteria", report_criteria_json(info->flow.criteria));
	json_object_set_new(root, "complete", json_boolean(!error));
	json_object_set_new(root, "error", error ? json_string(error) : json_null());
	return root;
}

void report_bw_header(FILE *out, const struct bw_report_info *info)
{
	const struct lat_report_info *f = &info->flow;

	fprintf(out, "rperf bw to %s: %s port %u, %s, MTU %s, SL %u (%s), tclass %u (%s), %s of "
		"%zu bytes, %u thread%s x %u QP%s, window %u, %s\n", f->server, f->device,
		f->port, f->roce ? "RoCE" : "InfiniBand", f->mtu, f->path.sl,
		verbs_path_source_name(f->path.sl_source), f->path.tclass,
		verbs_path_source_name(f->path.tclass_source),
		info->write ? "RDMA WRITE" : "SEND", info->size_bytes, f->threads,
		f->threads == 1 ? "" : "s", info->qps, info->qps == 1 ? "" : "s", info->tx_depth,
		info->event ? "waits for completion events" :
		info->yield ? "polls completions, yielding" : "busy-polls completions");
	fprintf(out, "\n%17s %12s %10s %12s %10s\n", "interval, s", "sent Gb/s", "Mpps",
		"recv Gb/s", "Mpps");
	fflush(out);
}

/* The table's columns of a rate ("  12.345678   0.123456"), "-" when unknown. */
static void bw_cols(FILE *out, bool valid, uint64_t msgs, uint64_t bytes, double s)
{
	size_t i;

	for (i = 0; i < N_RATE_FIELDS; i++)
		if (bw_rate_fields[i].head && valid)
			fprintf(out, " %*.6f", bw_rate_fields[i].width,
				bw_rate_value(i, msgs, bytes, s));
		else if (bw_rate_fields[i].head)
			fprintf(out, " %*s", bw_rate_fields[i].width, "-");
}

void report_bw_interval(FILE *out, const struct bw_interval *iv)
{
	double s = iv->end_s - iv->start_s;

	fprintf(out, "%7.2f - %7.2f", iv->start_s, iv->end_s);
	bw_cols(out, true, iv->msgs, iv->bytes, s);
	bw_cols(out, iv->rx_valid, iv->rx_msgs, iv->rx_bytes, s);
	fputc('\n', out);
	fflush(out);
}

/* "-" for a counter the receiver's port does not have. */
static void counter_str(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRId64, v);
}

/* The receiver's side of the total: its RNR NAKs and drops, and what they mean. */
static void bw_receiver_line(FILE *out, const struct flow_result *r)
{
	char rnr[24], oob[24];

	counter_str(rnr, sizeof(rnr), r->rx_rnr_naks_sent);
	counter_str(oob, sizeof(oob), r->rx_out_of_buffer);
	fprintf(out, "receiver's port: %s RNR NAKs sent, %s out-of-buffer drops%s\n", rnr, oob,
		r->rx_rnr_naks_sent < 0 && r->rx_out_of_buffer < 0 ? " (not counted there)" : "");
	if (r->rx_rnr_naks_sent > 0 || r->rx_out_of_buffer > 0)
		fprintf(out, "the receiver fell behind: its RECVs ran out, so these rates are "
			"its CPU's or ring's (see rperf server --ring, --busy-poll), not the "
			"fabric's\n");
}

void report_bw_total(FILE *out, const struct flow_result *r, const struct clock_cal *clk)
{
	double s = figures_s(clk, (double)r->elapsed_ticks);

	fprintf(out, "%7.2f s total  ", s);
	bw_cols(out, true, r->msgs, r->bytes, s);
	bw_cols(out, r->rx_valid, r->rx_msgs, r->rx_bytes, s);
	fprintf(out, "\n\n%" PRIu64 " messages sent, ", r->msgs);
	if (r->rx_valid)
		fprintf(out, "%" PRIu64 " received", r->rx_msgs);
	else
		fprintf(out, "received unknown");
	fprintf(out, ", %" PRIu64 " retransmissions%s\n", r->retrans,
		r->status ? " (incomplete)" : "");
	bw_receiver_line(out, r);
}

void report_bw_csv_header(FILE *out)
{
	fprintf(out, "start_s,end_s");
	bw_rate_csv_head(out, "sent");
	bw_rate_csv_head(out, "recv");
	fputc('\n', out);
}

void report_bw_csv_row(FILE *out, const struct bw_interval *iv)
{
	double s = iv->end_s - iv->start_s;

	fprintf(out, "%.6f,%.6f", iv->start_s, iv->end_s);
	bw_rate_csv(out, true, iv->msgs, iv->bytes, s);
	bw_rate_csv(out, iv->rx_valid, iv->rx_msgs, iv->rx_bytes, s);
	fputc('\n', out);
	fflush(out);
}

/* ================================================================== */
/* Pass/fail criteria                                                  */
/* ================================================================== */

/* [{"name", "scope", "kind", "limit_UNIT", "value_UNIT" (null: none), "passed",
 *   "cannot_be_judged" (why, or null)}] */
json_t *report_criteria_json(const struct criteria *cs)
{
	json_t *arr = json_array(), *o;
	char key[32];
	int i;

	for (i = 0; cs && i < cs->n; i++) {
		const struct criterion *c = &cs->c[i];

		o = json_object();
		json_object_set_new(o, "name", json_string(c->name));
		json_object_set_new(o, "scope", json_string(c->scope));
		json_object_set_new(o, "kind", json_string(c->kind == CRITERION_MAX ?
							  "max" : "min"));
		snprintf(key, sizeof(key), "limit_%s", c->unit);
		json_object_set_new(o, key, json_real(c->limit));
		snprintf(key, sizeof(key), "value_%s", c->unit);
		json_object_set_new(o, key, report_real_or_null(c->measured, c->value));
		json_object_set_new(o, "passed", json_boolean(c->passed));
		json_object_set_new(o, "cannot_be_judged", c->unjudged[0] ?
				    json_string(c->unjudged) : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

static const char *criterion_unit(const char *unit)
{
	return !strcmp(unit, "gbps") ? "Gb/s" : !strcmp(unit, "pct") ? "%" :
	       !strcmp(unit, "pp") ? "points" : !strcmp(unit, "ratio") ? "times" : unit;
}

void report_criterion_line(const struct criterion *c, char *buf, size_t len)
{
	const char *u = criterion_unit(c->unit);

	if (c->unjudged[0])
		snprintf(buf, len, "%s (%s): cannot be judged, %s; limit %.6g %s", c->name,
			 c->scope, c->unjudged, c->limit, u);
	else if (!c->measured)
		snprintf(buf, len, "%s (%s): not measured, limit %.6g %s", c->name, c->scope,
			 c->limit, u);
	else
		snprintf(buf, len, "%s (%s): %.6g %s, %s %.6g %s", c->name, c->scope,
			 c->value, u, c->passed ? (c->kind == CRITERION_MAX ? "within" :
						   "reaching") :
			 c->kind == CRITERION_MAX ? "above" : "below", c->limit, u);
}

void report_criteria_table(FILE *out, const struct criteria *cs)
{
	char line[256];
	int i;

	if (!cs || !cs->n)
		return;
	fprintf(out, "\ncriteria:\n");
	for (i = 0; i < cs->n; i++) {
		report_criterion_line(&cs->c[i], line, sizeof(line));
		fprintf(out, "  %s %s\n", cs->c[i].passed ? "PASS" : "FAIL", line);
	}
}
