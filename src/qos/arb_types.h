/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The types every part of the qos layer shares: a port's arbitration
 * configuration (struct arb_config), the analysis parameters and the
 * results. Types and limits only; the functions are in arb.h (the
 * dispatcher), arb_models.h (the models) and arb_common.h (their helpers).
 */
#ifndef RPERF_ARB_TYPES_H
#define RPERF_ARB_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#define ARB_MAX_ENTRIES		64	/* per VLArb table: two blocks of 32 */
#define ARB_NUM_VLS		16	/* VL0-14 data, VL15 management */
#define ARB_NUM_SLS		16
#define ARB_VL15		15
#define ARB_UNIT_BYTES		64	/* one unit of VLArb weight */
#define ARB_LIMIT_UNIT_BYTES	4096	/* one unit of LimitOfHighPriority */
#define ARB_LIMIT_NONE		255	/* high priority is never limited */
#define ARB_MAX_WEIGHT		255
#define ARB_MAX_LIMIT		255

#define ARB_MAX_BANDS		16
#define ARB_NUM_PRIOS		8	/* 802.1p priorities */
#define ARB_NUM_DSCPS		64

#define ARB_DEFAULT_RUNS	30
#define ARB_DEFAULT_LINK_GBPS	100.0
#define ARB_DEFAULT_PACKET_BYTES 4096
#define ARB_MAX_WARNINGS	48
#define ARB_WARNING_LEN		320
#define ARB_MAX_CONFIG_WARNINGS	24
#define ARB_WARNING_CODE_LEN	32	/* "sl-shared-vl": what a warning is about */

enum arb_kind {
	ARB_KIND_VLARB,		/* InfiniBand VLArb + SL2VL */
	ARB_KIND_ETS,		/* Ethernet ETS bands */
};

enum arb_model {
	ARB_MODEL_IB_FLUID,
	ARB_MODEL_IB_PACKET,
	ARB_MODEL_ETS,
	ARB_MODEL_DTABLE,
	ARB_MODEL_COUNT,
};

/*
 * The packet-level arbiter's readings of what the specification leaves
 * open (rperf-analyze(1), SEMANTICS, gives the evidence for each).
 */
enum arb_low_turn {
	ARB_LOW_ENTRY,		/* the low table serves one entry visit */
	ARB_LOW_PACKET,		/* the low table sends one packet */
	ARB_LOW_CONTINUE,	/* entry visits, on past a VL that empties */
	ARB_N_LOW_TURNS,
};

enum arb_limit0 {
	ARB_LIMIT0_ALTERNATE,	/* limit 0: one high packet, one low packet */
	ARB_LIMIT0_BYTES,	/* limit 0: one high packet, then a low turn */
};

struct arb_semantics {
	bool carry;		/* a visit's overshoot is owed by the VL's next visit */
	enum arb_low_turn low_turn;
	enum arb_limit0 limit0;
	bool deficit_per_table;	/* a VL in both tables has a deficit in each */
};

#define ARB_N_SEMANTICS		24	/* every combination of the four */
#define ARB_DEFAULT_RANGE_PCT	1.0	/* semantics disagreeing by more: a range */

struct arb_entry {
	uint8_t vl;		/* a VL; an SL for dtable */
	uint8_t weight;		/* in ARB_UNIT_BYTES units; 0 skips the entry */
};

struct arb_table {
	struct arb_entry entries[ARB_MAX_ENTRIES];
	int n_entries;
	int cap;		/* VLArbHighCap/LowCap, 0 when unknown */
};

struct arb_band {
	bool strict;
	uint32_t quantum_bytes;	/* DRR quantum; 0 for strict bands */
};

struct arb_config {
	enum arb_kind kind;

	/* InfiniBand */
	struct arb_table high;
	struct arb_table low;
	int limit;		/* LimitOfHighPriority, 0-255 */
	bool limit_known;	/* false: not in the input, 0 assumed */
	uint8_t sl2vl[ARB_NUM_SLS];
	bool sl2vl_explicit;	/* false: the identity default was used */
	int oper_vls;		/* operational data VLs, 0 when unknown */

	/*
	 * What the reader had to say about the input: where the port
	 * will not hold what was written (OpenSM's own reading of an
	 * opensm.conf). The caller reports them with the model's.
	 */
	int n_warnings;
	char warnings[ARB_MAX_CONFIG_WARNINGS][ARB_WARNING_LEN];
	char warning_codes[ARB_MAX_CONFIG_WARNINGS][ARB_WARNING_CODE_LEN];

	/* ETS */
	int n_bands;
	struct arb_band bands[ARB_MAX_BANDS];
	int8_t dscp_band[ARB_NUM_DSCPS];	/* -1: default band */
	int8_t prio_band[ARB_NUM_PRIOS];	/* -1: default band */
	int default_band;			/* -1: not given */
};

/* How to run a model. Loads are per SL (per priority for ETS). */
struct arb_params {
	enum arb_model model;
	int runs;				/* kept for scripts; results are exact */
	struct arb_semantics semantics;		/* ib-packet's reading */
	bool compare_semantics;			/* ib-packet: evaluate them all */
	double range_pct;			/* disagreement shown as a range */
	double link_gbps;
	double load_gbps[ARB_NUM_SLS];		/* < 0: saturating */
	uint32_t packet_bytes[ARB_NUM_SLS];	/* per SL (MTU-sized packets) */
	/* ETS traffic classified by DSCP alone, offered straight to a band */
	bool band_load_set[ARB_MAX_BANDS];
	double band_load_gbps[ARB_MAX_BANDS];	/* < 0: saturating */
};

/* One service level (InfiniBand SL, or ETS priority). */
struct arb_sl_result {
	int sl;
	int vl;				/* VL, or ETS band */
	double offered_gbps;		/* < 0: saturating */
	double share_pct;
	double gbps;
	/* ib-packet compared over every semantics: the range of share_pct */
	double share_min_pct;
	double share_max_pct;
	bool has_distance;		/* false: never served */
	/* IB models: per packet of the SL's VL, the packets of other VLs
	 * that start between the moment it could go (arrived, first in its
	 * VL) and its start, under the offered loads; mean and largest.
	 * ETS: entries between two turns. */
	double mean_distance;
	double max_distance;
};

/* One VL (or ETS band). */
struct arb_vl_result {
	int vl;
	int high_weight;		/* sum of the VL's high-table weights */
	int low_weight;
	uint32_t quantum_bytes;		/* ETS */
	bool strict;			/* ETS */
	double share_pct;
	double gbps;
	bool has_distance;
	double mean_distance;
	double max_distance;
	/* ib-packet compared over every semantics: the distances' ranges */
	double mean_distance_min, mean_distance_max;
	double max_distance_min, max_distance_max;
};

/* One semantics' shares and distances, when ib-packet compares them. */
struct arb_sem_result {
	struct arb_semantics semantics;
	double share_pct[ARB_NUM_SLS];
	bool has_distance[ARB_NUM_VLS];
	double mean_distance[ARB_NUM_VLS];
	double max_distance[ARB_NUM_VLS];
};

struct arb_result {
	enum arb_kind kind;
	enum arb_model model;
	int runs;
	struct arb_semantics semantics;	/* the one share_pct follows */
	bool exact;			/* shares of one exact period */
	bool loaded;			/* the arbiter fed by the offered loads */
	uint64_t period_packets;	/* packets in that period (all backlogged) */
	uint64_t window_packets;	/* packets the shares come from: the
					 * period, or the window (cut, loaded) */
	double bound_pct;		/* error bound of a share: of the window,
					 * and of the readings' cut runs */
	int n_semantics;		/* filled entries of per_semantics */
	struct arb_sem_result per_semantics[ARB_N_SEMANTICS];
	bool uncertain;			/* some SL's range exceeds range_pct */
	int limit;
	double link_gbps;
	int n_sls;			/* 16 for InfiniBand, 8 for ETS */
	struct arb_sl_result sls[ARB_NUM_SLS];
	int n_vls;			/* 16 VLs, or the number of bands */
	struct arb_vl_result vls[ARB_MAX_BANDS > ARB_NUM_VLS ?
				 ARB_MAX_BANDS : ARB_NUM_VLS];
	int n_warnings;
	char warnings[ARB_MAX_WARNINGS][ARB_WARNING_LEN];
	char warning_codes[ARB_MAX_WARNINGS][ARB_WARNING_CODE_LEN];
};

#endif
