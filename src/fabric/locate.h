/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Which hop is slow: per-link latencies solved from per-pair round trips
 * over the pairs' routes, by non-negative least squares (Lawson-Hanson).
 *
 * The model. A round trip from src to dst crosses each link of the route
 * src->dst once and each link of the route dst->src once (the SEND one
 * way, the ACK back), so pair i's figure is y_i = sum_l c_il * u_l where
 * c_il counts the crossings (2 for a link both ways) and u_l >= 0 is
 * link l's mean one-way crossing time. A link's estimate est_ns is its
 * round-trip share 2 * u_l: a one-way delay D on a link shows as D.
 * A host and its own link are always crossed together: that link's
 * estimate holds the host's share too.
 *
 * Identifiability. Links crossed by exactly the same pairs (identical
 * columns) are one group: only their sum is known. Beyond that, a link
 * is identifiable only when no combination of the others reproduces its
 * column over the used pairs (found by Gauss-Jordan elimination with
 * pivoting on the normal matrix, no QR or SVD). A link that is not
 * identifiable gets no estimate (est_ns NAN) and the range it can be in
 * (ci_low_ns 0, ci_high_ns the most the pairs that cross it allow).
 *
 * Uncertainty. Each observation's standard deviation is taken from its
 * confidence interval, (ci_high_ns - ci_low_ns) / (2 * 1.96), plus the
 * share of the fit's residual the intervals do not explain,
 * max(0, RSS / (m - rank) - mean observation variance). These propagate
 * through the least-squares estimator over the independent columns
 * (sandwich covariance) to each identifiable link: est_ns +- 1.96 sigma,
 * the low end held at 0. It is the linear estimator's interval, centred
 * on the non-negative solution.
 *
 * Routes. A pair's path each way is the one @paths gives (a routes file
 * or InfiniBand forwarding tables: fabric/topo_paths.h); else its
 * shortest path when there is one; else (equal-cost multipath) it is
 * not known: the pair's delay is that of one of its equal-cost paths.
 * Such a pair is fitted first as the mean of its candidates, then each
 * takes the candidate whose predicted figure is nearest its own, and
 * the fit is made again, until no choice changes; a pair whose nearest
 * two candidates are closer than its own standard deviation stays the
 * mean (undecided). The result counts both.
 *
 * Misfit. When the residual's standard deviation, sqrt(RSS / (m -
 * rank)), is more than 5 times the intervals' (the mean observation
 * variance's root), the routes do not fit the measurements: no hop is
 * named, and the verdict says so (a wrong path puts a slow link's delay
 * on healthy links). Judged over the m pairs whose path is known or
 * chosen: an undecided pair's mean is no path it took.
 *
 * What is named (locate_name.c). Host links (a host at one end) and
 * fabric links (switches at both ends) are judged each against their
 * own kind: without a reference (absolute figures), an identifiable hop
 * is slow when its estimate exceeds the median of the identifiable hops
 * of its kind by more than k robust deviations (1.4826 * MAD) and 5 % of
 * the median, and its interval lies above that median (a kind of fewer than 3 identifiable
 * hops is judged against all of them; fewer than 3 in all names none).
 * With a reference (figures are the signed change since an earlier run,
 * fitted by least squares of either sign), a hop is slow when its
 * interval lies above min_excess_ns (the floor) and its change is above
 * the median + k MAD of its kind's changes. A group of hops crossed by
 * the same pairs whose sum is known is slow by the same rules: its sum
 * against the median and MAD of the sums of the groups of its kind and
 * size when there are 3 or more (the uplinks of each leaf, when the
 * pairs' paths among them are not known), else against as many times
 * the hops' median, the spread times the root of its size. A switch two
 * or more of whose links are identifiable, all of them slow, is named
 * instead of its links.
 */
#ifndef RPERF_FABRIC_LOCATE_H
#define RPERF_FABRIC_LOCATE_H

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

/*
 * Solve for every link of @t from the @n observations (pairs named by
 * topo_host()). Returns 0, or -errno with @err set: an unknown host, no
 * route, no resolved observation, out of memory. @out is freed with
 * locate_free() after a success.
 */
int locate_hops(const struct topo *t, const struct locate_obs *obs, size_t n,
		struct locate_result *out, char *err, size_t errlen);
/* locate_hops() with options (@opt NULL: the defaults above). */
int locate_hops_opt(const struct topo *t, const struct locate_obs *obs, size_t n,
		    const struct locate_opts *opt, struct locate_result *out,
		    char *err, size_t errlen);
void locate_free(struct locate_result *r);

/* locate_name.c: name the slow switches, groups and hops of @r (filled
 * but for its slow flags and findings) by the rules above. 0 or -ENOMEM. */
int locate_name(const struct topo *t, struct locate_result *r, const struct locate_opts *o);

#endif
