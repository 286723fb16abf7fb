/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The mesh's located hops (report_mesh_locate.c) for its document and
 * table (report_mesh.c). Nothing outside report/ includes it.
 */
#ifndef RPERF_REPORT_MESH_INT_H
#define RPERF_REPORT_MESH_INT_H

#include <stdio.h>

#include "report/report.h"

/*
 * A pair's keys in the mesh document, as pair_fields (report_mesh.c)
 * writes them and --reference reads them back (reference.c).
 */
#define MESH_COMMAND		"mesh"
#define MESH_KEY_PAIRS		"pairs"
#define MESH_KEY_SRC		"src"
#define MESH_KEY_DST		"dst"
#define MESH_KEY_SL		"sl"
#define MESH_KEY_TCLASS		"tclass"
#define MESH_KEY_P50		"p50"

/* "hops", "locate" and "locate_by_sl" into @o: null without a topology. */
void report_mesh_locate_json(json_t *o, const struct mesh_run *m);
/* Class @k's located hops, its fit and its findings, as the table's lines. */
void report_mesh_hops_table(FILE *out, const struct mesh_run *m, size_t k);

#endif
