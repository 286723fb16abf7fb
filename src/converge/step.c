/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A step's verdicts: a share's interval and its verdict against the analysis (step.h). */
#include <math.h>

#include "converge/step.h"

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

/* Student's t at 0.975 (a two-sided 95 % interval) for @df degrees of freedom. */
static double t975(unsigned df)
{
	static const double t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
				    2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
				    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
				    2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };

	return df < sizeof(t) / sizeof(t[0]) ? t[df] : 1.96;
}

bool converge_share_ci(const double *pct, unsigned n, double *lo_pct, double *hi_pct)
{
	double mean = 0, ss = 0, half;
	unsigned i;

	if (n < 2)
		return false;
	for (i = 0; i < n; i++)
		mean += pct[i];
	mean /= n;
	for (i = 0; i < n; i++)
		ss += (pct[i] - mean) * (pct[i] - mean);
	half = t975(n - 1) * sqrt(ss / (n - 1)) / sqrt(n);
	*lo_pct = fmax(0, mean - half);
	*hi_pct = fmin(100, mean + half);
	return true;
}
