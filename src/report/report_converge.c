/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The converge report: per step, each class's tail latency, bandwidth and
 * measured share against the analyzed one, with the flows behind them, as
 * JSON, a table and CSV. Apart because steps, classes and the comparison
 * with the analysis are converge's alone. Here: the document around the
 * rows (config, the verdicts), a step's figures described once
 * (step_fields), the table's lines and notes; a class's, a flow's and a
 * port's figures are described once in report_converge_rows.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/hist.h"
#include "base/env.h"
#include "base/log.h"
#include "report/report_int.h"
#include "report/report_converge.h"
#include "report/report_converge_rows.h"

/* ================================================================== */
/* converge                                                            */
/* ================================================================== */

static const char *converge_class_kind(const struct converge_report_info *info)
{
	return info->ets ? "band" : "sl";
}

static json_t *converge_start_json(const struct converge_start *s)
{
	return json_pack("{s:I, s:o, s:o, s:o}", "flows", (json_int_t)s->n,
			 "late_max_us", report_real_or_null(s->n, s->late_max_us),
			 "late_p99_us", report_real_or_null(s->n, s->late_p99_us),
			 "sync_uncertainty_us", report_real_or_null(s->n, s->sync_max_us));
}

static json_t *converge_reading_json(const struct converge_reading *r)
{
	return json_pack("{s:s, s:f, s:f}", "semantics", r->name, "max_diff_pp", r->max_diff_pp,
			 "rms_diff_pp", r->rms_diff_pp);
}

/* --fit best with several readings: the verdict follows a reading chosen after seeing the data. */
static bool converge_post_hoc(const struct converge_report_info *info,
			      const struct converge_fit *fit)
{
	return info->fit && !strcmp(info->fit, "best") && fit->n > 1;
}

/*
 * {configured, best, exact, post_hoc, readings: [...]}, or null when the
 * step was not compared.
 */
static json_t *converge_fit_json(const struct converge_report_info *info,
				 const struct converge_fit *fit)
{
	json_t *all;
	int i;

	if (!fit->has)
		return json_null();
	all = json_array();
	for (i = 0; i < fit->n; i++)
		json_array_append_new(all, converge_reading_json(&fit->readings[i]));
	return json_pack("{s:o, s:o, s:b, s:b, s:o}",
			 "configured", converge_reading_json(&fit->readings[fit->configured]),
			 "best", converge_reading_json(&fit->readings[fit->best]),
			 "exact", fit->n == 1, "post_hoc", converge_post_hoc(info, fit),
			 "readings", all);
}

/* ------------------------------------------------------------------ */
/* A step, described once                                              */
/* ------------------------------------------------------------------ */

#define ROW_STEP(row)	(((const struct converge_row *)(row))->st)

static const void *converge_step_of(const void *row)
{
	return ROW_STEP(row);
}

#define STEP(m)		REPORT_MEMBER(converge_step_of, struct converge_step, m)

/* The flow a baseline step ran alone; null for a loaded step. */
static void get_baseline_flow(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_step *st = ROW_STEP(row);

	rv_str(v, st->baseline ? st->flows[st->alone].name : NULL);
}

static void get_step_verdict(const void *row, const char *arg, struct report_value *v)
{
	rv_str(v, converge_verdict_name(ROW_STEP(row)->verdict));
}

static void get_switch_error(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_step *st = ROW_STEP(row);

	rv_str(v, st->switch_error[0] ? st->switch_error : NULL);
}

static void get_start(const void *row, const char *arg, struct report_value *v)
{
	v->type = RV_JSON;
	v->json = converge_start_json(&ROW_STEP(row)->start);
}

/* The step's ports, each a row. */
static void get_ports(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_step *st = ROW_STEP(row);
	size_t i;

	v->type = RV_JSON;
	v->json = json_array();
	for (i = 0; i < st->n_ports; i++)
		json_array_append_new(v->json, converge_port_json(&st->ports[i]));
}

/* The step's classes (@l RC_CLASSES) or the flows that ran in it, each a row. */
static json_t *step_rows_json(enum report_converge_list l, const void *row)
{
	struct converge_row w = *(const struct converge_row *)row;
	size_t i, n = l == RC_CLASSES ? w.st->n_classes : w.st->n_flows;
	json_t *a = json_array();

	for (i = 0; i < n; i++) {
		w.c = l == RC_CLASSES ? &w.st->classes[i] : NULL;
		w.f = l == RC_FLOWS ? &w.st->flows[i] : NULL;
		if (w.c || w.f->ran)
			json_array_append_new(a, converge_row_json(l, &w));
	}
	return a;
}

static void get_classes(const void *row, const char *arg, struct report_value *v)
{
	v->type = RV_JSON;
	v->json = step_rows_json(RC_CLASSES, row);
}

static void get_flows(const void *row, const char *arg, struct report_value *v)
{
	v->type = RV_JSON;
	v->json = step_rows_json(RC_FLOWS, row);
}

static void get_step_criteria(const void *row, const char *arg, struct report_value *v)
{
	v->type = RV_JSON;
	v->json = report_criteria_json(&ROW_STEP(row)->criteria);
}

static void get_semantics_fit(const void *row, const char *arg, struct report_value *v)
{
	const struct converge_row *w = row;

	v->type = RV_JSON;
	v->json = converge_fit_json(w->info, &w->st->fit);
}

/* A step of the document's steps[] and of its step events. */
static const struct report_field step_fields[] = {
	{ .key = "active_bw", STEP(active_bw) },
	{ .key = "baseline_flow", .get = get_baseline_flow },
	{ .key = "window_s", STEP(window_s) },
	{ .key = "total_gbps", STEP(total_gbps) },
	{ .key = "analysis_link_gbps", STEP(analysis_link_gbps) },
	{ .key = "compared", STEP(compared) },
	{ .key = "judged", STEP(judged) },
	{ .key = "within", STEP(within) },
	{ .key = "verdict", .get = get_step_verdict },
	{ .key = "cut_short", STEP(cut_short) },
	{ .key = "setup_ms", STEP(setup_ms) },
	{ .key = "start", .get = get_start },
	{ .key = "switch_counters", STEP(switch_read) },
	{ .key = "switch_error", .get = get_switch_error },
	{ .key = "ports", .get = get_ports },
	{ .key = "classes", .get = get_classes },
	{ .key = "flows", .get = get_flows },
	{ .key = "criteria", .get = get_step_criteria },
	{ .key = "semantics_fit", .get = get_semantics_fit },
};

#undef STEP

const struct report_field *report_converge_step_fields(size_t *n)
{
	*n = N_OF(step_fields);
	return step_fields;
}

static json_t *converge_step_json(const struct converge_report_info *info,
				  const struct converge_step *st)
{
	const struct converge_row w = { .info = info, .st = st };
	size_t n;
	const struct report_field *f = report_converge_step_fields(&n);

	return report_fields_json(f, n, &w, 0);
}

static json_t *converge_config_json(const struct converge_report_info *info)
{
	json_t *o = json_object();

	json_object_set_new(o, "scenario", json_string(info->scenario));
	json_object_set_new(o, "destination", json_string(info->destination));
	json_object_set_new(o, "arbitration", info->arbitration ?
			    json_string(info->arbitration) : json_null());
	json_object_set_new(o, "model", info->model ? json_string(info->model) : json_null());
	json_object_set_new(o, "link_gbps",
			    report_real_or_null(info->link_gbps > 0, info->link_gbps));
	json_object_set_new(o, "duration_s", json_real(info->duration_s));
	json_object_set_new(o, "warmup_s", json_real(info->warmup_s));
	json_object_set_new(o, "tolerance_pp", json_real(info->tolerance_pp));
	json_object_set_new(o, "sweep", json_boolean(info->sweep));
	json_object_set_new(o, "baseline", json_string(info->baseline ? info->baseline : "no"));
	json_object_set_new(o, "fit", json_string(info->fit ? info->fit : "configured"));
	json_object_set_new(o, "semantics", info->semantics ? json_string(info->semantics) :
			    json_null());
	return o;
}

/* {"command", "version", "config", "classify"}: what a run is, before any step. */
static json_t *converge_head_json(const struct converge_report_info *info)
{
	json_t *root = report_doc_new("converge");

	json_object_set_new(root, "config", converge_config_json(info));
	json_object_set_new(root, "classify", json_string(info->ets ?
			    "ets band of the flow's DSCP (tclass >> 2)" : "service level"));
	json_object_set_new(root, "environment", json_pack("{s:o, s:o}",
			    "coordinator", run_env_json(info->env),
			    "agents", info->agent_envs ? json_incref(info->agent_envs) :
							 json_object()));
	return root;
}

/* The agents, the verdicts over @n steps, and how the run ended, into @root. */
static void converge_tail_json(json_t *root, const struct converge_report_info *info,
			       const struct converge_step *steps, size_t n, const char *error)
{
	enum converge_verdict v;
	bool within = true, passed = true, judged;
	size_t i;

	json_object_set_new(root, "agents", json_integer((json_int_t)info->n_agents));
	json_object_set_new(root, "connect_ms", json_real(info->connect_ms));
	json_object_set_new(root, "authenticated", json_boolean(info->authenticated));
	for (i = 0; i < n; i++) {
		within = within && steps[i].within;
		passed = passed && !criteria_failed(&steps[i].criteria);
	}
	v = converge_run_verdict(steps, n, info->arbitration, &judged);
	json_object_set_new(root, "judged", json_boolean(judged));
	json_object_set_new(root, "within_tolerance", json_boolean(within));
	json_object_set_new(root, "verdict", json_string(converge_verdict_name(v)));
	json_object_set_new(root, "criteria_passed", json_boolean(passed));
	report_end_set(root, !error, error);
}

json_t *report_converge_json(const struct converge_report_info *info,
			     const struct converge_step *steps, size_t n, const char *error)
{
	json_t *root = converge_head_json(info), *arr = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, converge_step_json(info, &steps[i]));
	json_object_set_new(root, "steps", arr);
	converge_tail_json(root, info, steps, n, error);
	return root;
}

/* Sets "event": @name in @o; returns @o. */
static json_t *converge_event_set(json_t *o, const char *name)
{
	return report_head_set(o, &(struct report_head){ .event = name }, RH_EVENT);
}

json_t *report_converge_event_start(const struct converge_report_info *info)
{
	return converge_event_set(converge_head_json(info), "start");
}

json_t *report_converge_event_step(const struct converge_report_info *info,
				   const struct converge_step *st, size_t index)
{
	json_t *o = converge_event_set(json_object(), "step");

	json_object_set_new(o, "index", json_integer((json_int_t)index));
	json_object_set_new(o, "step", converge_step_json(info, st));
	return report_schema_stamp(o);
}

json_t *report_converge_event_end(const struct converge_report_info *info,
				  const struct converge_step *steps, size_t n, const char *error)
{
	json_t *o = converge_event_set(json_object(), "end");

	json_object_set_new(o, "steps", json_integer((json_int_t)n));
	report_schema_stamp(o);
	converge_tail_json(o, info, steps, n, error);
	return o;
}

/* A note's head: the class it is of ("into DEST, " where there are ports
 * to tell apart, then "band N: " or "sl N: "). */
static void converge_note_head(FILE *out, const struct converge_report_info *info,
			       const struct converge_step *st, const struct converge_class *c)
{
	if (st->n_ports > 1)
		fprintf(out, "into %s, ", c->dest);
	fprintf(out, "%s %d: ", info->ets ? "band" : "sl", c->key);
}

/* A note of class @c of step @st in @buf (the text after its head), or false where it has none. */
typedef bool converge_note_fn(const struct converge_step *st, const struct converge_class *c,
			      char *buf, size_t len);

/* Each note @note has of step @st's classes, a line each after its head. */
static void converge_class_notes(FILE *out, const struct converge_report_info *info,
				 const struct converge_step *st, converge_note_fn *note)
{
	char buf[768];
	size_t k;

	for (k = 0; k < st->n_classes; k++) {
		if (!note(st, &st->classes[k], buf, sizeof(buf)))
			continue;
		converge_note_head(out, info, st, &st->classes[k]);
		fprintf(out, "%s\n", buf);
	}
}

/*
 * Why a class is OUT when the analysis took it as saturating and it fell
 * short: the analysis assumes a queue that never runs dry.
 */
static bool converge_backlog_note(const struct converge_step *st, const struct converge_class *c,
				  char *buf, size_t len)
{
	char retrans[96] = "";

	if (!c->not_backlogged)
		return false;
	if (c->has_retrans)
		snprintf(retrans, sizeof(retrans), ", with %" PRIu64 " retransmission%s on their "
			 "hosts' ports", c->retrans, c->retrans == 1 ? "" : "s");
	snprintf(buf, len, "taken as saturating, it was not kept backlogged: %.1f %% against "
		 "%.1f %% analyzed (%+.1f points); its flows sent %.3f Mb/s over their run and "
		 "it received %.3f Mb/s%s (a flow waiting out a retransmission timeout leaves "
		 "its queue empty; the analysis assumes it never is)", c->share_pct,
		 c->analyzed_pct, c->diff_pp, report_mbps(c->sent_gbps), report_mbps(c->gbps),
		 retrans);
	return true;
}

/*
 * A class of a compared step that was not judged, and why (its verdict
 * is nearly automatic); an inconclusive one, and what run would conclude.
 */
static bool converge_judged_note(const struct converge_step *st, const struct converge_class *c,
				 char *buf, size_t len)
{
	if (!st->ports[c->port].compared || (c->judged && c->verdict != CONVERGE_INCONCLUSIVE))
		return false;
	if (!c->judged)
		snprintf(buf, len, "not judged: %s", c->unjudged_why);
	else if (c->resolve_window_s > 0)
		snprintf(buf, len, "inconclusive: a window of about %.0f s (--duration) would "
			 "resolve it, if its spread is noise that averages out", c->resolve_window_s);
	else
		snprintf(buf, len, "inconclusive: %s", c->has_ci ? "its share lies on the "
			 "tolerance's edge; no run length would resolve it" : "no interval (too "
			 "few intervals, or shares too correlated to bound)");
	return true;
}

/*
 * A class with unresolved RTTs: its resolved percentiles are lower
 * bounds (the placeholders could lie anywhere above them).
 */
static bool converge_lower_bound_note(const struct converge_step *st,
				      const struct converge_class *c, char *buf, size_t len)
{
	uint64_t zeros = c->lat_ns ? hist_zeros(c->lat_ns) : 0;

	if (!zeros || zeros >= hist_count(c->lat_ns))
		return false;
	snprintf(buf, len, "its RTT percentiles are lower bounds: %" PRIu64 " of %" PRIu64
		 " RTTs are unresolved and could lie anywhere above them", zeros,
		 hist_count(c->lat_ns));
	return true;
}

/* The notes of step @st's classes; of a compared step, whether any was judged. */
static void converge_notes(FILE *out, const struct converge_report_info *info,
			   const struct converge_step *st)
{
	converge_class_notes(out, info, st, converge_backlog_note);
	if (info->arbitration && st->compared) {
		converge_class_notes(out, info, st, converge_judged_note);
		if (!st->judged)
			fprintf(out, "nothing judged in this step: no class's share is decided "
				"by the arbitration\n");
	}
	converge_class_notes(out, info, st, converge_lower_bound_note);
}

/* How long the step took to set up, and how closely its flows began together. */
static void converge_start_line(FILE *out, const struct converge_step *st)
{
	const struct converge_start *s = &st->start;

	fprintf(out, "setup %.0f ms", st->setup_ms);
	if (s->n)
		fprintf(out, "; %zu flow%s began at most %.0f us (p99 %.0f us) after the "
			"instant, each within %.0f us of it by the clocks' sync", s->n,
			s->n == 1 ? "" : "s", s->late_max_us, s->late_p99_us, s->sync_max_us);
	fprintf(out, "\n");
}

/* The switch's shares beside the destination's, or why there are none. */
static void converge_switch_line(FILE *out, const struct converge_report_info *info,
				 const struct converge_step *st)
{
	const char *sep = "";
	size_t k;

	if (st->switch_error[0]) {
		fprintf(out, "%s\n", st->switch_error);
		return;
	}
	if (!st->switch_read)
		return;
	fprintf(out, "switch port counters, share%% (destination's, difference):");
	for (k = 0; k < st->n_classes; k++) {
		if (!st->classes[k].has_switch)
			continue;
		fprintf(out, "%s %s %d %.1f (%.1f, %+.1f)", sep, info->ets ? "band" : "sl",
			st->classes[k].key, st->classes[k].switch_share_pct,
			st->classes[k].share_pct, st->classes[k].switch_diff_pp);
		sep = ";";
	}
	fprintf(out, "\n");
}

/* Which reading of the arbitration the step's shares fit best. */
static void converge_fit_line(FILE *out, const struct converge_report_info *info,
			      const struct converge_step *st)
{
	const struct converge_fit *fit = &st->fit;
	const struct converge_reading *b, *cf;

	if (!fit->has)
		return;
	b = &fit->readings[fit->best];
	cf = &fit->readings[fit->configured];
	if (fit->n == 1) {
		fprintf(out, "fit: %s, its one reading: %.1f points at most (rms %.1f)\n",
			b->name, b->max_diff_pp, b->rms_diff_pp);
		return;
	}
	fprintf(out, "best fit of %d readings: %s, %.1f points at most (rms %.1f)", fit->n,
		b->name, b->max_diff_pp, b->rms_diff_pp);
	if (fit->best != fit->configured)
		fprintf(out, "; configured %s: %.1f (rms %.1f)", cf->name, cf->max_diff_pp,
			cf->rms_diff_pp);
	else
		fprintf(out, ", the configured one");
	if (converge_post_hoc(info, fit))
		fprintf(out, "; --fit best: the verdicts follow it, chosen after seeing the "
			"shares (post hoc: they can pass by fitting noise)");
	fprintf(out, "\n");
}

/* Class @c's impact factors, one line; a factor without a figure says why. */
static void converge_impact_line(FILE *out, const struct converge_report_info *info,
				 const struct converge_step *st, const struct converge_class *c)
{
	static const char *const names[3] = { "p50", "p99", "p99.9" };
	size_t i;

	fprintf(out, "impact, %s%s%s %d: RTT loaded over alone", st->n_ports > 1 ? c->dest : "",
		st->n_ports > 1 ? " " : "", converge_class_kind(info), c->key);
	for (i = 0; i < 3; i++)
		if (c->impact_why[i])
			fprintf(out, "%s %s none (%s)", i ? "," : "", names[i], c->impact_why[i]);
		else
			fprintf(out, "%s %s %.2fx", i ? "," : "", names[i], converge_impact(c, i));
	fputc('\n', out);
}

/* --baseline: each class's impact factors, each bw flow's rate against alone. */
static void converge_impact_lines(FILE *out, const struct converge_report_info *info,
				  const struct converge_step *st)
{
	const struct converge_flow *f;
	size_t k;

	for (k = 0; k < st->n_classes; k++)
		if (st->classes[k].has_impact)
			converge_impact_line(out, info, st, &st->classes[k]);
	for (k = 0; k < st->n_flows; k++) {
		f = &st->flows[k];
		if (f->ran && f->has_isolated && f->isolated_gbps > 0)
			fprintf(out, "impact, flow %s: %.3f Mb/s loaded, %.3f alone (%.2fx)\n",
				f->name, report_mbps(f->gbps), report_mbps(f->isolated_gbps),
				f->gbps / f->isolated_gbps);
	}
}

static void converge_flow_errors(FILE *out, const struct converge_step *st)
{
	char text[4 * sizeof(st->flows[0].error)];
	size_t k;

	for (k = 0; k < st->n_flows; k++) {
		if (!st->flows[k].ran || !st->flows[k].error[0])
			continue;
		/* An agent's words: no control character reaches the terminal. */
		log_escape(st->flows[k].error, text, sizeof(text));
		fprintf(out, "flow %s on %s: %s\n", st->flows[k].name, st->flows[k].host, text);
	}
}

/*
 * One destination's classes: with several destinations, each under its
 * own heading and with its own total, since each port is compared alone.
 */
static void converge_port_rows(FILE *out, const struct converge_report_info *info,
			       const struct converge_step *st, size_t p)
{
	const struct converge_port *port = &st->ports[p];
	struct converge_row w = { .info = info, .st = st };
	size_t k;

	if (st->n_ports > 1)
		fprintf(out, "%sinto %s:\n", p ? "\n" : "", port->host);
	converge_class_table(out, &w);
	for (k = 0; k < st->n_classes; k++) {
		w.c = &st->classes[k];
		if (w.c->port == (int)p)
			converge_class_table(out, &w);
	}
	if (st->n_ports < 2)
		return;
	fprintf(out, "into %s %.3f Mb/s in %.2f s", port->host, report_mbps(port->total_gbps),
		port->window_s);
	if (info->arbitration)
		fprintf(out, "%s", !port->compared ? "; not compared: no class saturates it" :
			port->verdict == CONVERGE_WITHIN ? "; within" :
			port->verdict == CONVERGE_OUT ? "; OUT" : "; inconclusive");
	fprintf(out, "\n");
}

/* A bursty paced flow's duty cycle, measured (its rate over what it carried). */
static void converge_duty_lines(FILE *out, const struct converge_step *st)
{
	const struct converge_flow *f;
	double duty;
	size_t k;

	for (k = 0; k < st->n_flows; k++) {
		f = &st->flows[k];
		if (f->ran && converge_flow_duty(f, &duty))
			fprintf(out, "flow %s: duty cycle %.3f measured (%.3f Mb/s at %.3f Mb/s "
				"paced), %.3f configured\n", f->name, duty, report_mbps(f->gbps),
				report_bps_mbps((double)f->rate_bps), f->duty_cycle);
	}
}

void report_converge_table(FILE *out, const struct converge_report_info *info,
			   const struct converge_step *steps, size_t n)
{
	const struct converge_step *st;
	size_t i, k;

	fprintf(out, "rperf converge %s -> %s, %.1f s (+%.1f s warm-up), tolerance %.1f pp\n",
		info->scenario, info->destination, info->duration_s, info->warmup_s,
		info->tolerance_pp);
	if (info->n_agents && info->authenticated)
		fprintf(out, "%zu agents reached, authenticated and synced in %.0f ms\n",
			info->n_agents, info->connect_ms);
	else if (info->n_agents)
		fprintf(out, "%zu agents reached and synced in %.0f ms, NOT authenticated (no "
			"--token-file: agents on the loopback only)\n", info->n_agents,
			info->connect_ms);
	if (info->arbitration)
		fprintf(out, "compared with %s (model %s)%s\n", info->arbitration, info->model,
			info->ets ? "; classes are ETS bands, by the DSCP of each flow's tclass" :
				    "; classes are service levels");
	for (i = 0; i < n; i++) {
		st = &steps[i];
		fprintf(out, "\n");
		if (st->baseline)
			fprintf(out, "step %zu, baseline: flow %s alone\n", i,
				st->flows[st->alone].name);
		else if (info->sweep)
			fprintf(out, "step %zu: %u bandwidth flow%s\n", i, st->active_bw,
				st->active_bw == 1 ? "" : "s");
		if (st->cut_short && st->window_s <= 0) {
			fprintf(out, "not measured: the step ended before its window began\n");
			converge_flow_errors(out, st);
			continue;
		}
		for (k = 0; k < st->n_ports; k++)
			converge_port_rows(out, info, st, k);
		fprintf(out, "total %.3f Mb/s in %.2f s%s", report_mbps(st->total_gbps), st->window_s,
			st->cut_short ? " (cut short)" : "");
		if (!st->compared && info->arbitration)
			fprintf(out, "; not compared: no class saturates %s",
				st->n_ports > 1 ? "any port" : "the port");
		fprintf(out, "\n");
		converge_start_line(out, st);
		converge_switch_line(out, info, st);
		converge_notes(out, info, st);
		converge_fit_line(out, info, st);
		converge_impact_lines(out, info, st);
		converge_duty_lines(out, st);
		converge_flow_errors(out, st);
		report_criteria_table(out, &st->criteria);
	}
}

void report_converge_csv(FILE *out, const struct converge_report_info *info,
			 const struct converge_step *steps, size_t n)
{
	struct converge_row w = { .info = info };
	size_t k;

	converge_class_csv(out, &w);
	for (w.step = 0; w.step < n; w.step++) {
		w.st = &steps[w.step];
		for (k = 0; k < w.st->n_classes; k++) {
			w.c = &w.st->classes[k];
			converge_class_csv(out, &w);
		}
	}
}
