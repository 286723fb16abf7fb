/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mesh_locate.c: a run's pairs handed to the hop localization
 * (fabric/locate.h), class by class.
 */
#ifndef RPERF_MESH_LOCATE_H
#define RPERF_MESH_LOCATE_H

#include "coord/mesh_run.h"

/*
 * mesh_locate.c: the slow hops of each class (after mesh_outliers(), which
 * reads the p50s): every pair whose p50 and its interval are resolved,
 * named by its host (an agent's HOST:PORT is its HOST), as its excess over
 * the reference's p50 of the same pair when o->refs is given, solved over
 * o->topo by locate_hops_opt() into m->loc. A class that cannot be solved
 * says why in its error. 0 or -ENOMEM.
 */
int mesh_locate(struct mesh_run *m);
/* The reference's figure of pair @p, or NULL. */
const struct mesh_ref *mesh_ref_of(const struct mesh_run *m, const struct mesh_pair *p);
/*
 * Each host's leaf into @leaf (o->n_hosts of them, numbered from 0 in
 * order of first use): the switch its endpoint, named as mesh_locate()
 * names it, links to in o->topo (a host of several links: its first to a
 * switch). 0, or -EINVAL (a host not in the topology or on no switch)
 * or -ENOMEM, with the reason in @err.
 */
int mesh_leaves(const struct mesh_opts *o, size_t *leaf, char *err, size_t errlen);

#endif
