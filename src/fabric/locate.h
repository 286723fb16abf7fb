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

#include "fabric/locate_result.h"
#include "fabric/topo.h"

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

#endif
