/*
 * Arbitration models: what share of a port's bandwidth each service level
 * gets, and how long it waits between turns, predicted from the port's
 * arbitration configuration alone.
 *
 * Two kinds of port are described by one struct arb_config:
 *  - InfiniBand: VLArb high and low tables, LimitOfHighPriority and SL2VL;
 *    modelled byte by byte (ib-fluid, the default) or packet by packet
 *    (ib-packet, whole packets and no deficit carried between visits);
 *  - Ethernet ETS (802.1Qaz, Linux tc-ets): strict bands, then deficit
 *    round robin over quanta.
 * Offered loads are honoured by work-conserving water-filling.
 *
 * Everything here is a pure function of its arguments: no I/O, no globals,
 * no printing. Warnings are collected in the result for the caller.
 */
#ifndef RPERF_ARB_H
#define RPERF_ARB_H

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
#define ARB_WARNING_LEN		200

enum arb_kind {
	ARB_KIND_VLARB,		/* InfiniBand VLArb + SL2VL */
	ARB_KIND_ETS,		/* Ethernet ETS bands */
};

enum arb_model {
	ARB_MODEL_IB_FLUID,
	ARB_MODEL_IB_PACKET,
	ARB_MODEL_ETS,
	ARB_MODEL_COUNT,
};

struct arb_entry {
	uint8_t vl;
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
	int runs;				/* high-table cycles to simulate */
	double link_gbps;
	double load_gbps[ARB_NUM_SLS];		/* < 0: saturating */
	uint32_t packet_bytes[ARB_NUM_SLS];	/* ib-packet (and limit 0) */
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
	bool has_distance;		/* false: served fewer than twice */
	double mean_distance;		/* in entries (grants) served */
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
};

struct arb_result {
	enum arb_kind kind;
	enum arb_model model;
	int runs;
	int limit;
	double link_gbps;
	int n_sls;			/* 16 for InfiniBand, 8 for ETS */
	struct arb_sl_result sls[ARB_NUM_SLS];
	int n_vls;			/* 16 VLs, or the number of bands */
	struct arb_vl_result vls[ARB_MAX_BANDS > ARB_NUM_VLS ?
				 ARB_MAX_BANDS : ARB_NUM_VLS];
	int n_warnings;
	char warnings[ARB_MAX_WARNINGS][ARB_WARNING_LEN];
};

/* Per-VL outcome of one simulation of the arbiter on a backlogged set. */
struct arb_vl_stats {
	uint64_t bytes[ARB_NUM_VLS];	/* bytes sent */
	uint64_t grants[ARB_NUM_VLS];	/* turns granted */
	double distance_sum[ARB_NUM_VLS];
	uint64_t distance_max[ARB_NUM_VLS];
};

void arb_config_init(struct arb_config *cfg, enum arb_kind kind);
void arb_params_init(struct arb_params *params);

const char *arb_model_name(enum arb_model model);
/* Return 0 and set *model, or -EINVAL for an unknown name. */
int arb_model_parse(const char *name, enum arb_model *model);
/* The options @model takes, as a line for help; NULL for an unknown model. */
const char *arb_model_options(enum arb_model model);
/* Whether @model analyzes configurations of @kind (ets for ETS, ib-* for VLArb). */
bool arb_model_fits(enum arb_model model, enum arb_kind kind);

/*
 * Simulate the InfiniBand output arbiter with the VLs in @backlogged
 * (bit i = VL i) always backlogged and credited, for params->runs cycles
 * of the high table (or of the low table when the high table has nothing
 * to send), then up to the next low-priority turn so that both tables are
 * seen over whole limit periods. @packet_bytes gives each VL's packet size
 * (used by ib-packet, and by ib-fluid for limit 0).
 * Fills @stats. Returns 0, or -EINVAL for a non-IB model.
 */
int arb_ib_simulate(const struct arb_config *cfg, enum arb_model model,
		    int runs, uint16_t backlogged,
		    const uint32_t packet_bytes[ARB_NUM_VLS],
		    struct arb_vl_stats *stats);

/*
 * ETS shares of the bands in @backlogged (bit i = band i): the first
 * backlogged strict band takes everything; without one, the backlogged
 * DRR bands split the link by quantum. share[] sums to 1 or 0.
 */
void arb_ets_shares(const struct arb_config *cfg, uint16_t backlogged,
		    double share[ARB_MAX_BANDS]);

/* Band of an ETS priority (0-7) or DSCP (0-63). */
int arb_ets_prio_band(const struct arb_config *cfg, int prio);
int arb_ets_dscp_band(const struct arb_config *cfg, int dscp);

/* DSCP carried by an IB GRH traffic class / IP TOS byte. */
static inline int arb_tclass_to_dscp(int tclass)
{
	return (tclass >> 2) & 0x3f;
}

/*
 * For converge: the band that traffic marked with @dscp lands in and the
 * share of the link that band is predicted to get in @res. Returns 0, or
 * -EINVAL if @dscp is out of range or the result is not an ETS one.
 */
int arb_ets_dscp_share(const struct arb_config *cfg,
		       const struct arb_result *res, int dscp,
		       int *band, double *share_pct);

/*
 * Run the model in params->model on @cfg: per SL and per VL share, Gb/s
 * and entry distances, with water-filling of the offered loads, and the
 * warnings the configuration deserves. Returns 0, or -EINVAL when the
 * model does not fit the configuration (ets on VLArb input, or an IB
 * model on ETS input) or a parameter is out of range.
 */
int arb_analyze(const struct arb_config *cfg, const struct arb_params *params,
		struct arb_result *res);

#endif
