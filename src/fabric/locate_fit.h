/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Inside the hop localization: the design the pairs make (locate.c) and
 * the fit over it (locate_fit.c, whose interface this is). Nothing
 * outside fabric/locate*.c includes it.
 */
#ifndef RPERF_FABRIC_LOCATE_FIT_H
#define RPERF_FABRIC_LOCATE_FIT_H

#include <stdbool.h>
#include <stddef.h>

/* A used pair's candidate paths: nf forward paths of lf links each in
 * fwd, nb back paths of lb links in back (one each when its path is
 * known), and the one of each the fit chose (-1: undecided, averaged). */
struct pair_paths {
	size_t nf, nb, lf, lb;
	int *fwd, *back;
	int cf, cb;
};

/* The used pairs' crossings: row i has entries [start[i], start[i + 1])
 * of (col, coef), made from pp[i]; y its figure, var its variance from
 * its interval. n columns, one per link. */
struct design {
	size_t m, n, cap, *start;
	int *col;
	double *coef, *y, *var;
	struct pair_paths *pp;
	size_t n_ecmp;		/* pairs of several candidate paths */
};

/* Groups of links whose columns are identical (crossed the same number
 * of times by the same pairs). Crossed groups are numbered
 * 0..n_crossed-1 by their first link; each link no pair crosses is a
 * group of its own after them. rep[g] is a group's first link. */
struct groups {
	size_t n_crossed, n_groups;
	int *of, *rep, *size;
};

/* The fit over the crossed groups: per-crossing times x, which are
 * identifiable, the rank of the design, the sd of each basis group's
 * estimate (NAN outside the basis), the residual, and the share of it
 * the intervals do not explain (see locate.h). */
struct fit {
	size_t k, rank;
	double *x, *sd, rss, s_excess2;
	bool *ident;
	size_t n_blocks;	/* connected components solved apart */
};

/*
 * locate_fit.c: the groups of @d's columns and the fit over them: NNLS
 * (least squares of either sign when @signed_fit), the structure, the
 * residual and the covariance, each connected component of the pairs'
 * crossings solved on its own (all of them as one with @one_block: the
 * dense path, for comparison). @g and @f are freed and made again. 0,
 * -ENOMEM or -ERANGE.
 */
int locate_fit(const struct design *d, bool signed_fit, bool one_block, struct groups *g,
	       struct fit *f);
void groups_free(struct groups *g);
void fit_free(struct fit *f);
/* The figure the fit predicts for row @i. */
double row_pred(const struct design *d, const struct groups *g, const double *x, size_t i);

#endif
