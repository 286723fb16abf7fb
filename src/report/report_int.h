/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The pieces of report.c the lat, bw and mesh reports share, so that their
 * documents and --json-stream events say a thing in the same words.
 * Nothing outside report/ includes it.
 */
#ifndef RPERF_REPORT_INT_H
#define RPERF_REPORT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "base/clock.h"
#include "report/reference.h"
#include "report/report.h"

/* How many entries array @a has (a field list, a table). */
#define N_OF(a)		(sizeof(a) / sizeof((a)[0]))

struct flow_result;

/* The documents' "clock". */
json_t *report_clock_json(const struct clock_cal *clk);
/* A time in ns as the JSON gives it: rounded to 0.1 ns. */
json_t *report_json_ns(double v);
/* What the receiver's port counted against the flows: {rnr_naks_sent, out_of_buffer, fell_behind}. */
json_t *report_receiver_json(const struct flow_result *r);
/* A percentile figure as the JSON gives it: state, value, the interval's
 * known sides (doc_keys.h: what the references read back). */
void report_figure_pct(const struct report_figure *fig, uint64_t unresolved, uint64_t n,
		       struct ref_pct *p);

#endif
