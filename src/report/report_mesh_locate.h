/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh --replay's outputs (report_mesh_locate.c): the hops of a
 * saved mesh located again, as a table and as the saved document with its
 * hops replaced; and what every mesh report says beyond its run.
 * report_mesh.h includes it.
 */
#ifndef RPERF_REPORT_MESH_LOCATE_H
#define RPERF_REPORT_MESH_LOCATE_H

#include <stdio.h>
#include <jansson.h>

struct mesh_run;

/* What the mesh's reports say beyond its run. */
struct mesh_report_info {
	const char *source;		/* "--hosts" or the scenario's name */
	double interval_s;		/* 0: one pass */
	const char *reference;		/* --reference's file, or NULL */
};

/* --replay: the hops located again (info->source: the saved mesh's path). */
void report_mesh_replay_table(FILE *out, const struct mesh_report_info *info,
			      const struct mesh_run *m);
/* --replay --json: the saved document @doc, its hops, locate and
 * locate_by_sl (and config.reference) those of @m. */
json_t *report_mesh_replay_json(const json_t *doc, const struct mesh_report_info *info,
				const struct mesh_run *m);

#endif
