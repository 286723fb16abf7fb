/*
 * The InfiniBand models, ib-fluid and ib-packet: the output arbiter
 * simulated over the VLArb tables, and the analysis built on it (shares
 * per SL and VL, entry distances, and the warnings a configuration
 * deserves). The two models differ only in how a visit sends its bytes.
 *
 * They follow the offline analysis of Cano-Cano et al.: every VL of the
 * backlogged set always has data and credits; the arbiter walks the high
 * table entry by entry and, each time the high table has sent
 * LimitOfHighPriority x 4096 bytes, serves the next low-table entry. What
 * each VL sent gives its share; the number of grants between two grants
 * of the same VL gives its entry distance.
 */
#include <errno.h>
#include <string.h>

#include "qos/arb_common.h"
#include "qos/arb_models.h"

/* ------------------------------------------------------------------ */
/* InfiniBand arbiter simulation                                       */
/* ------------------------------------------------------------------ */

struct arb_sim {
	const struct arb_config *cfg;
	bool packet_model;
	bool limited;		/* the low table gets turns */
	bool finishing;		/* stop after the next low turn */
	uint16_t backlogged;
	const uint32_t *packet_bytes;
	uint64_t high_bytes;	/* sent by the high table since the last low turn */
	int low_pos;		/* next low-table entry to consider */
	uint64_t next_grant;
	uint64_t last_grant[ARB_NUM_VLS];	/* grant index + 1; 0: never */
	struct arb_vl_stats *stats;
};

static bool sim_entry_active(const struct arb_sim *s, const struct arb_entry *e)
{
	return e->weight && e->vl < ARB_VL15 && (s->backlogged & (1u << e->vl));
}

static uint64_t sim_table_bytes(const struct arb_sim *s, const struct arb_table *t)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < t->n_entries; i++)
		if (sim_entry_active(s, &t->entries[i]))
			sum += (uint64_t)t->entries[i].weight * ARB_UNIT_BYTES;
	return sum;
}

/* Bytes the high table may send before the low table gets a turn. */
static uint64_t sim_limit_bytes(const struct arb_sim *s, int vl)
{
	if (s->cfg->limit == 0)
		return s->packet_bytes[vl];	/* one packet */
	return (uint64_t)s->cfg->limit * ARB_LIMIT_UNIT_BYTES;
}

/* Account @bytes sent by @vl; a new grant also records the entry distance. */
static void sim_send(struct arb_sim *s, int vl, uint64_t bytes, bool new_grant)
{
	struct arb_vl_stats *st = s->stats;
	uint64_t d;

	st->bytes[vl] += bytes;
	if (!new_grant)
		return;
	if (s->last_grant[vl]) {
		d = s->next_grant + 1 - s->last_grant[vl];
		st->distance_sum[vl] += d;
		if (d > st->distance_max[vl])
			st->distance_max[vl] = d;
	}
	st->grants[vl]++;
	s->last_grant[vl] = ++s->next_grant;
}

/* Size of the next piece a visit sends: a packet, or a fluid run of bytes. */
static uint64_t sim_chunk_bytes(const struct arb_sim *s, int vl, int64_t left,
				bool high)
{
	uint64_t room;

	if (s->packet_model)
		return s->packet_bytes[vl];
	if (!high || !s->limited)
		return left;
	room = sim_limit_bytes(s, vl) - s->high_bytes;
	return room < (uint64_t)left ? room : (uint64_t)left;
}

static bool sim_visit(struct arb_sim *s, const struct arb_entry *e, bool high);

/* Serve the next low-table entry whose VL is backlogged. */
static void sim_low_turn(struct arb_sim *s)
{
	const struct arb_table *t = &s->cfg->low;
	int i, pos;

	for (i = 0; i < t->n_entries; i++) {
		pos = (s->low_pos + i) % t->n_entries;
		if (sim_entry_active(s, &t->entries[pos])) {
			s->low_pos = (pos + 1) % t->n_entries;
			sim_visit(s, &t->entries[pos], false);
			return;
		}
	}
}

/*
 * One visit of a table entry: the VL sends its weight in bytes (ib-fluid)
 * or whole packets until the weight is used up, the overshoot lost
 * (ib-packet). A high visit is interrupted by a low turn whenever the high
 * limit is reached, and resumes after it. Returns true when the simulation
 * is finishing and that low turn was the last one.
 */
static bool sim_visit(struct arb_sim *s, const struct arb_entry *e, bool high)
{
	int64_t left = (int64_t)e->weight * ARB_UNIT_BYTES;
	bool fresh = true;
	uint64_t n;

	while (left > 0) {
		n = sim_chunk_bytes(s, e->vl, left, high);
		sim_send(s, e->vl, n, fresh);
		fresh = false;
		left -= n;
		if (!high || !s->limited)
			continue;
		s->high_bytes += n;
		if (s->high_bytes < sim_limit_bytes(s, e->vl))
			continue;
		s->high_bytes = 0;
		sim_low_turn(s);
		fresh = true;
		if (s->finishing)
			return true;
	}
	return false;
}

/* One pass over a table; true when the finishing low turn happened. */
static bool sim_cycle(struct arb_sim *s, const struct arb_table *t, bool high)
{
	int i;

	for (i = 0; i < t->n_entries; i++)
		if (sim_entry_active(s, &t->entries[i]) &&
		    sim_visit(s, &t->entries[i], high))
			return true;
	return false;
}

int arb_ib_simulate(const struct arb_config *cfg, enum arb_model model,
		    int runs, uint16_t backlogged,
		    const uint32_t packet_bytes[ARB_NUM_VLS],
		    struct arb_vl_stats *stats)
{
	struct arb_sim s = {
		.cfg = cfg,
		.packet_model = model == ARB_MODEL_IB_PACKET,
		.backlogged = backlogged,
		.packet_bytes = packet_bytes,
		.stats = stats,
	};
	int i;

	if (model != ARB_MODEL_IB_FLUID && model != ARB_MODEL_IB_PACKET)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	if (!sim_table_bytes(&s, &cfg->high)) {
		for (i = 0; i < runs; i++)
			sim_cycle(&s, &cfg->low, false);
		return 0;
	}
	s.limited = cfg->limit != ARB_LIMIT_NONE && sim_table_bytes(&s, &cfg->low);
	for (i = 0; i < runs; i++)
		sim_cycle(&s, &cfg->high, true);
	/* End on a low turn, so both tables are seen over whole periods. */
	s.finishing = true;
	while (s.limited && s.high_bytes && !sim_cycle(&s, &cfg->high, true))
		;
	return 0;
}

/* ------------------------------------------------------------------ */
/* InfiniBand analysis                                                 */
/* ------------------------------------------------------------------ */

struct arb_ib_ctx {
	const struct arb_config *cfg;
	const struct arb_params *params;
	uint32_t packet_bytes[ARB_NUM_VLS];
	bool have_first;
	struct arb_vl_stats first;	/* every loaded flow backlogged */
	struct arb_vl_stats scratch;
};

static void arb_ib_shares(void *opaque, uint16_t vls, double share[ARB_MAX_BANDS])
{
	struct arb_ib_ctx *ctx = opaque;
	struct arb_vl_stats *st = ctx->have_first ? &ctx->scratch : &ctx->first;
	uint64_t total = 0;
	int vl;

	arb_ib_simulate(ctx->cfg, ctx->params->model, ctx->params->runs, vls,
			ctx->packet_bytes, st);
	ctx->have_first = true;
	for (vl = 0; vl < ARB_NUM_VLS; vl++)
		total += st->bytes[vl];
	for (vl = 0; vl < ARB_NUM_VLS; vl++)
		share[vl] = total ? (double)st->bytes[vl] / total : 0;
}

/* A VL's packet size is that of the lowest SL mapped to it. */
static void arb_vl_packet_bytes(const struct arb_config *cfg,
				const struct arb_params *params,
				uint32_t packet_bytes[ARB_NUM_VLS])
{
	int sl, vl;

	for (vl = 0; vl < ARB_NUM_VLS; vl++)
		packet_bytes[vl] = ARB_DEFAULT_PACKET_BYTES;
	for (sl = ARB_NUM_SLS - 1; sl >= 0; sl--)
		packet_bytes[cfg->sl2vl[sl]] = params->packet_bytes[sl];
}

static void arb_table_weights(const struct arb_config *cfg, struct arb_result *res)
{
	const struct arb_entry *e;
	int i;

	for (i = 0; i < cfg->high.n_entries; i++) {
		e = &cfg->high.entries[i];
		res->vls[e->vl].high_weight += e->weight;
	}
	for (i = 0; i < cfg->low.n_entries; i++) {
		e = &cfg->low.entries[i];
		res->vls[e->vl].low_weight += e->weight;
	}
}

static void arb_set_distance(bool *has, double *mean, double *max,
			     const struct arb_vl_stats *st, int vl)
{
	*has = st->grants[vl] > 1;
	*mean = *has ? st->distance_sum[vl] / (st->grants[vl] - 1) : 0;
	*max = *has ? (double)st->distance_max[vl] : 0;
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

static void arb_ib_fill(const struct arb_config *cfg,
			const struct arb_params *params,
			const struct arb_ib_ctx *ctx, const double *rate_gbps,
			struct arb_result *res)
{
	struct arb_sl_result *r;
	int sl, vl;

	res->n_sls = ARB_NUM_SLS;
	res->n_vls = ARB_NUM_VLS;
	for (vl = 0; vl < ARB_NUM_VLS; vl++) {
		res->vls[vl].vl = vl;
		arb_set_distance(&res->vls[vl].has_distance,
				 &res->vls[vl].mean_distance,
				 &res->vls[vl].max_distance, &ctx->first, vl);
	}
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		r = arb_common_fill_sl(res, params, sl, cfg->sl2vl[sl], rate_gbps[sl]);
		arb_set_distance(&r->has_distance, &r->mean_distance,
				 &r->max_distance, &ctx->first, r->vl);
	}
	arb_table_weights(cfg, res);
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
		arb_common_warn(res, "%s table has %d entries but the port holds %d "
				"(VLArb%sCap): the rest are ignored by the port",
				name, t->n_entries, t->cap, t == &cfg->high ? "High" : "Low");
	if (zero)
		arb_common_warn(res, "%s table: %d %s with weight 0 skipped",
				name, zero, arb_entries(zero));
	if (vl15)
		arb_common_warn(res, "%s table: %d %s naming VL15 (management only) "
				"ignored", name, vl15, arb_entries(vl15));
	if (beyond)
		arb_common_warn(res, "%s table: %d %s naming VLs beyond the %d "
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
	arb_common_warn(res, "%s table: %d %s below one %u-byte packet: %s",
			arb_table_name(cfg, t), small, arb_entries(small), min_packet,
			model == ARB_MODEL_IB_PACKET ?
			"each visit sends one whole packet" :
			"ib-fluid carries the overshoot to the next visit "
			"(compare --model ib-packet)");
}

static bool arb_sl_offers(const struct arb_params *params, int sl)
{
	return params->load_gbps[sl] != 0;
}

/* SL to VL mapping problems, for the SLs that offer traffic. */
static void arb_warn_sl2vl(const struct arb_config *cfg,
			   const struct arb_params *params,
			   struct arb_result *res)
{
	int sl, other, vl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		vl = cfg->sl2vl[sl];
		if (!arb_sl_offers(params, sl))
			continue;
		if (vl == ARB_VL15) {
			if (cfg->sl2vl_explicit)
				arb_common_warn(res, "SL%d maps to VL15 (management "
						"only): its traffic is dropped", sl);
			continue;
		}
		if (cfg->oper_vls && vl >= cfg->oper_vls)
			arb_common_warn(res, "SL%d maps to VL%d, beyond the %d "
					"operational VLs", sl, vl, cfg->oper_vls);
		if (!res->vls[vl].high_weight && !res->vls[vl].low_weight) {
			if (params->load_gbps[sl] > 0)
				arb_common_warn(res, "SL%d offers load but VL%d has no "
						"arbitration weight: it gets nothing",
						sl, vl);
			continue;
		}
		for (other = 0; other < sl; other++)
			if (cfg->sl2vl[other] == vl && arb_sl_offers(params, other))
				break;
		if (other < sl)
			arb_common_warn(res, "SL%d and SL%d share VL%d: the VL's share "
					"is split equally between its SLs", other, sl, vl);
	}
}

static void arb_warn_limit(const struct arb_config *cfg, struct arb_result *res)
{
	int i;

	if (!cfg->limit_known)
		arb_common_warn(res, "LimitOfHighPriority not in the input: %d assumed "
				"(give it with --limit)", cfg->limit);
	if (cfg->limit != ARB_LIMIT_NONE)
		return;
	for (i = 0; i < cfg->low.n_entries; i++) {
		if (cfg->low.entries[i].weight) {
			arb_common_warn(res, "limit 255: the high table is never "
					"limited, low-priority VLs can starve");
			return;
		}
	}
}

static void arb_ib_warnings(const struct arb_config *cfg,
			    const struct arb_params *params,
			    const uint32_t *packet_bytes, struct arb_result *res)
{
	arb_warn_entries(cfg, &cfg->high, res);
	arb_warn_entries(cfg, &cfg->low, res);
	arb_warn_small_weights(cfg, &cfg->high, packet_bytes, params->model, res);
	arb_warn_small_weights(cfg, &cfg->low, packet_bytes, params->model, res);
	arb_warn_limit(cfg, res);
	arb_warn_sl2vl(cfg, params, res);
}

int arb_ib_analyze(const struct arb_config *cfg,
		   const struct arb_params *params, struct arb_result *res)
{
	struct arb_ib_ctx ctx = { .cfg = cfg, .params = params };
	struct arb_wf wf = { .n_flows = ARB_NUM_SLS, .shares = arb_ib_shares,
			     .ctx = &ctx };
	double rate_gbps[ARB_MAX_FLOWS];
	int sl;

	arb_vl_packet_bytes(cfg, params, ctx.packet_bytes);
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		wf.group[sl] = cfg->sl2vl[sl] == ARB_VL15 ? -1 : cfg->sl2vl[sl];
		wf.load_gbps[sl] = params->load_gbps[sl];
	}
	arb_common_waterfill(&wf, params->link_gbps, rate_gbps);
	arb_ib_fill(cfg, params, &ctx, rate_gbps, res);
	arb_ib_warnings(cfg, params, ctx.packet_bytes, res);
	return 0;
}

