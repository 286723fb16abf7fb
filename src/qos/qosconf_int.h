/*
 * What the qosconf readers share and nothing outside them includes: the
 * parser state every format's line parser works on, the helpers that turn
 * a bad value into a "file:line: what" message, and each format's entry
 * points for the driver in qosconf.c. The public API is qosconf.h.
 */
#ifndef RPERF_QOSCONF_INT_H
#define RPERF_QOSCONF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "qos/arb.h"
#include "qos/qosconf.h"

#define SMP_BLOCK_ENTRIES	32	/* smpquery prints 32 entries a row */

/* One set of qos_ keys: the generic one or a node type's. */
struct opensm_set {
	int max_vls;		/* 0: unset */
	int high_limit;		/* -1: unset */
	bool has_high, has_low, has_sl2vl;
	struct arb_table high, low;
	uint8_t sl2vl[ARB_NUM_SLS];
};

struct qosconf_parser {
	const struct qosconf_opts *opts;
	struct arb_config *cfg;
	struct qosconf_err *err;
	const char *name;	/* current file */
	int line;		/* current line, from 1 */

	/* opensm: index QOSCONF_NODE_COUNT holds the generic qos_ keys */
	struct opensm_set sets[QOSCONF_NODE_COUNT + 1];

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

	int n_items;		/* meaningful lines seen in all files */
};

/* ------------------------------------------------------------------ */
/* Helpers (qosconf.c)                                                 */
/* ------------------------------------------------------------------ */

/* Set p->err to "name:line: what"; returns -EINVAL. */
int __attribute__((format(printf, 2, 3)))
qc_error(struct qosconf_parser *p, const char *fmt, ...);
/* qc_error() for an earlier @line (it becomes the current one). */
int qc_error_line(struct qosconf_parser *p, int line, const char *what);
char *qc_skip_space(const char *s);
/* Cut trailing blanks in place. */
void qc_trim_end(char *s);
/*
 * One whole integer token in C syntax into [lo, hi]: 0, -EINVAL when @s
 * is not a number, -ERANGE when it is out of range. Sets no message.
 */
int qc_parse_long(const char *s, long lo, long hi, long *out);
/* qc_parse_long() with the message every caller wants; 0 or -EINVAL. */
int qc_number(struct qosconf_parser *p, const char *what, const char *s,
	      long lo, long hi, long *out);
/* Append VL:weight to @t, the @which table; 0 or -EINVAL when it is full. */
int qc_table_add(struct qosconf_parser *p, struct arb_table *t,
		 const char *which, long vl, long weight);

/* ------------------------------------------------------------------ */
/* Formats                                                             */
/* ------------------------------------------------------------------ */

/*
 * A format's line parser takes one non-empty line (comments cut, except
 * for smpquery) and its finish step runs once every file has been read;
 * both return 0 or -EINVAL with p->err set.
 */

/* opensm.conf (qosconf_opensm.c) */
int qc_opensm_line(struct qosconf_parser *p, char *s);
int qc_opensm_finish(struct qosconf_parser *p);

/* smpquery text (qosconf_smp.c); qc_smp_file_end() after each file */
bool qc_smp_detect(const char *s);
int qc_smp_line(struct qosconf_parser *p, char *s);
int qc_smp_file_end(struct qosconf_parser *p);
int qc_smp_finish(struct qosconf_parser *p);

/* ETS description (qosconf_ets.c) */
int qc_ets_line(struct qosconf_parser *p, char *s);
int qc_ets_finish(struct qosconf_parser *p);

#endif
