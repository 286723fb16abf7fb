/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf converge's report (report_converge.c): its document,
 * --json-stream events, table and CSV; its steps, classes and flows are
 * coord/step.h's.
 */
#ifndef RPERF_REPORT_CONVERGE_H
#define RPERF_REPORT_CONVERGE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "report/converge_info.h"
#include "report/report.h"

struct converge_step;

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

#endif
