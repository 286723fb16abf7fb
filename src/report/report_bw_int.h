/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The parts of the bw document (report_bw.c) that its --json-stream
 * events (report_stream.c) carry too. Nothing outside report/ includes it.
 */
#ifndef RPERF_REPORT_BW_INT_H
#define RPERF_REPORT_BW_INT_H

#include <jansson.h>

#include "report/field.h"
#include "report/report_bw.h"

/* bw's lists of figures: what its config adds to the flow's (read from a
 * bw_report_info), and the run's total (from a flow_result and its clock). */
enum report_bw_list { RB_CONFIG, RB_TOTAL };
/* List @l's fields (key: the schema's property), in the JSON's order
 * (@n of them). */
const struct report_field *report_bw_fields(enum report_bw_list l, size_t *n);

/* The document's "config". */
json_t *report_bw_config_json(const struct bw_report_info *in);
/* One of bw's "intervals", and its "total". */
json_t *report_bw_interval_json(const struct bw_interval *iv);
json_t *report_bw_total_json(const struct flow_result *r, const struct clock_cal *clk);

#endif
