/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The numerics of the hop localization, on the normal equations of a
 * least-squares problem min |A x - b|^2: G = A^T A (n x n, symmetric,
 * row-major) and h = A^T b. Written here, with no QR or SVD: Cholesky
 * with diagonal pivoting tells the rank and which unknowns the data
 * determine, and Lawson and Hanson's active-set method (Solving Least
 * Squares Problems, 1974, ch. 23) keeps every unknown non-negative.
 */
#ifndef RPERF_FABRIC_NNLS_H
#define RPERF_FABRIC_NNLS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * x >= 0 minimising |A x - b|^2, from G and h (n unknowns). An unknown
 * whose column is a combination of those already in the passive set is
 * never taken in (its gradient is zero), so each inner solve is on
 * independent columns. Returns 0, -ENOMEM, or -ERANGE when it did not
 * settle within 30 n + 30 iterations (x then holds the last iterate).
 */
int nnls_normal(const double *G, const double *h, size_t n, double *x);

/*
 * The structure of G: Cholesky with diagonal pivoting, stopping when the
 * largest remaining pivot is below 1e-9 of the largest diagonal. *rank
 * gets the rank; basis[0..rank) the independent columns it chose, in
 * order; ident[j] whether unknown j is identifiable: its column is not
 * a combination of the others (every null vector of A is 0 at j). 0 or
 * -ENOMEM.
 */
int nnls_structure(const double *G, size_t n, size_t *rank, size_t *basis, bool *ident);

/*
 * Invert the r x r symmetric positive definite matrix S (row-major) into
 * Sinv. 0, -ENOMEM, or -EDOM when S is not positive definite.
 */
int nnls_spd_inverse(const double *S, size_t r, double *Sinv);

#endif
