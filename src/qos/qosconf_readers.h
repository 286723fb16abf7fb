/*
 * The entry points of each qosconf reader, for the dispatcher in
 * qosconf.c and nothing else. A reader uses qosconf_lex.h below it and
 * never calls the dispatcher.
 *
 * A line parser takes one non-empty line (comments cut, except for
 * smpquery) and a finish step runs once every file has been read; both
 * return 0 or -EINVAL with p->err set.
 */
#ifndef RPERF_QOSCONF_READERS_H
#define RPERF_QOSCONF_READERS_H

#include <stdbool.h>

#include "qos/qosconf_parser.h"

/* opensm.conf (qosconf_opensm.c); a node type's key prefix is its name */
const char *qosconf_opensm_node_prefix(enum qosconf_node_type type);
int qosconf_opensm_line(struct qosconf_parser *p, char *s);
int qosconf_opensm_finish(struct qosconf_parser *p);

/* smpquery text (qosconf_smp.c); qosconf_smp_file_end() after each file */
bool qosconf_smp_detect(const char *s);
int qosconf_smp_line(struct qosconf_parser *p, char *s);
int qosconf_smp_file_end(struct qosconf_parser *p);
int qosconf_smp_finish(struct qosconf_parser *p);

/* high,VL,WEIGHT table (qosconf_table.c) */
int qosconf_table_line(struct qosconf_parser *p, char *s);
int qosconf_table_finish(struct qosconf_parser *p);

/* ETS description (qosconf_ets.c) */
int qosconf_ets_line(struct qosconf_parser *p, char *s);
int qosconf_ets_finish(struct qosconf_parser *p);

#endif
