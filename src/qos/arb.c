/*
 * Arbitration models (see arb.h for the contract): what every model
 * shares, and the entry point that picks one. The InfiniBand models are
 * in arb_ib.c, ETS in arb_ets.c.
 *
 * Offered loads are honoured by water-filling: flows that offer less than
 * their share are capped at their load, and the model is run again on the
 * flows that are still backlogged to split what is left.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "qos/arb_int.h"

static const char *const arb_model_names[] = {
	[ARB_MODEL_IB_FLUID] = "ib-fluid",
	[ARB_MODEL_IB_PACKET] = "ib-packet",
	[ARB_MODEL_ETS] = "ets",
};

void arb_config_init(struct arb_config *cfg, enum arb_kind kind)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = kind;
	for (i = 0; i < ARB_NUM_SLS; i++)
		cfg->sl2vl[i] = i;
	memset(cfg->dscp_band, -1, sizeof(cfg->dscp_band));
	memset(cfg->prio_band, -1, sizeof(cfg->prio_band));
	cfg->default_band = -1;
}

void arb_params_init(struct arb_params *params)
{
	int i;

	memset(params, 0, sizeof(*params));
	params->model = ARB_MODEL_IB_FLUID;
	params->runs = ARB_DEFAULT_RUNS;
	params->link_gbps = ARB_DEFAULT_LINK_GBPS;
	for (i = 0; i < ARB_NUM_SLS; i++) {
		params->load_gbps[i] = -1.0;
		params->packet_bytes[i] = ARB_DEFAULT_PACKET_BYTES;
	}
}

const char *arb_model_name(enum arb_model model)
{
	if ((unsigned)model >= sizeof(arb_model_names) / sizeof(arb_model_names[0]))
		return "unknown";
	return arb_model_names[model];
}

int arb_model_parse(const char *name, enum arb_model *model)
{
	unsigned i;

	for (i = 0; i < sizeof(arb_model_names) / sizeof(arb_model_names[0]); i++) {
		if (!strcmp(name, arb_model_names[i])) {
			*model = i;
			return 0;
		}
	}
	return -EINVAL;
}

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

void arb_waterfill(const struct arb_wf *wf, double link_gbps,
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

void __attribute__((format(printf, 2, 3)))
arb_warn(struct arb_result *res, const char *fmt, ...)
{
	va_list ap;

	if (res->n_warnings >= ARB_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(res->warnings[res->n_warnings++], ARB_WARNING_LEN, fmt, ap);
	va_end(ap);
}

struct arb_sl_result *arb_fill_sl(struct arb_result *res,
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

static void arb_result_init(struct arb_result *res, const struct arb_config *cfg,
			    const struct arb_params *params)
{
	memset(res, 0, sizeof(*res));
	res->kind = cfg->kind;
	res->model = params->model;
	res->runs = params->runs;
	res->limit = cfg->limit;
	res->link_gbps = params->link_gbps;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

static int arb_params_check(const struct arb_params *params)
{
	int i;

	if (params->runs < 1 || params->link_gbps <= 0)
		return -EINVAL;
	for (i = 0; i < ARB_NUM_SLS; i++)
		if (params->packet_bytes[i] < 1)
			return -EINVAL;
	return 0;
}

int arb_analyze(const struct arb_config *cfg, const struct arb_params *params,
		struct arb_result *res)
{
	int err = arb_params_check(params);

	if (err)
		return err;
	arb_result_init(res, cfg, params);
	if (cfg->kind == ARB_KIND_ETS)
		return arb_analyze_ets(cfg, params, res);
	return arb_analyze_ib(cfg, params, res);
}
