/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mesh_outlier.c: the outlier rule over a run's pairs, by the rule mesh.h
 * states.
 */
#ifndef RPERF_MESH_OUTLIER_H
#define RPERF_MESH_OUTLIER_H

#include "coord/mesh_run.h"

/*
 * The outlier rule over @m's pairs (pure): sets each pair's p50, outlier
 * and why, and m->outliers. 0 or -ENOMEM.
 */
int mesh_outliers(struct mesh_run *m);

#endif
