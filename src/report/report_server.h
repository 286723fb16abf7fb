/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server's report (report_server.c): its flows and per-SL totals,
 * as JSON and as a table, from one field list per row.
 */
#ifndef RPERF_REPORT_SERVER_H
#define RPERF_REPORT_SERVER_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "report/report.h"

struct sink;

/* The rows of a server's report: per flow ("flows"), per SL ("sls"). */
enum report_server_list { RS_FLOWS, RS_SLS };

/* List @l's fields (key: schema/server.schema.json's flows or sls item
 * property), in the JSON's and the table's order (@n of them). */
const struct report_field *report_server_fields(enum report_server_list l, size_t *n);

/* Flows and per-SL totals of a server: every field of both lists in both. */
json_t *report_server_json(const struct sink *s, double elapsed_s);
void report_server_table(FILE *out, const struct sink *s, double elapsed_s);

#endif
