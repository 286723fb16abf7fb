/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The types the qosconf dispatcher and its readers share: input formats,
 * OpenSM's node types, reader options and one input. Types only; the
 * functions are in qosconf.h.
 */
#ifndef RPERF_QOSCONF_TYPES_H
#define RPERF_QOSCONF_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QOSCONF_MAX_FILE_BYTES	(4 << 20)
#define QOSCONF_MAX_SOURCES	16

enum qosconf_format {
	QOSCONF_FORMAT_AUTO,
	QOSCONF_FORMAT_OPENSM,
	QOSCONF_FORMAT_SMPQUERY,
	QOSCONF_FORMAT_TABLE,
	QOSCONF_FORMAT_ETS,
	QOSCONF_FORMAT_TC,		/* tc -j qdisc/filter show (ets qdisc) */
	QOSCONF_FORMAT_DCB,		/* dcb -j ets/app show */
	QOSCONF_FORMAT_COUNT,
};

/* Which of OpenSM's per-node-type key sets applies. */
enum qosconf_node_type {
	QOSCONF_NODE_CA,
	QOSCONF_NODE_SWE,	/* switch external ports (default) */
	QOSCONF_NODE_SW0,	/* switch management port 0 */
	QOSCONF_NODE_SW2SW,	/* switch-to-switch external ports */
	QOSCONF_NODE_RTR,
	QOSCONF_NODE_COUNT,
};

/*
 * What a port says of itself in PortInfo: the limits OpenSM programs
 * within. From a portinfo capture, the live port, or options; with
 * known false, the opensm.conf reader assumes a port that holds all
 * OpenSM writes.
 */
struct qosconf_port {
	bool known;
	int lid;			/* -1: not in the capture */
	int port_num;			/* -1: not in the capture */
	int vl_cap;			/* data VLs the port supports: 1, 2, 4, 8, 15 */
	int oper_vls;			/* operational data VLs: 1, 2, 4, 8, 15 */
	int high_cap;			/* VLArbHighCap */
	int low_cap;			/* VLArbLowCap */
	int vl_high_limit;		/* VLHighLimit as read */
};

struct qosconf_opts {
	enum qosconf_format format;	/* AUTO: detect each file */
	enum qosconf_node_type node_type;
	int in_port;			/* smpquery sl2vl input port; -1: first */
	/* the port an opensm.conf is read for; NULL: from the inputs */
	const struct qosconf_port *port;
};

/* One input: a name for messages and its whole text (NUL-terminated). */
struct qosconf_source {
	const char *name;
	const char *text;
};

#endif
