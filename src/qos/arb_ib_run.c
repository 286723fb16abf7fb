/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Running the packet arbiter for one InfiniBand analysis (arb_ib.c): the
 * work budget the runs share, the arbiter's spec from a configuration
 * and a model, the backlogged runs water-filled over the SLs' loads, the
 * loaded runs over every phase draw, the distances of each served queue,
 * and the per-SL and per-VL rows filled from the rates. It reads one
 * semantics at a time; comparing semantics is arb_ib.c's.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "qos/arb_common.h"
#include "qos/arb_ib_run.h"

uint64_t arb_budget_run(const struct arb_budget *b)
{
	uint64_t w = b->left < ARB_IB_RUN_WORK ? b->left : ARB_IB_RUN_WORK;

	return w > ARB_IB_MIN_WORK ? w : ARB_IB_MIN_WORK;
}

void arb_budget_spend(struct arb_budget *b, const struct arb_sim_out *out)
{
	b->left = out->work < b->left ? b->left - out->work : 0;
	b->runs++;
	b->cut += !out->exact;
}
/*
 * The reading @model fixes over *sem: ib-fluid's (no carry, a low turn
 * of one entry, limit 0 in bytes) or DTable's (carry); returns whether
 * a visit sends only what its credit covers (DTable).
 */
static bool arb_ib_model_sem(enum arb_model model, struct arb_semantics *sem)
{
	if (model == ARB_MODEL_IB_FLUID) {
		sem->carry = false;
		sem->low_turn = ARB_LOW_ENTRY;
		sem->limit0 = ARB_LIMIT0_BYTES;
	} else if (model == ARB_MODEL_DTABLE) {
		sem->carry = true;
		return true;
	}
	return false;
}

void arb_ib_spec(const struct arb_ib_ctx *ctx, uint16_t queues,
		 struct arb_sim_spec *spec)
{
	enum arb_model model = ctx->params->model;
	int q;

	memset(spec, 0, sizeof(*spec));
	spec->high = &ctx->cfg->high;
	spec->low = model == ARB_MODEL_DTABLE ? NULL : &ctx->cfg->low;
	spec->limit = ctx->cfg->limit;
	spec->sem = ctx->sem;
	spec->backlogged = queues;
	for (q = 0; q < ARB_NUM_VLS; q++)
		spec->packet_bytes[q] = model == ARB_MODEL_IB_FLUID ?
					ARB_UNIT_BYTES : ctx->packet_bytes[q];
	spec->deficit_round = arb_ib_model_sem(model, &spec->sem);
}

/* Run the arbiter on @queues backlogged; false when nothing is sent. */
static bool arb_ib_run(struct arb_ib_ctx *ctx, uint16_t queues, bool gaps,
		       struct arb_sim_out *out)
{
	struct arb_sim_spec spec;

	arb_ib_spec(ctx, queues, &spec);
	spec.want_gaps = gaps;
	spec.max_work = arb_budget_run(ctx->budget);
	spec.mem = &ctx->budget->mem;
	if (arb_sim_run(&spec, out))
		return false;
	arb_budget_spend(ctx->budget, out);
	if (!ctx->period_packets)
		ctx->period_packets = out->packets_total;
	ctx->exact = ctx->exact && out->exact;
	if (out->bound > ctx->bound)
		ctx->bound = out->bound;
	return true;
}

static void arb_ib_shares(void *opaque, uint16_t queues, double share[ARB_MAX_BANDS])
{
	struct arb_ib_ctx *ctx = opaque;
	struct arb_sim_out out;
	uint64_t total = 0;
	int q;

	memset(share, 0, sizeof(double) * ARB_MAX_BANDS);
	if (!arb_ib_run(ctx, queues, ctx->gaps && !ctx->have_first, &out))
		return;
	if (!ctx->have_first) {
		ctx->have_first = true;
		ctx->first_queues = queues;
		ctx->first = out;
	}
	for (q = 0; q < ARB_NUM_VLS; q++)
		total += out.bytes[q];
	for (q = 0; q < ARB_NUM_VLS; q++)
		share[q] = total ? (double)out.bytes[q] / total : 0;
}

/* The queue an SL's packets wait in: its VL, or itself for DTable. */
int arb_ib_queue(const struct arb_config *cfg,
		 const struct arb_params *params, int sl)
{
	if (params->model == ARB_MODEL_DTABLE)
		return sl == ARB_VL15 ? -1 : sl;
	return cfg->sl2vl[sl] == ARB_VL15 ? -1 : cfg->sl2vl[sl];
}

bool arb_sl_offers(const struct arb_params *params, int sl)
{
	return params->load_gbps[sl] != 0;
}

/*
 * A queue's packet size, for the arbiter run backlogged: that of the SLs
 * that offer traffic to it (the largest, when they differ: the loaded
 * arbiter then sends each SL's own packets); 4096 when none offers.
 */
void arb_queue_packet_bytes(const struct arb_config *cfg,
			    const struct arb_params *params,
			    uint32_t packet_bytes[ARB_NUM_VLS])
{
	bool seen[ARB_NUM_VLS] = { false };
	int sl, q;

	for (q = 0; q < ARB_NUM_VLS; q++)
		packet_bytes[q] = ARB_DEFAULT_PACKET_BYTES;
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(cfg, params, sl);
		if (q < 0 || !arb_sl_offers(params, sl))
			continue;
		if (!seen[q] || params->packet_bytes[sl] > packet_bytes[q])
			packet_bytes[q] = params->packet_bytes[sl];
		seen[q] = true;
	}
}

/* Whether the SLs of some queue that offer traffic send different sizes. */
bool arb_ib_mixed_sizes(const struct arb_config *cfg,
			const struct arb_params *params)
{
	uint32_t size[ARB_NUM_VLS] = { 0 };
	int sl, q;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(cfg, params, sl);
		if (q < 0 || !arb_sl_offers(params, sl))
			continue;
		if (size[q] && size[q] != params->packet_bytes[sl])
			return true;
		size[q] = params->packet_bytes[sl];
	}
	return false;
}

/*
 * Whether the backlogged arbiter's exact period gives the long-run
 * shares: every SL that offers traffic saturates and the SLs of a queue
 * send packets of one size, so the loaded arbiter's queues never empty
 * and it is the backlogged machine. Otherwise the loaded arbiter runs.
 */
bool arb_ib_needs_load(const struct arb_config *cfg,
		       const struct arb_params *params)
{
	int sl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		if (arb_ib_queue(cfg, params, sl) >= 0 && params->load_gbps[sl] > 0)
			return true;
	return params->model != ARB_MODEL_IB_FLUID && arb_ib_mixed_sizes(cfg, params);
}

/* Water-fill the SLs' loads under ctx->sem; rate_gbps per SL. */
void arb_ib_waterfill(struct arb_ib_ctx *ctx, double *rate_gbps)
{
	struct arb_wf wf = { .n_flows = ARB_NUM_SLS, .shares = arb_ib_shares,
			     .ctx = ctx };
	int sl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		wf.group[sl] = arb_ib_queue(ctx->cfg, ctx->params, sl);
		wf.load_gbps[sl] = ctx->params->load_gbps[sl];
	}
	arb_common_waterfill(&wf, ctx->params->link_gbps, rate_gbps);
}

/* The reading the loaded arbiter follows for the model, as arb_ib_spec. */
void arb_ib_load_spec(const struct arb_config *cfg,
		      const struct arb_params *params,
		      struct arb_semantics sem, bool poisson,
		      struct arb_load_spec *spec)
{
	enum arb_model model = params->model;
	int sl;

	memset(spec, 0, sizeof(*spec));
	spec->high = &cfg->high;
	spec->low = model == ARB_MODEL_DTABLE ? NULL : &cfg->low;
	spec->limit = cfg->limit;
	spec->sem = sem;
	spec->deficit_round = arb_ib_model_sem(model, &spec->sem);
	spec->link_gbps = params->link_gbps;
	spec->poisson = poisson;
	spec->seed = 0x2545f4914f6cdd1dull;
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		spec->queue[sl] = arb_ib_queue(cfg, params, sl);
		spec->load_gbps[sl] = params->load_gbps[sl];
		spec->packet_bytes[sl] = model == ARB_MODEL_IB_FLUID ?
					 ARB_UNIT_BYTES : params->packet_bytes[sl];
	}
}

/*
 * Under constant gaps the long run depends on where the arrivals start:
 * the arbiter can lock onto a cycle of the arrivals, and which one
 * depends on their phases (SLs of one VL with different sizes, or a
 * light VL's packets meeting its entries, mix differently in each). So
 * every phase draw is run. Each draw k's window share W_k is within its
 * own bound b_k of that draw's long run L_k; the share stated is W_0,
 * and |W_0 - L_k| <= |W_0 - W_k| + b_k, so the largest of those over
 * the draws bounds the stated share against the long run of each draw
 * (of the draws run: not of every phase). @out holds draw 0 with that
 * bound, and the largest distance of any draw. Returns -EINVAL as
 * arb_load_run.
 */
int arb_ib_load_run(struct arb_load_spec *spec, struct arb_budget *budget,
		    struct arb_load_out *out)
{
	spec->max_work = budget->load_run_work;
	if (arb_load_run(spec, out))
		return -EINVAL;
	if (!budget->window_min || out->window_packets < budget->window_min)
		budget->window_min = out->window_packets;
	if (out->window_packets > budget->window_max)
		budget->window_max = out->window_packets;
	return 0;
}

static int arb_ib_load_draws(struct arb_load_spec *spec, struct arb_budget *budget,
			     struct arb_load_out *out)
{
	struct arb_load_out k_out;
	unsigned k;
	int sl, q;

	spec->phase_draw = 0;
	if (arb_ib_load_run(spec, budget, out))
		return -EINVAL;
	budget->window_first = out->window_packets;
	for (k = 1; !spec->poisson && k < ARB_LOAD_PHASES; k++) {
		spec->phase_draw = k;
		if (arb_ib_load_run(spec, budget, &k_out))
			return -EINVAL;
		for (sl = 0; sl < ARB_NUM_SLS; sl++)
			out->bound = fmin(1, fmax(out->bound, k_out.bound +
						  fabs(out->gbps[sl] - k_out.gbps[sl]) /
						  spec->link_gbps));
		for (q = 0; q < ARB_NUM_VLS; q++)
			if (k_out.max_distance[q] > out->max_distance[q])
				out->max_distance[q] = k_out.max_distance[q];
	}
	return 0;
}

/*
 * The arbiter fed by the SLs' offered loads under @sem (constant gaps
 * over every phase draw, or Poisson): rate_gbps per SL, and each
 * queue's distances into res->vls. Returns the bound of a share (0-1);
 * 0 when nothing is sent.
 */
double arb_ib_loaded(const struct arb_config *cfg,
		     const struct arb_params *params,
		     struct arb_semantics sem, bool poisson,
		     struct arb_budget *budget, double *rate_gbps,
		     struct arb_result *res)
{
	struct arb_load_spec spec;
	struct arb_load_out out;
	struct arb_vl_result *v;
	int sl, q;

	arb_ib_load_spec(cfg, params, sem, poisson, &spec);
	for (sl = 0; sl < ARB_MAX_FLOWS; sl++)
		rate_gbps[sl] = 0;
	if (arb_ib_load_draws(&spec, budget, &out))
		return 0;
	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		rate_gbps[sl] = out.gbps[sl];
	for (q = 0; q < ARB_NUM_VLS; q++) {
		v = &res->vls[q];
		v->has_distance = out.packets[q] > 0;
		v->mean_distance = out.mean_distance[q];
		v->max_distance = (double)out.max_distance[q];
	}
	return out.bound;
}

/* ------------------------------------------------------------------ */
/* Distances on the water-filled set                                   */
/* ------------------------------------------------------------------ */

/* Queues still saturated after water-filling: they always have packets. */
static uint16_t arb_ib_saturated(const struct arb_ib_ctx *ctx,
				 const double *rate_gbps)
{
	const struct arb_params *params = ctx->params;
	uint16_t set = 0;
	int sl, q;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(ctx->cfg, params, sl);
		if (q < 0 || rate_gbps[sl] <= 0)
			continue;
		if (params->load_gbps[sl] < 0 ||
		    rate_gbps[sl] < params->load_gbps[sl] * (1 - 1e-9))
			set |= 1u << q;
	}
	return set;
}

/*
 * Distances of every served queue: packets of other queues between two
 * of its packets, with the queue itself and the saturated queues
 * backlogged (a loaded queue's packets wait behind those).
 */
static void arb_ib_distances(struct arb_ib_ctx *ctx, const double *rate_gbps,
			     struct arb_result *res)
{
	uint16_t saturated = arb_ib_saturated(ctx, rate_gbps), served = 0;
	struct arb_sim_out shared, alone, *out;
	bool have_shared = false;
	struct arb_vl_result *v;
	int sl, q;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(ctx->cfg, ctx->params, sl);
		if (q >= 0 && rate_gbps[sl] > 0)
			served |= 1u << q;
	}
	for (q = 0; q < ARB_NUM_VLS; q++) {
		if (!(served & (1u << q)))
			continue;
		out = &alone;
		/* queues of the first run that got nothing never took a turn */
		if ((saturated & (1u << q)) && ctx->have_first &&
		    !(saturated & ~ctx->first_queues) &&
		    !(served & ctx->first_queues & ~saturated)) {
			out = &ctx->first;
		} else if (saturated & (1u << q)) {
			if (!have_shared)
				have_shared = arb_ib_run(ctx, saturated, true, &shared);
			out = &shared;
		} else if (!arb_ib_run(ctx, saturated | (1u << q), true, &alone)) {
			continue;
		}
		v = &res->vls[q];
		v->has_distance = out->packets[q] > 0;
		v->mean_distance = v->has_distance ?
				   (double)out->gap_sum[q] / out->packets[q] : 0;
		v->max_distance = (double)out->gap_max[q];
	}
}

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

/* Each queue's table weights; DTable's are its SLs' high-table entries. */
static void arb_table_weights(const struct arb_config *cfg, struct arb_result *res)
{
	const struct arb_entry *e;
	int i;

	for (i = 0; i < cfg->high.n_entries; i++) {
		e = &cfg->high.entries[i];
		res->vls[e->vl].high_weight += e->weight;
	}
	for (i = 0; res->model != ARB_MODEL_DTABLE && i < cfg->low.n_entries; i++) {
		e = &cfg->low.entries[i];
		res->vls[e->vl].low_weight += e->weight;
	}
}

/* Per-group totals from the per-flow rates. */
static void arb_sum_groups(struct arb_result *res)
{
	int i;

	for (i = 0; i < res->n_vls; i++) {
		res->vls[i].gbps = 0;
		res->vls[i].share_pct = 0;
	}
	for (i = 0; i < res->n_sls; i++) {
		if (res->sls[i].vl < 0 || res->sls[i].vl >= res->n_vls)
			continue;
		res->vls[res->sls[i].vl].gbps += res->sls[i].gbps;
		res->vls[res->sls[i].vl].share_pct += res->sls[i].share_pct;
	}
}

/* Per SL and per queue; an SL's distance is its queue's. */
void arb_ib_fill(struct arb_ib_ctx *ctx, const double *rate_gbps,
		 bool distances, struct arb_result *res)
{
	const struct arb_vl_result *v;
	struct arb_sl_result *r;
	int sl, q;

	res->n_sls = ARB_NUM_SLS;
	res->n_vls = ARB_NUM_VLS;
	for (q = 0; q < ARB_NUM_VLS; q++)
		res->vls[q].vl = q;
	if (distances)
		arb_ib_distances(ctx, rate_gbps, res);
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(ctx->cfg, ctx->params, sl);
		r = arb_common_fill_sl(res, ctx->params, sl,
				       ctx->params->model == ARB_MODEL_DTABLE ?
				       sl : ctx->cfg->sl2vl[sl], rate_gbps[sl]);
		r->share_min_pct = r->share_max_pct = r->share_pct;
		if (q < 0)
			continue;
		v = &res->vls[q];
		r->has_distance = v->has_distance;
		r->mean_distance = v->mean_distance;
		r->max_distance = v->max_distance;
	}
	arb_table_weights(ctx->cfg, res);
	arb_sum_groups(res);
}
