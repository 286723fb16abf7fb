/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * lat's report (report_lat.c, report_stream.c): its setup, its document,
 * table, CSV, --json-stream events and progress line.
 */
#ifndef RPERF_REPORT_LAT_H
#define RPERF_REPORT_LAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "engine/flow_opts.h"
#include "engine/result.h"
#include "rdma/verbs.h"
#include "report/report.h"

struct probe_sample;
struct ref_doc;
struct run_env;
struct run_lat;

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
	bool authenticated;		/* the server proved the token, and we did (--token-file) */
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

#endif
