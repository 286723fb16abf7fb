/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the arbitration models share (see arb_common.h): apart from the
 * dispatcher in arb.c so that the models call down into it and never
 * back up into the file that calls them.
 *
 * Offered loads are honoured by water-filling: flows that offer less than
 * their share are capped at their load, and the model is run again on the
 * flows that are still backlogged to split what is left.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "qos/arb_common.h"

/* ------------------------------------------------------------------ */
/* Water-filling                                                       */
/* ------------------------------------------------------------------ */

static bool wf_offers(const struct arb_wf *wf, int f)
{
	return wf->group[f] >= 0 && wf->load_gbps[f] != 0;
}

/* Tentative rate of every still-backlogged flow; returns how many. */
static int wf_fair_rates(const struct arb_wf *wf, const bool *open,
			 double capacity_gbps, double *fair_gbps)
{
	double share[ARB_MAX_BANDS];
	int members[ARB_MAX_BANDS] = { 0 };
	uint16_t groups = 0;
	int f, n = 0;

	for (f = 0; f < wf->n_flows; f++) {
		if (!open[f])
			continue;
		groups |= 1u << wf->group[f];
		members[wf->group[f]]++;
		n++;
	}
	if (!n)
		return 0;
	wf->shares(wf->ctx, groups, share);
	for (f = 0; f < wf->n_flows; f++)
		if (open[f])
			fair_gbps[f] = capacity_gbps * share[wf->group[f]] /
				       members[wf->group[f]];
	return n;
}

void arb_common_waterfill(const struct arb_wf *wf, double link_gbps,
			  double rate_gbps[ARB_MAX_FLOWS])
{
	double fair_gbps[ARB_MAX_FLOWS];
	bool open[ARB_MAX_FLOWS];
	double capacity_gbps = link_gbps;
	bool capped;
	int f;

	for (f = 0; f < wf->n_flows; f++) {
		open[f] = wf_offers(wf, f);
		rate_gbps[f] = 0;
	}
	while (wf_fair_rates(wf, open, capacity_gbps, fair_gbps)) {
		capped = false;
		for (f = 0; f < wf->n_flows; f++) {
			if (!open[f] || wf->load_gbps[f] < 0 ||
			    wf->load_gbps[f] >= fair_gbps[f])
				continue;
			rate_gbps[f] = wf->load_gbps[f];
			capacity_gbps -= wf->load_gbps[f];
			open[f] = false;
			capped = true;
		}
		if (capped)
			continue;
		for (f = 0; f < wf->n_flows; f++)
			if (open[f])
				rate_gbps[f] = fair_gbps[f];
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Results and warnings                                                */
/* ------------------------------------------------------------------ */

void __attribute__((format(printf, 3, 4)))
arb_common_warn(struct arb_result *res, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (res->n_warnings >= ARB_MAX_WARNINGS)
		return;
	snprintf(res->warning_codes[res->n_warnings], ARB_WARNING_CODE_LEN, "%s", code);
	va_start(ap, fmt);
	vsnprintf(res->warnings[res->n_warnings++], ARB_WARNING_LEN, fmt, ap);
	va_end(ap);
}

struct arb_sl_result *arb_common_fill_sl(struct arb_result *res,
					 const struct arb_params *params,
					 int sl, int vl, double rate_gbps)
{
	struct arb_sl_result *r = &res->sls[sl];

	r->sl = sl;
	r->vl = vl;
	r->offered_gbps = params->load_gbps[sl];
	r->gbps = rate_gbps;
	r->share_pct = 100.0 * rate_gbps / params->link_gbps;
	return r;
}
