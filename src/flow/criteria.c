/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Pass/fail criteria (see criteria.h). A figure that was not measured
 * fails its criterion: a CI check must not pass because nothing ran.
 */
#include <stdio.h>
#include <string.h>

#include "flow/criteria.h"
#include "flow/figures.h"

struct criterion *criteria_add(struct criteria *cs, const char *name,
			       enum criterion_kind kind, const char *unit, double limit,
			       const char *scope)
{
	struct criterion *c;

	if (cs->n == CRITERIA_MAX)
		return NULL;
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->scope, sizeof(c->scope), "%s", scope ? scope : "");
	c->kind = kind;
	c->unit = unit;
	c->limit = limit;
	return c;
}

void criterion_judge(struct criterion *c, bool measured, double value)
{
	c->measured = measured;
	c->unjudged[0] = '\0';
	c->value = measured ? value : 0;
	c->passed = measured && (c->kind == CRITERION_MAX ? value <= c->limit :
				 value >= c->limit);
}

void criterion_judge_quantile(struct criterion *c, const char *name,
			      const struct hist_quantile *q, double value, double hi_value)
{
	bool upper = q->lower_bound && c->kind == CRITERION_MAX;
	bool open = upper && !q->hi;	/* hist_quantile leaves an open end at 0 */

	criterion_judge(c, q->state == HIST_Q_RESOLVED && !open, upper ? hi_value : value);
	if (q->state == HIST_Q_UNRESOLVED)
		snprintf(c->unjudged, sizeof(c->unjudged), "%s is unresolved (its rank falls "
			 "among the samples whose RTT is not above 0)", name);
	else if (q->state == HIST_Q_TOO_FEW)
		snprintf(c->unjudged, sizeof(c->unjudged), "%s needs %llu samples", name,
			 (unsigned long long)q->needed);
	else if (open)
		snprintf(c->unjudged, sizeof(c->unjudged), "%s is a lower bound (samples whose "
			 "RTT is not above 0 could lie above it) and its interval has no high "
			 "end", name);
}

int criteria_failed(const struct criteria *cs)
{
	int i, n = 0;

	for (i = 0; i < cs->n; i++)
		n += !cs->c[i].passed;
	return n;
}

void criterion_judge_rtt(struct criterion *c, const struct hist *rtt, double pct,
			 const struct clock_cal *clk)
{
	struct hist_quantile q;
	char name[16];

	hist_quantile(rtt, pct, hist_zeros(rtt), &q);
	snprintf(name, sizeof(name), "p%g", pct);
	criterion_judge_quantile(c, name, &q, figures_ns(clk, q.value) / 1e3,
				 figures_ns(clk, q.hi) / 1e3);
}
