/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The mesh's slow hops: each class's pairs handed to the fabric's
 * localization (fabric/locate.h) over the topology. See mesh.h. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/mesh_locate.h"
#include "base/errbuf.h"
#include "base/order.h"

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
	/* replayed: resolved only with all three figures, both ends whole */
	return p->p50.state == HIST_Q_RESOLVED && p->p50.lo_whole && p->p50.hi_whole;
}

/*
 * The endpoint of host @i as the topology names it: its HOST (an agent's
 * HOST:PORT), or HOST/DEVICE when the mesh runs on one device (-d) and
 * the topology has that rail (a CA of its own, or a port of the host's
 * node named by the device: topo_endpoint()).
 */
static void mesh_endpoint(const struct mesh_opts *o, size_t i, char *name)
{
	const char *dev = o->base ? o->base->device : "";
	char rail[SCENARIO_HOST_MAX + 72];
	struct topo_end e;
	uint16_t port;

	scenario_agent_addr(o->hosts[i], name, SCENARIO_HOST_MAX, &port);
	if (!*dev || strchr(name, '/'))
		return;
	snprintf(rail, sizeof(rail), "%s/%s", name, dev);
	if (strlen(rail) < SCENARIO_HOST_MAX && !topo_endpoint(o->topo, rail, &e))
		snprintf(name, SCENARIO_HOST_MAX, "%s", rail);
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

	mesh_endpoint(m->o, (size_t)p->src, names);
	mesh_endpoint(m->o, (size_t)p->dst, names + SCENARIO_HOST_MAX);
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

/*
 * The floor a change of class @k must pass, from the reference's own
 * spread: the larger of its pairs' median 95 % interval width (what it
 * cannot resolve) and 5 % of their median p50 (the outlier rule's
 * resolution); 0 when it has no pair of the class.
 */
static double mesh_ref_floor(const struct mesh_run *m, size_t k)
{
	const struct mesh_class *c = &m->o->classes[k];
	double *w = calloc(m->o->n_refs + 1, sizeof(*w)), *v = calloc(m->o->n_refs + 1, sizeof(*v));
	double floor_ns = 0;
	size_t i, n = 0;

	for (i = 0; w && v && i < m->o->n_refs; i++)
		if (m->o->refs[i].sl == c->sl && m->o->refs[i].tclass == c->tclass) {
			w[n] = m->o->refs[i].ci_high_ns - m->o->refs[i].ci_low_ns;
			v[n++] = m->o->refs[i].p50_ns;
		}
	if (n) {
		order_doubles(w, n);
		order_doubles(v, n);
		floor_ns = fmax(w[n / 2], 0.05 * v[n / 2]);
	}
	free(w);
	free(v);
	return floor_ns;
}

/* Class @k's hops into @l. 0, or -ENOMEM (a class that cannot be solved says why). */
static int mesh_locate_class(struct mesh_run *m, size_t k, struct mesh_locate *l)
{
	double floor_ns = !m->o->n_refs ? 0 : isnan(m->o->min_change_ns) ?
			  mesh_ref_floor(m, k) : m->o->min_change_ns;
	const struct locate_opts lo = { .k_mad = m->o->mad_k, .excess = m->o->n_refs > 0,
		.min_excess_ns = floor_ns, .paths = m->o->paths };
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
	l->floor_ns = floor_ns;
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

/* The switch endpoint @e attaches to: the far end of its link, or of its
 * first link to a switch; -1 when none. */
static int mesh_leaf_node(const struct topo *t, const struct topo_end *e)
{
	const struct topo_link *l;
	size_t i;
	int far;

	for (i = 0; i < t->n_links; i++) {
		l = &t->links[i];
		if ((e->link >= 0 && (size_t)e->link != i) || (l->a != e->node && l->b != e->node))
			continue;
		far = l->a == e->node ? l->b : l->a;
		if (t->nodes[far].is_switch)
			return far;
	}
	return -1;
}

int mesh_leaves(const struct mesh_opts *o, size_t *leaf, char *err, size_t errlen)
{
	size_t *id = malloc((o->topo->n_nodes + 1) * sizeof(*id)), i, n = 0;
	char name[SCENARIO_HOST_MAX];
	struct topo_end e;
	int sw = 0, ret = 0;

	if (!id)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	memset(id, 0xff, (o->topo->n_nodes + 1) * sizeof(*id));
	for (i = 0; !ret && i < o->n_hosts; i++) {
		mesh_endpoint(o, i, name);
		if (topo_endpoint(o->topo, name, &e) || (sw = mesh_leaf_node(o->topo, &e)) < 0)
			ret = errbuf_set(err, errlen, -EINVAL, "--sample: host '%s' has no link to "
					 "a switch in the topology", name);
		else if (id[sw] == (size_t)-1)
			id[sw] = n++;
		if (!ret)
			leaf[i] = id[sw];
	}
	free(id);
	return ret;
}
