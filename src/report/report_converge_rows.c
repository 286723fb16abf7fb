/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * converge's rows, each described once (class_fields, flow_fields,
 * port_fields): a class's figures in a step's "classes", its table row
 * and its CSV row; a flow's in a step's "flows"; a destination port's in
 * its "ports". A figure that is a member of the class,
 * its step or the flow is named by its field (REPORT_MEMBER); the getters
 * here compute the rest. The table's units (us, Mb/s) are the fields'
 * scales of the JSON's (ns, Gb/s); value.c makes the text.
 */
#include <string.h>

#include "base/hist.h"
#include "report/report_int.h"
#include "report/report.h"
#include "report/report_converge_rows.h"

/* Latency histograms of converge are rebuilt in ns: one tick is one ns. */
static const struct clock_cal converge_ns_clock = {
	.source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1.0, .method = "ns",
};

/* What a run's classes are: the kind its fields are read for. */
static unsigned converge_kind(const struct converge_report_info *info)
{
	return info->ets ? RC_KIND_BAND : RC_KIND_SL;
}

/* ------------------------------------------------------------------ */
/* A class's figures                                                   */
/* ------------------------------------------------------------------ */

double converge_impact(const struct converge_class *c, size_t i)
{
	return i == 0 ? c->impact_p50 : i == 1 ? c->impact_p99 : c->impact_p99_9;
}

/* A paced bursty flow's duty cycle as the destination saw it. */
bool converge_flow_duty(const struct converge_flow *f, double *duty)
{
	*duty = f->rate_bps ? f->gbps / report_bps_gbps((double)f->rate_bps) : 0;
	return f->rate_bps > 0 && f->duty_cycle < 1;
}

/* The structs a row's members are read from (report_member). */
static const void *converge_class_of(const void *row)
{
	return ((const struct converge_row *)row)->c;
}

static const void *converge_step_of(const void *row)
{
	return ((const struct converge_row *)row)->st;
}

static const void *converge_flow_of(const void *row)
{
	return ((const struct converge_row *)row)->f;
}

#define C(w)		((w)->c)
/* Compared: the step was, and the class has an analyzed share. */
#define CMP(w)		((w)->st->compared && (w)->c->has_analyzed)

/* A band's DSCP; null for a service level. */
static void get_dscp(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (w->info->ets)
		rv_int(v, C(w)->dscp);
}

static void get_rtt(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	v->type = RV_JSON;
	v->json = C(w)->lat_ns ? report_hist_json(C(w)->lat_ns, &converge_ns_clock, true) :
				 json_null();
}

static void get_rtt_cdf(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	v->type = RV_JSON;
	v->json = C(w)->lat_ns ? report_hist_buckets_json(C(w)->lat_ns, &converge_ns_clock) :
				 json_null();
}

/* The class's RTT percentile @arg (its key in report_hist_fields) in ns, or why there is none. */
static void get_pct(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;
	const struct report_field *f = report_hist_field(arg);
	struct report_figure fig;

	rv_null(v, NULL);
	if (!C(w)->lat_ns || !f)
		return;
	report_hist_figure(C(w)->lat_ns, hist_zeros(C(w)->lat_ns), f,
			   &converge_ns_clock, &fig);
	if (fig.state == HIST_Q_RESOLVED)
		rv_real(v, fig.ns);
	else
		v->word = fig.state == HIST_Q_TOO_FEW ? "too few" : "unresolv.";
}

static void get_diff(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, CMP(w), C(w)->diff_pp);
}

static void get_within(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (CMP(w))
		rv_bool(v, C(w)->within);
}

/* The flow a baseline step ran alone; empty in a loaded step. */
static void get_baseline_flow(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, w->st->baseline ? w->st->flows[w->st->alone].name : NULL);
}

/* The impact factors' keys, in converge_impact()'s order. */
static const char *const impact_keys[3] = { "p50", "p99", "p99_9" };

/* Impact factor @i (p50, p99, p99.9): null where there is none. */
static void class_impact(const struct converge_row *w, size_t i, struct report_value *v)
{
	rv_real_or_null(v, C(w)->has_impact && !C(w)->impact_why[i], converge_impact(C(w), i));
}

/* Impact factor @arg, its key in impact_keys. */
static void get_impact_factor(const void *row, const char *arg, struct report_value *v)
{
	size_t i;

	for (i = 0; i < 2 && strcmp(impact_keys[i], arg); i++)
		;
	class_impact(row, i, v);
}

/* {"p50", "p99", "p99_9" (null: none), "why": {key: why there is none}}. */
static void get_impact(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;
	json_t *o, *why;
	struct report_value f;
	size_t i;

	v->type = RV_JSON;
	if (!C(w)->has_impact) {
		v->json = json_null();
		return;
	}
	o = json_object();
	why = json_object();
	for (i = 0; i < 3; i++) {
		memset(&f, 0, sizeof(f));
		class_impact(w, i, &f);
		json_object_set_new(o, impact_keys[i], report_value_json(&f));
		if (C(w)->impact_why[i])
			json_object_set_new(why, impact_keys[i], json_string(C(w)->impact_why[i]));
	}
	json_object_set_new(o, "why", why);
	v->json = o;
}

/* The verdict's name; the table's word for it. */
static void get_verdict(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;
	enum converge_verdict k = C(w)->verdict;

	rv_null(v, NULL);
	if (!CMP(w))
		return;
	rv_str(v, converge_verdict_name(k));
	v->word = k == CONVERGE_WITHIN ? "ok" : k == CONVERGE_OUT ? "OUT" : "inconclusive";
}

/* The share's interval: [low, high] in the JSON, low-high in the table. */
static void get_ci(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, C(w)->has_ci, C(w)->ci_low_pct);
	v->range = C(w)->has_ci;
	v->lo = C(w)->ci_low_pct;
	v->hi = C(w)->ci_high_pct;
	v->prec = 1;
}

static void get_ci_json(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	v->type = RV_JSON;
	v->json = C(w)->has_ci ? json_pack("[ff]", C(w)->ci_low_pct, C(w)->ci_high_pct) :
				 json_null();
}

/* Taken as saturating but short of its share: not kept backlogged. */
static void get_backlogged(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (CMP(w) && C(w)->saturating)
		rv_bool(v, !C(w)->not_backlogged);
}

/* Tables' units: the JSON's ns as us, its Gb/s as Mb/s; one digit. */
#define US		{ .scale = 1e-3, .prec = 1, .plus = false }
#define MBPS		{ .scale = 1e3, .prec = 3, .plus = false }
#define P1		{ .scale = 1, .prec = 1, .plus = false }
/* Its table column, for every kind of run. */
#define H(h)		.head = REPORT_HEADS(h)
/* A member of the class, of the step, of the row itself; of the class, where
 * @has, or where its gate @g allows. */
#define CLASS(m)	REPORT_MEMBER(converge_class_of, struct converge_class, m)
#define STEP(m)		REPORT_MEMBER(converge_step_of, struct converge_step, m)
#define ROW(m)		REPORT_MEMBER(NULL, struct converge_row, m)
#define CLASS_IF(m, has) REPORT_MEMBER_IF(converge_class_of, struct converge_class, m, has)
#define CLASS_GATED(m, g) REPORT_MEMBER_GATED(converge_class_of, struct converge_class, m, g)
/* RTT percentile @k (its report_hist_fields key) as the table's and CSV's column. */
#define PCT(k, head)	.csv = k "_ns", .csv_prec = 1, H(head), .width = 9, .num = US, \
			.arg = k, .get = get_pct
/* Impact factor @k as a CSV column. */
#define IMPACT(k)	.csv = "impact_" k, .csv_prec = 4, .arg = k, .get = get_impact_factor

/* Per class, in the CSV's order: a step's classes[], its table, its CSV. */
static const struct report_field class_fields[] = {
	{ .csv = "step", ROW(step) },
	{ .csv = "active_bw", STEP(active_bw) },
	{ .key = "sl", .kinds = RC_SL, .csv = "sl", H("sl"), .width = 5, CLASS(key) },
	{ .key = "band", .kinds = RC_BAND, .csv = "band", H("band"), .width = 5, CLASS(key) },
	{ .key = "dscp", .get = get_dscp },
	{ .key = "lat_flows", .csv = "lat_flows", H("lat"), .width = 3, CLASS(n_lat) },
	{ .key = "bw_flows", .csv = "bw_flows", H("bw"), .width = 3, CLASS(n_bw) },
	{ .key = "saturating", CLASS(saturating) },
	{ .key = "rtt_ns", .get = get_rtt },
	{ .key = "rtt_cdf", .get = get_rtt_cdf },
	{ PCT("p50", "p50_us") },
	{ PCT("p99", "p99_us") },
	{ PCT("p99_9", "p99.9_us") },
	{ .key = "bytes", CLASS(bytes) },
	{ .key = "gbps", .csv = "gbps", .csv_prec = 6, H("Mb/s"), .width = 10, .num = MBPS,
	  CLASS(gbps) },
	{ .key = "share_pct", .csv = "share_pct", .csv_prec = 2, H("share%"), .width = 8, .num = P1,
	  CLASS(share_pct) },
	{ .key = "analyzed_pct", .csv = "analyzed_pct", .csv_prec = 2, H("analyzd%"),
	  .width = 8, .num = P1, CLASS_IF(analyzed_pct, has_analyzed) },
	{ H("share 95% CI"), .width = 13, .num = P1, .get = get_ci },
	{ .key = "diff_pp", .csv = "diff_pp", .csv_prec = 2, H("diff"), .width = 7,
	  .num = { .scale = 1, .prec = 1, .plus = true }, .get = get_diff },
	{ .key = "within", .csv = "within", .get = get_within },
	{ .csv = "window_s", .csv_prec = 3, STEP(window_s) },
	{ .csv = "cut_short", STEP(cut_short) },
	{ .csv = "baseline_flow", .get = get_baseline_flow },
	{ IMPACT("p50") },
	{ IMPACT("p99") },
	{ IMPACT("p99_9") },
	{ .key = "impact", .get = get_impact },
	{ .key = "destination", .csv = "destination", CLASS(dest) },
	{ .key = "verdict", .csv = "verdict", H("verdict"), .get = get_verdict },
	{ .csv = "share_ci_low_pct", .csv_prec = 2, CLASS_IF(ci_low_pct, has_ci) },
	{ .csv = "share_ci_high_pct", .csv_prec = 2, CLASS_IF(ci_high_pct, has_ci) },
	{ .key = "share_ci_pct", .get = get_ci_json },
	{ .key = "share_lag1_corr", CLASS(share_rho) },
	/* Whether its share was judged, and why not (step.h). */
	{ .key = "judged", CLASS(judged) },
	{ .key = "unjudged_why", CLASS(unjudged_why) },
	/* Inconclusive: the window that would resolve it; null: none can be said. */
	{ .key = "resolve_window_s", CLASS_GATED(resolve_window_s, RG_POSITIVE) },
	{ .key = "backlogged", .get = get_backlogged },
	{ .key = "sent_gbps", CLASS(sent_gbps) },
	{ .key = "retransmissions", CLASS_IF(retrans, has_retrans) },
	/* The switch port's own counters of the band, when the scenario reads them. */
	{ .key = "switch_share_pct", CLASS_IF(switch_share_pct, has_switch) },
	{ .key = "switch_diff_pp", CLASS_IF(switch_diff_pp, has_switch) },
};

#undef C
#undef CMP
#undef CLASS
#undef STEP
#undef ROW
#undef CLASS_IF
#undef CLASS_GATED
#undef PCT
#undef IMPACT

/* ------------------------------------------------------------------ */
/* A flow's figures                                                    */
/* ------------------------------------------------------------------ */

#define F(w)		((w)->f)

/* Its configured rate; null when unpaced. */
static void get_rate(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, F(w)->rate_bps > 0, report_bps_gbps((double)F(w)->rate_bps));
}

/* A paced bursty flow's duty cycle as the destination saw it: what it
 * carried over its rate; null for any other flow. */
static void get_measured_duty(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;
	double duty;

	rv_null(v, NULL);
	if (converge_flow_duty(F(w), &duty))
		rv_real(v, duty);
}

static void get_flow_rtt(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	v->type = RV_JSON;
	v->json = F(w)->rtt ? report_hist_json(F(w)->rtt, &F(w)->rtt_clk, true) : json_null();
}

static void get_loaded_over_isolated(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;
	const struct converge_flow *f = F(w);

	rv_real_or_null(v, f->has_isolated && f->isolated_gbps > 0,
			f->isolated_gbps > 0 ? f->gbps / f->isolated_gbps : 0);
}

static void get_error(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, F(w)->error[0] ? F(w)->error : NULL);
}

/* A member of the flow; of the flow, where @has; where its gate @g allows. */
#define FLOW(m)		REPORT_MEMBER(converge_flow_of, struct converge_flow, m)
#define FLOW_IF(m, has)	REPORT_MEMBER_IF(converge_flow_of, struct converge_flow, m, has)
#define FLOW_GATED(m, g) REPORT_MEMBER_GATED(converge_flow_of, struct converge_flow, m, g)

/* Per flow that ran: a step's flows[] (no table or CSV rows of their own). */
static const struct report_field flow_fields[] = {
	{ .key = "name", FLOW(name) },
	{ .key = "host", FLOW(host) },
	{ .key = "destination", FLOW(dest) },
	{ .key = "type", FLOW(type) },
	{ .key = "sl", FLOW(sl) },
	{ .key = "tclass", FLOW(tclass) },
	{ .key = "dscp", FLOW(dscp) },
	/* The band its DSCP puts it in. */
	{ .key = "band", .kinds = RC_BAND, FLOW(class_key) },
	{ .key = "bytes", FLOW(bytes) },
	{ .key = "gbps", FLOW(gbps) },
	{ .key = "rate_gbps", .get = get_rate },
	{ .key = "duty_cycle", FLOW(duty_cycle) },
	{ .key = "measured_duty_cycle", .get = get_measured_duty },
	{ .key = "sent_bytes", FLOW(sent_bytes) },
	{ .key = "sent_gbps", FLOW_GATED(sent_gbps, RG_POSITIVE) },
	{ .key = "host_retransmissions", FLOW_GATED(host_retrans, RG_NON_NEGATIVE) },
	{ .key = "rtt_ns", .get = get_flow_rtt },
	{ .key = "isolated_gbps", FLOW_IF(isolated_gbps, has_isolated) },
	{ .key = "loaded_over_isolated", .get = get_loaded_over_isolated },
	{ .key = "start_late_us", FLOW_IF(start_late_us, has_start) },
	{ .key = "sync_uncertainty_us", FLOW_IF(sync_us, has_start) },
	{ .key = "error", .get = get_error },
};

/* ------------------------------------------------------------------ */
/* A port's figures                                                    */
/* ------------------------------------------------------------------ */

static const void *converge_port_of(const void *row)
{
	return ((const struct converge_row *)row)->p;
}

/* The worst of its compared classes' verdicts; null where not compared. */
static void get_port_verdict(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_port *p = converge_port_of(row);

	rv_str(v, p->compared ? converge_verdict_name(p->verdict) : NULL);
}

#define PORT(m)		REPORT_MEMBER(converge_port_of, struct converge_port, m)

/* Per destination port: a step's ports[]. */
static const struct report_field port_fields[] = {
	{ .key = "destination", PORT(host) },
	{ .key = "window_s", PORT(window_s) },
	{ .key = "total_gbps", PORT(total_gbps) },
	{ .key = "analysis_link_gbps", PORT(analysis_link_gbps) },
	{ .key = "compared", PORT(compared) },
	{ .key = "judged", PORT(judged) },
	{ .key = "within", PORT(within) },
	{ .key = "verdict", .get = get_port_verdict },
	{ .key = "intervals", PORT(n_iv) },
	{ .key = "refused_connections", PORT(refused_conns) },
};

#undef F
#undef FLOW
#undef FLOW_IF
#undef FLOW_GATED
#undef PORT
#undef US
#undef MBPS
#undef P1
#undef H


const struct report_field *report_converge_fields(enum report_converge_list l,
							   size_t *n)
{
	static const struct { const struct report_field *f; size_t n; } lists[] = {
		[RC_CLASSES] = { class_fields, N_OF(class_fields) },
		[RC_FLOWS] = { flow_fields, N_OF(flow_fields) },
		[RC_PORTS] = { port_fields, N_OF(port_fields) },
	};

	*n = lists[l].n;
	return lists[l].f;
}

/* ------------------------------------------------------------------ */
/* The formats                                                         */
/* ------------------------------------------------------------------ */

json_t *converge_row_json(enum report_converge_list l, const struct converge_row *w)
{
	const struct report_field *f;
	size_t n;

	f = report_converge_fields(l, &n);
	return report_fields_json(f, n, w, converge_kind(w->info));
}

json_t *converge_port_json(const struct converge_port *p)
{
	const struct converge_row w = { .p = p };

	return report_fields_json(port_fields, N_OF(port_fields), &w, 0);
}

void converge_class_table(FILE *out, const struct converge_row *w)
{
	report_fields_table(out, class_fields, N_OF(class_fields), w->c ? w : NULL,
			    converge_kind(w->info), false);
}

void converge_class_csv(FILE *out, const struct converge_row *w)
{
	report_fields_csv(out, class_fields, N_OF(class_fields), w->c ? w : NULL,
			  converge_kind(w->info));
}
