/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The parts of the lat and bw documents (report_lat.c, report_bw.c)
 * that their --json-stream events (report_stream.c) carry too, so that a
 * stream's line and the document say a thing in the same words, and the
 * pieces of report.c the lat and bw reports share. Nothing outside
 * report/ includes it.
 */
#ifndef RPERF_REPORT_INT_H
#define RPERF_REPORT_INT_H

#include "report/report.h"

/* The documents' "config" and "clock". */
json_t *report_lat_config_json(const struct lat_report_info *in);
json_t *report_bw_config_json(const struct bw_report_info *in);
json_t *report_clock_json(const struct clock_cal *clk);
/* One size of lat's "results". */
json_t *report_lat_result_json(const struct flow_result *r, const struct clock_cal *clk);
/* The same with what it adds to the reference (info->ref: lat --reference). */
json_t *report_lat_size_json(const struct lat_report_info *info, const struct flow_result *r);
/* One of bw's "intervals", and its "total". */
json_t *report_bw_interval_json(const struct bw_interval *iv);
json_t *report_bw_total_json(const struct flow_result *r, const struct clock_cal *clk);

/* A time in ns as the JSON gives it: rounded to 0.1 ns. */
json_t *report_json_ns(double v);
/* The config keys every client command reports (lat's and bw's "config"). */
json_t *report_flow_config_json(const struct lat_report_info *in);
/* What the receiver's port counted against the flows: {rnr_naks_sent, out_of_buffer, fell_behind}. */
json_t *report_receiver_json(const struct flow_result *r);
/* A percentile figure as the JSON gives it: state, value, the interval's
 * known sides (doc_keys.h: what the references read back). */
void report_figure_pct(const struct report_figure *fig, uint64_t unresolved, uint64_t n,
		       struct ref_pct *p);

#endif
