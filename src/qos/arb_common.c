/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the arbitration models share (see arb_common.h): apart from the
 * dispatcher in arb.c so that the models call down into it and never
 * back up into the file that calls them.
 *
 * Offered loads are honoured by water-filling at two levels: a group
 * (ETS band) that asks less than its share gets what it asks and the
 * model splits what is left between the groups still backlogged; a
 * group's rate is then split between its flows, served one packet each
 * in turn (max-min fair). A light flow in a group with a saturating one
 * leaves its group's share unchanged: the group is backlogged.
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

/* What each group asks for: its flows' loads, or < 0 when one saturates. */
static void wf_group_demand(const struct arb_wf *wf, double demand[ARB_MAX_BANDS],
			    uint16_t *offered)
{
	int f, g;

	memset(demand, 0, sizeof(double) * ARB_MAX_BANDS);
	*offered = 0;
	for (f = 0; f < wf->n_flows; f++) {
		if (!wf_offers(wf, f))
			continue;
		g = wf->group[f];
		*offered |= 1u << g;
		if (wf->load_gbps[f] < 0 || demand[g] < 0)
			demand[g] = -1;
		else
			demand[g] += wf->load_gbps[f];
	}
}

/*
 * The groups' rates: a group asking less than its share of what is left
 * gets what it asks; the rest split what is left by wf->shares().
 */
static void wf_groups(const struct arb_wf *wf, double link_gbps,
		      double group_gbps[ARB_MAX_BANDS])
{
	double demand[ARB_MAX_BANDS], share[ARB_MAX_BANDS], left = link_gbps;
	uint16_t open;
	bool capped = true;
	int g;

	memset(group_gbps, 0, sizeof(double) * ARB_MAX_BANDS);
	wf_group_demand(wf, demand, &open);
	while (open && capped) {
		wf->shares(wf->ctx, open, share);
		capped = false;
		for (g = 0; g < ARB_MAX_BANDS; g++) {
			if (!(open & (1u << g)) || demand[g] < 0 ||
			    demand[g] >= left * share[g])
				continue;
			group_gbps[g] = demand[g];
			left -= demand[g];
			open &= ~(1u << g);
			capped = true;
		}
	}
	if (!open)
		return;
	wf->shares(wf->ctx, open, share);
	for (g = 0; g < ARB_MAX_BANDS; g++)
		if (open & (1u << g))
			group_gbps[g] = left * share[g];
}

/*
 * Split group @g's rate between its flows, served one packet each in
 * turn: a flow asking less than an equal part gets what it asks.
 */
static void wf_members(const struct arb_wf *wf, int g, double gbps,
		       double rate_gbps[ARB_MAX_FLOWS])
{
	bool open[ARB_MAX_FLOWS];
	bool capped = true;
	int f, n = 0;

	for (f = 0; f < wf->n_flows; f++) {
		open[f] = wf_offers(wf, f) && wf->group[f] == g;
		n += open[f];
	}
	while (n && capped) {
		capped = false;
		for (f = 0; f < wf->n_flows; f++) {
			if (!open[f] || wf->load_gbps[f] < 0 ||
			    wf->load_gbps[f] >= gbps / n)
				continue;
			rate_gbps[f] = wf->load_gbps[f];
			gbps -= wf->load_gbps[f];
			open[f] = false;
			n--;
			capped = true;
		}
	}
	for (f = 0; f < wf->n_flows; f++)
		if (open[f])
			rate_gbps[f] = gbps / n;
}

void arb_common_waterfill(const struct arb_wf *wf, double link_gbps,
			  double rate_gbps[ARB_MAX_FLOWS])
{
	double group_gbps[ARB_MAX_BANDS];
	int f, g;

	for (f = 0; f < wf->n_flows; f++)
		rate_gbps[f] = 0;
	wf_groups(wf, link_gbps, group_gbps);
	for (g = 0; g < ARB_MAX_BANDS; g++)
		if (group_gbps[g] > 0)
			wf_members(wf, g, group_gbps[g], rate_gbps);
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
