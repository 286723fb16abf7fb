/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A step's verdicts: a share's interval and its verdict against the analysis (step.h). */
#include <math.h>

#include "coord/step.h"

const char *converge_verdict_name(enum converge_verdict v)
{
	return v == CONVERGE_WITHIN ? "within" : v == CONVERGE_OUT ? "out" : "inconclusive";
}

enum converge_verdict converge_judge(bool has_ci, double lo_pct, double hi_pct,
				     double analyzed_pct, double tol_pp)
{
	if (!has_ci)
		return CONVERGE_INCONCLUSIVE;
	if (lo_pct >= analyzed_pct - tol_pp && hi_pct <= analyzed_pct + tol_pp)
		return CONVERGE_WITHIN;
	if (hi_pct < analyzed_pct - tol_pp || lo_pct > analyzed_pct + tol_pp)
		return CONVERGE_OUT;
	return CONVERGE_INCONCLUSIVE;
}

enum converge_verdict converge_worse(enum converge_verdict a, enum converge_verdict b)
{
	if (a == CONVERGE_OUT || b == CONVERGE_OUT)
		return CONVERGE_OUT;
	if (a == CONVERGE_INCONCLUSIVE || b == CONVERGE_INCONCLUSIVE)
		return CONVERGE_INCONCLUSIVE;
	return CONVERGE_WITHIN;
}

double converge_resolve_s(double lo_pct, double hi_pct, double analyzed_pct, double tol_pp,
			  double window_s)
{
	double half = (hi_pct - lo_pct) / 2, margin;

	margin = fabs(fabs((hi_pct + lo_pct) / 2 - analyzed_pct) - tol_pp);
	if (half <= 0 || margin < half / CONVERGE_RESOLVE_MAX_X)
		return 0;
	return ceil(window_s * (half / margin) * (half / margin));
}

void converge_step_judged(struct converge_step *st, bool analyzed)
{
	unsigned saturating[CONVERGE_MAX_PORTS] = { 0 };
	struct converge_class *k;
	size_t i;

	for (i = 0; i < st->n_classes; i++)
		saturating[st->classes[i].port] += st->classes[i].saturating;
	st->judged = false;
	for (i = 0; i < st->n_ports; i++)
		st->ports[i].judged = false;
	for (i = 0; i < st->n_classes; i++) {
		k = &st->classes[i];
		k->unjudged_why = !analyzed ? "no analysis to compare with" :
				  !st->ports[k->port].compared ? "nothing saturates its port" :
				  !k->has_analyzed ? "no analyzed share" :
				  !k->saturating ? "analyzed at its own measured rate" :
				  saturating[k->port] < 2 ? "the only saturating class: it gets "
							    "what the others leave" : NULL;
		k->judged = !k->unjudged_why;
		k->resolve_window_s = 0;
		if (st->ports[k->port].compared && k->has_analyzed &&
		    k->verdict == CONVERGE_INCONCLUSIVE && k->has_ci)
			k->resolve_window_s = converge_resolve_s(k->ci_low_pct, k->ci_high_pct,
								 k->analyzed_pct, st->tolerance_pp,
								 st->ports[k->port].window_s);
		st->ports[k->port].judged = st->ports[k->port].judged || k->judged;
		st->judged = st->judged || k->judged;
	}
}

enum converge_verdict converge_run_verdict(const struct converge_step *steps, size_t n,
					   bool analyzed, bool *judged)
{
	enum converge_verdict v = CONVERGE_WITHIN;
	size_t i;

	*judged = !analyzed;
	for (i = 0; i < n; i++) {
		v = converge_worse(v, steps[i].verdict);
		*judged = *judged || steps[i].judged || steps[i].criteria.n > 0;
	}
	return *judged ? v : converge_worse(v, CONVERGE_INCONCLUSIVE);
}

/* Student's t at 0.975 (a two-sided 95 % interval) for @df degrees of freedom. */
static double t975(unsigned df)
{
	static const double t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
				    2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
				    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
				    2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };

	return df < sizeof(t) / sizeof(t[0]) ? t[df] : 1.96;
}

/*
 * Sum over k = 1 .. n - 1 of (1 - k / n) rho^k: what the autocorrelations
 * of an AR(1) series with lag-1 correlation @rho add to the variance of
 * its mean, in units of the variance over n (halved).
 */
static double ar1_lag_sum(double rho, unsigned n)
{
	double a = 0, r = 1;
	unsigned k;

	for (k = 1; k < n; k++) {
		r *= rho;
		a += (1 - (double)k / n) * r;
	}
	return a;
}

bool converge_share_ci(const double *pct, unsigned n, double *lo_pct, double *hi_pct,
		       double *rho_out)
{
	double mean = 0, ss = 0, c1 = 0, r1, rho, a, inflate, half, n_eff;
	unsigned i;

	*rho_out = 0;
	if (n < CONVERGE_CI_MIN_N)
		return false;
	for (i = 0; i < n; i++)
		mean += pct[i];
	mean /= n;
	for (i = 0; i < n; i++)
		ss += (pct[i] - mean) * (pct[i] - mean);
	for (i = 0; i + 1 < n; i++)
		c1 += (pct[i] - mean) * (pct[i + 1] - mean);
	/* Shares equal but for rounding have no correlation to speak of. */
	r1 = ss > n * 1e-12 ? c1 / ss : 0;
	/* The lag-1 estimate is biased low by about (1 + 4 rho) / n. */
	rho = fmin(1, fmax(0, (n * r1 + 1) / (n - 4.0)));
	*rho_out = rho;
	/* Its one-sided upper bound (its standard error about 1 / sqrt(n)). */
	rho = fmin(1, rho + CONVERGE_RHO_Z / sqrt(n));
	if (rho >= CONVERGE_RHO_REFUSE)
		return false;
	/*
	 * Under AR(1): Var(mean) = sigma^2 (1 + 2a) / n and
	 * E[s^2] = sigma^2 (1 - 2a / (n - 1)).
	 */
	a = ar1_lag_sum(rho, n);
	inflate = (1 + 2 * a) / (1 - 2 * a / (n - 1));
	n_eff = n * (1 - rho) / (1 + rho);
	if (n_eff < 2)
		return false;
	half = t975((unsigned)n_eff - 1) * sqrt(ss / (n - 1) * inflate / n);
	*lo_pct = fmax(0, mean - half);
	*hi_pct = fmin(100, mean + half);
	return true;
}
