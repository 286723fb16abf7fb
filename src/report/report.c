/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What every report of a run shares (see report.h): the keys a document
 * or an event says of itself (command, schema and version; how it
 * ended), written from one table; a histogram's summary described once
 * for the table, the JSON and the CSV; the config keys of every client
 * command, the clock, the receiver's counters and the pass/fail criteria.
 * The lat, bw and server reports are report_lat.c's, report_bw.c's and
 * report_server.c's; analyze, converge and mesh have files of their own.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "report/doc_keys.h"
#include "report/report_int.h"
#include "flow/figures.h"

static double ns(const struct clock_cal *clk, double ticks)
{
	return figures_ns(clk, ticks);
}

/* Rounded to 0.1 ns: finer digits only repeat the clock's noise. */
json_t *report_json_ns(double v)
{
	return json_real((double)(int64_t)(v * 10 + (v < 0 ? -0.5 : 0.5)) / 10);
}

/* ------------------------------------------------------------------ */
/* A document's and an event's head and end                            */
/* ------------------------------------------------------------------ */

/* Every key report_head_set() writes, in its order. */
static const struct {
	enum report_head_keys key;
	const char *name;
} head_keys[] = {
	{ RH_EVENT, "event" },
	{ RH_COMMAND, REPORT_KEY_COMMAND },
	{ RH_SCHEMA_VERSION, "schema_version" },
	{ RH_VERSION, "version" },
	{ RH_COMPLETE, "complete" },
	{ RH_ERROR, "error" },
};

/* What key @k of @h says. */
static json_t *head_value(enum report_head_keys k, const struct report_head *h)
{
	switch (k) {
	case RH_EVENT:
		return json_string(h->event);
	case RH_COMMAND:
		return json_string(h->command);
	case RH_SCHEMA_VERSION:
		return json_integer(REPORT_SCHEMA_VERSION);
	case RH_VERSION:
		return json_string(PACKAGE_VERSION);
	case RH_COMPLETE:
		return json_boolean(h->complete);
	default:
		return h->error ? json_string(h->error) : json_null();
	}
}

json_t *report_head_set(json_t *o, const struct report_head *h, unsigned keys)
{
	size_t i;

	for (i = 0; i < sizeof(head_keys) / sizeof(head_keys[0]); i++)
		if (keys & head_keys[i].key)
			json_object_set_new(o, head_keys[i].name, head_value(head_keys[i].key, h));
	return o;
}

json_t *report_schema_stamp(json_t *o)
{
	return report_head_set(o, &(struct report_head){ 0 }, RH_SCHEMA_VERSION);
}

json_t *report_doc_new(const char *command)
{
	return report_head_set(json_object(), &(struct report_head){ .command = command }, RH_DOC);
}

json_t *report_end_set(json_t *o, bool complete, const char *error)
{
	const struct report_head h = { .complete = complete, .error = error };

	return report_head_set(o, &h, RH_END);
}

json_t *report_failed_json(const char *command, const char *error)
{
	return report_end_set(report_doc_new(command), false,
			      error && error[0] ? error : "failed");
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
	{ .key = "count", .head = { "samples" }, .stat = RF_COUNT, .pct = 0 },
	{ .key = "p50", .head = { "p50" }, .stat = RF_PCT, .pct = 50 },
	{ .key = "p90", .head = { "p90" }, .stat = RF_PCT, .pct = 90 },
	{ .key = "p99", .head = { "p99" }, .stat = RF_PCT, .pct = 99 },
	{ .key = "p99_9", .head = { "p99_9" }, .stat = RF_PCT, .pct = 99.9 },
	{ .key = "p99_99", .head = { "p99_99" }, .stat = RF_PCT, .pct = 99.99 },
	{ .key = "min", .head = { "min" }, .stat = RF_MIN, .pct = 0 },
	{ .key = "max", .head = { "max" }, .stat = RF_MAX, .pct = 0 },
	{ .key = "mean", .head = { "mean" }, .stat = RF_MEAN, .pct = 0 },
	{ .key = "stdev", .head = { "stdev" }, .stat = RF_STDEV, .pct = 0 },
};

#define N_HIST_FIELDS (sizeof(hist_fields) / sizeof(hist_fields[0]))

const struct report_field *report_hist_fields(size_t *n)
{
	*n = N_HIST_FIELDS;
	return hist_fields;
}

const struct report_field *report_hist_field(const char *key)
{
	size_t i;

	for (i = 0; i < N_HIST_FIELDS; i++)
		if (!strcmp(hist_fields[i].key, key))
			return &hist_fields[i];
	return NULL;
}

void report_quantile_figure(const struct hist_quantile *q, const struct clock_cal *clk,
			    struct report_figure *fig)
{
	fig->q = *q;
	fig->state = q->state;
	fig->ns = ns(clk, q->value);
	fig->lo_ns = ns(clk, q->lo);
	fig->hi_ns = ns(clk, q->hi);
	if (fig->state == HIST_Q_EMPTY)
		fig->state = HIST_Q_RESOLVED;	/* an empty summary is all zero */
}

void report_hist_figure(const struct hist *h, uint64_t unresolved, const struct report_field *f,
			const struct clock_cal *clk, struct report_figure *fig)
{
	uint64_t n = hist_count(h);
	struct hist_quantile q;

	memset(fig, 0, sizeof(*fig));
	fig->state = HIST_Q_RESOLVED;
	if (f->stat == RF_PCT) {
		hist_quantile(h, f->pct, unresolved, &q);
		report_quantile_figure(&q, clk, fig);
		return;
	}
	/* The unresolved samples are placeholders at 0: every figure over all
	 * samples but the largest is not a figure of the RTT. */
	if (n && unresolved && (f->stat != RF_MAX || unresolved == n) && f->stat != RF_COUNT)
		fig->state = HIST_Q_UNRESOLVED;
	fig->ns = f->stat == RF_COUNT ? (double)n : f->stat == RF_MIN ? ns(clk, hist_min(h)) :
		  f->stat == RF_MAX ? ns(clk, hist_max(h)) :
		  f->stat == RF_MEAN ? ns(clk, hist_mean(h)) : ns(clk, hist_stdev(h));
}

/*
 * A percentile figure of a histogram of @n samples, @unresolved of them
 * placeholders, as the JSON gives it: its state, value and the sides of
 * its interval that are figures (not open, not among the unresolved).
 */
void report_figure_pct(const struct report_figure *fig, uint64_t unresolved, uint64_t n,
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

/*
 * {"state", "value_ns", "rank", "ci_low_ns", "ci_high_ns", "ci_ranks",
 * "samples_needed", "lower_bound", "reason"}
 */
json_t *report_pct_json(const struct report_figure *fig, uint64_t unresolved, uint64_t n)
{
	const struct hist_quantile *q = &fig->q;
	bool ok = fig->state == HIST_Q_RESOLVED;
	json_t *o = json_object();
	struct ref_pct p;

	report_figure_pct(fig, unresolved, n, &p);
	json_object_set_new(o, REPORT_PCT_STATE, json_string(report_state_word(q->state)));
	json_object_set_new(o, REPORT_PCT_VALUE_NS, ok ? report_json_ns(fig->ns) : json_null());
	json_object_set_new(o, "rank", json_integer((json_int_t)q->rank));
	json_object_set_new(o, REPORT_PCT_CI_LOW_NS, p.has_lo ? report_json_ns(fig->lo_ns) : json_null());
	json_object_set_new(o, REPORT_PCT_CI_HIGH_NS, p.has_hi ? report_json_ns(fig->hi_ns) : json_null());
	json_object_set_new(o, "ci_ranks", json_pack("[II]", (json_int_t)q->lo_rank,
						     (json_int_t)q->hi_rank));
	json_object_set_new(o, "samples_needed", json_integer((json_int_t)q->needed));
	json_object_set_new(o, "lower_bound", json_boolean(q->lower_bound));
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
	if (i == N_HIST_FIELDS || hist_fields[i].stat != RF_PCT)
		return NULL;
	report_hist_figure(h, unresolved, &hist_fields[i], clk, &fig);
	return report_pct_json(&fig, unresolved, hist_count(h));
}

json_t *report_hist_json(const struct hist *h, const struct clock_cal *clk, bool rtt)
{
	uint64_t unresolved = rtt ? hist_zeros(h) : 0;
	json_t *o = json_object(), *pcts = json_object();
	struct report_figure fig;
	size_t i;

	for (i = 0; i < N_HIST_FIELDS; i++) {
		report_hist_figure(h, unresolved, &hist_fields[i], clk, &fig);
		if (hist_fields[i].stat == RF_COUNT)
			json_object_set_new(o, hist_fields[i].key, json_integer((json_int_t)fig.ns));
		else
			json_object_set_new(o, hist_fields[i].key, fig.state == HIST_Q_RESOLVED ?
					    report_json_ns(fig.ns) : json_null());
		if (hist_fields[i].stat == RF_PCT)
			json_object_set_new(pcts, hist_fields[i].key,
					    report_pct_json(&fig, unresolved, hist_count(h)));
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

	json_array_append_new(pair, report_json_ns(ns(clk, value)));
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
json_t *report_receiver_json(const struct flow_result *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "rnr_naks_sent", counter_or_null(r->rx_rnr_naks_sent));
	json_object_set_new(o, "out_of_buffer", counter_or_null(r->rx_out_of_buffer));
	json_object_set_new(o, "fell_behind", r->rx_rnr_naks_sent > 0 || r->rx_out_of_buffer > 0 ?
			    json_true() : r->rx_rnr_naks_sent < 0 && r->rx_out_of_buffer < 0 ?
			    json_null() : json_false());
	return o;
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
