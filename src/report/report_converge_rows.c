/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * converge's rows, each described once (class_fields, flow_fields): a
 * class's figures in a step's "classes", its table row and its CSV row;
 * a flow's in a step's "flows". The table's units (us, Mb/s) are the
 * fields' scales of the JSON's (ns, Gb/s); value.c makes the text.
 */
#include <string.h>

#include "base/hist.h"
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

#define C(w)		((w)->c)
/* Compared: the step was, and the class has an analyzed share. */
#define CMP(w)		((w)->st->compared && (w)->c->has_analyzed)

static void get_step(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, (long long)w->step);
}

static void get_active_bw(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, w->st->active_bw);
}

static void get_key(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, C(w)->key);
}

/* A band's DSCP; null for a service level. */
static void get_dscp(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (w->info->ets)
		rv_int(v, C(w)->dscp);
}

static void get_lat_flows(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, C(w)->n_lat);
}

static void get_bw_flows(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, C(w)->n_bw);
}

static void get_saturating(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_bool(v, C(w)->saturating);
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

/* The class's RTT percentile @pct in ns, or why there is none. */
static void class_pct(const struct converge_row *w, double pct, struct report_value *v)
{
	const struct report_field f = { .stat = RF_PCT, .pct = pct };
	struct report_figure fig;

	rv_null(v, NULL);
	if (!C(w)->lat_ns)
		return;
	report_hist_figure(C(w)->lat_ns, hist_zeros(C(w)->lat_ns), &f, &converge_ns_clock, &fig);
	if (fig.state == HIST_Q_RESOLVED)
		rv_real(v, fig.ns);
	else
		v->word = fig.state == HIST_Q_TOO_FEW ? "too few" : "unresolv.";
}

static void get_p50(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	class_pct(w, 50, v);
}

static void get_p99(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	class_pct(w, 99, v);
}

static void get_p99_9(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	class_pct(w, 99.9, v);
}

static void get_bytes(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, (long long)C(w)->bytes);
}

static void get_gbps(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real(v, C(w)->gbps);
}

static void get_share(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real(v, C(w)->share_pct);
}

static void get_analyzed(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, C(w)->has_analyzed, C(w)->analyzed_pct);
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

static void get_window(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real(v, w->st->window_s);
}

static void get_cut_short(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_bool(v, w->st->cut_short);
}

/* The flow a baseline step ran alone; empty in a loaded step. */
static void get_baseline_flow(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, w->st->baseline ? w->st->flows[w->st->alone].name : NULL);
}

/* Impact factor @i (p50, p99, p99.9): null where there is none. */
static void class_impact(const struct converge_row *w, size_t i, struct report_value *v)
{
	rv_real_or_null(v, C(w)->has_impact && !C(w)->impact_why[i], converge_impact(C(w), i));
}

static void get_impact_p50(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	class_impact(w, 0, v);
}

static void get_impact_p99(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	class_impact(w, 1, v);
}

static void get_impact_p99_9(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	class_impact(w, 2, v);
}

/* {"p50", "p99", "p99_9" (null: none), "why": {key: why there is none}}. */
static void get_impact(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	static const char *const keys[3] = { "p50", "p99", "p99_9" };
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
		json_object_set_new(o, keys[i], report_value_json(&f));
		if (C(w)->impact_why[i])
			json_object_set_new(why, keys[i], json_string(C(w)->impact_why[i]));
	}
	json_object_set_new(o, "why", why);
	v->json = o;
}

static void get_destination(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, C(w)->dest);
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

static void get_ci_low(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, C(w)->has_ci, C(w)->ci_low_pct);
}

static void get_ci_high(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, C(w)->has_ci, C(w)->ci_high_pct);
}

/* The share's interval: [low, high] in the JSON, low-high in the table. */
static void get_ci(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	get_ci_low(w, arg, v);
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

/* Whether its share was judged, and why not (step.h). */
static void get_judged(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_bool(v, C(w)->judged);
}

static void get_unjudged_why(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (C(w)->unjudged_why)
		rv_str(v, C(w)->unjudged_why);
}

/* The per-interval shares' lag-1 correlation, bias-corrected (0 with too few). */
static void get_rho(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real(v, C(w)->share_rho);
}

/* Inconclusive: the window that would resolve it; null: none can be said. */
static void get_resolve(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, C(w)->resolve_window_s > 0, C(w)->resolve_window_s);
}

/* Taken as saturating but short of its share: not kept backlogged. */
static void get_backlogged(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (CMP(w) && C(w)->saturating)
		rv_bool(v, !C(w)->not_backlogged);
}

static void get_sent_gbps(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real(v, C(w)->sent_gbps);
}

static void get_retrans(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (C(w)->has_retrans)
		rv_int(v, (long long)C(w)->retrans);
}

/* The switch port's own counters of the band, when the scenario reads them. */
static void get_switch_share(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, C(w)->has_switch, C(w)->switch_share_pct);
}

static void get_switch_diff(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, C(w)->has_switch, C(w)->switch_diff_pp);
}

/* Tables' units: the JSON's ns as us, its Gb/s as Mb/s; one digit. */
#define US		{ .scale = 1e-3, .prec = 1, .plus = false }
#define MBPS		{ .scale = 1e3, .prec = 3, .plus = false }
#define P1		{ .scale = 1, .prec = 1, .plus = false }
/* Its table column, for every kind of run. */
#define H(h)		.head = REPORT_HEADS(h)

/* Per class, in the CSV's order: a step's classes[], its table, its CSV. */
static const struct report_field class_fields[] = {
	{ .csv = "step", .get = get_step },
	{ .csv = "active_bw", .get = get_active_bw },
	{ .key = "sl", .kinds = RC_SL, .csv = "sl", H("sl"), .width = 5, .get = get_key },
	{ .key = "band", .kinds = RC_BAND, .csv = "band", H("band"), .width = 5,
	  .get = get_key },
	{ .key = "dscp", .get = get_dscp },
	{ .key = "lat_flows", .csv = "lat_flows", H("lat"), .width = 3, .get = get_lat_flows },
	{ .key = "bw_flows", .csv = "bw_flows", H("bw"), .width = 3, .get = get_bw_flows },
	{ .key = "saturating", .get = get_saturating },
	{ .key = "rtt_ns", .get = get_rtt },
	{ .key = "rtt_cdf", .get = get_rtt_cdf },
	{ .csv = "p50_ns", .csv_prec = 1, H("p50_us"), .width = 9, .num = US, .get = get_p50 },
	{ .csv = "p99_ns", .csv_prec = 1, H("p99_us"), .width = 9, .num = US, .get = get_p99 },
	{ .csv = "p99_9_ns", .csv_prec = 1, H("p99.9_us"), .width = 9, .num = US,
	  .get = get_p99_9 },
	{ .key = "bytes", .get = get_bytes },
	{ .key = "gbps", .csv = "gbps", .csv_prec = 6, H("Mb/s"), .width = 10, .num = MBPS,
	  .get = get_gbps },
	{ .key = "share_pct", .csv = "share_pct", .csv_prec = 2, H("share%"), .width = 8, .num = P1,
	  .get = get_share },
	{ .key = "analyzed_pct", .csv = "analyzed_pct", .csv_prec = 2, H("analyzd%"),
	  .width = 8, .num = P1, .get = get_analyzed },
	{ H("share 95% CI"), .width = 13, .num = P1, .get = get_ci },
	{ .key = "diff_pp", .csv = "diff_pp", .csv_prec = 2, H("diff"), .width = 7,
	  .num = { .scale = 1, .prec = 1, .plus = true }, .get = get_diff },
	{ .key = "within", .csv = "within", .get = get_within },
	{ .csv = "window_s", .csv_prec = 3, .get = get_window },
	{ .csv = "cut_short", .get = get_cut_short },
	{ .csv = "baseline_flow", .get = get_baseline_flow },
	{ .csv = "impact_p50", .csv_prec = 4, .get = get_impact_p50 },
	{ .csv = "impact_p99", .csv_prec = 4, .get = get_impact_p99 },
	{ .csv = "impact_p99_9", .csv_prec = 4, .get = get_impact_p99_9 },
	{ .key = "impact", .get = get_impact },
	{ .key = "destination", .csv = "destination", .get = get_destination },
	{ .key = "verdict", .csv = "verdict", H("verdict"), .get = get_verdict },
	{ .csv = "share_ci_low_pct", .csv_prec = 2, .get = get_ci_low },
	{ .csv = "share_ci_high_pct", .csv_prec = 2, .get = get_ci_high },
	{ .key = "share_ci_pct", .get = get_ci_json },
	{ .key = "share_lag1_corr", .get = get_rho },
	{ .key = "judged", .get = get_judged },
	{ .key = "unjudged_why", .get = get_unjudged_why },
	{ .key = "resolve_window_s", .get = get_resolve },
	{ .key = "backlogged", .get = get_backlogged },
	{ .key = "sent_gbps", .get = get_sent_gbps },
	{ .key = "retransmissions", .get = get_retrans },
	{ .key = "switch_share_pct", .get = get_switch_share },
	{ .key = "switch_diff_pp", .get = get_switch_diff },
};

#undef C
#undef CMP

/* ------------------------------------------------------------------ */
/* A flow's figures                                                    */
/* ------------------------------------------------------------------ */

#define F(w)		((w)->f)

static void get_name(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, F(w)->name);
}

static void get_host(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, F(w)->host);
}

static void get_flow_dest(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, F(w)->dest);
}

static void get_type(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, F(w)->type);
}

static void get_flow_sl(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, F(w)->sl);
}

static void get_tclass(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, F(w)->tclass);
}

static void get_flow_dscp(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, F(w)->dscp);
}

/* The band its DSCP puts it in. */
static void get_flow_band(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, F(w)->class_key);
}

static void get_flow_bytes(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, (long long)F(w)->bytes);
}

static void get_flow_gbps(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real(v, F(w)->gbps);
}

/* Its configured rate; null when unpaced. */
static void get_rate(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, F(w)->rate_bps > 0, report_bps_gbps((double)F(w)->rate_bps));
}

static void get_duty(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real(v, F(w)->duty_cycle);
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

static void get_sent_bytes(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_int(v, (long long)F(w)->sent_bytes);
}

static void get_flow_sent_gbps(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, F(w)->sent_gbps > 0, F(w)->sent_gbps);
}

static void get_host_retrans(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_null(v, NULL);
	if (F(w)->host_retrans >= 0)
		rv_int(v, F(w)->host_retrans);
}

static void get_flow_rtt(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	v->type = RV_JSON;
	v->json = F(w)->rtt ? report_hist_json(F(w)->rtt, &F(w)->rtt_clk, true) : json_null();
}

static void get_isolated(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, F(w)->has_isolated, F(w)->isolated_gbps);
}

static void get_loaded_over_isolated(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;
	const struct converge_flow *f = F(w);

	rv_real_or_null(v, f->has_isolated && f->isolated_gbps > 0,
			f->isolated_gbps > 0 ? f->gbps / f->isolated_gbps : 0);
}

static void get_start_late(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, F(w)->has_start, F(w)->start_late_us);
}

static void get_sync(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_real_or_null(v, F(w)->has_start, F(w)->sync_us);
}

static void get_error(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	rv_str(v, F(w)->error[0] ? F(w)->error : NULL);
}

/* Per flow that ran: a step's flows[] (no table or CSV rows of their own). */
static const struct report_field flow_fields[] = {
	{ .key = "name", .get = get_name },
	{ .key = "host", .get = get_host },
	{ .key = "destination", .get = get_flow_dest },
	{ .key = "type", .get = get_type },
	{ .key = "sl", .get = get_flow_sl },
	{ .key = "tclass", .get = get_tclass },
	{ .key = "dscp", .get = get_flow_dscp },
	{ .key = "band", .kinds = RC_BAND, .get = get_flow_band },
	{ .key = "bytes", .get = get_flow_bytes },
	{ .key = "gbps", .get = get_flow_gbps },
	{ .key = "rate_gbps", .get = get_rate },
	{ .key = "duty_cycle", .get = get_duty },
	{ .key = "measured_duty_cycle", .get = get_measured_duty },
	{ .key = "sent_bytes", .get = get_sent_bytes },
	{ .key = "sent_gbps", .get = get_flow_sent_gbps },
	{ .key = "host_retransmissions", .get = get_host_retrans },
	{ .key = "rtt_ns", .get = get_flow_rtt },
	{ .key = "isolated_gbps", .get = get_isolated },
	{ .key = "loaded_over_isolated", .get = get_loaded_over_isolated },
	{ .key = "start_late_us", .get = get_start_late },
	{ .key = "sync_uncertainty_us", .get = get_sync },
	{ .key = "error", .get = get_error },
};

#undef F
#undef US
#undef MBPS
#undef P1
#undef H

#define N_OF(a)		(sizeof(a) / sizeof((a)[0]))

const struct report_field *report_converge_fields(enum report_converge_list l,
							   size_t *n)
{
	*n = l == RC_CLASSES ? N_OF(class_fields) : N_OF(flow_fields);
	return l == RC_CLASSES ? class_fields : flow_fields;
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
