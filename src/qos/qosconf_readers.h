/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The qosconf readers, for the dispatcher in qosconf.c and nothing else:
 * the row each one has in the dispatcher's table, and the entry points
 * the rows name. A reader uses qosconf_lex.h below it and never calls
 * the dispatcher.
 */
#ifndef RPERF_QOSCONF_READERS_H
#define RPERF_QOSCONF_READERS_H

#include <stdbool.h>

#include "qos/arb.h"
#include "qos/qosconf_parser.h"

/*
 * One format. detect() looks at one line, blanks trimmed: with
 * detect_any_line, every line of a file as it is, and the first it knows
 * decides; otherwise the first line with a comment left after cutting
 * comments, tried in the table's order. line() takes one non-empty line
 * (with its '#' when keeps_hash, cut at '#' otherwise); start() (may be
 * NULL) sets up the parser before the first file, file_end() (may be
 * NULL) checks each file, finish() what only the whole input can tell.
 * A format read as a whole (JSON) has text() in place of line(): it gets
 * each file's text at once. They return 0 or -EINVAL with p->err set.
 */
struct qosconf_reader {
	enum qosconf_format format;
	const char *name;		/* for --format and messages */
	enum arb_kind kind;		/* which half of arb_config it fills */
	bool keeps_hash;		/* '#' lines are the format's own */
	bool detect_any_line;
	bool (*detect)(const char *line);
	void (*start)(struct qosconf_parser *p);
	int (*line)(struct qosconf_parser *p, char *s);
	int (*text)(struct qosconf_parser *p, const char *text);
	int (*file_end)(struct qosconf_parser *p);
	int (*finish)(struct qosconf_parser *p);
};

/* opensm.conf (qosconf_opensm.c); a node type's key prefix is its name */
const char *qosconf_opensm_node_prefix(enum qosconf_node_type type);
bool qosconf_opensm_detect(const char *s);
void qosconf_opensm_start(struct qosconf_parser *p);
int qosconf_opensm_line(struct qosconf_parser *p, char *s);
int qosconf_opensm_finish(struct qosconf_parser *p);

/* smpquery text (qosconf_smp.c) */
bool qosconf_smp_detect(const char *s);
void qosconf_smp_start(struct qosconf_parser *p);
int qosconf_smp_line(struct qosconf_parser *p, char *s);
int qosconf_smp_file_end(struct qosconf_parser *p);
int qosconf_smp_finish(struct qosconf_parser *p);

/* high,VL,WEIGHT table (qosconf_table.c) */
bool qosconf_table_detect(const char *s);
int qosconf_table_line(struct qosconf_parser *p, char *s);
int qosconf_table_finish(struct qosconf_parser *p);

/* ETS description (qosconf_ets.c) */
bool qosconf_ets_detect(const char *s);
int qosconf_ets_line(struct qosconf_parser *p, char *s);
int qosconf_ets_finish(struct qosconf_parser *p);

/* tc -j qdisc show / filter show (qosconf_tc.c) */
bool qosconf_tc_detect(const char *s);
int qosconf_tc_text(struct qosconf_parser *p, const char *text);
int qosconf_tc_finish(struct qosconf_parser *p);

/* dcb -j ets show / app show (qosconf_dcb.c) */
bool qosconf_dcb_detect(const char *s);
void qosconf_dcb_start(struct qosconf_parser *p);
int qosconf_dcb_text(struct qosconf_parser *p, const char *text);
int qosconf_dcb_finish(struct qosconf_parser *p);

#endif
