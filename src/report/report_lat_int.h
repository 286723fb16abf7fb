/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The parts of the lat document (report_lat.c) that its --json-stream
 * events (report_stream.c) and bw's document carry too, so that a stream's
 * line and the document say a thing in the same words. Nothing outside
 * report/ includes it.
 */
#ifndef RPERF_REPORT_LAT_INT_H
#define RPERF_REPORT_LAT_INT_H

#include <jansson.h>

#include "report/field.h"
#include "report/report_lat.h"

/* lat's lists of figures: the config every client command reports (read
 * from a lat_report_info), what lat's config adds (the same), a size's
 * result (from a flow_result and its clock). */
enum report_lat_list { RL_FLOW_CONFIG, RL_LAT_CONFIG, RL_RESULT };
/* List @l's fields (key: the schema's property), in the JSON's order
 * (@n of them). */
const struct report_field *report_lat_fields(enum report_lat_list l, size_t *n);

/* The document's "config". */
json_t *report_lat_config_json(const struct lat_report_info *in);
/* The config keys every client command reports (lat's and bw's "config"). */
json_t *report_flow_config_json(const struct lat_report_info *in);
/* One size of lat's "results". */
json_t *report_lat_result_json(const struct flow_result *r, const struct clock_cal *clk);
/* The same with what it adds to the reference (info->ref: lat --reference). */
json_t *report_lat_size_json(const struct lat_report_info *info, const struct flow_result *r);

#endif
