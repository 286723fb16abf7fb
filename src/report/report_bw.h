/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * bw's report (report_bw.c, report_stream.c): its setup, document,
 * --json-stream events, table and CSV. Its setup holds lat's.
 */
#ifndef RPERF_REPORT_BW_H
#define RPERF_REPORT_BW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "report/report_lat.h"

struct bw_interval;
struct run_bw;

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

#endif
