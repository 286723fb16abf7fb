/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Pass/fail criteria: a measured figure held against a limit the user
 * set (a p99 at most so many microseconds, a rate at least so many Gb/s).
 * One list per run, judged after it; exit status 3 when any fails. The
 * commands fill and judge it; the report formats it.
 */
#ifndef RPERF_CRITERIA_H
#define RPERF_CRITERIA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/clock.h"
#include "base/hist.h"

#define CRITERIA_MAX		64

enum criterion_kind {
	CRITERION_MAX,			/* the figure must not exceed the limit */
	CRITERION_MIN,			/* the figure must reach the limit */
};

struct criterion {
	char name[24];			/* "max_p99", as the option or key says */
	enum criterion_kind kind;
	const char *unit;		/* "us", "gbps", "pct", "pp" */
	double limit;			/* in @unit */
	char scope[64];			/* what was measured: "size 64", "class ef" */
	bool measured;			/* false: no figure (no sample, no result) */
	double value;			/* in @unit */
	bool passed;			/* a criterion without a figure fails */
	/* Why the figure cannot be judged ("p50 is unresolved: ..."); empty
	 * when it was judged. Such a criterion fails, never passes. */
	char unjudged[160];
};

struct criteria {
	int n;
	struct criterion c[CRITERIA_MAX];
};

/* Append a criterion not yet judged; NULL when the list is full. */
struct criterion *criteria_add(struct criteria *cs, const char *name,
			       enum criterion_kind kind, const char *unit, double limit,
			       const char *scope);

/* Judge @c on @value (@measured false: there is none, and it fails). */
void criterion_judge(struct criterion *c, bool measured, double value);

/*
 * Judge @c on a percentile of which hist_quantile() said @q, @value
 * and @hi_value being q->value and q->hi in @c's unit: judged when
 * resolved; otherwise it cannot be judged, says why (@name: "p50"), and
 * fails. A lower bound (q->lower_bound) is judged at its conservative
 * end: a maximum on @hi_value, the interval's high end, and not at all
 * when that end is open.
 */
void criterion_judge_quantile(struct criterion *c, const char *name,
			      const struct hist_quantile *q, double value, double hi_value);

/*
 * Judge @c (in us) on percentile @pct of @rtt (ticks of @clk), whose
 * unresolved samples are its zeros: a percentile that is unresolved or
 * that the count cannot support cannot be judged, and fails.
 */
void criterion_judge_rtt(struct criterion *c, const struct hist *rtt, double pct,
			 const struct clock_cal *clk);

/* How many criteria failed. */
int criteria_failed(const struct criteria *cs);

#endif
