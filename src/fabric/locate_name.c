/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the localization names (the rules in locate.h): the verdict that
 * the routes do not fit, or the slow switches, groups and hops, each
 * judged against the hops of its own kind (host links, fabric links).
 * Pure: reads a filled result, sets its slow flags and findings.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/order.h"
#include "fabric/locate_name.h"

#define NAME_MAD_SIGMA 1.4826	/* MAD to standard deviation, normal data */
/* Without a reference, never closer to the median than this share of it:
 * a spread tighter than the method's resolution names no one. */
#define NAME_MIN_EXCESS 0.05

enum { KIND_HOST, KIND_FABRIC, KIND_ALL, N_KINDS };
static const char *const kind_name[N_KINDS] = { "host", "fabric", "" };

/* The median and MAD of one kind's identifiable figures. */
struct spread {
	size_t n;
	double med, mad;
};

static bool link_fabric(const struct topo *t, int l)
{
	return t->nodes[t->links[l].a].is_switch && t->nodes[t->links[l].b].is_switch;
}

/* The spread of kind @kind's identifiable hops (@v: room for them all). */
static void spread_of(const struct topo *t, const struct locate_result *r, int kind, double *v,
		      struct spread *s)
{
	size_t i, n = 0;

	for (i = 0; i < r->n_hops; i++)
		if (r->hops[i].identifiable &&
		    (kind == KIND_ALL || (kind == KIND_FABRIC) == link_fabric(t, r->hops[i].link)))
			v[n++] = r->hops[i].est_ns;
	s->n = n;
	s->med = n ? order_median(v, n) : 0;
	for (i = 0; i < n; i++)
		v[i] = fabs(v[i] - s->med);
	s->mad = n ? order_median(v, n) : 0;
}

static struct locate_finding *finding_add(struct locate_result *r, enum locate_kind kind,
					  const char *name)
{
	struct locate_finding *f = array_push((void **)&r->findings, &r->n_findings, sizeof(*f));

	if (!f)
		return NULL;
	f->kind = kind;
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

/* The rule for @size hops of kind @kind (spreads @sp): the threshold and
 * the floor their sum's figure and low end must pass; false: none. */
static bool rule_of(const struct spread *sp, int kind, size_t size, const struct locate_opts *o,
		    int *used, double *thr, double *floor_ns)
{
	*used = sp[kind].n >= 3 ? kind : KIND_ALL;
	if (sp[*used].n < 3 && !o->excess)
		return false;	/* too few hops for a median and a spread */
	*thr = sp[*used].n >= 3 ? (double)size * sp[*used].med +
	       fmax(o->k_mad * NAME_MAD_SIGMA * sp[*used].mad * sqrt((double)size),
		    o->excess ? 0 : NAME_MIN_EXCESS * (double)size * sp[*used].med) : -INFINITY;
	*floor_ns = o->excess ? o->min_excess_ns : (double)size * sp[*used].med;
	return true;
}

/* What the rule compared, for a why: "above the median ... of N hops". */
static void rule_text(char *buf, size_t len, const struct spread *sp, int used,
		      const struct locate_opts *o)
{
	char fl[64] = "";

	if (o->excess)
		snprintf(fl, sizeof(fl), "; the floor %.0f ns", o->min_excess_ns);
	snprintf(buf, len, "the median %.0f ns + %g x 1.4826 MAD (%.0f ns%s) of %zu identifiable "
		 "%s%shops%s", sp[used].med, o->k_mad, sp[used].mad, o->excess ? "" :
		 ", 5 % at least", sp[used].n, kind_name[used], *kind_name[used] ? " " : "", fl);
}

/* The slow hops, one by one. */
static void name_hops(const struct topo *t, struct locate_result *r, const struct spread *sp,
		      const struct locate_opts *o)
{
	char rule[160];
	double thr, floor_ns;
	int used;

	for (size_t i = 0; i < r->n_hops; i++) {
		struct locate_hop *h = &r->hops[i];
		char own[sizeof(h->why)] = "";
		int kind = link_fabric(t, h->link) ? KIND_FABRIC : KIND_HOST;

		if (!h->identifiable || !rule_of(sp, kind, 1, o, &used, &thr, &floor_ns) ||
		    !(h->est_ns > thr) || !(h->ci_low_ns > floor_ns))
			continue;
		h->slow = true;
		if (strstr(h->why, "; holds "))
			snprintf(own, sizeof(own), "%s", strstr(h->why, "; holds "));
		rule_text(rule, sizeof(rule), sp, used, o);
		snprintf(h->why, sizeof(h->why), "%s%.0f ns [%.0f, %.0f] above %s%s",
			 o->excess ? "change " : "", h->est_ns, h->ci_low_ns, h->ci_high_ns, rule,
			 own);
	}
}

/* The switches all of whose identifiable links are slow: named, their
 * links left out of the hops named one by one (@covered). */
static int name_switches(const struct topo *t, struct locate_result *r, bool *covered)
{
	double *v = malloc((r->n_hops + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t s = 0; s < t->n_nodes; s++) {
		size_t n = 0, slow = 0, i, at = 0;
		struct locate_finding *f;

		if (!t->nodes[s].is_switch)
			continue;
		for (i = 0; i < r->n_hops; i++) {
			const struct locate_hop *h = &r->hops[i];

			if (!h->identifiable || (t->links[h->link].a != (int)s &&
						 t->links[h->link].b != (int)s))
				continue;
			v[n++] = h->est_ns;
			slow += h->slow;
		}
		if (n < 2 || slow < n)
			continue;
		f = finding_add(r, LOCATE_SWITCH, t->nodes[s].name);
		if (!f) {
			free(v);
			return -ENOMEM;
		}
		f->est_ns = order_median(v, n);
		f->ci_low_ns = v[0];
		f->ci_high_ns = v[n - 1];
		at = (size_t)snprintf(f->why, sizeof(f->why), "all its %zu identifiable links are "
				      "slow (from %.0f to %.0f ns): the switch, more likely than "
				      "each link:", n, v[0], v[n - 1]);
		for (i = 0; i < r->n_hops; i++) {
			const struct locate_hop *h = &r->hops[i];

			if (!h->identifiable || (t->links[h->link].a != (int)s &&
						 t->links[h->link].b != (int)s))
				continue;
			covered[i] = true;
			if (at < sizeof(f->why))
				at += (size_t)snprintf(f->why + at, sizeof(f->why) - at, " '%s'",
						       t->links[h->link].name);
		}
	}
	free(v);
	return 0;
}

/* The groups of two or more hops crossed by the same pairs whose sum is
 * known: each by its first hop, its size and kind. */
struct group_set {
	size_t n, *first, *size;
	int *kind;
};

static int groups_of(const struct topo *t, const struct locate_result *r, struct group_set *gs)
{
	gs->n = 0;
	gs->first = malloc((r->n_hops + 1) * sizeof(*gs->first));
	gs->size = malloc((r->n_hops + 1) * sizeof(*gs->size));
	gs->kind = malloc((r->n_hops + 1) * sizeof(*gs->kind));
	if (!gs->first || !gs->size || !gs->kind)
		return -ENOMEM;
	for (size_t i = 0, j; i < r->n_hops; i++) {
		size_t size = 0, fabric = 0;

		if (r->hops[i].identifiable || !isfinite(r->hops[i].group_est_ns))
			continue;
		for (j = 0; j < r->n_hops; j++)
			if (r->hops[j].group == r->hops[i].group) {
				if (j < i)
					break;	/* the group's first hop speaks for it */
				size++;
				fabric += link_fabric(t, r->hops[j].link);
			}
		if (j < r->n_hops || size < 2)
			continue;
		gs->first[gs->n] = i;
		gs->size[gs->n] = size;
		gs->kind[gs->n++] = fabric == size ? KIND_FABRIC : fabric ? KIND_ALL : KIND_HOST;
	}
	return 0;
}

/* Group @g's threshold and floor against its peers (the groups of its
 * kind and size), with the rule's words; false when it has too few. */
static bool peer_rule(const struct locate_result *r, const struct group_set *gs, size_t g,
		      const struct locate_opts *o, double *v, double *thr, double *floor_ns,
		      char *rule, size_t len)
{
	struct spread sp = { 0 };

	for (size_t h = 0; h < gs->n; h++)
		if (gs->size[h] == gs->size[g] && gs->kind[h] == gs->kind[g])
			v[sp.n++] = r->hops[gs->first[h]].group_est_ns;
	if (sp.n < 3)
		return false;
	sp.med = order_median(v, sp.n);
	for (size_t h = 0; h < sp.n; h++)
		v[h] = fabs(v[h] - sp.med);
	sp.mad = order_median(v, sp.n);
	*thr = sp.med + fmax(o->k_mad * NAME_MAD_SIGMA * sp.mad,
			     o->excess ? 0 : NAME_MIN_EXCESS * sp.med);
	*floor_ns = o->excess ? o->min_excess_ns : sp.med;
	snprintf(rule, len, "the median %.0f ns + %g x 1.4826 MAD (%.0f ns) of the sums of %zu "
		 "groups of %zu %s%shops", sp.med, o->k_mad, sp.mad, sp.n, gs->size[g],
		 kind_name[gs->kind[g]], *kind_name[gs->kind[g]] ? " " : "");
	return true;
}

/* The slow groups: hops crossed by the same pairs, whose sum is known. */
static int name_groups(const struct topo *t, struct locate_result *r, const struct spread *sp,
		       const struct locate_opts *o)
{
	struct group_set gs = { 0 };
	double *v = malloc((r->n_hops + 1) * sizeof(*v)), thr, floor_ns;
	char rule[300], each[200];
	int used, rc = v ? groups_of(t, r, &gs) : -ENOMEM;

	for (size_t g = 0; !rc && g < gs.n; g++) {
		const struct locate_hop *h = &r->hops[gs.first[g]];
		struct locate_finding *f;
		size_t at, j;

		if (!peer_rule(r, &gs, g, o, v, &thr, &floor_ns, rule, sizeof(rule))) {
			if (!rule_of(sp, gs.kind[g], gs.size[g], o, &used, &thr, &floor_ns))
				continue;
			rule_text(each, sizeof(each), sp, used, o);
			snprintf(rule, sizeof(rule), "%zu x %s", gs.size[g], each);
		} else if (o->excess) {
			snprintf(rule + strlen(rule), sizeof(rule) - strlen(rule), "; the floor %.0f ns",
				 o->min_excess_ns);
		}
		if (!(h->group_est_ns > thr) || !(h->group_ci_low_ns > floor_ns))
			continue;
		if (!(f = finding_add(r, LOCATE_GROUP, t->links[h->link].name))) {
			rc = -ENOMEM;
			break;
		}
		f->est_ns = h->group_est_ns;
		f->ci_low_ns = h->group_ci_low_ns;
		f->ci_high_ns = h->group_ci_high_ns;
		at = (size_t)snprintf(f->why, sizeof(f->why), "%zu hops crossed by the same pairs, "
				      "their sum %.0f ns [%.0f, %.0f] above %s; one or more of:",
				      gs.size[g], f->est_ns, f->ci_low_ns, f->ci_high_ns, rule);
		for (j = gs.first[g]; j < r->n_hops && at < sizeof(f->why); j++)
			if (r->hops[j].group == h->group)
				at += (size_t)snprintf(f->why + at, sizeof(f->why) - at, " '%s'",
						       t->links[r->hops[j].link].name);
	}
	free(v);
	free(gs.first);
	free(gs.size);
	free(gs.kind);
	return rc;
}

/* The verdict that the routes do not fit: the only finding. */
static int name_misfit(struct locate_result *r)
{
	struct locate_finding *f = finding_add(r, LOCATE_MISFIT, "routes");

	if (!f)
		return -ENOMEM;
	f->est_ns = r->residual_rms_ns;
	f->ci_low_ns = f->ci_high_ns = NAN;
	snprintf(f->why, sizeof(f->why), "routes do not fit the measurements: the residual, %.0f "
		 "ns RMS over %zu pairs, is more than 5 times the pairs' own spread (%.0f ns); no "
		 "hop is named: check the topology and the routes (--routes)", r->residual_rms_ns,
		 r->n_used, r->interval_sd_ns);
	return 0;
}

int locate_name(const struct topo *t, struct locate_result *r, const struct locate_opts *o)
{
	struct spread sp[N_KINDS];
	double *v = malloc((r->n_hops + 1) * sizeof(*v));
	bool *covered = calloc(r->n_hops + 1, sizeof(*covered));
	int rc = v && covered ? 0 : -ENOMEM;

	for (int k = 0; !rc && k < N_KINDS; k++)
		spread_of(t, r, k, v, &sp[k]);
	if (!rc && r->misfit)
		rc = name_misfit(r);
	else if (!rc)
		name_hops(t, r, sp, o);
	if (!rc && !r->misfit)
		rc = name_switches(t, r, covered);
	if (!rc && !r->misfit)
		rc = name_groups(t, r, sp, o);
	for (size_t i = 0; !rc && !r->misfit && i < r->n_hops; i++) {
		struct locate_finding *f;

		if (!r->hops[i].slow || covered[i])
			continue;
		if (!(f = finding_add(r, LOCATE_HOP, t->links[r->hops[i].link].name))) {
			rc = -ENOMEM;
			break;
		}
		f->est_ns = r->hops[i].est_ns;
		f->ci_low_ns = r->hops[i].ci_low_ns;
		f->ci_high_ns = r->hops[i].ci_high_ns;
		snprintf(f->why, sizeof(f->why), "%s", r->hops[i].why);
	}
	free(v);
	free(covered);
	return rc;
}
