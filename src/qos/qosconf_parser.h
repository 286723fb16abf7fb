/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
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

#define OPENSM_LINE_MAX		1024	/* OpenSM reads lines with fgets(1023) */

/* One set of qos_ keys, the generic one or a node type's, as OpenSM keeps them. */
struct qosconf_opensm_set {
	long max_vls;		/* 0: unset */
	long high_limit;	/* -1: unset */
	bool has_high, has_low, has_sl2vl;	/* false: unset or (null) */
	char high[OPENSM_LINE_MAX], low[OPENSM_LINE_MAX], sl2vl[OPENSM_LINE_MAX];
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
	bool qos_on;		/* "qos TRUE", exactly */
	char qos_value[32];	/* what "qos" was set to; "" when absent */
	long max_op_vls;	/* OpenSM's max_op_vls, OperVLs encoding 1-5 */
	struct qosconf_port port;	/* from a portinfo capture */

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
	int sl2vl_rows;		/* "ports:" rows in the capture */
	int in_port_max;	/* highest input port seen; -1: none */
	bool capmask_names;	/* capability names may follow (CapMask) */
	bool no_vlarb;		/* "# No VLArbitration tables" */
	bool id_seen;		/* the port the captures are of */
	long id_lid, id_port;	/* id_port -1: SL2VL capture, out port unknown */
	const char *id_name;
	int id_line;

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
