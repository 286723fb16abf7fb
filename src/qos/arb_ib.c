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
 *
 * The arbiter's runs are arb_ib_run.c's and the warnings arb_ib_warn.c's;
 * this file composes them into one analysis and compares the semantics.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qos/arb_common.h"
#include "qos/arb_ib.h"
#include "qos/arb_ib_run.h"
#include "qos/arb_ib_warn.h"

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