/*
 * The state the qosconf readers work on while a configuration is read:
 * where the reader is (file, line), where errors go, what it fills, and
 * what each format remembers between lines. Types only: the helpers are
 * in qosconf_lex.h, the readers in qosconf_readers.h, the public API in
 * qosconf.h.
 */
#ifndef RPERF_QOSCONF_PARSER_H
#define RPERF_QOSCONF_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qos/arb.h"
#include "qos/qosconf_types.h"

#define SMP_BLOCK_ENTRIES	32	/* smpquery prints 32 entries a row */

/* One set of qos_ keys: the generic one or a node type's. */
struct qosconf_opensm_set {
	int max_vls;		/* 0: unset */
	int high_limit;		/* -1: unset */
	bool has_high, has_low, has_sl2vl;
	struct arb_table high, low;
	uint8_t sl2vl[ARB_NUM_SLS];
};

struct qosconf_parser {
	const struct qosconf_opts *opts;
	struct arb_config *cfg;
	char *err;		/* the caller's message buffer */
	size_t errlen;
	const char *name;	/* current file */
	int line;		/* current line, from 1 */

	/* opensm: index QOSCONF_NODE_COUNT holds the generic qos_ keys */
	struct qosconf_opensm_set sets[QOSCONF_NODE_COUNT + 1];

	/* smpquery */
	bool vlarb_seen;
	int vlarb_line;
	const char *vlarb_name;
	struct arb_table *table;	/* table the next rows belong to */
	int table_line;
	int vl_row[SMP_BLOCK_ENTRIES];	/* VL row awaiting its WEIGHT row */
	int vl_row_count;		/* -1: none pending */
	bool sl2vl_header;		/* SL2VL header awaiting a ports line */
	int sl2vl_header_line;
	bool sl2vl_seen;

	/* ets */
	int dscp_line[ARB_NUM_DSCPS];
	int prio_line[ARB_NUM_PRIOS];
	int default_line;
	bool drr_seen;

	/* tc -j: the ets qdisc, and where each DSCP's filter sends it */
	bool tc_qdisc_seen;
	int tc_qdisc_line;
	uint32_t tc_major;		/* the ets qdisc's handle, major part */
	uint8_t tc_priomap[16];
	uint8_t tc_dscp_how[ARB_NUM_DSCPS];	/* 0: no filter, 1: classid, 2: priority */
	uint32_t tc_dscp_to[ARB_NUM_DSCPS];	/* that classid or skb priority */
	int tc_dscp_line[ARB_NUM_DSCPS];

	/* dcb -j: ets (per traffic class) and app (DSCP to priority) */
	int dcb_ets_line, dcb_app_line;
	uint8_t dcb_tsa[ARB_NUM_PRIOS];	/* 0 strict, 1 ets; by traffic class */
	uint8_t dcb_bw[ARB_NUM_PRIOS];
	uint8_t dcb_prio_tc[ARB_NUM_PRIOS];
	int8_t dcb_dscp_prio[ARB_NUM_DSCPS];	/* -1: none */
	int dcb_default_prio;		/* -1: none (priority 0) */

	int n_items;		/* meaningful lines seen in all files */
};

#endif
