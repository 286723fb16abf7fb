/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The fit of the hop localization (locate.h has the model): the groups
 * of identical columns, found from the columns themselves (no n x n
 * matrix), then non-negative least squares, the structure and the
 * covariance on each connected component of the pairs' crossings apart.
 * Two components share no pair and no group, so the normal matrix is
 * block diagonal: each block's solution, rank, identifiability and
 * covariance are those of the whole, and B blocks of k groups cost
 * B k^3 (nnls.c's dense solver on each), not (B k)^3. Only the solver's
 * tolerances are relative to the block rather than the whole.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/locate_fit.h"
#include "fabric/nnls.h"

/* ------------------------------------------------------------------ */
/* Groups of identical columns                                         */
/* ------------------------------------------------------------------ */

/* The columns: link j's entries [cs[j], cs[j + 1]) of (row, coef), rows
 * ascending. */
struct columns {
	size_t *cs, *row;
	double *coef;
};

static void columns_free(struct columns *c)
{
	free(c->cs);
	free(c->row);
	free(c->coef);
}

static int columns_build(const struct design *d, struct columns *c)
{
	size_t n = d->n, nnz = d->start[d->m], i, j, p, *fill = malloc((n + 1) * sizeof(*fill));

	c->cs = calloc(n + 2, sizeof(*c->cs));
	c->row = malloc((nnz + 1) * sizeof(*c->row));
	c->coef = malloc((nnz + 1) * sizeof(*c->coef));
	if (!fill || !c->cs || !c->row || !c->coef) {
		free(fill);
		return -ENOMEM;
	}
	for (p = 0; p < nnz; p++)
		c->cs[d->col[p] + 1]++;
	for (j = 0; j < n; j++)
		c->cs[j + 1] += c->cs[j];
	memcpy(fill, c->cs, n * sizeof(*fill));
	for (i = 0; i < d->m; i++)
		for (p = d->start[i]; p < d->start[i + 1]; p++) {
			size_t at = fill[d->col[p]]++;

			c->row[at] = i;
			c->coef[at] = d->coef[p];
		}
	free(fill);
	return 0;
}

/* One column as a sort key: its entries, their hash, its link. */
struct colkey {
	size_t len;
	const size_t *row;
	const double *coef;
	uint64_t hash;
	int link;
};

static uint64_t col_hash(const size_t *row, const double *coef, size_t len)
{
	uint64_t h = 1469598103934665603ULL, bits;

	for (size_t p = 0; p < len; p++) {
		memcpy(&bits, &coef[p], sizeof(bits));
		h = (h ^ row[p]) * 1099511628211ULL;
		h = (h ^ bits) * 1099511628211ULL;
	}
	return h;
}

/* Whether two columns are identical: the same crossings of the same rows. */
static bool colkey_same(const struct colkey *a, const struct colkey *b)
{
	return a->hash == b->hash && a->len == b->len &&
	       !memcmp(a->row, b->row, a->len * sizeof(*a->row)) &&
	       !memcmp(a->coef, b->coef, a->len * sizeof(*a->coef));
}

/* Identical columns together, each class's lowest link first. */
static int colkey_cmp(const void *x, const void *y)
{
	const struct colkey *a = x, *b = y;
	int c;

	if (a->hash != b->hash)
		return (a->hash > b->hash) - (a->hash < b->hash);
	if (a->len != b->len)
		return (a->len > b->len) - (a->len < b->len);
	c = memcmp(a->row, b->row, a->len * sizeof(*a->row));
	if (!c)
		c = memcmp(a->coef, b->coef, a->len * sizeof(*a->coef));
	return c ? c : (a->link > b->link) - (a->link < b->link);
}

/* lead[j]: the lowest link whose column is link j's (j itself when none
 * is lower). */
static int column_leads(const struct columns *c, size_t n, int *lead)
{
	struct colkey *key = malloc((n + 1) * sizeof(*key));
	size_t a, b, j;

	if (!key)
		return -ENOMEM;
	for (j = 0; j < n; j++) {
		size_t len = c->cs[j + 1] - c->cs[j];

		key[j] = (struct colkey){ len, c->row + c->cs[j], c->coef + c->cs[j],
			col_hash(c->row + c->cs[j], c->coef + c->cs[j], len), (int)j };
	}
	qsort(key, n, sizeof(*key), colkey_cmp);
	for (a = 0; a < n; a = b) {
		for (b = a + 1; b < n && colkey_same(&key[a], &key[b]); b++)
			;
		for (j = a; j < b; j++)
			lead[key[j].link] = key[a].link;
	}
	free(key);
	return 0;
}

static int groups_build(const struct design *d, const struct columns *c, struct groups *g)
{
	size_t n = d->n, j;
	int *lead = malloc((n + 1) * sizeof(*lead));

	g->of = malloc((n + 1) * sizeof(*g->of));
	g->rep = malloc((n + 1) * sizeof(*g->rep));
	g->size = calloc(n + 1, sizeof(*g->size));
	if (!lead || !g->of || !g->rep || !g->size || column_leads(c, n, lead)) {
		free(lead);
		return -ENOMEM;
	}
	g->n_crossed = 0;
	for (j = 0; j < n; j++) {
		g->of[j] = -1;
		if (c->cs[j + 1] == c->cs[j])
			continue;	/* no pair crosses it */
		if (lead[j] == (int)j)
			g->rep[g->n_crossed++] = (int)j;
		g->of[j] = lead[j] == (int)j ? (int)g->n_crossed - 1 : g->of[lead[j]];
		g->size[g->of[j]]++;
	}
	g->n_groups = g->n_crossed;
	for (j = 0; j < n; j++)
		if (g->of[j] < 0) {
			g->rep[g->n_groups] = (int)j;
			g->size[g->n_groups] = 1;
			g->of[j] = (int)g->n_groups++;
		}
	free(lead);
	return 0;
}

void groups_free(struct groups *g)
{
	free(g->of);
	free(g->rep);
	free(g->size);
	memset(g, 0, sizeof(*g));
}

/* ------------------------------------------------------------------ */
/* Connected components                                                */
/* ------------------------------------------------------------------ */

/* The blocks: block b has groups grp[gs[b] .. gs[b + 1]) and rows
 * row[rs[b] .. rs[b + 1]), both ascending; loc[group] is its place in
 * its block; basis[gs[b] ..) its block's basis (local), rank[b] long. */
struct blocks {
	size_t n, *gs, *grp, *rs, *row, *loc, *basis, *rank;
};

static void blocks_free(struct blocks *B)
{
	free(B->gs);
	free(B->grp);
	free(B->rs);
	free(B->row);
	free(B->loc);
	free(B->basis);
	free(B->rank);
}

static size_t uf_find(size_t *parent, size_t v)
{
	while (parent[v] != v) {
		parent[v] = parent[parent[v]];
		v = parent[v];
	}
	return v;
}

/* The crossed group of row @i's first entry. */
static size_t row_group(const struct design *d, const struct groups *g, size_t i)
{
	return (size_t)g->of[d->col[d->start[i]]];
}

/* Each crossed group's component (all one with @one_block) into of[]:
 * block numbers 0.. in the order of their lowest group. */
static int components(const struct design *d, const struct groups *g, bool one_block,
		      size_t *of, size_t *n_blocks)
{
	size_t k = g->n_crossed, i, p, a, *parent = malloc((k + 1) * sizeof(*parent));

	if (!parent)
		return -ENOMEM;
	for (a = 0; a < k; a++)
		parent[a] = one_block ? 0 : a;
	for (i = 0; !one_block && i < d->m; i++)
		for (p = d->start[i] + 1; p < d->start[i + 1]; p++) {
			size_t x = uf_find(parent, row_group(d, g, i));
			size_t y = uf_find(parent, (size_t)g->of[d->col[p]]);

			parent[x > y ? x : y] = x < y ? x : y;	/* the lower group the root */
		}
	*n_blocks = 0;
	for (a = 0; a < k; a++) {
		size_t r = uf_find(parent, a);

		of[a] = r == a ? (*n_blocks)++ : of[r];
	}
	free(parent);
	return 0;
}

/* Counting sort of @n items by their block @key[] into @out, offsets in @start. */
static void bucket(const size_t *key, size_t n, size_t n_blocks, size_t *start, size_t *out)
{
	size_t i, b;

	memset(start, 0, (n_blocks + 2) * sizeof(*start));
	for (i = 0; i < n; i++)
		start[key[i] + 1]++;
	for (b = 0; b < n_blocks; b++)
		start[b + 1] += start[b];
	for (i = 0; i < n; i++)
		out[start[key[i]]++] = i;
	memmove(start + 1, start, n_blocks * sizeof(*start));
	start[0] = 0;
}

static int blocks_build(const struct design *d, const struct groups *g, bool one_block,
			struct blocks *B)
{
	size_t k = g->n_crossed, i, a, *gb = malloc((k + 1) * sizeof(*gb));
	size_t *rb = malloc((d->m + 1) * sizeof(*rb));
	int rc = gb && rb ? components(d, g, one_block, gb, &B->n) : -ENOMEM;

	if (!rc) {
		B->gs = malloc((B->n + 2) * sizeof(*B->gs));
		B->rs = malloc((B->n + 2) * sizeof(*B->rs));
		B->grp = malloc((k + 1) * sizeof(*B->grp));
		B->row = malloc((d->m + 1) * sizeof(*B->row));
		B->loc = malloc((k + 1) * sizeof(*B->loc));
		B->basis = malloc((k + 1) * sizeof(*B->basis));
		B->rank = calloc(B->n + 1, sizeof(*B->rank));
		rc = B->gs && B->rs && B->grp && B->row && B->loc && B->basis && B->rank ?
		     0 : -ENOMEM;
	}
	if (!rc) {
		for (i = 0; i < d->m; i++)
			rb[i] = gb[row_group(d, g, i)];
		bucket(gb, k, B->n, B->gs, B->grp);
		bucket(rb, d->m, B->n, B->rs, B->row);
		for (a = 0; a < k; a++)
			B->loc[B->grp[a]] = a - B->gs[gb[B->grp[a]]];
	}
	free(gb);
	free(rb);
	return rc;
}

/* ------------------------------------------------------------------ */
/* One block's fit                                                     */
/* ------------------------------------------------------------------ */

/* Block @b's normal matrix on its groups (one link stands for its
 * group), @k x @k, and A^T y. */
static void block_normal(const struct design *d, const struct groups *g, const struct blocks *B,
			 size_t b, double *Gr, double *hr)
{
	size_t k = B->gs[b + 1] - B->gs[b], r, i, p, q;

	memset(Gr, 0, k * k * sizeof(*Gr));
	memset(hr, 0, k * sizeof(*hr));
	for (r = B->rs[b]; r < B->rs[b + 1]; r++) {
		i = B->row[r];
		for (p = d->start[i]; p < d->start[i + 1]; p++) {
			size_t a = B->loc[g->of[d->col[p]]];

			if (g->rep[g->of[d->col[p]]] != d->col[p])
				continue;
			hr[a] += d->coef[p] * d->y[i];
			for (q = d->start[i]; q < d->start[i + 1]; q++)
				if (g->rep[g->of[d->col[q]]] == d->col[q])
					Gr[a * k + B->loc[g->of[d->col[q]]]] += d->coef[p] * d->coef[q];
		}
	}
}

/* The basis's part of Gr (r x r) inverted into Si. 0, -ENOMEM or -EDOM. */
static int basis_inverse(const double *Gr, size_t k, const size_t *basis, size_t r, double *Si)
{
	double *S = malloc((r * r + 1) * sizeof(*S));
	int rc;

	if (!S)
		return -ENOMEM;
	for (size_t a = 0; a < r; a++)
		for (size_t c = 0; c < r; c++)
			S[a * r + c] = Gr[basis[a] * k + basis[c]];
	rc = nnls_spd_inverse(S, r, Si);
	free(S);
	return rc;
}

/* A change, not a time: plain least squares on the basis of independent
 * groups, x_B = (G_BB)^-1 h_B, of either sign; the others 0. */
static int block_signed(const double *Gr, const double *hr, size_t k, const size_t *basis,
			size_t r, double *x)
{
	double *Si = malloc((r * r + 1) * sizeof(*Si));
	int rc = Si ? basis_inverse(Gr, k, basis, r, Si) : -ENOMEM;

	for (size_t a = 0; !rc && a < k; a++)
		x[a] = 0;
	for (size_t a = 0; !rc && a < r; a++)
		for (size_t c = 0; c < r; c++)
			x[basis[a]] += Si[a * r + c] * hr[basis[c]];
	free(Si);
	return rc == -EDOM ? -ERANGE : rc;
}

/* Block @b solved: NNLS (or signed), its structure, into f->x and f->ident. */
static int block_solve(const struct design *d, const struct groups *g, struct blocks *B,
		       size_t b, bool signed_fit, struct fit *f)
{
	size_t k = B->gs[b + 1] - B->gs[b], a;
	double *Gr = malloc((k * k + 1) * sizeof(*Gr)), *hr = malloc((k + 1) * sizeof(*hr));
	double *x = calloc(k + 1, sizeof(*x));
	bool *ident = malloc((k + 1) * sizeof(*ident));
	int rc = Gr && hr && x && ident ? 0 : -ENOMEM;

	if (!rc) {
		block_normal(d, g, B, b, Gr, hr);
		rc = nnls_normal(Gr, hr, k, x);
	}
	if (!rc)
		rc = nnls_structure(Gr, k, &B->rank[b], B->basis + B->gs[b], ident);
	if (!rc && signed_fit)
		rc = block_signed(Gr, hr, k, B->basis + B->gs[b], B->rank[b], x);
	for (a = 0; !rc && a < k; a++) {
		f->x[B->grp[B->gs[b] + a]] = x[a];
		f->ident[B->grp[B->gs[b] + a]] = ident[a];
	}
	free(Gr);
	free(hr);
	free(x);
	free(ident);
	return rc;
}

/*
 * Block @b's covariance of the least-squares estimator on its basis:
 * Cov = (A_B^T A_B)^-1 A_B^T diag(sigma^2) A_B (A_B^T A_B)^-1, sigma_i^2
 * row i's variance from its interval plus f->s_excess2; f->sd of each
 * basis group the root of its diagonal.
 */
static int block_covariance(const struct design *d, const struct groups *g,
			    const struct blocks *B, size_t b, struct fit *f)
{
	size_t k = B->gs[b + 1] - B->gs[b], r = B->rank[b], a, c, e, p, q;
	const size_t *basis = B->basis + B->gs[b];
	double *Gr = malloc((k * k + 1) * sizeof(*Gr)), *hr = malloc((k + 1) * sizeof(*hr));
	double *Si = malloc((r * r + 1) * sizeof(*Si)), *M = calloc(r * r + 1, sizeof(*M));
	long *pos = malloc((k + 1) * sizeof(*pos));
	int rc = Gr && hr && Si && M && pos ? 0 : -ENOMEM;

	if (!rc) {
		block_normal(d, g, B, b, Gr, hr);
		rc = basis_inverse(Gr, k, basis, r, Si);
	}
	for (a = 0; !rc && a < k; a++)
		pos[a] = -1;
	for (a = 0; !rc && a < r; a++)
		pos[basis[a]] = (long)a;
	for (e = B->rs[b]; !rc && e < B->rs[b + 1]; e++) {
		size_t i = B->row[e];
		double s2 = d->var[i] + f->s_excess2;

		for (p = d->start[i]; p < d->start[i + 1]; p++) {
			long pa = pos[B->loc[g->of[d->col[p]]]];

			if (g->rep[g->of[d->col[p]]] != d->col[p] || pa < 0)
				continue;
			for (q = d->start[i]; q < d->start[i + 1]; q++) {
				long pb = pos[B->loc[g->of[d->col[q]]]];

				if (g->rep[g->of[d->col[q]]] == d->col[q] && pb >= 0)
					M[(size_t)pa * r + (size_t)pb] += s2 * d->coef[p] * d->coef[q];
			}
		}
	}
	for (a = 0; !rc && a < r; a++) {	/* diag(Si M Si) */
		double v = 0;

		for (c = 0; c < r; c++)
			for (e = 0; e < r; e++)
				v += Si[a * r + c] * M[c * r + e] * Si[e * r + a];
		f->sd[B->grp[B->gs[b] + basis[a]]] = sqrt(fmax(v, 0));
	}
	free(Gr);
	free(hr);
	free(Si);
	free(M);
	free(pos);
	return rc;
}

/* ------------------------------------------------------------------ */

double row_pred(const struct design *d, const struct groups *g, const double *x, size_t i)
{
	double s = 0;

	for (size_t p = d->start[i]; p < d->start[i + 1]; p++)
		if (g->rep[g->of[d->col[p]]] == d->col[p])
			s += d->coef[p] * x[g->of[d->col[p]]];
	return s;
}

/* Every block solved, then the residual, then every block's covariance
 * (which needs the residual of the whole). */
static int fit_blocks(const struct design *d, const struct groups *g, struct blocks *B,
		      bool signed_fit, struct fit *f)
{
	double mean_var = 0;
	size_t b, i;
	int rc = 0;

	for (b = 0; !rc && b < B->n; b++)
		rc = block_solve(d, g, B, b, signed_fit, f);
	if (rc)
		return rc;
	for (b = 0; b < B->n; b++)
		f->rank += B->rank[b];
	f->rss = 0;
	for (i = 0; i < d->m; i++) {
		f->rss += pow(d->y[i] - row_pred(d, g, f->x, i), 2);
		mean_var += d->var[i] / (double)d->m;
	}
	f->s_excess2 = d->m > f->rank ? fmax(0, f->rss / (double)(d->m - f->rank) - mean_var) : 0;
	for (b = 0; !rc && b < B->n; b++)
		rc = block_covariance(d, g, B, b, f);
	return rc;
}

int locate_fit(const struct design *d, bool signed_fit, bool one_block, struct groups *g,
	       struct fit *f)
{
	struct columns c = { 0 };
	struct blocks B = { 0 };
	size_t k, a;
	int rc;

	groups_free(g);
	fit_free(f);
	rc = columns_build(d, &c);
	if (!rc)
		rc = groups_build(d, &c, g);
	columns_free(&c);
	if (rc)
		return rc;
	k = f->k = g->n_crossed;
	f->x = calloc(k + 1, sizeof(*f->x));
	f->sd = malloc((k + 1) * sizeof(*f->sd));
	f->ident = calloc(k + 1, sizeof(*f->ident));
	if (!f->x || !f->sd || !f->ident)
		return -ENOMEM;
	for (a = 0; a < k; a++)
		f->sd[a] = NAN;
	rc = blocks_build(d, g, one_block, &B);
	f->n_blocks = B.n;
	if (!rc)
		rc = fit_blocks(d, g, &B, signed_fit, f);
	blocks_free(&B);
	return rc;
}

void fit_free(struct fit *f)
{
	free(f->x);
	free(f->sd);
	free(f->ident);
	memset(f, 0, sizeof(*f));
}
