/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh's report (report_mesh.c, report_mesh_locate.c): its
 * document, stream, table, CSV, OpenMetrics text, heatmaps and --replay;
 * its pairs and outliers are coord/mesh.h's.
 */
#ifndef RPERF_REPORT_MESH_H
#define RPERF_REPORT_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "report/report.h"
#include "report/report_mesh_locate.h"

struct mesh_run;
struct mesh_step_info;

/* A pair's fields (key: schema/mesh.schema.json's $defs/pair property; arg:
 * the percentile a figure is of; label: of its OpenMetrics series), in the
 * CSV's order (@n of them). */
const struct report_field *report_mesh_fields(size_t *n);

/*
 * The mesh document (schema/mesh.schema.json): {"command", "schema_version",
 * "version", "config", "hosts", "pass", "rounds", "steps", "steps_done",
 * "duration_s", "connect_ms", "pairs": [{src, dst, sl, tclass, samples,
 * unresolved, p50, p99, p99_9, outlier, why, error}], "outliers": [{kind,
 * name, sl, why}], "hops": [{name, sl, est_ns, ci_low_ns, ci_high_ns,
 * identifiable, group, group_est_ns, ..., crossed, slow, why}] (every
 * class's), "locate": {sl, residual_rms_ns, used, unresolved, no_reference,
 * rank, ecmp, error} (the first class's), "locate_by_sl": [...] (each
 * class's), "complete", "error"}; hops and locate null without a topology.
 */
json_t *report_mesh_json(const struct mesh_report_info *info, const struct mesh_run *m);
/* --json-stream: {"event": "step", "command": "mesh", pass, round, half,
 * sl, tclass, index, steps, cut_short, pairs: [...]} as a step ends. */
json_t *report_mesh_event_step(const struct mesh_run *m, const struct mesh_step_info *s);
/* {"event": "end", "command": "mesh", pass, steps_done, complete, error, outliers}. */
json_t *report_mesh_event_end(const struct mesh_run *m);
/* Per class the p50, p99 and p99.9 matrices (row: source), then the outliers. */
void report_mesh_table(FILE *out, const struct mesh_report_info *info, const struct mesh_run *m);
/* One CSV row per ordered pair and class. */
void report_mesh_csv(FILE *out, const struct mesh_run *m);
/* The same written as a whole to @path ("-": stdout) by textfile_write():
 * 0, or -errno with the reason in @err. */
int report_mesh_csv_write(const char *path, const struct mesh_run *m, char *err, size_t errlen);
/*
 * OpenMetrics text for a textfile collector: a summary per pair and class
 * (rperf_mesh_rtt_seconds, labels src, dst, sl, tclass; a quantile that
 * is not resolved is left out), gauges of unresolved samples and of
 * outliers, then "# EOF". 0, or -1 when @out could not be written.
 */
int report_mesh_openmetrics(FILE *out, const struct mesh_run *m);
/* The same written as a whole to @path, as report_mesh_csv_write(). */
int report_mesh_openmetrics_write(const char *path, const struct mesh_run *m, char *err,
				  size_t errlen);
/*
 * Per class, a gnuplot heatmap of the p50s: PREFIX-slS[-tcT].dat (the
 * matrix, NaN where no figure) and PREFIX-slS[-tcT].gp (plots it into
 * PREFIX-slS[-tcT].png). 0 or -errno with the reason in @err.
 */
int report_mesh_plot(const char *prefix, const struct mesh_run *m, char *err, size_t errlen);

#endif
