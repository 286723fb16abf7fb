/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The scenario's criteria judged on a step (coord.h's coord_judge):
 * apart from coord_results.c, which makes the figures they are judged on.
 */
#include <math.h>
#include <stdio.h>

#include "coord/coord.h"
#include "flow/figures.h"

/* The class a step's flow @i belongs to. */
static const struct converge_class *coord_flow_class(const struct converge_step *st, size_t i)
{
	size_t j;

	for (j = 0; j < st->n_classes; j++)
		if (st->classes[j].key == st->flows[i].class_key &&
		    st->classes[j].port == st->flows[i].port)
			return &st->classes[j];
	return NULL;
}

/* Add and judge one criterion when its @limit is set; the criterion, or NULL. */
static struct criterion *coord_judge_one(struct criteria *cs, const char *name,
					 enum criterion_kind kind, const char *unit, double limit,
					 const char *scope, bool measured, double value)
{
	struct criterion *cr;

	if (limit <= 0)
		return NULL;
	cr = criteria_add(cs, name, kind, unit, limit, scope);
	if (cr)
		criterion_judge(cr, measured, value);
	return cr;
}

/* A latency criterion on class @k's RTT percentile @pct (us): unresolved or
 * under-sampled, it cannot be judged and fails. */
static void coord_judge_rtt(struct criteria *cs, const char *name, double limit_us,
			    const char *scope, const struct converge_class *k, double pct)
{
	struct criterion *cr;
	struct hist_quantile q;
	char figure[16];

	cr = coord_judge_one(cs, name, CRITERION_MAX, "us", limit_us, scope, false, 0);
	if (!cr || !k || !k->lat_ns || !hist_count(k->lat_ns))
		return;
	hist_quantile(k->lat_ns, pct, hist_zeros(k->lat_ns), &q);
	snprintf(figure, sizeof(figure), "p%g", pct);
	criterion_judge_quantile(cr, figure, &q, (double)q.value / 1e3, (double)q.hi / 1e3);
}

/*
 * The scenario's criteria on every flow that ran in the step: latency
 * and shares are its class's, the rate its own at the destination.
 */
void coord_judge(const struct coord *c, struct converge_step *st)
{
	const struct scenario_flow *f;
	const struct converge_class *k;
	struct criteria *cs = &st->criteria;
	char scope[64];
	struct criterion *cr;
	size_t i;

	cs->n = 0;
	for (i = 0; !st->baseline && i < st->n_flows; i++) {
		f = &c->sc.flows[i];
		if (!st->flows[i].ran)
			continue;
		k = coord_flow_class(st, i);
		snprintf(scope, sizeof(scope), "flow %.30s, %s %d", f->name,
			 c->cfg.kind == ARB_KIND_ETS ? "band" : "SL", st->flows[i].class_key);
		coord_judge_rtt(cs, "max_p99", f->max_p99_us, scope, k, 99);
		coord_judge_rtt(cs, "max_p99_9", f->max_p99_9_us, scope, k, 99.9);
		coord_judge_one(cs, "min_gbps", CRITERION_MIN, "gbps", f->min_gbps, scope,
				st->window_s > 0, st->flows[i].gbps);
		coord_judge_one(cs, "min_share", CRITERION_MIN, "pct", f->min_share_pct, scope,
				k && st->window_s > 0, k ? k->share_pct : 0);
		coord_judge_one(cs, "max_share_diff", CRITERION_MAX, "pp", f->max_share_diff_pp,
				scope, k && k->has_analyzed && st->ports[k->port].compared,
				k ? fabs(k->diff_pp) : 0);
		cr = coord_judge_one(cs, "max_impact_p99", CRITERION_MAX, "ratio",
				     f->max_impact_p99, scope, k && k->has_impact &&
				     !k->impact_why[1], k ? k->impact_p99 : 0);
		if (cr && k && k->has_impact && k->impact_why[1])
			snprintf(cr->unjudged, sizeof(cr->unjudged), "the p99 impact has no "
				 "figure: p99 %s", k->impact_why[1]);
	}
}
