/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The InfiniBand models and DTable: the analysis built on the packet
 * arbiter of arb_ib_sim.c (shares per SL and VL, distances in packets,
 * the range over the arbiter's semantics, and the warnings a
 * configuration deserves).
 *
 *  - ib-packet (the default) runs whole MTU-sized packets under the
 *    semantics in params->semantics and, with params->compare_semantics,
 *    under every other reading too, so that a share the readings disagree
 *    on is shown as a range;
 *  - ib-fluid is the byte-fluid reading of Cano-Cano et al.: every packet
 *    64 bytes, the low turn one entry (limit 0 is one 64-byte unit);
 *  - dtable (Cano-Cano et al. 2024) reads the high table as a DTable whose
 *    entries name SLs, with a deficit counter per SL and a packet size
 *    (MTU) per SL.
 * Where every SL that offers traffic saturates (and the SLs of a queue
 * send one packet size), every queue with traffic is always backlogged
 * and the shares are those of one exact period of the arbiter
 * (arb_ib_sim.h). Otherwise the same arbiter is fed by the SLs' packets
 * at their offered loads (arb_ib_load.h), and shares and distances are
 * those of its window, within the bound it states.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qos/arb_common.h"
#include "qos/arb_ib.h"
#include "qos/arb_ib_sim.h"
#include "qos/arb_ib_load.h"

/* ------------------------------------------------------------------ */
/* Running the arbiter for an analysis                                 */
/* ------------------------------------------------------------------ */

/*
 * The work one analysis may spend, so that it is bounded whatever the
 * port's tables hold (`bench/bench_analyze worst` searches for the
 * slowest; under 1 ms backlogged and 50 ms under offered loads on a
 * current server core). Work is the arbiter's steps, the table entries
 * it looks at, its checkpoints and the arrivals it feeds in
 * (arb_sim_out.work, arb_load_out.work).
 *  - The backlogged arbiter's runs share ARB_IB_BUDGET_WORK in the order
 *    they come: a run gets what is left, at most ARB_IB_RUN_WORK and at
 *    least ARB_IB_MIN_WORK; a run that ends without a period states the
 *    bound of its window.
 *  - Under offered loads, each run of the loaded arbiter gets an equal
 *    part of ARB_IB_LOAD_WORK over the runs the analysis makes (its
 *    window shortened to fit; the bound it states grows).
 */
#define ARB_IB_BUDGET_WORK	(1u << 16)
#define ARB_IB_RUN_WORK		(1u << 15)
#define ARB_IB_MIN_WORK		(1u << 11)
#define ARB_IB_LOAD_WORK	(1u << 20)

struct arb_budget {
	uint64_t left;		/* work units */
	struct arb_sim_mem mem;	/* the backlogged runs' */
	unsigned runs, cut;	/* runs, and those that ended without a period */
	uint64_t load_run_work;	/* each loaded run's */
	uint64_t window_min, window_max;	/* loaded runs' windows, packets */
	uint64_t window_first;		/* draw 0's window, of the last reading run */
};

static uint64_t arb_budget_run(const struct arb_budget *b)
{
	uint64_t w = b->left < ARB_IB_RUN_WORK ? b->left : ARB_IB_RUN_WORK;

	return w > ARB_IB_MIN_WORK ? w : ARB_IB_MIN_WORK;
}

static void arb_budget_spend(struct arb_budget *b, const struct arb_sim_out *out)
{
	b->left = out->work < b->left ? b->left - out->work : 0;
	b->runs++;
	b->cut += !out->exact;
}

struct arb_ib_ctx {
	const struct arb_config *cfg;
	const struct arb_params *params;
	struct arb_budget *budget;
	struct arb_semantics sem;
	uint32_t packet_bytes[ARB_NUM_VLS];	/* per queue: VL, or SL (dtable) */
	bool exact;
	uint64_t period_packets;		/* of the first run */
	double bound;
	bool gaps;				/* measure the first run's distances */
	bool have_first;
	uint16_t first_queues;
	struct arb_sim_out first;		/* every loaded queue backlogged */
};

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

static void arb_ib_spec(const struct arb_ib_ctx *ctx, uint16_t queues,
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
static int arb_ib_queue(const struct arb_config *cfg,
			const struct arb_params *params, int sl)
{
	if (params->model == ARB_MODEL_DTABLE)
		return sl == ARB_VL15 ? -1 : sl;
	return cfg->sl2vl[sl] == ARB_VL15 ? -1 : cfg->sl2vl[sl];
}

static bool arb_sl_offers(const struct arb_params *params, int sl)
{
	return params->load_gbps[sl] != 0;
}

/*
 * A queue's packet size, for the arbiter run backlogged: that of the SLs
 * that offer traffic to it (the largest, when they differ: the loaded
 * arbiter then sends each SL's own packets); 4096 when none offers.
 */
static void arb_queue_packet_bytes(const struct arb_config *cfg,
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
static bool arb_ib_mixed_sizes(const struct arb_config *cfg,
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
static bool arb_ib_needs_load(const struct arb_config *cfg,
			      const struct arb_params *params)
{
	int sl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		if (arb_ib_queue(cfg, params, sl) >= 0 && params->load_gbps[sl] > 0)
			return true;
	return params->model != ARB_MODEL_IB_FLUID && arb_ib_mixed_sizes(cfg, params);
}

/* Water-fill the SLs' loads under ctx->sem; rate_gbps per SL. */
static void arb_ib_waterfill(struct arb_ib_ctx *ctx, double *rate_gbps)
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
static void arb_ib_load_spec(const struct arb_config *cfg,
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
static int arb_ib_load_run(struct arb_load_spec *spec, struct arb_budget *budget,
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
static double arb_ib_loaded(const struct arb_config *cfg,
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
static void arb_ib_fill(struct arb_ib_ctx *ctx, const double *rate_gbps,
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

static const char *arb_entries(int n)
{
	return n == 1 ? "entry" : "entries";
}

static const char *arb_table_name(const struct arb_config *cfg,
				  const struct arb_table *t)
{
	return t == &cfg->high ? "high" : "low";
}

/* Entries the port cannot honour or that do nothing: one line per table. */
static void arb_warn_entries(const struct arb_config *cfg,
			     const struct arb_table *t, struct arb_result *res)
{
	const char *name = arb_table_name(cfg, t);
	int i, zero = 0, vl15 = 0, beyond = 0;

	for (i = 0; i < t->n_entries; i++) {
		if (!t->entries[i].weight)
			zero++;
		if (t->entries[i].vl == ARB_VL15)
			vl15++;
		else if (cfg->oper_vls && t->entries[i].vl >= cfg->oper_vls)
			beyond++;
	}
	if (t->cap && t->n_entries > t->cap)
		arb_common_warn(res, "table-over-cap",
				"%s table has %d entries but the port holds %d "
				"(VLArb%sCap): the rest are ignored by the port",
				name, t->n_entries, t->cap, t == &cfg->high ? "High" : "Low");
	if (zero)
		arb_common_warn(res, "weight-0", "%s table: %d %s with weight 0 skipped",
				name, zero, arb_entries(zero));
	if (vl15)
		arb_common_warn(res, "vl15-entry", "%s table: %d %s naming VL15 (management only) "
				"ignored", name, vl15, arb_entries(vl15));
	if (beyond)
		arb_common_warn(res, "vl-beyond-oper", "%s table: %d %s naming VLs beyond the %d "
				"operational VLs never served", name, beyond,
				arb_entries(beyond), cfg->oper_vls);
}

/* Weights smaller than a packet: the two IB models disagree there. */
static void arb_warn_small_weights(const struct arb_config *cfg,
				   const struct arb_table *t,
				   const uint32_t *packet_bytes,
				   enum arb_model model, struct arb_result *res)
{
	const struct arb_entry *e;
	uint32_t min_packet = 0;
	int i, small = 0;

	for (i = 0; i < t->n_entries; i++) {
		e = &t->entries[i];
		if (!e->weight || e->vl == ARB_VL15 ||
		    (uint32_t)e->weight * ARB_UNIT_BYTES >= packet_bytes[e->vl])
			continue;
		small++;
		if (!min_packet || packet_bytes[e->vl] < min_packet)
			min_packet = packet_bytes[e->vl];
	}
	if (!small)
		return;
	arb_common_warn(res, "below-packet", "%s table: %d %s below one %u-byte packet: %s",
			arb_table_name(cfg, t), small, arb_entries(small), min_packet,
			model == ARB_MODEL_IB_FLUID ?
			"ib-fluid sends parts of packets, a reading no port "
			"follows (compare --model ib-packet)" :
			"each visit sends one whole packet, and whether the "
			"overshoot is owed by the next visit decides the shares");
}

/* The SLs that offer traffic and share a VL, all in one line. */
static void arb_warn_shared_vls(const struct arb_config *cfg, const struct arb_params *params,
				struct arb_result *res)
{
	char list[ARB_WARNING_LEN] = "";
	int sl, vl, n;
	size_t len = 0;

	for (vl = 0; vl < ARB_VL15; vl++) {
		if (!res->vls[vl].high_weight && !res->vls[vl].low_weight)
			continue;
		for (sl = 0, n = 0; sl < ARB_NUM_SLS; sl++)
			n += cfg->sl2vl[sl] == vl && arb_sl_offers(params, sl);
		if (n < 2)
			continue;
		for (sl = 0, n = 0; sl < ARB_NUM_SLS && len < sizeof(list); sl++) {
			if (cfg->sl2vl[sl] != vl || !arb_sl_offers(params, sl))
				continue;
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%sSL%d",
						len && !n ? "; " : "", n ? "+" : "", sl);
			n++;
		}
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, " on VL%d", vl);
	}
	if (len)
		arb_common_warn(res, "sl-shared-vl", "SLs sharing a VL send one packet of each "
				"in turn: %s", list);
}

/* SL to VL mapping problems, for the SLs that offer traffic. */
static void arb_warn_sl2vl(const struct arb_config *cfg,
			   const struct arb_params *params,
			   struct arb_result *res)
{
	int sl, vl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		vl = cfg->sl2vl[sl];
		if (!arb_sl_offers(params, sl))
			continue;
		if (vl == ARB_VL15) {
			if (cfg->sl2vl_explicit)
				arb_common_warn(res, "sl-vl15", "SL%d maps to VL15 (management "
						"only): its traffic is dropped", sl);
			continue;
		}
		if (cfg->oper_vls && vl >= cfg->oper_vls)
			arb_common_warn(res, "sl-vl-beyond-oper",
					"SL%d maps to VL%d, beyond the %d "
					"operational VLs", sl, vl, cfg->oper_vls);
		if (!res->vls[vl].high_weight && !res->vls[vl].low_weight) {
			if (params->load_gbps[sl] > 0)
				arb_common_warn(res, "sl-no-weight",
						"SL%d offers load but VL%d has no "
						"arbitration weight: it gets nothing",
						sl, vl);
			continue;
		}
	}
	arb_warn_shared_vls(cfg, params, res);
}

static void arb_warn_limit(const struct arb_config *cfg, struct arb_result *res)
{
	int i;

	if (!cfg->limit_known)
		arb_common_warn(res, "limit-assumed",
				"LimitOfHighPriority not in the input: %d assumed "
				"(give it with --limit)", cfg->limit);
	if (cfg->limit != ARB_LIMIT_NONE)
		return;
	for (i = 0; i < cfg->low.n_entries; i++) {
		if (cfg->low.entries[i].weight) {
			arb_common_warn(res, "limit-255", "limit 255: the high table is never "
					"limited, low-priority VLs can starve");
			return;
		}
	}
}

/*
 * Firmware caveats (vendor release notes): some firmware ignores
 * VL_HIGH_LIMIT, some misbehaves on weight-0 entries between weighted
 * ones. Said only where the configuration depends on them.
 */
static void arb_warn_firmware(const struct arb_config *cfg,
			      const struct arb_result *unlimited,
			      struct arb_result *res)
{
	int i, k, zero = 0;

	for (k = 0; k < 2; k++) {
		const struct arb_table *t = k ? &cfg->low : &cfg->high;

		for (i = 1; i + 1 < t->n_entries; i++)
			zero += !t->entries[i].weight && t->entries[i - 1].weight;
	}
	if (zero)
		arb_common_warn(res, "firmware-weight-0", "firmware caveat: %d weight-0 %s between "
				"weighted ones; some firmware misbehaves on them "
				"(this prediction skips them)", zero, arb_entries(zero));
	if (!unlimited)
		return;
	for (i = 0; i < ARB_NUM_SLS; i++) {
		if (fabs(unlimited->sls[i].share_pct - res->sls[i].share_pct) < 1)
			continue;
		arb_common_warn(res, "firmware-high-limit", "firmware caveat: the shares depend on "
				"LimitOfHighPriority %d; firmware that ignores "
				"VL_HIGH_LIMIT gives SL%d %.1f %% instead of %.1f %%",
				cfg->limit, i, unlimited->sls[i].share_pct,
				res->sls[i].share_pct);
		return;
	}
}

static void arb_ib_warnings(const struct arb_config *cfg,
			    const struct arb_params *params,
			    const uint32_t *packet_bytes,
			    const struct arb_result *unlimited,
			    struct arb_result *res)
{
	arb_warn_entries(cfg, &cfg->high, res);
	if (params->model == ARB_MODEL_DTABLE)
		return;
	arb_warn_entries(cfg, &cfg->low, res);
	arb_warn_small_weights(cfg, &cfg->high, packet_bytes, params->model, res);
	arb_warn_small_weights(cfg, &cfg->low, packet_bytes, params->model, res);
	arb_warn_limit(cfg, res);
	arb_warn_sl2vl(cfg, params, res);
	arb_warn_firmware(cfg, unlimited, res);
}

/* ------------------------------------------------------------------ */
/* Analysis                                                            */
/* ------------------------------------------------------------------ */

/*
 * One analysis under @sem, without the range and warnings: the exact
 * period of the backlogged arbiter where that is the long run
 * (arb_ib_needs_load), else the arbiter fed by the offered loads
 * (constant gaps, or Poisson with @poisson).
 */
static void arb_ib_one_arrivals(const struct arb_config *cfg,
				const struct arb_params *params,
				struct arb_semantics sem, bool distances,
				bool poisson, struct arb_budget *budget,
				struct arb_result *res)
{
	struct arb_ib_ctx ctx = { .cfg = cfg, .params = params, .budget = budget,
				  .sem = sem, .exact = true, .gaps = distances };
	double rate_gbps[ARB_MAX_FLOWS];

	arb_queue_packet_bytes(cfg, params, ctx.packet_bytes);
	res->semantics = sem;
	if (arb_ib_needs_load(cfg, params)) {
		res->bound_pct = 100 * arb_ib_loaded(cfg, params, sem, poisson,
						     budget, rate_gbps, res);
		res->exact = false;
		res->loaded = true;
		res->period_packets = 0;
		res->window_packets = budget->window_first;
		arb_ib_fill(&ctx, rate_gbps, false, res);
		return;
	}
	arb_ib_waterfill(&ctx, rate_gbps);
	arb_ib_fill(&ctx, rate_gbps, distances, res);
	res->exact = ctx.exact;
	res->period_packets = ctx.period_packets;
	res->window_packets = ctx.period_packets;
	res->bound_pct = 100 * ctx.bound;
}

static void arb_ib_one(const struct arb_config *cfg,
		       const struct arb_params *params, struct arb_semantics sem,
		       bool distances, struct arb_budget *budget,
		       struct arb_result *res)
{
	arb_ib_one_arrivals(cfg, params, sem, distances, false, budget, res);
}

/* Whether a VL has weighted entries in both tables. */
static bool arb_ib_vl_in_both(const struct arb_config *cfg)
{
	uint16_t in[2] = { 0, 0 };
	const struct arb_table *t;
	int k, i;

	for (k = 0; k < 2; k++) {
		t = k ? &cfg->low : &cfg->high;
		for (i = 0; i < t->n_entries; i++)
			if (t->entries[i].weight && t->entries[i].vl < ARB_VL15)
				in[k] |= 1u << t->entries[i].vl;
	}
	return (in[0] & in[1]) != 0;
}

/*
 * Whether a queue of the low table can empty: some SL offers it traffic
 * and none saturates it. Where none can, a low turn never finds its
 * entry's VL empty, and low=continue is low=entry.
 */
static bool arb_ib_low_drains(const struct arb_config *cfg,
			      const struct arb_params *params)
{
	uint16_t offers = 0, saturated = 0, low = 0;
	int sl, q, i;

	for (i = 0; i < cfg->low.n_entries; i++)
		if (cfg->low.entries[i].weight && cfg->low.entries[i].vl < ARB_VL15)
			low |= 1u << cfg->low.entries[i].vl;
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(cfg, params, sl);
		if (q < 0 || !arb_sl_offers(params, sl))
			continue;
		offers |= 1u << q;
		if (params->load_gbps[sl] < 0)
			saturated |= 1u << q;
	}
	return (offers & ~saturated & low) != 0;
}

/*
 * The reading that behaves as @sem on this port: limit0 only matters at
 * limit 0 with an entry low turn, alternate makes that turn a packet,
 * and continue only differs from entry where a low VL can empty.
 */
static struct arb_semantics arb_ib_effective(const struct arb_config *cfg,
					     const struct arb_params *params,
					     struct arb_semantics sem)
{
	if (!sem.carry || !arb_ib_vl_in_both(cfg))
		sem.deficit_per_table = false;
	if (sem.low_turn == ARB_LOW_CONTINUE && !arb_ib_low_drains(cfg, params))
		sem.low_turn = ARB_LOW_ENTRY;
	if (cfg->limit == 0 && sem.limit0 == ARB_LIMIT0_ALTERNATE)
		sem.low_turn = ARB_LOW_PACKET;
	if (cfg->limit != 0 || sem.low_turn == ARB_LOW_PACKET)
		sem.limit0 = ARB_LIMIT0_BYTES;
	return sem;
}

static bool arb_sem_equal(struct arb_semantics a, struct arb_semantics b)
{
	return a.carry == b.carry && a.low_turn == b.low_turn &&
	       a.limit0 == b.limit0 && a.deficit_per_table == b.deficit_per_table;
}

/* A semantics already computed that behaves as @sem; NULL: none. */
static const struct arb_sem_result *arb_ib_known(const struct arb_config *cfg,
						 const struct arb_params *params,
						 const struct arb_result *res,
						 struct arb_semantics sem)
{
	int i;

	sem = arb_ib_effective(cfg, params, sem);
	for (i = 0; i < res->n_semantics; i++)
		if (arb_sem_equal(arb_ib_effective(cfg, params,
						   res->per_semantics[i].semantics),
				  sem))
			return &res->per_semantics[i];
	return NULL;
}

/* One analysis' shares and distances into @s. */
static void arb_ib_sem_store(const struct arb_result *one,
			     struct arb_sem_result *s)
{
	int sl, q;

	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		s->share_pct[sl] = one->sls[sl].share_pct;
	for (q = 0; q < ARB_NUM_VLS; q++) {
		s->has_distance[q] = one->vls[q].has_distance;
		s->mean_distance[q] = one->vls[q].mean_distance;
		s->max_distance[q] = one->vls[q].max_distance;
	}
}

/* Semantics @sem's shares into the next slot of res->per_semantics. */
static void arb_ib_add_semantics(const struct arb_config *cfg,
				 const struct arb_params *params,
				 struct arb_semantics sem, struct arb_budget *budget,
				 struct arb_result *res)
{
	struct arb_sem_result *s = &res->per_semantics[res->n_semantics];
	const struct arb_sem_result *known = arb_ib_known(cfg, params, res, sem);
	struct arb_result other;

	if (known) {
		*s = *known;
	} else {
		memset(&other, 0, sizeof(other));
		arb_ib_one(cfg, params, sem, true, budget, &other);
		arb_ib_sem_store(&other, s);
		if (!other.exact)
			res->bound_pct = fmax(res->bound_pct, other.bound_pct);
	}
	s->semantics = sem;
	res->n_semantics++;
}

/* The queues some SL offers traffic to. */
static uint16_t arb_ib_offered(const struct arb_config *cfg,
			       const struct arb_params *params)
{
	uint16_t offered = 0;
	int sl, q;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(cfg, params, sl);
		if (q >= 0 && arb_sl_offers(params, sl))
			offered |= 1u << q;
	}
	return offered;
}

/* Whether table @t has a weighted entry for a queue in @offered. */
static bool arb_ib_table_sends(const struct arb_table *t, uint16_t offered)
{
	int i;

	for (i = 0; i < t->n_entries; i++)
		if (t->entries[i].weight && t->entries[i].vl < ARB_VL15 &&
		    (offered & (1u << t->entries[i].vl)))
			return true;
	return false;
}

/* Whether some SL offers a load it may not fill (not saturating). */
static bool arb_ib_any_light(const struct arb_params *params)
{
	int sl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		if (params->load_gbps[sl] > 0)
			return true;
	return false;
}

/* Whether low entry turns pass empty in the loaded arbiter's window. */
static bool arb_ib_loaded_breaks_limit0(const struct arb_config *cfg,
					const struct arb_params *params,
					struct arb_semantics sem,
					struct arb_budget *budget)
{
	struct arb_load_spec spec;
	struct arb_load_out out;

	arb_ib_load_spec(cfg, params, sem, false, &spec);
	return !arb_ib_load_run(&spec, budget, &out) && out.empty_low_turns > 0;
}

/*
 * At limit 0 the specification gives the low table the opportunity to
 * send a packet after each high packet. A reading in which a low turn
 * can pass with nothing sent breaks that: a turn of one entry visit
 * (limit0=bytes) in which a whole pass over the low table finds every
 * VL still repaying an earlier visit's overshoot (carry). Whether that
 * happens depends on the entries' order, weights and packets together
 * (a VL spread over several light entries may never owe more than the
 * rest of a pass gives it), so the arbiter is run, every offered queue
 * backlogged, and its period's empty turns counted. Where every SL that
 * offers saturates but the SLs of a VL send different sizes, the
 * reading is computed with each SL's own packets in turn (the loaded
 * arbiter, whose queues never empty): that machine's window is counted,
 * not a period of the VL's largest size. Such a reading is not among
 * the plausible ones at limit 0.
 */
static bool arb_ib_breaks_limit0(const struct arb_config *cfg,
				 const struct arb_params *params, struct arb_semantics sem,
				 struct arb_budget *budget)
{
	struct arb_ib_ctx ctx = { .cfg = cfg, .params = params, .budget = budget };
	uint16_t offered = arb_ib_offered(cfg, params);
	struct arb_sim_spec spec;
	struct arb_sim_out out;

	ctx.sem = sem = arb_ib_effective(cfg, params, sem);
	if (cfg->limit != 0 || !sem.carry || sem.low_turn == ARB_LOW_PACKET ||
	    sem.limit0 != ARB_LIMIT0_BYTES || params->model != ARB_MODEL_IB_PACKET ||
	    !arb_ib_table_sends(&cfg->high, offered) ||
	    !arb_ib_table_sends(&cfg->low, offered))
		return false;
	if (arb_ib_needs_load(cfg, params) && !arb_ib_any_light(params))
		return arb_ib_loaded_breaks_limit0(cfg, params, sem, budget);
	arb_queue_packet_bytes(cfg, params, ctx.packet_bytes);
	arb_ib_spec(&ctx, offered, &spec);
	spec.max_work = arb_budget_run(budget);
	spec.mem = &budget->mem;
	if (arb_sim_run(&spec, &out))
		return false;
	arb_budget_spend(budget, &out);
	return out.empty_low_turns > 0;
}

/* Each queue's distances: their range over the readings compared. */
static void arb_ib_distance_ranges(struct arb_result *res)
{
	const struct arb_sem_result *s;
	struct arb_vl_result *v;
	int i, q;

	for (q = 0; q < ARB_NUM_VLS; q++) {
		v = &res->vls[q];
		v->mean_distance_min = v->mean_distance_max = v->mean_distance;
		v->max_distance_min = v->max_distance_max = v->max_distance;
		for (i = 0; v->has_distance && i < res->n_semantics; i++) {
			s = &res->per_semantics[i];
			if (!s->has_distance[q])
				continue;
			v->mean_distance_min = fmin(v->mean_distance_min, s->mean_distance[q]);
			v->mean_distance_max = fmax(v->mean_distance_max, s->mean_distance[q]);
			v->max_distance_min = fmin(v->max_distance_min, s->max_distance[q]);
			v->max_distance_max = fmax(v->max_distance_max, s->max_distance[q]);
		}
	}
}

/*
 * The distances the readings disagree on (by more than half a packet),
 * as one warning: the columns follow the semantics shown.
 */
static void arb_ib_warn_distances(struct arb_result *res)
{
	char line[ARB_WARNING_LEN], *at = line;
	const struct arb_vl_result *v;
	size_t left = sizeof(line);
	int q, n;

	line[0] = '\0';
	for (q = 0; q < ARB_NUM_VLS && left > 1; q++) {
		v = &res->vls[q];
		if (!v->has_distance ||
		    (v->mean_distance_max - v->mean_distance_min <= 0.5 &&
		     v->max_distance_max == v->max_distance_min))
			continue;
		n = snprintf(at, left, "%sVL%d mean %.2f-%.2f max seen %.0f-%.0f",
			     at == line ? "" : "; ", q, v->mean_distance_min,
			     v->mean_distance_max, v->max_distance_min,
			     v->max_distance_max);
		if (n < 0 || (size_t)n >= left)
			break;
		at += n;
		left -= (size_t)n;
	}
	if (line[0])
		arb_common_warn(res, "distances-differ", "distances differ between the readings: %s", line);
}

/* Uncertain: some SL's range is wider than range_pct (said once). */
static void arb_ib_uncertain(const struct arb_params *params,
			     struct arb_result *res)
{
	int sl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		if (res->sls[sl].share_max_pct - res->sls[sl].share_min_pct >
		    params->range_pct)
			res->uncertain = true;
}

/* Every semantics' shares; the SLs' ranges; uncertain past range_pct. */
static void arb_ib_compare(const struct arb_config *cfg,
			   const struct arb_params *params, struct arb_budget *budget,
			   struct arb_result *res)
{
	struct arb_sl_result *r;
	int i, sl;
	bool left_out = false;

	arb_ib_sem_store(res, &res->per_semantics[0]);
	res->per_semantics[0].semantics = params->semantics;
	res->n_semantics = 1;
	for (i = 0; i < ARB_N_SEMANTICS; i++) {
		if (arb_sem_equal(arb_ib_semantics_nth(i), params->semantics))
			continue;
		if (arb_ib_breaks_limit0(cfg, params, arb_ib_semantics_nth(i), budget)) {
			left_out = true;
			continue;
		}
		arb_ib_add_semantics(cfg, params, arb_ib_semantics_nth(i), budget, res);
	}
	if (left_out)
		arb_common_warn(res, "reading-left-out",
				"carry=yes,low=entry|continue,limit0=bytes left out of the "
				"range: at limit 0 its low turns can pass empty (a light low "
				"entry repaying its overshoot); the specification alternates");
	if (arb_ib_breaks_limit0(cfg, params, params->semantics, budget))
		arb_common_warn(res, "reading-breaks-limit0",
				"the semantics chosen (carry=yes,low=entry|continue,"
				"limit0=bytes) breaks limit 0's alternation on this port: "
				"its low turns can pass empty");
	for (i = 0; i < res->n_semantics; i++) {
		for (sl = 0; sl < ARB_NUM_SLS; sl++) {
			r = &res->sls[sl];
			r->share_min_pct = fmin(r->share_min_pct,
						res->per_semantics[i].share_pct[sl]);
			r->share_max_pct = fmax(r->share_max_pct,
						res->per_semantics[i].share_pct[sl]);
		}
	}
	arb_ib_uncertain(params, res);
	arb_ib_distance_ranges(res);
	arb_ib_warn_distances(res);
	if (res->uncertain)
		arb_common_warn(res, "readings-disagree",
				"the readings of the specification disagree by "
				"more than %.1f points: shares are shown as ranges; "
				"rperf converge tells which one the switch follows",
				params->range_pct);
}

/* The same port with the limit ignored, for the firmware caveat. */
static const struct arb_result *arb_ib_unlimited(const struct arb_config *cfg,
						 const struct arb_params *params,
						 struct arb_budget *budget,
						 struct arb_result *out)
{
	struct arb_config unl;

	if (params->model != ARB_MODEL_IB_PACKET || cfg->limit == ARB_LIMIT_NONE)
		return NULL;
	unl = *cfg;
	unl.limit = ARB_LIMIT_NONE;
	memset(out, 0, sizeof(*out));
	arb_ib_one(&unl, params, params->semantics, false, budget, out);
	return out;
}

struct arb_semantics arb_ib_semantics_nth(int i)
{
	struct arb_semantics sem = {
		.carry = !(i & 1),
		.low_turn = (enum arb_low_turn)(i / 2 % ARB_N_LOW_TURNS),
		.limit0 = (i / (2 * ARB_N_LOW_TURNS)) & 1 ? ARB_LIMIT0_BYTES :
			  ARB_LIMIT0_ALTERNATE,
		.deficit_per_table = i >= ARB_N_SEMANTICS / 2,
	};

	return sem;
}

/* Widen each SL's range to take in the shares of @other. */
static void arb_ib_widen(struct arb_result *res, const struct arb_result *other)
{
	struct arb_sl_result *r;
	int sl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		r = &res->sls[sl];
		r->share_min_pct = fmin(r->share_min_pct, other->sls[sl].share_pct);
		r->share_max_pct = fmax(r->share_max_pct, other->sls[sl].share_pct);
	}
}

/*
 * The check of constant gaps: the same analysis with Poisson arrivals.
 * Its shares join the range (the arrival process is not known), and a
 * difference beyond both windows' bounds is said.
 */
static void arb_ib_poisson(const struct arb_config *cfg,
			   const struct arb_params *params, struct arb_budget *budget,
			   struct arb_result *res)
{
	struct arb_result p;
	double diff, worst = 0;
	int sl, at = -1;

	memset(&p, 0, sizeof(p));
	arb_ib_one_arrivals(cfg, params, params->semantics, false, true, budget, &p);
	arb_ib_widen(res, &p);
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		diff = fabs(p.sls[sl].share_pct - res->sls[sl].share_pct) -
		       res->bound_pct - p.bound_pct;
		if (diff > worst) {
			worst = diff;
			at = sl;
		}
	}
	if (at >= 0)
		arb_common_warn(res, "poisson-differs", "Poisson arrivals give SL%d %.2f %% against %.2f %% "
				"with constant gaps: the range holds both", at,
				p.sls[at].share_pct, res->sls[at].share_pct);
}

/*
 * SLs of one queue that send packets of different sizes: the arbiter
 * sends each SL's own packets, one SL after the other; the readings in
 * which the queue's packets are all of its smallest, or all of its
 * largest, size join the range. Returns whether there were any.
 */
static bool arb_ib_size_readings(const struct arb_config *cfg,
				 const struct arb_params *params,
				 struct arb_budget *budget, struct arb_result *res)
{
	uint32_t lo[ARB_NUM_VLS] = { 0 }, hi[ARB_NUM_VLS] = { 0 }, b;
	struct arb_params one;
	struct arb_result other;
	bool mixed = false;
	int sl, q, k;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = arb_ib_queue(cfg, params, sl);
		if (q < 0 || !arb_sl_offers(params, sl))
			continue;
		b = params->packet_bytes[sl];
		lo[q] = lo[q] && lo[q] < b ? lo[q] : b;
		hi[q] = hi[q] > b ? hi[q] : b;
		mixed |= lo[q] != hi[q];
	}
	if (!mixed || params->model == ARB_MODEL_IB_FLUID)
		return false;
	for (k = 0; k < 2; k++) {
		one = *params;
		for (sl = 0; sl < ARB_NUM_SLS; sl++) {
			q = arb_ib_queue(cfg, params, sl);
			if (q >= 0)
				one.packet_bytes[sl] = k ? hi[q] : lo[q] ? lo[q] :
						       params->packet_bytes[sl];
		}
		memset(&other, 0, sizeof(other));
		arb_ib_one(cfg, &one, params->semantics, false, budget, &other);
		arb_ib_widen(res, &other);
	}
	arb_common_warn(res, "vl-mixed-sizes", "SLs of one %s send packets of different sizes: it "
			"sends each SL's own packets in turn; its packets all of "
			"the smallest or all of the largest size are in the range",
			params->model == ARB_MODEL_DTABLE ? "queue" : "VL");
	return true;
}

/*
 * The runs of the loaded arbiter an analysis makes, so that each gets
 * its part of ARB_IB_LOAD_WORK: the phase draws of each reading compared
 * (those that behave alike are run once), of the two packet sizes (SLs
 * of a queue of different sizes) and of the port without its limit (the
 * firmware caveat), Poisson's run, and limit 0's checks of the readings.
 */
static unsigned arb_ib_load_runs(const struct arb_config *cfg,
				 const struct arb_params *params)
{
	struct arb_semantics seen[ARB_N_SEMANTICS + 1];
	unsigned n = 1, i, j, runs;

	seen[0] = arb_ib_effective(cfg, params, params->semantics);
	for (i = 0; params->model == ARB_MODEL_IB_PACKET && params->compare_semantics &&
		    i < ARB_N_SEMANTICS; i++) {
		seen[n] = arb_ib_effective(cfg, params, arb_ib_semantics_nth((int)i));
		for (j = 0; j < n && !arb_sem_equal(seen[j], seen[n]); j++)
			;
		n += j == n;
	}
	runs = ARB_LOAD_PHASES * n + 1;
	if (params->model != ARB_MODEL_IB_FLUID && arb_ib_mixed_sizes(cfg, params))
		runs += 2 * ARB_LOAD_PHASES;
	if (params->model == ARB_MODEL_IB_PACKET && cfg->limit != ARB_LIMIT_NONE)
		runs += ARB_LOAD_PHASES;
	if (cfg->limit == 0)
		runs += n + 1;
	return runs;
}

int arb_ib_analyze(const struct arb_config *cfg,
		   const struct arb_params *params, struct arb_result *res)
{
	struct arb_budget budget = {
		.left = ARB_IB_BUDGET_WORK,
		.load_run_work = ARB_IB_LOAD_WORK / arb_ib_load_runs(cfg, params),
	};
	uint32_t packet_bytes[ARB_NUM_VLS];
	struct arb_result unlimited;
	const struct arb_result *unl;

	if (params->model == ARB_MODEL_DTABLE && cfg->low.n_entries)
		arb_common_warn(res, "dtable-low-unused", "dtable: the low table is not used (the "
				"high table's entries name SLs)");
	arb_ib_one(cfg, params, params->semantics, true, &budget, res);
	if (res->loaded)
		arb_ib_poisson(cfg, params, &budget, res);
	arb_ib_size_readings(cfg, params, &budget, res);
	if (params->model == ARB_MODEL_IB_PACKET && params->compare_semantics) {
		arb_ib_compare(cfg, params, &budget, res);
	} else {
		arb_ib_distance_ranges(res);
		arb_ib_uncertain(params, res);
	}
	if (res->loaded && budget.window_min == budget.window_max)
		arb_common_warn(res, "offered-loads", "offered loads: shares of the arbiter fed by "
				"them, over %llu packets after a warm-up in each of "
				"%d phase draws, within %.2f points",
				(unsigned long long)budget.window_min, ARB_LOAD_PHASES,
				res->bound_pct);
	else if (res->loaded)
		arb_common_warn(res, "offered-loads", "offered loads: shares of the arbiter fed by "
				"them, over %llu-%llu packets (the analysis' budget) after a "
				"warm-up in each of %d phase draws, within %.2f points",
				(unsigned long long)budget.window_min,
				(unsigned long long)budget.window_max, ARB_LOAD_PHASES,
				res->bound_pct);
	if (budget.cut)
		arb_common_warn(res, "no-exact-period", "no exact period within the analysis' "
				"budget in %u of %u runs of the arbiter: shares within %.2f points",
				budget.cut, budget.runs, res->bound_pct);
	unl = arb_ib_unlimited(cfg, params, &budget, &unlimited);
	arb_queue_packet_bytes(cfg, params, packet_bytes);
	arb_ib_warnings(cfg, params, packet_bytes, unl, res);
	arb_sim_mem_release(&budget.mem);
	return 0;
}
