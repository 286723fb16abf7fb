/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The naming of the localization's slow switches, groups and hops
 * (locate_name.c), by the rules locate.h states.
 */
#ifndef RPERF_FABRIC_LOCATE_NAME_H
#define RPERF_FABRIC_LOCATE_NAME_H

#include "fabric/locate_result.h"

/* Name the slow switches, groups and hops of @r (filled but for its slow
 * flags and findings) by locate.h's rules. 0 or -ENOMEM. */
int locate_name(const struct topo *t, struct locate_result *r, const struct locate_opts *o);

#endif
