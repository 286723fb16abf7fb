/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One description of a figure for every result's rows: a histogram's
 * summary (lat, bw), a server's flows and SL totals, analyze's rows,
 * converge's classes and flows, mesh's pairs. A field says its JSON key,
 * CSV column, table column, the kinds of row that carry it and how to read
 * it from a row (a member by its offset, or a getter where the figure is
 * computed); the emitters here write a row of any list as a JSON
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

/* The C type of a member a field reads (REPORT_MEMBER); RM_NONE: it has a get(). */
enum report_member_type {
	RM_NONE, RM_BOOL, RM_UCHAR, RM_INT, RM_UINT, RM_LONG, RM_ULONG, RM_LLONG, RM_ULLONG,
	RM_DOUBLE, RM_STR,
};

/* The type of member @x: no other compiles (a char array is none of these). */
#define REPORT_MEMBER_TYPE(x)	_Generic((x), bool: RM_BOOL, unsigned char: RM_UCHAR, \
	int: RM_INT, unsigned: RM_UINT, \
	long: RM_LONG, unsigned long: RM_ULONG, long long: RM_LLONG, \
	unsigned long long: RM_ULLONG, double: RM_DOUBLE, const char *: RM_STR)

/* Where a member's figure is null (JSON null, an empty cell, "-"). */
enum report_member_gate {
	RG_NEVER,
	RG_HAS,			/* unless the bool at has_at, beside it, is true */
	RG_POSITIVE,		/* unless it is above 0 */
	RG_NON_NEGATIVE,	/* where it is below 0 */
};

/*
 * A figure that is one member of a struct its row leads to, as it is
 * there: an integer, a real, a boolean or a string (NULL: null), or null
 * where its gate says there is none.
 */
struct report_member {
	const void *(*rec)(const void *row);	/* the struct; NULL: the row itself */
	size_t at;				/* the member's offset in it */
	enum report_member_type type;
	enum report_member_gate gate;
	size_t has_at;				/* RG_HAS: the boolean's offset */
};

/* A field that reads member @m of struct @st, which @rec_fn finds from the row. */
#define REPORT_MEMBER(rec_fn, st, m)	REPORT_MEMBER_GATED(rec_fn, st, m, RG_NEVER)
/* The same, null where its gate @g says (not RG_HAS). */
#define REPORT_MEMBER_GATED(rec_fn, st, m, g)	.member = { .rec = (rec_fn), \
	.at = offsetof(st, m), .type = REPORT_MEMBER_TYPE(((st *)0)->m), .gate = (g) }
/* The same, null where member @has (a bool of @st) is false. */
#define REPORT_MEMBER_IF(rec_fn, st, m, has)	.member = { .rec = (rec_fn), \
	.at = offsetof(st, m), .type = REPORT_MEMBER_TYPE(((st *)0)->m), .gate = RG_HAS, \
	.has_at = offsetof(st, has) }

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
	/* The figure of @row: computed, or NULL where @member says where it is. */
	void (*get)(const void *row, const char *arg, struct report_value *v);
	struct report_member member;
};

/* Whether rows of kind @kind (0 .. REPORT_FIELD_KINDS - 1) carry @f. */
bool report_field_carries(const struct report_field *f, unsigned kind);
/* Whether @f reads a figure: a getter's or a member's. */
bool report_field_reads(const struct report_field *f);
/* Field @f of @row into @v, zeroed first; report_value_clear() it after. */
void report_field_get(const struct report_field *f, const void *row, struct report_value *v);
/* The field of @f[0..n) a row of @kind carries under CSV column @csv; NULL: none. */
const struct report_field *report_field_by_csv(const struct report_field *f, size_t n,
					       const char *csv, unsigned kind);

/* @row as its JSON object: each keyed field its kind carries (one a row lacks left out). */
json_t *report_fields_json(const struct report_field *f, size_t n, const void *row,
			   unsigned kind);
/* The same keys added to object @o, after those it has; @o. */
json_t *report_fields_json_add(json_t *o, const struct report_field *f, size_t n,
			       const void *row, unsigned kind);
/* @row as a table's line, one space between columns (@row NULL: the heading);
 * @wide: the columns' widths for uncertain figures. */
void report_fields_table(FILE *out, const struct report_field *f, size_t n, const void *row,
			 unsigned kind, bool wide);
/* @row as a CSV line (@row NULL: the header). */
void report_fields_csv(FILE *out, const struct report_field *f, size_t n, const void *row,
		       unsigned kind);

#endif
