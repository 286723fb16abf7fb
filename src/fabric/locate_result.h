/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the hop localization (locate.h) takes and gives: the pairs'
 * figures, its options, every link's result and the findings. Apart from
 * locate.h so that the naming (locate_name.h) reads a result without
 * depending on the solver that fills it.
 */
#ifndef RPERF_FABRIC_LOCATE_RESULT_H
#define RPERF_FABRIC_LOCATE_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "fabric/topo.h"

/* One ordered pair's figure (the mesh passes p50, or p50 minus the
 * reference run's p50); unresolved ones are left out and counted. */
struct locate_obs {
	const char *src, *dst;
	int sl;
	double rtt_ns, ci_low_ns, ci_high_ns;
	bool resolved;
};

/*
 * One link's result (link: index into topo.links). group: links crossed
 * by the same pairs share a group number (every link has one; a link
 * alone in its group has its own); group_est_ns and its interval are
 * the group's sum (equal to the link's own figures when it is alone;
 * NAN when the group itself is not identifiable). why says what the
 * figure holds, why it cannot be resolved, or why the hop is slow.
 */
struct locate_hop {
	int link;
	double est_ns, ci_low_ns, ci_high_ns;
	bool identifiable;
	int group;
	double group_est_ns, group_ci_low_ns, group_ci_high_ns;
	bool crossed;	/* some used pair crosses it */
	bool slow;
	char why[200];
};

/* What an operator acts on: a slow switch, a slow group of hops, a slow
 * hop, or the verdict that the routes do not fit (then nothing else). */
enum locate_kind { LOCATE_SWITCH, LOCATE_GROUP, LOCATE_HOP, LOCATE_MISFIT };

struct locate_finding {
	enum locate_kind kind;
	char name[TOPO_LINK_NAME_MAX];	/* the switch, the hop, a group's first hop */
	double est_ns, ci_low_ns, ci_high_ns;	/* the hop's, the group's sum, a switch's median */
	char why[400];			/* with a group's members, a switch's links */
};

struct locate_result {
	struct locate_hop *hops;	/* one per link of the topology, in its order */
	size_t n_hops;
	double residual_rms_ns;		/* sqrt(RSS / used pairs) */
	size_t n_used, n_unresolved;
	size_t rank;			/* of the used pairs' design */
	size_t n_blocks;		/* connected components solved apart */
	bool ecmp;			/* some used pair has several shortest paths */
	size_t n_ecmp;			/* used pairs whose path was not known */
	size_t n_ecmp_undecided;	/* of them, left the mean of their candidates */
	double interval_sd_ns;		/* the observations' own sd, from their intervals */
	bool misfit;			/* the routes do not fit the measurements */
	struct locate_finding *findings;
	size_t n_findings;
};

struct topo_paths;

struct locate_opts {
	double k_mad;		/* robust deviations above the median (default 3) */
	bool excess;		/* the figures are the signed change since a reference */
	double min_excess_ns;	/* with excess: the floor the interval must lie above */
	const struct topo_paths *paths;	/* the real paths; NULL: shortest paths */
	bool one_block;		/* solve all links as one block, not each connected
				 * component of the pairs' crossings apart (the same
				 * results, slower: for comparison) */
};

#endif
