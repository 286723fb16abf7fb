/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The warnings an InfiniBand arbitration configuration deserves
 * (arb_ib.c's analysis adds them to its result): table entries the port
 * cannot honour or that do nothing, weights below one packet, SL to VL
 * mappings that lose traffic or share a VL, an assumed or unlimited
 * LimitOfHighPriority, and the firmware caveats the shares depend on.
 * They read the configuration and the result; nothing here runs the
 * arbiter.
 */
#include <math.h>
#include <stdio.h>

#include "qos/arb_common.h"
#include "qos/arb_ib_run.h"
#include "qos/arb_ib_warn.h"

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

void arb_ib_warnings(const struct arb_config *cfg,
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
