/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The mesh's located hops (report_mesh_locate.c) for its document and
 * table (report_mesh.c). Nothing outside report/ includes it.
 */
#ifndef RPERF_REPORT_MESH_INT_H
#define RPERF_REPORT_MESH_INT_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

struct mesh_run;

/* "hops", "locate" and "locate_by_sl" into @o: null without a topology. */
void report_mesh_locate_json(json_t *o, const struct mesh_run *m);
/* Class @k's located hops, its fit and its findings, as the table's lines. */
void report_mesh_hops_table(FILE *out, const struct mesh_run *m, size_t k);

#endif
