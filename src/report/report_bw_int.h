/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The parts of the bw document (report_bw.c) that its --json-stream
 * events (report_stream.c) carry too. Nothing outside report/ includes it.
 */
#ifndef RPERF_REPORT_BW_INT_H
#define RPERF_REPORT_BW_INT_H

#include <jansson.h>

#include "report/report_bw.h"

/* The document's "config". */
json_t *report_bw_config_json(const struct bw_report_info *in);
/* One of bw's "intervals", and its "total". */
json_t *report_bw_interval_json(const struct bw_interval *iv);
json_t *report_bw_total_json(const struct flow_result *r, const struct clock_cal *clk);

#endif
