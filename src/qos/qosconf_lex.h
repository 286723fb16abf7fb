/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What every qosconf reader uses to take a line apart: blanks, comments,
 * numbers and lists, and the helpers that turn a bad value into a
 * "file:line: what" message. Below the readers, which are below the
 * dispatcher in qosconf.c: nothing here calls a reader or the dispatcher.
 */
#ifndef RPERF_QOSCONF_LEX_H
#define RPERF_QOSCONF_LEX_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "qos/arb.h"
#include "qos/qosconf_parser.h"

/* Set p->err to "name:line: what"; returns -EINVAL. */
int __attribute__((format(printf, 2, 3)))
qosconf_lex_error(struct qosconf_parser *p, const char *fmt, ...);
/* qosconf_lex_error() for an earlier @line (it becomes the current one). */
int qosconf_lex_error_line(struct qosconf_parser *p, int line, const char *what);

/* Add a warning of kind @code about the input to p->cfg (once; dropped
 * when full). */
void __attribute__((format(printf, 3, 4)))
qosconf_lex_warn(struct qosconf_parser *p, const char *code, const char *fmt, ...);

/* The first non-blank of @s. */
char *qosconf_lex_skip_space(const char *s);
/* Cut trailing blanks in place. */
void qosconf_lex_trim_end(char *s);
/* Cut a '#' comment and surrounding blanks in place; the trimmed start. */
char *qosconf_lex_strip_comment(char *s);

/*
 * One whole integer token in C syntax into [lo, hi]: 0, -EINVAL when @s
 * is not a number, -ERANGE when it is out of range. Sets no message.
 */
int qosconf_lex_parse_long(const char *s, long lo, long hi, long *out);
/* qosconf_lex_parse_long() with the message every caller wants; 0 or -EINVAL. */
int qosconf_lex_number(struct qosconf_parser *p, const char *what,
		       const char *s, long lo, long hi, long *out);

/*
 * Parse a list of numbers "a,b,c" (C syntax, 0x accepted) of at most @max
 * values each in [lo, hi] into @out; *count gets how many. Used for SL2VL
 * lists and for command-line lists. Returns 0, or -EINVAL with a reason
 * (without file:line) in @err.
 */
int qosconf_lex_list(const char *s, long lo, long hi, int max,
		     uint8_t *out, int *count, char *err, size_t errlen);

/* Append VL:weight to @t, the @which table; 0 or -EINVAL when it is full. */
int qosconf_lex_table_add(struct qosconf_parser *p, struct arb_table *t,
			  const char *which, long vl, long weight);

/*
 * Each JSON value of @text in turn (one file may hold the output of two
 * commands, one after the other) to @fn, with p->line set to the line
 * it starts on. 0, or the first error: bad JSON as "file:line: reason".
 */
int qosconf_lex_json_each(struct qosconf_parser *p, const char *text,
			  int (*fn)(struct qosconf_parser *p, json_t *v));
/* Integer member @key of @o into [lo, hi]; 0, or -EINVAL with a message. */
int qosconf_lex_json_int(struct qosconf_parser *p, const json_t *o, const char *key,
			 long lo, long hi, long *out);

#endif
