/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One description of a figure for every result's rows: a histogram's
 * summary (lat, bw), a server's flows and SL totals, analyze's rows,
 * converge's classes and flows, mesh's pairs. A field says its JSON key,
 * CSV column, table column, the kinds of row that carry it and how to read
 * it from a row; the emitters here write a row of any list as a JSON
 * object, a CSV line and a table's line, so no format describes a figure
 * again and no command writes its rows field by field.
 */
#ifndef RPERF_REPORT_FIELD_H
#define RPERF_REPORT_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "report/value.h"

/* The kinds of row a list tells apart (analyze: VLArb, DTable, ETS). */
#define REPORT_FIELD_KINDS	3
/* A table column of the same head for every kind of row. */
#define REPORT_HEADS(h)		{ (h), (h), (h) }

/* What a histogram's summary figure is (report_hist_fields). */
enum report_stat { RF_COUNT, RF_PCT, RF_MIN, RF_MAX, RF_MEAN, RF_STDEV };

struct report_field {
	const char *key;		/* its JSON key (the schema's); NULL: not in the JSON */
	const char *csv;		/* its CSV column; NULL: none */
	int csv_prec;			/* a real's digits there after the point; 0: exact */
	const char *head[REPORT_FIELD_KINDS];	/* its table column per kind; NULL: none */
	int width;			/* the column's; < 0: left-aligned; 0: its text's */
	int wide;			/* the column's when the figures are uncertain; 0: width */
	struct report_num num;		/* the table's unit (scale of the JSON's) and digits */
	unsigned kinds;			/* 1 << kind: the kinds of row that carry it; 0: all */
	bool label;			/* a label of its row's OpenMetrics series */
	const char *arg;		/* what get() is given (a percentile's key); NULL: none */
	enum report_stat stat;		/* a histogram summary's: what figure it is */
	double pct;			/* RF_PCT: the percentile */
	void (*get)(const void *row, const char *arg, struct report_value *v);
};

/* Whether rows of kind @kind (0 .. REPORT_FIELD_KINDS - 1) carry @f. */
bool report_field_carries(const struct report_field *f, unsigned kind);
/* Field @f of @row into @v, zeroed first; report_value_clear() it after. */
void report_field_get(const struct report_field *f, const void *row, struct report_value *v);
/* The field of @f[0..n) a row of @kind carries under CSV column @csv; NULL: none. */
const struct report_field *report_field_by_csv(const struct report_field *f, size_t n,
					       const char *csv, unsigned kind);

/* @row as its JSON object: each keyed field its kind carries (one a row lacks left out). */
json_t *report_fields_json(const struct report_field *f, size_t n, const void *row,
			   unsigned kind);
/* @row as a table's line, one space between columns (@row NULL: the heading);
 * @wide: the columns' widths for uncertain figures. */
void report_fields_table(FILE *out, const struct report_field *f, size_t n, const void *row,
			 unsigned kind, bool wide);
/* @row as a CSV line (@row NULL: the header). */
void report_fields_csv(FILE *out, const struct report_field *f, size_t n, const void *row,
		       unsigned kind);

#endif
