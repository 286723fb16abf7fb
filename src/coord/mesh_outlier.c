/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The mesh's outliers, by a robust rule over comparable pairs (those of
 * one class): see mesh.h. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/mesh_outlier.h"
#include "base/array.h"
#include "base/order.h"

/* The MAD times this estimates the standard deviation of a normal sample. */
#define MESH_MAD_SCALE		1.4826
/* Never closer to the median than this share of it: below the method's noise. */
#define MESH_MIN_EXCESS		0.05
/* A class needs this many resolved pairs for a median and a MAD to mean anything. */
#define MESH_MIN_PAIRS		3

/* A class's pairs' spread: their median p50 and scaled MAD; false: too few. */
struct mesh_spread {
	size_t n;
	double median_ns, smad_ns, limit_ns;
};

/* The spread of class @k's resolved p50s (@tmp: room for every pair). */
static bool mesh_class_spread(const struct mesh_run *m, size_t k, double *tmp,
			      struct mesh_spread *sp)
{
	size_t i, n = 0;

	for (i = 0; i < m->n_pairs; i++)
		if (m->pairs[i].cls == k && m->pairs[i].p50.state == HIST_Q_RESOLVED)
			tmp[n++] = (double)m->pairs[i].p50.value;
	sp->n = n;
	if (n < MESH_MIN_PAIRS)
		return false;
	sp->median_ns = order_median(tmp, n);
	for (i = 0; i < n; i++)
		tmp[i] = fabs(tmp[i] - sp->median_ns);
	sp->smad_ns = MESH_MAD_SCALE * order_median(tmp, n);
	sp->limit_ns = sp->median_ns + fmax(m->o->mad_k * sp->smad_ns,
					    MESH_MIN_EXCESS * sp->median_ns);
	return true;
}

/* Add an outlier to m->outliers; -ENOMEM when there is no room. */
static struct mesh_outlier *mesh_add(struct mesh_run *m, enum mesh_outlier_kind kind, size_t k)
{
	struct mesh_outlier *o = array_push((void **)&m->outliers, &m->n_outliers, sizeof(*o));

	if (!o)
		return NULL;
	o->kind = kind;
	o->cls = k;
	return o;
}

/* The pairs of class @k above its limit; their why. */
static int mesh_pair_outliers(struct mesh_run *m, size_t k, const struct mesh_spread *sp)
{
	const struct mesh_class *c = &m->o->classes[k];
	char why[MESH_WHY_MAX];
	struct mesh_outlier *o;
	struct mesh_pair *p;
	size_t i;

	for (i = 0; i < m->n_pairs; i++) {
		p = &m->pairs[i];
		if (p->cls != k || p->p50.state != HIST_Q_RESOLVED || !p->p50.lo_whole ||
		    (double)p->p50.lo <= sp->limit_ns)
			continue;
		p->outlier = true;
		snprintf(why, sizeof(why), "p50 %.3f us, at least %.3f us (95 %% interval), "
			 "above %.3f us: the median %.3f us of sl %d's %zu pairs plus the larger of "
			 "%g x 1.4826 x MAD (%.3f us) and 5 %% of the median", (double)p->p50.value / 1e3,
			 (double)p->p50.lo / 1e3, sp->limit_ns / 1e3, sp->median_ns / 1e3, c->sl, sp->n,
			 m->o->mad_k, m->o->mad_k * sp->smad_ns / 1e3);
		if (!(p->why = strdup(why)) || !(o = mesh_add(m, MESH_OUT_PAIR, k)))
			return -ENOMEM;
		snprintf(o->name, sizeof(o->name), "%s -> %s", m->o->hosts[p->src],
			 m->o->hosts[p->dst]);
		snprintf(o->why, sizeof(o->why), "%s", p->why);
	}
	return 0;
}

/* Pair @p's p50 from its sketch, into p->p50. */
static void mesh_p50_read(struct mesh_pair *p)
{
	struct hist_quantile q;

	sketch_quantile(p->rtt_ns, 50, &q);
	p->p50 = (struct mesh_p50){ .value = q.value, .lo = q.lo, .hi = q.hi,
		.state = (uint8_t)q.state, .lo_whole = q.lo_rank && !q.lo_unresolved,
		.hi_whole = q.hi_rank <= sketch_totals(p->rtt_ns)->count };
}

/* The hosts most of whose judged pairs of class @k are outliers: each
 * pair counted once for its source and once for its destination. */
static int mesh_host_outliers(struct mesh_run *m, size_t k)
{
	size_t n = m->o->n_hosts, h, i, *judged = calloc(2 * n, sizeof(*judged)), *out;
	struct mesh_outlier *o;
	struct mesh_pair *p;
	int ret = judged ? 0 : -ENOMEM;

	out = judged ? judged + n : NULL;
	for (i = 0; judged && i < m->n_pairs; i++) {
		p = &m->pairs[i];
		if (p->cls != k || p->p50.state != HIST_Q_RESOLVED || !p->p50.lo_whole)
			continue;	/* a pair without an interval is not judged */
		judged[p->src]++;
		judged[p->dst]++;
		out[p->src] += p->outlier;
		out[p->dst] += p->outlier;
	}
	for (h = 0; !ret && h < n; h++) {
		if (judged[h] < 2 || 2 * out[h] <= judged[h])
			continue;
		if (!(o = mesh_add(m, MESH_OUT_HOST, k))) {
			ret = -ENOMEM;
			break;
		}
		snprintf(o->name, sizeof(o->name), "%s", m->o->hosts[h]);
		snprintf(o->why, sizeof(o->why), "%zu of its %zu pairs on sl %d are outliers, as "
			 "source or destination: its own link or host, more likely than the fabric",
			 out[h], judged[h], m->o->classes[k].sl);
	}
	free(judged);
	return ret;
}

/* The classes whose median is above the fastest class's limit. */
static int mesh_class_outliers(struct mesh_run *m, const struct mesh_spread *sp, const bool *ok)
{
	size_t k, f = SIZE_MAX;
	struct mesh_outlier *o;

	for (k = 0; k < m->o->n_classes; k++)
		if (ok[k] && (f == SIZE_MAX || sp[k].median_ns < sp[f].median_ns))
			f = k;
	for (k = 0; f != SIZE_MAX && k < m->o->n_classes; k++) {
		if (!ok[k] || k == f || sp[k].median_ns <= sp[f].limit_ns)
			continue;
		if (!(o = mesh_add(m, MESH_OUT_CLASS, k)))
			return -ENOMEM;
		snprintf(o->name, sizeof(o->name), "sl %d", m->o->classes[k].sl);
		snprintf(o->why, sizeof(o->why), "its pairs' median p50 %.3f us is above %.3f us: "
			 "the fastest class's (sl %d) median %.3f us plus the larger of %g x 1.4826 x "
			 "MAD (%.3f us) and 5 %% of it", sp[k].median_ns / 1e3, sp[f].limit_ns / 1e3,
			 m->o->classes[f].sl, sp[f].median_ns / 1e3, m->o->mad_k,
			 m->o->mad_k * sp[f].smad_ns / 1e3);
	}
	return 0;
}

int mesh_outliers(struct mesh_run *m)
{
	struct mesh_spread sp[MESH_MAX_CLASSES];
	bool ok[MESH_MAX_CLASSES];
	struct mesh_pair *p;
	double *tmp;
	size_t i, k;
	int ret = 0;

	free(m->outliers);
	m->outliers = NULL;
	m->n_outliers = 0;
	tmp = calloc(m->n_pairs ? m->n_pairs : 1, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (i = 0; i < m->n_pairs; i++) {
		p = &m->pairs[i];
		p->outlier = false;
		free(p->why);
		p->why = NULL;
		p->p50 = (struct mesh_p50){ .state = HIST_Q_EMPTY };
		if (p->rtt_ns)
			mesh_p50_read(p);
	}
	for (k = 0; !ret && k < m->o->n_classes; k++) {
		ok[k] = mesh_class_spread(m, k, tmp, &sp[k]);
		if (ok[k])
			ret = mesh_pair_outliers(m, k, &sp[k]);
		if (ok[k] && !ret)
			ret = mesh_host_outliers(m, k);
	}
	if (!ret)
		ret = mesh_class_outliers(m, sp, ok);
	free(tmp);
	return ret;
}
