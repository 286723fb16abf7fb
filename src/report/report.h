/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one place that formats results: human tables on a FILE, JSON as
 * jansson objects (so tests can inspect their shape), JSON files written
 * atomically. Its figures take their time unit from engine/figures, the
 * one module where ticks become nanoseconds.
 */
#ifndef RPERF_REPORT_H
#define RPERF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "base/clock.h"
#include "base/hist.h"
#include "coord/mesh.h"
#include "coord/step.h"
#include "engine/bw_client.h"
#include "engine/criteria.h"
#include "engine/probe.h"
#include "engine/result.h"
#include "engine/run.h"
#include "rdma/verbs.h"
#include "report/converge_info.h"
#include "report/doc_keys.h"
#include "report/field.h"
#include "report/reference.h"
#include "report/value.h"

/* ================================================================== */
/* lat and server                                                      */
/* ================================================================== */

/* How a lat run was set up: the report's header and JSON "config". */
struct lat_report_info {
	const struct criteria *criteria;	/* --max-p99 and kin; NULL: none */
	const struct run_env *env;		/* where it ran; NULL: not known */
	const char *server;
	const char *device;
	unsigned port;
	int gid_index;			/* -1: InfiniBand, LID addressing */
	bool roce;
	const char *mtu;		/* active MTU, e.g. "1024" */
	struct verbs_path path;
	const struct clock_cal *clk;
	unsigned threads;
	bool rdma_cm;
	bool hugepages;			/* huge pages in use */
	uint64_t iterations;		/* 0: duration_s */
	double duration_s;
	uint64_t warmup;
	bool ci;			/* --ci: the table gives each percentile's interval */
	const struct ref_doc *ref;	/* --reference: what this path adds to it; NULL: none */
	enum flow_rtt_clock rtt_clock;	/* --clock hw|both: the NIC's RTT too */
	const struct clock_cal *nic_clk;	/* the NIC's completion clock; NULL: none */
};

/* What run @r (after run_lat_prepare()) says of itself, for its report;
 * @ci: the table gives each percentile's interval. */
void report_lat_info(struct lat_report_info *info, const struct run_lat *r, bool ci);

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

/* {"command", "schema_version", "version"}: the head of every document. */
json_t *report_doc_new(const char *command);
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

/*
 * The lat document: {"command", "version", "config", "clock", "results":
 * [one object per size], "complete", "error"}. @n results, the last of
 * which may be partial. @error NULL when the run completed. With
 * info->ref, a "reference" head ({"file", "confidence", "method"}) and
 * per size a "reference": {p50, p90, p99: {"state", "value_ns",
 * "ci_low_ns", "ci_high_ns", "reference_ns", "reason"}}, null for a size
 * the reference lacks (see reference.h).
 */
json_t *report_lat_json(const struct lat_report_info *info, const struct flow_result *res,
			size_t n, const char *error);
/* One row per size: RTT, then wire and loopback, in microseconds. */
void report_lat_table(FILE *out, const struct lat_report_info *info,
		      const struct flow_result *res, size_t n);

/*
 * lat --csv: one row per measured sample, the raw timestamps in ticks and
 * the three intervals in ns. @warmup is how many samples came first
 * unrecorded (the row counts from 0 after them); one write per row, so
 * workers sharing @out never mix their lines.
 */
void report_lat_csv_header(FILE *out);
void report_lat_csv_row(FILE *out, unsigned thread, size_t size_bytes, uint64_t warmup,
			const struct probe_sample *s, const struct clock_cal *clk);

/*
 * lat --json-stream, one event a line (schema/lat-event.schema.json):
 * "start" {command, version, config, clock} as the document has them;
 * "size" {index, result} each size as it ends, the document's result;
 * "end" {sizes, criteria, complete, error}.
 */
json_t *report_lat_event_start(const struct lat_report_info *info);
json_t *report_lat_event_size(const struct lat_report_info *info, size_t index,
			      const struct flow_result *r);
json_t *report_lat_event_end(const struct lat_report_info *info, size_t n, const char *error);
/* lat's progress on a terminal: size @index of @n as it ends, its samples,
 * p50 and p99 in us (or why not). One write, flushed. */
void report_lat_progress(FILE *out, size_t index, size_t n, const struct flow_result *r,
			 const struct clock_cal *clk);
/* The same during the size, every few seconds: its samples so far. */
void report_lat_progress_sofar(FILE *out, size_t index, size_t n, const struct flow_result *r,
			       const struct clock_cal *clk);

struct sink;
/* The rows of a server's report: per flow ("flows"), per SL ("sls"). */
enum report_server_list { RS_FLOWS, RS_SLS };

struct server_row;

/* List @l's fields (key: schema/server.schema.json's flows or sls item
 * property), in the JSON's and the table's order (@n of them). */
const struct report_field *report_server_fields(enum report_server_list l, size_t *n);

/* Flows and per-SL totals of a server: every field of both lists in both. */
json_t *report_server_json(const struct sink *s, double elapsed_s);
void report_server_table(FILE *out, const struct sink *s, double elapsed_s);

/* ================================================================== */
/* bw                                                                  */
/* ================================================================== */

/* How a bw run was set up: the report's header and JSON "config". */
struct bw_report_info {
	struct lat_report_info flow;	/* server, device, path, clock, threads */
	bool write;			/* RDMA WRITE with immediate, not SEND */
	size_t size_bytes;
	unsigned qps;			/* per thread */
	uint32_t tx_depth, batch, cq_mod;
	bool yield, event;		/* how completions are awaited */
	uint64_t rate_bps;		/* the whole run's, over its threads and QPs; 0: none */
	uint64_t hw_rate_bps;		/* per QP, as asked; 0: none */
	uint64_t hw_rate_applied_bps;	/* per QP, as the device applied it (read
					 * back; the slowest QP's); 0: none */
	double duration_s, interval_s;
};

/* What run @r (after run_bw_prepare()) says of itself, for its report. */
void report_bw_info(struct bw_report_info *info, const struct run_bw *r);

/*
 * The bw document: {"command", "version", "config", "clock", "intervals":
 * [{start_s, end_s, sent, received}], "total": {elapsed_s, sent, received,
 * retransmissions}, "complete", "error"}; sent and received are {msgs,
 * bytes, gbps, mpps}, received null when the server could not be asked.
 */
json_t *report_bw_json(const struct bw_report_info *info, const struct flow_result *total,
		       const struct bw_interval *iv, size_t n_iv, const char *error);
/*
 * bw --json-stream, one event a line (schema/bw-event.schema.json):
 * "start" {command, version, config, clock}; "interval" {index,
 * interval} each as it ends; "end" {intervals, total (null: none),
 * criteria, complete, error}.
 */
json_t *report_bw_event_start(const struct bw_report_info *info);
json_t *report_bw_event_interval(size_t index, const struct bw_interval *iv);
json_t *report_bw_event_end(const struct bw_report_info *info, const struct flow_result *total,
			    size_t n_iv, const char *error);
/* Human output: a header, one line per interval, the totals. */
void report_bw_header(FILE *out, const struct bw_report_info *info);
void report_bw_interval(FILE *out, const struct bw_interval *iv);
void report_bw_total(FILE *out, const struct flow_result *total, const struct clock_cal *clk);
/* The keys of a rate's figures (bw.schema.json's rate), in order; NULL past the last. */
const char *report_bw_rate_key(size_t i);
/* CSV, one row per interval. */
void report_bw_csv_header(FILE *out);
void report_bw_csv_row(FILE *out, const struct bw_interval *iv);

/* ================================================================== */
/* analyze                                                             */
/* ================================================================== */

struct arb_config;
struct arb_params;
struct arb_result;

/* Where an analysis came from: the report's header and JSON "source". */
struct analyze_report_info {
	const char *format;		/* "opensm", "smpquery", ..., "mad" (live) */
	const char *node_type;		/* opensm key set, NULL otherwise */
	const char *const *sources;	/* input file names, or the live port */
	int n_sources;
	const char *port;		/* the live port an opensm.conf is read for */
	/* The warnings as stderr showed them: the footer's count. */
	int n_warnings;			/* shown at the default level */
	int n_notes;			/* routine notes shown (-v) */
	int n_hidden;			/* routine notes not shown (no -v) */
	bool quiet;			/* -q: none shown */
};

/*
 * analyze's diagnostics as stderr shows them (report_diag.c): messages
 * differing only in an SL grouped into one line (SL2-15), lines wrapped
 * to REPORT_DIAG_COLS with their prefix, each a warning or a note (-v).
 */
#define REPORT_DIAG_COLS	100
#define REPORT_DIAG_INDENT	4
#define REPORT_DIAG_WARN	"rperf: warning: "
#define REPORT_DIAG_NOTE	"rperf: note: "
struct report_diag {
	bool note;			/* modelling detail: shown with -v */
	char text[1024];		/* wrapped: "\n" and an indent between lines */
};
/* Fills @out (at most @max) from @res's warnings; returns how many. */
int report_analyze_diags(const struct arb_config *cfg,
			 const struct arb_result *res, struct report_diag *out, int max);

/* The rows of an analysis: per SL (or priority), per VL, per ETS band. */
enum report_analyze_list { RA_SLS, RA_VLS, RA_BANDS, RA_N_LISTS };
/* The arbitration a row is of: VLArb (ib-fluid, ib-packet), DTable, ETS. */
enum report_analyze_kind { RA_VLARB, RA_DTABLE, RA_ETS, RA_N_KINDS };
#define RA_ALL		((1u << RA_N_KINDS) - 1)

struct analyze_row;
struct report_value;

/*
 * List @l's fields, in order (@n of them): key (and CSV column):
 * schema/analyze.schema.json's $defs/{sl,vl,band} property; kinds: 1 <<
 * report_analyze_kind; head: the table's column per kind; wide: the
 * column's width when the shares are uncertain.
 */
const struct report_field *report_analyze_fields(enum report_analyze_list l, size_t *n);

/*
 * The analyze document: {"command", "version", "model", "runs", "limit",
 * "link_gbps", "format", "node_type", "source", "port", "sls", "vls", "bands"
 * (ETS only), "warnings"}; rperf-analyze(1) documents every field.
 */
json_t *report_analyze_json(const struct analyze_report_info *info,
			    const struct arb_config *cfg,
			    const struct arb_params *params,
			    const struct arb_result *res);
/*
 * analyze --csv: one row per SL (or priority), then per VL, then per ETS
 * band, each as its JSON object has it: "list" (sls, vls, bands), then
 * every key of report_analyze_fields() any kind carries (an empty cell
 * where the row has none; a list of members joined by spaces).
 */
void report_analyze_csv(FILE *out, const struct arb_config *cfg,
			const struct arb_params *params, const struct arb_result *res);
/* Per SL and per VL (or band) tables of shares, rates and distances. */
void report_analyze_table(FILE *out, const struct analyze_report_info *info,
			  const struct arb_config *cfg,
			  const struct arb_params *params,
			  const struct arb_result *res);

/* ================================================================== */
/* converge (its steps, classes and flows: coord/step.h)            */
/* ================================================================== */

/* Its run's setup, what its rows and the document share: converge_info.h;
 * the rows, each figure described once: report_converge_rows.h. */

/*
 * The converge document: {"command", "version", "config", "classify",
 * "steps": [{"active_bw", "window_s", "total_gbps", "compared",
 * "within", "cut_short", "setup_ms", "start", "classes": [...], "flows":
 * [...]}], "agents", "connect_ms", "authenticated", "within_tolerance", "complete",
 * "error"}; rperf-converge(1) documents every field.
 */
/*
 * --json-stream: one object per line. "start" is the document's head
 * (command, version, config, classify); "step" {index, step} each step
 * as the document has it, when it ends; "end" {steps, agents, connect_ms, authenticated,
 * within_tolerance, criteria_passed, complete, error}.
 */
json_t *report_converge_event_start(const struct converge_report_info *info);
json_t *report_converge_event_step(const struct converge_report_info *info,
				   const struct converge_step *st, size_t index);
json_t *report_converge_event_end(const struct converge_report_info *info,
				  const struct converge_step *steps, size_t n, const char *error);
json_t *report_converge_json(const struct converge_report_info *info,
			     const struct converge_step *steps, size_t n, const char *error);
/* Per step, one row per class: tail latency, bandwidth, measured and analyzed share. */
void report_converge_table(FILE *out, const struct converge_report_info *info,
			   const struct converge_step *steps, size_t n);
/* One CSV row per step and class. */
void report_converge_csv(FILE *out, const struct converge_report_info *info,
			 const struct converge_step *steps, size_t n);

/* ================================================================== */
/* mesh (its pairs and outliers: coord/mesh.h)                      */
/* ================================================================== */

/* What the mesh's reports say beyond its run. */
struct mesh_report_info {
	const char *source;		/* "--hosts" or the scenario's name */
	double interval_s;		/* 0: one pass */
	const char *reference;		/* --reference's file, or NULL */
};

struct mesh_row;

/* A pair's fields (key: schema/mesh.schema.json's $defs/pair property; arg:
 * the percentile a figure is of; label: of its OpenMetrics series), in the
 * CSV's order (@n of them). */
const struct report_field *report_mesh_fields(size_t *n);

/*
 * The mesh document (schema/mesh.schema.json): {"command", "schema_version",
 * "version", "config", "hosts", "pass", "rounds", "steps", "steps_done",
 * "duration_s", "connect_ms", "pairs": [{src, dst, sl, tclass, samples,
 * unresolved, p50, p99, p99_9, outlier, why, error}], "outliers": [{kind,
 * name, sl, why}], "hops": [{name, sl, est_ns, ci_low_ns, ci_high_ns,
 * identifiable, group, group_est_ns, ..., crossed, slow, why}] (every
 * class's), "locate": {sl, residual_rms_ns, used, unresolved, no_reference,
 * rank, ecmp, error} (the first class's), "locate_by_sl": [...] (each
 * class's), "complete", "error"}; hops and locate null without a topology.
 */
json_t *report_mesh_json(const struct mesh_report_info *info, const struct mesh_run *m);
/* --json-stream: {"event": "step", "command": "mesh", pass, round, half,
 * sl, tclass, index, steps, cut_short, pairs: [...]} as a step ends. */
json_t *report_mesh_event_step(const struct mesh_run *m, const struct mesh_step_info *s);
/* {"event": "end", "command": "mesh", pass, steps_done, complete, error, outliers}. */
json_t *report_mesh_event_end(const struct mesh_run *m);
/* Per class the p50, p99 and p99.9 matrices (row: source), then the outliers. */
void report_mesh_table(FILE *out, const struct mesh_report_info *info, const struct mesh_run *m);
/* One CSV row per ordered pair and class. */
void report_mesh_csv(FILE *out, const struct mesh_run *m);
/* The same written as a whole to @path ("-": stdout) by textfile_write():
 * 0, or -errno with the reason in @err. */
int report_mesh_csv_write(const char *path, const struct mesh_run *m, char *err, size_t errlen);
/* --replay: the hops located again (info->source: the saved mesh's path). */
void report_mesh_replay_table(FILE *out, const struct mesh_report_info *info,
			      const struct mesh_run *m);
/* --replay --json: the saved document @doc, its hops, locate and
 * locate_by_sl (and config.reference) those of @m. */
json_t *report_mesh_replay_json(const json_t *doc, const struct mesh_report_info *info,
				const struct mesh_run *m);
/*
 * OpenMetrics text for a textfile collector: a summary per pair and class
 * (rperf_mesh_rtt_seconds, labels src, dst, sl, tclass; a quantile that
 * is not resolved is left out), gauges of unresolved samples and of
 * outliers, then "# EOF". 0, or -1 when @out could not be written.
 */
int report_mesh_openmetrics(FILE *out, const struct mesh_run *m);
/* The same written as a whole to @path, as report_mesh_csv_write(). */
int report_mesh_openmetrics_write(const char *path, const struct mesh_run *m, char *err,
				  size_t errlen);
/*
 * Per class, a gnuplot heatmap of the p50s: PREFIX-slS[-tcT].dat (the
 * matrix, NaN where no figure) and PREFIX-slS[-tcT].gp (plots it into
 * PREFIX-slS[-tcT].png). 0 or -errno with the reason in @err.
 */
int report_mesh_plot(const char *prefix, const struct mesh_run *m, char *err, size_t errlen);

#endif
