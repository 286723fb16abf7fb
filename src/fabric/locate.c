/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The hop localization (see locate.h for the model, the identifiability
 * and the uncertainty): routes for every used pair, the crossings matrix,
 * its groups of identical columns, non-negative least squares on the
 * groups (nnls.c), each hop's interval, and the slow hops.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "fabric/locate.h"
#include "fabric/locate_fit.h"
#include "fabric/locate_name.h"
#include "fabric/topo_int.h"
#include "fabric/topo_paths.h"

#define LOCATE_Z 1.96		/* two-sided 95 % */
#define LOCATE_MAD_SIGMA 1.4826	/* MAD to standard deviation, normal data */
#define LOCATE_ROUTE_MAX 256
#define LOCATE_ECMP_MAX 16	/* equal-cost paths a pair may take, each way */
#define LOCATE_ECMP_ROUNDS 20	/* refits placing the pairs of unknown path */
/* The routes do not fit when the residual's standard deviation is this
 * many times the intervals' own. */
#define LOCATE_MISFIT 5.0
#define LOCATE_MISFIT_MIN_NS 1.0	/* and by more than this: exact figures fit */

/* Searches from each node that ends a pair, made when first needed: only
 * their distances are kept (the walk of the shortest paths needs no
 * more); via and paths are the searches' scratch. */
struct routes {
	const struct topo *t;
	const struct topo_paths *given;
	int **dist, *via;
	double *paths;
};

static void routes_free(struct routes *r)
{
	for (size_t v = 0; r->dist && v < r->t->n_nodes; v++)
		free(r->dist[v]);
	free(r->dist);
	free(r->via);
	free(r->paths);
}

/* The node at the other end of link @l from @v. */
static int link_other(const struct topo *t, int l, int v)
{
	return t->links[l].a == v ? t->links[l].b : t->links[l].a;
}

/* Every shortest path from node @src to node @dst (at most
 * LOCATE_ECMP_MAX) into *links, *np paths of *len links, each with room
 * for one link before and one after. */
static int routes_search(struct routes *r, int src, int dst, int *links, size_t *np,
			 size_t *len)
{
	size_t nn = r->t->n_nodes;

	if (src == dst) {	/* two rails on one switch: no link between */
		*np = 1;
		*len = 0;
		return 0;
	}
	if (!r->dist[src]) {
		r->dist[src] = malloc(nn * sizeof(int));
		if (!r->dist[src] || topo_bfs(r->t, src, r->dist[src], r->paths, r->via))
			return -ENOMEM;
	}
	return topo_bfs_paths(r->t, r->dist[src], src, dst, links, LOCATE_ROUTE_MAX - 2,
			      LOCATE_ECMP_MAX, np, len);
}

/* The shortest paths between endpoints: a rail's own link first (last),
 * the search from (to) the switch at its other end. */
static int routes_shortest(struct routes *r, const struct topo_end *s, const struct topo_end *e,
			   int *links, size_t *np, size_t *len)
{
	int from = s->link >= 0 ? link_other(r->t, s->link, s->node) : s->node;
	int to = e->link >= 0 ? link_other(r->t, e->link, e->node) : e->node;
	size_t inner, pre = s->link >= 0, post = e->link >= 0, j;
	int rc = routes_search(r, from, to, links, np, &inner);

	if (rc || (!pre && !post)) {
		*len = inner;
		return rc;
	}
	*len = inner + pre + post;
	for (j = *np; j-- > 0;) {	/* from the last, each moved to its wider place */
		memmove(links + j * *len + pre, links + j * inner, inner * sizeof(*links));
		if (pre)
			links[j * *len] = s->link;
		if (post)
			links[j * *len + *len - 1] = e->link;
	}
	return 0;
}

/*
 * The paths from endpoint @s to @e into *links (malloc'ed, *np paths of
 * *len links): the given one when the routes know the pair, else every
 * shortest path (at most LOCATE_ECMP_MAX). 0 or -errno with @err set.
 */
static int routes_get(struct routes *r, const struct topo_end *s, const struct topo_end *e,
		      int **links, size_t *np, size_t *len, char *err, size_t errlen)
{
	int rc;

	*links = malloc(LOCATE_ROUTE_MAX * LOCATE_ECMP_MAX * sizeof(**links));
	if (!*links)
		return -ENOMEM;
	if (r->given) {
		rc = topo_paths_get_end(r->given, s, e, *links, LOCATE_ROUTE_MAX, len, err, errlen);
		*np = 1;
		if (rc != -ENOENT || strcmp(r->given->source, "routes"))
			return rc;	/* a routes file may leave pairs out, tables may not */
	}
	rc = routes_shortest(r, s, e, *links, np, len);
	if (!rc && *np * *len < LOCATE_ROUTE_MAX * LOCATE_ECMP_MAX) {
		int *fit = realloc(*links, (*np * *len + 1) * sizeof(**links));

		*links = fit ? fit : *links;	/* keep only what the paths hold */
	}
	if (rc == -ENOENT || rc == -ENOSPC)
		return errbuf_set(err, errlen, -ENOENT, "locate: no route of at most %d links "
				  "from '%s' to '%s'", LOCATE_ROUTE_MAX, r->t->nodes[s->node].name,
				  r->t->nodes[e->node].name);
	return rc;
}

/* Add @w crossings of link @l to the row begun at @at of @len entries. */
static void row_add(struct design *d, size_t at, size_t *len, int l, double w)
{
	size_t k;

	for (k = at; k < at + *len && d->col[k] != l; k++)
		;
	if (k < at + *len) {
		d->coef[k] += w;
	} else {
		d->col[at + *len] = l;
		d->coef[at + (*len)++] = w;
	}
}

/* Append pair i's crossings as a row: its chosen paths there and back,
 * or the mean of its candidates where the fit has not chosen. */
static int design_row(struct design *d, size_t i)
{
	const struct pair_paths *p = &d->pp[i];
	size_t at = d->start[i], most = p->nf * p->lf + p->nb * p->lb, len = 0, j, k;

	if (at + most > d->cap) {
		size_t cap = 2 * (at + most);
		int *col = realloc(d->col, cap * sizeof(*col));
		double *coef = col ? realloc(d->coef, cap * sizeof(*coef)) : NULL;

		if (col)
			d->col = col;
		if (!coef)
			return -ENOMEM;
		d->coef = coef;
		d->cap = cap;
	}
	for (j = 0; j < p->nf; j++)
		for (k = 0; (p->cf < 0 || (int)j == p->cf) && k < p->lf; k++)
			row_add(d, at, &len, p->fwd[j * p->lf + k], p->cf < 0 ? 1.0 / p->nf : 1);
	for (j = 0; j < p->nb; j++)
		for (k = 0; (p->cb < 0 || (int)j == p->cb) && k < p->lb; k++)
			row_add(d, at, &len, p->back[j * p->lb + k], p->cb < 0 ? 1.0 / p->nb : 1);
	d->start[i + 1] = at + len;
	return 0;
}

/* Every row again, from the pairs' current choices. */
static int design_rows(struct design *d)
{
	for (size_t i = 0; i < d->m; i++)
		if (design_row(d, i))
			return -ENOMEM;
	return 0;
}

/* Observation @o checked and its two endpoints into @s and @e. */
static int obs_check(const struct topo *t, const struct locate_obs *o, struct topo_end *s,
		     struct topo_end *e, char *err, size_t errlen)
{
	bool bad_s = topo_endpoint(t, o->src, s) != 0, bad_e = topo_endpoint(t, o->dst, e) != 0;

	if (bad_s || bad_e)
		return errbuf_set(err, errlen, -EINVAL, "locate: host '%s' is not in the topology%s",
				  bad_s ? o->src : o->dst, topo_host_devices(t, bad_s ? o->src :
				  o->dst) > 1 ? " as one node: it has several devices, name one as "
				  "HOST/DEVICE" : "");
	if (topo_end_same(s, e))
		return errbuf_set(err, errlen, -EINVAL, "locate: '%s' is both ends of a pair", o->src);
	if (!isfinite(o->rtt_ns) || !(o->ci_low_ns <= o->rtt_ns) || !(o->rtt_ns <= o->ci_high_ns))
		return errbuf_set(err, errlen, -EINVAL, "locate: pair '%s' '%s': figure %g ns "
				  "outside its interval [%g, %g]", o->src, o->dst, o->rtt_ns,
				  o->ci_low_ns, o->ci_high_ns);
	return 0;
}

/* The design of the resolved observations; *unresolved counts the rest. */
static int design_build(const struct topo *t, const struct topo_paths *given,
			const struct locate_obs *obs, size_t n, struct design *d,
			size_t *unresolved, char *err, size_t errlen)
{
	struct routes r = { .t = t, .given = given };
	struct topo_end s, e;
	size_t i;
	int rc = 0;

	r.dist = calloc(t->n_nodes, sizeof(*r.dist));
	r.via = calloc(t->n_nodes + 1, sizeof(*r.via));
	r.paths = calloc(t->n_nodes + 1, sizeof(*r.paths));
	d->start = calloc(n + 1, sizeof(*d->start));
	d->y = malloc((n + 1) * sizeof(*d->y));
	d->var = malloc((n + 1) * sizeof(*d->var));
	d->pp = calloc(n + 1, sizeof(*d->pp));
	if (!r.dist || !r.via || !r.paths || !d->start || !d->y || !d->var || !d->pp)
		rc = -ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		const struct locate_obs *o = &obs[i];
		struct pair_paths *p = &d->pp[d->m];

		if (!o->resolved) {
			(*unresolved)++;
			continue;
		}
		rc = obs_check(t, o, &s, &e, err, errlen);
		if (!rc)
			rc = routes_get(&r, &s, &e, &p->fwd, &p->nf, &p->lf, err, errlen);
		if (!rc)
			rc = routes_get(&r, &e, &s, &p->back, &p->nb, &p->lb, err, errlen);
		if (rc)
			break;
		p->cf = p->nf > 1 ? -1 : 0;
		p->cb = p->nb > 1 ? -1 : 0;
		d->n_ecmp += p->nf > 1 || p->nb > 1;
		d->y[d->m] = o->rtt_ns;
		d->var[d->m] = pow((o->ci_high_ns - o->ci_low_ns) / (2 * LOCATE_Z), 2);
		d->m++;
	}
	routes_free(&r);
	d->n = t->n_links;
	if (!rc)
		rc = design_rows(d);
	if (rc == -ENOMEM)
		errbuf_set(err, errlen, rc, "locate: out of memory");
	if (!rc && !d->m)
		rc = errbuf_set(err, errlen, -EINVAL, "locate: no resolved pair to locate from");
	return rc;
}

static void design_free(struct design *d)
{
	for (size_t i = 0; d->pp && i <= d->m; i++) {
		free(d->pp[i].fwd);
		free(d->pp[i].back);
	}
	free(d->pp);
	free(d->start);
	free(d->col);
	free(d->coef);
	free(d->y);
	free(d->var);
}

/* The host at either end of link @l, or NULL. */
static const char *link_host(const struct topo *t, int l)
{
	const struct topo_link *k = &t->links[l];

	if (!t->nodes[k->a].is_switch)
		return t->nodes[k->a].name;
	return t->nodes[k->b].is_switch ? NULL : t->nodes[k->b].name;
}

/* The most each link's round-trip share can be, into bound[n]: no pair
 * crossing it c times can give it more than 2 (y + z sd) / c, the
 * others being >= 0. One pass over the pairs. */
static double *hop_bounds(const struct design *d)
{
	double *bound = malloc((d->n + 1) * sizeof(*bound));

	if (!bound)
		return NULL;
	for (size_t l = 0; l < d->n; l++)
		bound[l] = INFINITY;
	for (size_t i = 0; i < d->m; i++)
		for (size_t p = d->start[i]; p < d->start[i + 1]; p++)
			bound[d->col[p]] = fmin(bound[d->col[p]], fmax(0, 2 * (d->y[i] +
						LOCATE_Z * sqrt(d->var[i])) / d->coef[p]));
	return bound;
}

/* The name of another link of group @gi than @l, for a message. */
static const char *group_other(const struct topo *t, const struct groups *g, int gi, int l)
{
	for (size_t j = 0; j < t->n_links; j++)
		if (g->of[j] == gi && (int)j != l)
			return t->links[j].name;
	return "";
}

/* Hop @l's figures and why, from the fit. */
static void hop_fill(const struct topo *t, const double *bound, const struct groups *g,
		     const struct fit *f, bool signed_fit, int l, struct locate_hop *hop)
{
	double lo_min = signed_fit ? -INFINITY : 0;
	int gi = g->of[l];
	const char *host = link_host(t, l);
	bool crossed = (size_t)gi < g->n_crossed, whole = crossed && f->ident[gi];

	memset(hop, 0, sizeof(*hop));
	hop->link = l;
	hop->group = gi;
	hop->crossed = crossed;
	hop->group_est_ns = whole ? 2 * f->x[gi] : NAN;
	hop->group_ci_low_ns = whole ? fmax(lo_min, hop->group_est_ns - LOCATE_Z * 2 * f->sd[gi]) : NAN;
	hop->group_ci_high_ns = whole ? hop->group_est_ns + LOCATE_Z * 2 * f->sd[gi] : NAN;
	hop->identifiable = whole && g->size[gi] == 1;
	if (hop->identifiable) {
		hop->est_ns = hop->group_est_ns;
		hop->ci_low_ns = hop->group_ci_low_ns;
		hop->ci_high_ns = hop->group_ci_high_ns;
		snprintf(hop->why, sizeof(hop->why), "round-trip share%s%.60s%s",
			 host ? "; holds " : "", host ? host : "", host ? "'s own share too" : "");
		return;
	}
	hop->est_ns = NAN;
	hop->ci_low_ns = lo_min;
	hop->ci_high_ns = !crossed || (signed_fit && !whole) ? INFINITY :
			  whole ? hop->group_ci_high_ns : bound[l];
	if (!crossed)
		snprintf(hop->why, sizeof(hop->why), "no pair crosses it: unknown");
	else if (whole)
		snprintf(hop->why, sizeof(hop->why), "crossed by the same pairs as '%.60s'%s: "
			 "only the sum of %d hops is known, %.0f ns", group_other(t, g, gi, l),
			 g->size[gi] > 2 ? " and others" : "", g->size[gi], hop->group_est_ns);
	else
		snprintf(hop->why, sizeof(hop->why), "the pairs fix only a combination of it "
			 "with other hops (rank %zu of %zu groups)%s%.0f ns", f->rank, f->k,
			 isfinite(hop->ci_high_ns) ? ": at most " : "", hop->ci_high_ns);
}

/* Link @l's time a crossing in the fit: its group's, shared evenly by
 * the group's links (a candidate path may cross only some of them). */
static double link_time(const struct groups *g, const struct fit *f, int l)
{
	int gi = g->of[l];

	return (size_t)gi < g->n_crossed ? f->x[gi] / g->size[gi] : 0;
}

/* The time path @j of @n_links links in @links takes, by the fit. */
static double path_time(const struct groups *g, const struct fit *f, const int *links, size_t n)
{
	double s = 0;

	for (size_t k = 0; k < n; k++)
		s += link_time(g, f, links[k]);
	return s;
}

/*
 * Each pair of several candidate paths takes the pair there and back
 * whose predicted figure is nearest its own; undecided (the mean of its
 * candidates) when the two nearest are closer than its own standard
 * deviation. Returns how many choices changed.
 */
static size_t ecmp_choose(struct design *d, const struct groups *g, const struct fit *f)
{
	size_t i, a, b, changed = 0;

	for (i = 0; i < d->m; i++) {
		struct pair_paths *p = &d->pp[i];
		double best = INFINITY, second = INFINITY, e;
		int cf = -1, cb = -1;

		if (p->nf < 2 && p->nb < 2)
			continue;
		for (a = 0; a < p->nf; a++)
			for (b = 0; b < p->nb; b++) {
				e = fabs(d->y[i] - path_time(g, f, p->fwd + a * p->lf, p->lf) -
					 path_time(g, f, p->back + b * p->lb, p->lb));
				if (e < best) {
					second = best;
					best = e;
					cf = (int)a;
					cb = (int)b;
				} else if (e < second) {
					second = e;
				}
			}
		if (second - best < sqrt(d->var[i]) + 1e-9 * fabs(d->y[i])) {
			cf = p->nf > 1 ? -1 : 0;	/* the candidates cannot be told apart */
			cb = p->nb > 1 ? -1 : 0;
		}
		changed += cf != p->cf || cb != p->cb;
		p->cf = cf;
		p->cb = cb;
	}
	return changed;
}

/* The fit, the pairs of unknown path placed on their nearest candidate
 * until no choice changes (at most LOCATE_ECMP_ROUNDS refits). */
static int fit_all(struct design *d, bool signed_fit, bool one_block, struct groups *g,
		   struct fit *f)
{
	int rc = locate_fit(d, signed_fit, one_block, g, f);

	for (int round = 0; !rc && d->n_ecmp && round < LOCATE_ECMP_ROUNDS; round++) {
		if (!ecmp_choose(d, g, f))
			break;
		rc = design_rows(d);
		if (!rc)
			rc = locate_fit(d, signed_fit, one_block, g, f);
	}
	return rc;
}

/* The result's figures of the fit: each hop, the residual, the ECMP
 * count, and whether the routes fit the measurements at all. */
static void result_fill(const struct topo *t, const struct design *d, const struct groups *g,
			const struct fit *f, const double *bound, bool signed_fit,
			struct locate_result *out)
{
	double mean_var = 0, rss = 0;
	size_t i, m = 0;

	out->n_hops = t->n_links;
	for (size_t l = 0; l < t->n_links; l++)
		hop_fill(t, bound, g, f, signed_fit, (int)l, &out->hops[l]);
	out->n_used = d->m;
	out->rank = f->rank;
	out->n_blocks = f->n_blocks;
	out->n_ecmp = d->n_ecmp;
	out->ecmp = d->n_ecmp > 0;
	for (i = 0; i < d->m; i++) {
		if (d->pp[i].cf < 0 || d->pp[i].cb < 0) {
			out->n_ecmp_undecided++;
			continue;	/* the mean of its paths: no figure to fit */
		}
		rss += pow(d->y[i] - row_pred(d, g, f->x, i), 2);
		mean_var += d->var[i];
		m++;
	}
	out->residual_rms_ns = sqrt(f->rss / (double)d->m);
	out->interval_sd_ns = m ? sqrt(mean_var / (double)m) : NAN;
	/* judged over the pairs whose path is known or chosen */
	out->misfit = m > f->rank && sqrt(rss / (double)(m - f->rank)) >
		      LOCATE_MISFIT * out->interval_sd_ns + LOCATE_MISFIT_MIN_NS;
}

int locate_hops_opt(const struct topo *t, const struct locate_obs *obs, size_t n,
		    const struct locate_opts *opt, struct locate_result *out,
		    char *err, size_t errlen)
{
	static const struct locate_opts defaults = { .k_mad = 3 };
	struct design d = { 0 };
	struct groups g = { 0 };
	struct fit f = { 0 };
	double *bound = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	opt = opt ? opt : &defaults;
	if (!t->n_links)
		return errbuf_set(err, errlen, -EINVAL, "locate: the topology has no link");
	rc = design_build(t, opt->paths, obs, n, &d, &out->n_unresolved, err, errlen);
	if (!rc)
		rc = fit_all(&d, opt->excess, opt->one_block, &g, &f);
	if (!rc) {
		out->hops = calloc(t->n_links, sizeof(*out->hops));
		bound = hop_bounds(&d);
		rc = out->hops && bound ? 0 : -ENOMEM;
	}
	if (!rc) {
		result_fill(t, &d, &g, &f, bound, opt->excess, out);
		rc = locate_name(t, out, opt);
	}
	if (rc == -ENOMEM)
		errbuf_set(err, errlen, rc, "locate: out of memory");
	else if (rc == -ERANGE)
		errbuf_set(err, errlen, rc, "locate: the least-squares solver did not settle");
	if (rc)
		locate_free(out);
	design_free(&d);
	groups_free(&g);
	fit_free(&f);
	free(bound);
	return rc;
}

int locate_hops(const struct topo *t, const struct locate_obs *obs, size_t n,
		struct locate_result *out, char *err, size_t errlen)
{
	return locate_hops_opt(t, obs, n, NULL, out, err, errlen);
}

void locate_free(struct locate_result *r)
{
	free(r->hops);
	free(r->findings);
	memset(r, 0, sizeof(*r));
}
