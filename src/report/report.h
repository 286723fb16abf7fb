/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one place that formats results: human tables on a FILE, JSON as
 * jansson objects (so tests can inspect their shape), JSON files written
 * atomically. This header holds what every command's report shares: the
 * document's head, the criteria, a histogram's summary. Each command's
 * own report is its header's: report_lat.h, report_bw.h, report_server.h,
 * report_analyze.h, report_converge.h, report_mesh.h. Its figures take
 * their time unit from flow/figures, the one module where ticks become
 * nanoseconds.
 */
#ifndef RPERF_REPORT_H
#define RPERF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "base/clock.h"
#include "base/hist.h"
#include "flow/criteria.h"
#include "report/field.h"

/*
 * Pass/fail criteria: [{"name", "scope", "kind": "max"|"min",
 * "limit_UNIT", "value_UNIT" (null: not measured), "passed",
 * "cannot_be_judged" (why the figure cannot be judged, or null)}]; one line
 * per criterion ("max_p99 (size 64): 12.3 us, above 10 us"); a
 * "criteria:" section of PASS/FAIL lines (nothing when there is none).
 */
json_t *report_criteria_json(const struct criteria *cs);
void report_criterion_line(const struct criterion *c, char *buf, size_t len);
void report_criteria_table(FILE *out, const struct criteria *cs);

/*
 * The keys a document or an event says of itself, at its head and its end,
 * one bit each; report_head_set() writes those asked for in this order.
 */
enum report_head_keys {
	RH_EVENT = 1u << 0,		/* an event's name */
	RH_COMMAND = 1u << 1,
	RH_SCHEMA_VERSION = 1u << 2,	/* the layout's (REPORT_SCHEMA_VERSION) */
	RH_VERSION = 1u << 3,		/* rperf's */
	RH_COMPLETE = 1u << 4,		/* the run ended as it meant to */
	RH_ERROR = 1u << 5,		/* why not; null */
	RH_DOC = RH_COMMAND | RH_SCHEMA_VERSION | RH_VERSION,	/* every document's head */
	RH_END = RH_COMPLETE | RH_ERROR,			/* how a run ended */
};

/* What those keys say. */
struct report_head {
	const char *event;
	const char *command;
	bool complete;
	const char *error;		/* NULL: null */
};

/* Sets the keys @keys (report_head_keys) of @h in @o, in their order; returns @o. */
json_t *report_head_set(json_t *o, const struct report_head *h, unsigned keys);
/* {"command", "schema_version", "version"}: the head of every document. */
json_t *report_doc_new(const char *command);
/* Sets "complete": @complete and "error": @error (NULL: null) in @o; returns @o. */
json_t *report_end_set(json_t *o, bool complete, const char *error);
/*
 * The document of a command that failed before it had anything to
 * report: the head, "complete": false and "error": @error (schema:
 * common.schema.json#/$defs/failed_early). New reference.
 */
json_t *report_failed_json(const char *command, const char *error);
/* Sets "schema_version" in @o, an event or document; returns @o. */
json_t *report_schema_stamp(json_t *o);

/* @v as a JSON number, or null when there is none (!@has). */
json_t *report_real_or_null(bool has, double v);

/* The summary's figures (key: hist_ns's property in schema/common.schema.json;
 * stat, pct: what figure), in the table's column order (@n of them). */
const struct report_field *report_hist_fields(size_t *n);
/* The summary's figure of key @key ("p99"); NULL for a key it has not. */
const struct report_field *report_hist_field(const char *key);

/* One figure, computed once for every format: ns (count for RF_COUNT). */
struct report_figure {
	enum hist_q_state state;	/* RESOLVED: @ns is the figure */
	double ns;
	struct hist_quantile q;		/* RF_PCT: rank, interval, count needed */
	double lo_ns, hi_ns;		/* RF_PCT: the interval's values */
};

/*
 * Figure @f of @h (ticks of @clk), whose @unresolved smallest samples are
 * placeholders at 0: a percentile as hist_quantile() says; min, mean and
 * stdev unresolved when any sample is, max when all are. An empty
 * histogram's figures are resolved zeros.
 */
void report_hist_figure(const struct hist *h, uint64_t unresolved, const struct report_field *f,
			const struct clock_cal *clk, struct report_figure *fig);

/*
 * A percentile computed elsewhere (@q, in ticks of @clk: a sketch's,
 * base/sketch.h) as the figure report_hist_figure() gives of one.
 */
void report_quantile_figure(const struct hist_quantile *q, const struct clock_cal *clk,
			    struct report_figure *fig);

/* Why an RTT sample is unresolved: the same words wherever it is said. */
#define REPORT_UNRESOLVED_WHY "whose RTT is not above 0: the loopback SEND completed " \
	"at or after the wire SEND, so T_W - T_L does not resolve the fabric's share"

/*
 * {count, min, max, mean, stdev, p50, p90, p99, p99_9, p99_99 (ns; null
 * when not resolved), unresolved, percentiles: {p50: {state, value_ns,
 * rank, ci_low_ns, ci_high_ns, ci_ranks, samples_needed, reason}, ...},
 * confidence, resolution}. @rtt: the samples at 0 are unresolved RTTs.
 */
json_t *report_hist_json(const struct hist *h, const struct clock_cal *clk, bool rtt);
/*
 * Percentile @key ("p50", "p99", "p99_9" ...: report_hist_fields()) of
 * RTTs @h (its samples at 0 unresolved), as report_hist_json() gives it:
 * {state, value_ns, rank, ci_low_ns, ci_high_ns, ci_ranks,
 * samples_needed, reason}. NULL when @key is no percentile.
 */
json_t *report_rtt_pct_json(const struct hist *h, const char *key, const struct clock_cal *clk);

/*
 * Percentile figure @fig of @n samples, @unresolved of them placeholders,
 * as report_rtt_pct_json() gives it.
 */
json_t *report_pct_json(const struct report_figure *fig, uint64_t unresolved, uint64_t n);

/* A histogram's non-empty buckets as [[value_ns, count], ...]: a CDF. */
json_t *report_hist_buckets_json(const struct hist *h, const struct clock_cal *clk);

#endif
