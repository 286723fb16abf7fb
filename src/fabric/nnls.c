/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Non-negative least squares (Lawson-Hanson) and the rank structure of
 * the normal matrix (pivoted Cholesky): see nnls.h. Dense, O(n^3): the
 * unknowns are a fabric's links, a few thousand at most.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/nnls.h"

#define NNLS_RANK_TOL 1e-9

/* Cholesky of the k x k matrix S (row-major) in place into its lower
 * triangle L (S = L L^T). 0, or -EDOM when a pivot is not positive. */
static int chol(double *S, size_t k)
{
	size_t i, j, p;

	for (j = 0; j < k; j++) {
		double d = S[j * k + j];

		for (p = 0; p < j; p++)
			d -= S[j * k + p] * S[j * k + p];
		if (!(d > 0))
			return -EDOM;
		d = sqrt(d);
		S[j * k + j] = d;
		for (i = j + 1; i < k; i++) {
			double s = S[i * k + j];

			for (p = 0; p < j; p++)
				s -= S[i * k + p] * S[j * k + p];
			S[i * k + j] = s / d;
		}
	}
	return 0;
}

/* Solve L L^T z = r with the factor from chol(), in place in r. */
static void chol_solve(const double *L, size_t k, double *r)
{
	size_t i, p;

	for (i = 0; i < k; i++) {
		for (p = 0; p < i; p++)
			r[i] -= L[i * k + p] * r[p];
		r[i] /= L[i * k + i];
	}
	for (i = k; i-- > 0;) {
		for (p = i + 1; p < k; p++)
			r[i] -= L[p * k + i] * r[p];
		r[i] /= L[i * k + i];
	}
}

/*
 * The unconstrained least-squares solution on the passive set @set (k
 * unknowns): z[set[i]] from G_PP z = h_P, other z zero. 0, -EDOM
 * (dependent columns) or -ENOMEM.
 */
static int passive_solve(const double *G, const double *h, size_t n, const size_t *set,
			 size_t k, double *z)
{
	double *S = malloc((k * k + k + 1) * sizeof(*S)), *r;
	size_t i, j;
	int rc;

	if (!S)
		return -ENOMEM;
	r = S + k * k;
	for (i = 0; i < k; i++) {
		for (j = 0; j < k; j++)
			S[i * k + j] = G[set[i] * n + set[j]];
		r[i] = h[set[i]];
	}
	rc = chol(S, k);
	if (!rc) {
		chol_solve(S, k, r);
		memset(z, 0, n * sizeof(*z));
		for (i = 0; i < k; i++)
			z[set[i]] = r[i];
	}
	free(S);
	return rc;
}

/* The gradient w = h - G x; the index of the largest w_j over unknowns
 * outside the passive set and not barred, or -1 when none is above @tol. */
static long best_gradient(const double *G, const double *h, size_t n, const double *x,
			  const bool *in, const bool *barred, double tol)
{
	double best = tol;
	long arg = -1;
	size_t i, j;

	for (j = 0; j < n; j++) {
		double w = h[j];

		if (in[j] || barred[j])
			continue;
		for (i = 0; i < n; i++)
			w -= G[j * n + i] * x[i];
		if (w > best) {
			best = w;
			arg = (long)j;
		}
	}
	return arg;
}

/* Rebuild the passive set's index list from @in; its size. */
static size_t passive_list(const bool *in, size_t n, size_t *set)
{
	size_t j, k = 0;

	for (j = 0; j < n; j++)
		if (in[j])
			set[k++] = j;
	return k;
}

/*
 * The inner loop: from feasible x with passive set @in, move towards the
 * passive solution, dropping the unknowns that would go negative, until
 * the passive solution is feasible; x gets it. 0, -EDOM or -ENOMEM.
 */
static int inner_loop(const double *G, const double *h, size_t n, double *x, bool *in,
		      size_t *set, double *z)
{
	size_t j, k;
	int rc;

	for (;;) {
		double alpha = 2;

		k = passive_list(in, n, set);
		rc = passive_solve(G, h, n, set, k, z);
		if (rc)
			return rc;
		for (j = 0; j < n; j++)
			if (in[j] && z[j] <= 0 && x[j] - z[j] > 0 && x[j] / (x[j] - z[j]) < alpha)
				alpha = x[j] / (x[j] - z[j]);
		if (alpha > 1) {
			memcpy(x, z, n * sizeof(*x));
			return 0;
		}
		for (j = 0; j < n; j++) {
			double before = x[j];

			x[j] += alpha * (z[j] - x[j]);
			if (in[j] && x[j] <= 1e-12 * (1 + fabs(before) + fabs(z[j]))) {
				in[j] = false;
				x[j] = 0;
			}
		}
	}
}

int nnls_normal(const double *G, const double *h, size_t n, double *x)
{
	bool *in = calloc(2 * n + 1, sizeof(*in)), *barred = in + n;
	size_t *set = malloc((n + 1) * sizeof(*set)), it, j;
	double *z = malloc((n + 1) * sizeof(*z)), scale = 0, tol;
	int rc = 0;

	if (!in || !set || !z) {
		rc = -ENOMEM;
		goto out;
	}
	memset(x, 0, n * sizeof(*x));
	for (j = 0; j < n; j++)
		scale = fmax(scale, fabs(h[j]));
	tol = 1e-12 * (1 + scale);
	for (it = 0; it < 30 * n + 30; it++) {
		long t = best_gradient(G, h, n, x, in, barred, tol);

		if (t < 0)
			goto out;
		in[t] = true;
		rc = inner_loop(G, h, n, x, in, set, z);
		if (rc == -EDOM) {	/* a column dependent in rounding only */
			in[t] = false;
			barred[t] = true;
			rc = 0;
		} else if (rc) {
			goto out;
		}
	}
	rc = -ERANGE;
out:
	free(in);
	free(set);
	free(z);
	return rc;
}

/*
 * The columns Cholesky with diagonal pivoting picks from G, in order,
 * into @basis (marked in @picked): at each step the column with the
 * largest remaining diagonal (the squared distance of its column of A
 * from the span of those picked), until that is below the tolerance.
 * Their number, or -1 when out of memory.
 */
static long pivoted_chol(const double *G, size_t n, size_t *basis, bool *picked)
{
	double top = 0, *d = malloc((n + 1) * sizeof(*d));
	double *L = malloc((n * n + 1) * sizeof(*L));	/* row k: the k-th factor row */
	size_t r = 0, i, j;

	if (!d || !L) {
		free(d);
		free(L);
		return -1;
	}
	for (j = 0; j < n; j++)
		top = fmax(top, d[j] = G[j * n + j]);
	while (r < n) {
		size_t p = n;

		for (j = 0; j < n; j++)
			if (!picked[j] && (p == n || d[j] > d[p]))
				p = j;
		if (p == n || !(d[p] > NNLS_RANK_TOL * top))
			break;
		picked[p] = true;
		basis[r] = p;
		for (j = 0; j < n; j++) {
			double s = G[p * n + j];

			for (i = 0; i < r; i++)
				s -= L[i * n + p] * L[i * n + j];
			L[r * n + j] = s / sqrt(d[p]);
		}
		for (j = 0; j < n; j++)
			if (!picked[j])
				d[j] -= L[r * n + j] * L[r * n + j];
		r++;
	}
	free(d);
	free(L);
	return (long)r;
}

/*
 * Mark not identifiable every basis column that takes part in
 * reproducing a free column f (G_BB c = G_Bf, c_j != 0), and f itself.
 * S is G_BB's Cholesky factor.
 */
static int null_vectors(const double *G, size_t n, const size_t *basis, size_t r,
			const double *S, const bool *picked, bool *ident)
{
	double *c = malloc((r + 1) * sizeof(*c));
	size_t f, i;

	if (!c)
		return -ENOMEM;
	for (f = 0; f < n; f++) {
		if (picked[f])
			continue;
		ident[f] = false;
		for (i = 0; i < r; i++)
			c[i] = G[basis[i] * n + f];
		chol_solve(S, r, c);
		for (i = 0; i < r; i++)
			if (fabs(c[i]) > 1e-7)
				ident[basis[i]] = false;
	}
	free(c);
	return 0;
}

int nnls_structure(const double *G, size_t n, size_t *rank, size_t *basis, bool *ident)
{
	bool *picked = calloc(n + 1, sizeof(*picked));
	double *S = NULL;
	size_t i, j;
	long r;
	int rc = -ENOMEM;

	if (!picked)
		return -ENOMEM;
	r = pivoted_chol(G, n, basis, picked);
	if (r < 0)
		goto out;
	*rank = (size_t)r;
	for (j = 0; j < n; j++)
		ident[j] = picked[j];
	S = malloc(((size_t)r * (size_t)r + 1) * sizeof(*S));
	if (!S)
		goto out;
	for (i = 0; i < (size_t)r; i++)
		for (j = 0; j < (size_t)r; j++)
			S[i * (size_t)r + j] = G[basis[i] * n + basis[j]];
	rc = chol(S, (size_t)r);
	if (!rc)
		rc = null_vectors(G, n, basis, (size_t)r, S, picked, ident);
out:
	free(picked);
	free(S);
	return rc;
}

int nnls_spd_inverse(const double *S, size_t r, double *Sinv)
{
	double *L = malloc((r * r + 1) * sizeof(*L)), *col;
	size_t i, j;
	int rc;

	if (!L)
		return -ENOMEM;
	memcpy(L, S, r * r * sizeof(*L));
	rc = chol(L, r);
	col = rc ? NULL : malloc((r + 1) * sizeof(*col));
	if (!rc && !col)
		rc = -ENOMEM;
	for (j = 0; !rc && j < r; j++) {
		for (i = 0; i < r; i++)
			col[i] = i == j;
		chol_solve(L, r, col);
		for (i = 0; i < r; i++)
			Sinv[i * r + j] = col[i];
	}
	free(col);
	free(L);
	return rc;
}
