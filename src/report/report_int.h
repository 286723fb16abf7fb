/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The parts of the lat and bw documents (report.c) that their
 * --json-stream events (report_stream.c) carry too, so that a stream's
 * line and the document say a thing in the same words. Nothing outside
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

#endif
