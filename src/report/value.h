/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A figure of a result's row, as a field description's get() reads it,
 * and how each format writes it: the JSON's value, the table's cell and
 * the CSV's. A field list (field.h: every result's rows) says for each
 * figure its JSON key, its CSV column, its table column and unit; these
 * functions are the one place a value becomes text.
 */
#ifndef RPERF_REPORT_VALUE_H
#define RPERF_REPORT_VALUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/hist.h"

#define REPORT_VALUE_MAX_INTS	64

struct report_value {
	enum report_value_type {
		RV_ABSENT,		/* the row has no such key (JSON: left out) */
		RV_NULL,		/* no figure: JSON null, an empty cell, "-" */
		RV_INT, RV_REAL, RV_BOOL, RV_STR,
		RV_INTS,		/* a list: JSON array, CSV space-separated */
		RV_JSON,		/* a JSON-only value, made by get() */
	} type;
	long long n;			/* RV_INT; RV_BOOL: 0 or 1; RV_INTS: how many */
	double x;			/* RV_REAL, in the JSON's unit */
	const char *s;			/* RV_STR */
	const char *word;		/* the table's text in place of the value; NULL: none */
	int ints[REPORT_VALUE_MAX_INTS];	/* RV_INTS */
	json_t *json;			/* RV_JSON: the caller's to set or free */
	bool range;			/* RV_REAL: the table gives lo-hi at @prec */
	double lo, hi;
	int prec;
};

/* How a number fills a table's cell: the JSON's unit times @scale, with
 * @prec digits after the point (< 0: significant), with its sign (@plus). */
struct report_num {
	double scale;			/* 0: 1 */
	int prec;
	bool plus;
};

/*
 * The one place the report changes a figure's unit for its reader: the
 * JSON's ns as us or s, its Gb/s as Mb/s, a configured bit/s as Gb/s or
 * Mb/s. (Ticks become ns before the report: flow/figures.)
 */
double report_us(double ns);
double report_s(double ns);
double report_mbps(double gbps);
double report_bps_gbps(double bps);
double report_bps_mbps(double bps);

/* Set @v to integer @n, real @x, a boolean, a string, null (a figure
 * that is not there; @word: the table's word for why, or NULL for "-"). */
void rv_int(struct report_value *v, long long n);
void rv_real(struct report_value *v, double x);
void rv_bool(struct report_value *v, bool b);
void rv_str(struct report_value *v, const char *s);
void rv_null(struct report_value *v, const char *word);
/* Real @x when @has, else null. */
void rv_real_or_null(struct report_value *v, bool has, double x);

/* A figure's state as the JSON's "state" says it (and the references read
 * it back): "resolved", "unresolved", "too_few_samples", "no_samples". */
const char *report_state_word(enum hist_q_state state);

/* @v as JSON (RV_JSON: its own json, which the caller then owns). */
json_t *report_value_json(struct report_value *v);
/* @v as a table's cell in @buf, by @num: its word, "-" for none. */
void report_value_text(const struct report_value *v, const struct report_num *num, char *buf,
		       size_t len);
/* @v as a CSV cell: empty for none, a real at @prec digits after the point
 * (0: as many as make it exact), a boolean 0 or 1. */
void report_value_csv(FILE *out, const struct report_value *v, int prec);
/* Free what a get() made that no format took (RV_JSON). */
void report_value_clear(struct report_value *v);

#endif
