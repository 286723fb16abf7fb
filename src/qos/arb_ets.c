/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The ETS model (802.1Qaz, Linux tc-ets): strict bands first, then deficit
 * round robin over quanta; which band a priority or DSCP lands in; and the
 * analysis of an ETS configuration. Apart from the InfiniBand models
 * because it shares nothing with their arbiter but the water-filling.
 */
#include <errno.h>
#include <string.h>

#include "qos/arb_common.h"
#include "qos/arb_ets.h"

/* ------------------------------------------------------------------ */
/* ETS                                                                 */
/* ------------------------------------------------------------------ */

void arb_ets_shares(const struct arb_config *cfg, uint16_t backlogged,
		    double share[ARB_MAX_BANDS])
{
	double quanta = 0;
	int b;

	memset(share, 0, sizeof(double) * ARB_MAX_BANDS);
	for (b = 0; b < cfg->n_bands; b++) {
		if (!(backlogged & (1u << b)))
			continue;
		if (cfg->bands[b].strict) {
			share[b] = 1.0;
			return;
		}
		quanta += cfg->bands[b].quantum_bytes;
	}
	if (quanta <= 0)
		return;
	for (b = 0; b < cfg->n_bands; b++)
		if ((backlogged & (1u << b)) && !cfg->bands[b].strict)
			share[b] = cfg->bands[b].quantum_bytes / quanta;
}

int arb_ets_prio_band(const struct arb_config *cfg, int prio)
{
	if (prio < 0 || prio >= ARB_NUM_PRIOS)
		return -EINVAL;
	return cfg->prio_band[prio] >= 0 ? cfg->prio_band[prio] : cfg->default_band;
}

int arb_ets_dscp_band(const struct arb_config *cfg, int dscp)
{
	if (dscp < 0 || dscp >= ARB_NUM_DSCPS)
		return -EINVAL;
	return cfg->dscp_band[dscp] >= 0 ? cfg->dscp_band[dscp] : cfg->default_band;
}

int arb_ets_dscp_share(const struct arb_config *cfg,
		       const struct arb_result *res, int dscp,
		       int *band, double *share_pct)
{
	int b = arb_ets_dscp_band(cfg, dscp);

	if (b < 0 || res->kind != ARB_KIND_ETS || b >= res->n_vls)
		return -EINVAL;
	*band = b;
	*share_pct = res->vls[b].share_pct;
	return 0;
}

/* ------------------------------------------------------------------ */
/* ETS analysis                                                        */
/* ------------------------------------------------------------------ */

static void arb_ets_shares_cb(void *ctx, uint16_t bands, double share[ARB_MAX_BANDS])
{
	arb_ets_shares(ctx, bands, share);
}

static bool arb_params_saturate(const struct arb_params *params)
{
	int i;

	for (i = 0; i < ARB_NUM_PRIOS; i++)
		if (params->load_gbps[i] >= 0)
			return false;
	for (i = 0; i < ARB_MAX_BANDS; i++)
		if (params->band_load_set[i])
			return false;
	return true;
}

static bool arb_band_has_prio(const struct arb_config *cfg, int band)
{
	int p;

	for (p = 0; p < ARB_NUM_PRIOS; p++)
		if (arb_ets_prio_band(cfg, p) == band)
			return true;
	return false;
}

static bool arb_band_has_dscp(const struct arb_config *cfg, int band)
{
	int d;

	for (d = 0; d < ARB_NUM_DSCPS; d++)
		if (cfg->dscp_band[d] == band)
			return true;
	return false;
}

/*
 * Flows 0-7 are the priorities; flow 8 + b stands for traffic classified
 * into band b by DSCP alone: saturating by default when no priority
 * reaches the band, or as given with a band load.
 */
static void arb_ets_flows(const struct arb_config *cfg,
			  const struct arb_params *params, struct arb_wf *wf)
{
	bool saturate = arb_params_saturate(params);
	int p, b, f;

	wf->n_flows = ARB_NUM_PRIOS + cfg->n_bands;
	for (p = 0; p < ARB_NUM_PRIOS; p++) {
		wf->group[p] = arb_ets_prio_band(cfg, p);
		wf->load_gbps[p] = params->load_gbps[p];
	}
	for (b = 0; b < cfg->n_bands; b++) {
		f = ARB_NUM_PRIOS + b;
		wf->group[f] = b;
		if (params->band_load_set[b])
			wf->load_gbps[f] = params->band_load_gbps[b];
		else if (saturate && arb_band_has_dscp(cfg, b) &&
			 !arb_band_has_prio(cfg, b))
			wf->load_gbps[f] = -1.0;
		else
			wf->load_gbps[f] = 0;
	}
}

/* A strict band is served at once; DRR bands wait for the others' turns. */
static void arb_ets_distances(struct arb_result *res)
{
	struct arb_vl_result *v;
	int b, drr = 0;

	for (b = 0; b < res->n_vls; b++)
		if (res->vls[b].gbps > 0 && !res->vls[b].strict)
			drr++;
	for (b = 0; b < res->n_vls; b++) {
		v = &res->vls[b];
		v->has_distance = v->gbps > 0;
		v->mean_distance = v->has_distance ? (v->strict ? 1 : drr) : 0;
		v->max_distance = v->mean_distance;
	}
}

static void arb_ets_fill(const struct arb_config *cfg,
			 const struct arb_params *params, const struct arb_wf *wf,
			 const double *rate_gbps, struct arb_result *res)
{
	struct arb_sl_result *r;
	struct arb_vl_result *v;
	int f, b;

	res->n_sls = ARB_NUM_PRIOS;
	res->n_vls = cfg->n_bands;
	for (b = 0; b < cfg->n_bands; b++) {
		res->vls[b].vl = b;
		res->vls[b].strict = cfg->bands[b].strict;
		res->vls[b].quantum_bytes = cfg->bands[b].quantum_bytes;
	}
	for (f = 0; f < wf->n_flows; f++) {
		v = &res->vls[wf->group[f]];
		v->gbps += rate_gbps[f];
		v->share_pct += 100.0 * rate_gbps[f] / params->link_gbps;
	}
	arb_ets_distances(res);
	for (f = 0; f < ARB_NUM_PRIOS; f++) {
		r = arb_common_fill_sl(res, params, f, wf->group[f], rate_gbps[f]);
		r->has_distance = r->gbps > 0;
		r->mean_distance = res->vls[r->vl].mean_distance;
		r->max_distance = res->vls[r->vl].max_distance;
	}
}

static void arb_ets_warnings(const struct arb_config *cfg, const struct arb_wf *wf,
			     struct arb_result *res)
{
	int f, b;

	for (f = 0; f < wf->n_flows; f++) {
		b = wf->group[f];
		if (wf->load_gbps[f] >= 0 || !cfg->bands[b].strict ||
		    b == cfg->n_bands - 1)
			continue;
		arb_common_warn(res, "ets-strict-starves",
				"band %d is strict and saturating: the bands after "
				"it get nothing (give its load with --load)", b);
		return;
	}
}

int arb_ets_analyze(const struct arb_config *cfg,
		    const struct arb_params *params, struct arb_result *res)
{
	struct arb_wf wf = { .shares = arb_ets_shares_cb, .ctx = (void *)cfg };
	double rate_gbps[ARB_MAX_FLOWS];

	if (cfg->n_bands < 1 || cfg->default_band < 0 ||
	    cfg->default_band >= cfg->n_bands)
		return -EINVAL;
	arb_ets_flows(cfg, params, &wf);
	arb_common_waterfill(&wf, params->link_gbps, rate_gbps);
	arb_ets_fill(cfg, params, &wf, rate_gbps, res);
	arb_ets_warnings(cfg, &wf, res);
	return 0;
}

