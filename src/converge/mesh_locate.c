/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The mesh's slow hops: each class's pairs handed to the fabric's
 * localization (fabric/locate.h) over the topology. See mesh.h. Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "converge/mesh.h"

const struct mesh_ref *mesh_ref_of(const struct mesh_run *m, const struct mesh_pair *p)
{
	const struct mesh_class *c = &m->o->classes[p->cls];
	const struct mesh_ref *r;
	size_t i;

	for (i = 0; i < m->o->n_refs; i++) {
		r = &m->o->refs[i];
		if (r->sl == c->sl && r->tclass == c->tclass &&
		    !strcmp(r->src, m->o->hosts[p->src]) && !strcmp(r->dst, m->o->hosts[p->dst]))
			return r;
	}
	return NULL;
}

/* Whether @p's p50 and both ends of its interval are figures. */
static bool mesh_p50_whole(const struct mesh_pair *p)
{
	const struct hist_quantile *q = &p->p50;

	return q->state == HIST_Q_RESOLVED && q->lo_rank && !q->lo_unresolved &&
	       q->hi_rank <= hist_count(p->rtt_ns);
}

/*
 * Pair @p as an observation into @ob (its hosts' names into @names, two
 * of SCENARIO_HOST_MAX): unresolved when its p50 is not whole, or when a
 * reference is given and has no figure of it (counted in *no_ref).
 */
static void mesh_obs(const struct mesh_run *m, const struct mesh_pair *p, char *names,
		     struct locate_obs *ob, size_t *no_ref)
{
	const struct mesh_ref *r = m->o->n_refs ? mesh_ref_of(m, p) : NULL;
	uint16_t port;

	scenario_agent_addr(m->o->hosts[p->src], names, SCENARIO_HOST_MAX, &port);
	scenario_agent_addr(m->o->hosts[p->dst], names + SCENARIO_HOST_MAX, SCENARIO_HOST_MAX,
			    &port);
	*ob = (struct locate_obs){ .src = names, .dst = names + SCENARIO_HOST_MAX,
		.sl = m->o->classes[p->cls].sl, .resolved = mesh_p50_whole(p) };
	if (!ob->resolved)
		return;
	ob->rtt_ns = (double)p->p50.value;
	ob->ci_low_ns = (double)p->p50.lo;
	ob->ci_high_ns = (double)p->p50.hi;
	if (!m->o->n_refs)
		return;
	if (!r) {
		ob->resolved = false;
		(*no_ref)++;
		return;
	}
	/* The excess and its interval: the widest the two intervals allow. */
	ob->rtt_ns -= r->p50_ns;
	ob->ci_low_ns -= r->ci_high_ns;
	ob->ci_high_ns -= r->ci_low_ns;
}

/* Class @k's hops into @l. 0, or -ENOMEM (a class that cannot be solved says why). */
static int mesh_locate_class(struct mesh_run *m, size_t k, struct mesh_locate *l)
{
	const struct locate_opts lo = { .k_mad = m->o->mad_k, .excess = m->o->n_refs > 0 };
	size_t i, n = 0, per = m->n_pairs / m->o->n_classes;
	struct locate_obs *obs = calloc(per ? per : 1, sizeof(*obs));
	char *names = calloc(per ? per : 1, 2 * SCENARIO_HOST_MAX);
	int ret = 0;

	locate_free(&l->res);
	memset(l, 0, sizeof(*l));
	if (!obs || !names) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < m->n_pairs; i++)
		if (m->pairs[i].cls == k) {
			mesh_obs(m, &m->pairs[i], names + n * 2 * SCENARIO_HOST_MAX, &obs[n],
				 &l->n_no_ref);
			n++;
		}
	ret = locate_hops_opt(m->o->topo, obs, n, &lo, &l->res, l->error, sizeof(l->error));
	l->ok = !ret;
	ret = ret == -ENOMEM ? ret : 0;
out:
	free(obs);
	free(names);
	return ret;
}

int mesh_locate(struct mesh_run *m)
{
	size_t k;
	int ret = 0;

	if (!m->o->topo)
		return 0;
	if (!m->loc)
		m->loc = calloc(m->o->n_classes, sizeof(*m->loc));
	if (!m->loc)
		return -ENOMEM;
	for (k = 0; !ret && k < m->o->n_classes; k++)
		ret = mesh_locate_class(m, k, &m->loc[k]);
	return ret;
}
