/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The emitters every result's rows go through (field.h): a row of any
 * field list as a JSON object, a table's line and a CSV line, so that a
 * figure's key, column and unit are said once, in its list.
 */
#include <string.h>

#include "report/field.h"

bool report_field_carries(const struct report_field *f, unsigned kind)
{
	return !f->kinds || (f->kinds & (1u << kind));
}

bool report_field_reads(const struct report_field *f)
{
	return f->get || f->member.type != RM_NONE;
}

/* The integer of type @t at @p. */
static long long field_member_int(enum report_member_type t, const void *p)
{
	switch (t) {
	case RM_UCHAR:
		return *(const unsigned char *)p;
	case RM_INT:
		return *(const int *)p;
	case RM_UINT:
		return *(const unsigned *)p;
	case RM_LONG:
		return *(const long *)p;
	case RM_ULONG:
		return (long long)*(const unsigned long *)p;
	case RM_LLONG:
		return *(const long long *)p;
	default:
		return (long long)*(const unsigned long long *)p;
	}
}

/* Whether value @v of a member is one its gate @g makes null. */
static bool field_member_gated(enum report_member_gate g, const struct report_value *v)
{
	double x = v->type == RV_REAL ? v->x : (double)v->n;

	return (g == RG_POSITIVE && x <= 0) || (g == RG_NON_NEGATIVE && x < 0);
}

/* Member @m of @row's struct as its value (report_member). */
static void field_member_get(const struct report_member *m, const void *row,
			     struct report_value *v)
{
	const char *rec = m->rec ? m->rec(row) : row;

	if (m->gate == RG_HAS && !*(const bool *)(rec + m->has_at))
		rv_null(v, NULL);
	else if (m->type == RM_BOOL)
		rv_bool(v, *(const bool *)(rec + m->at));
	else if (m->type == RM_DOUBLE)
		rv_real(v, *(const double *)(rec + m->at));
	else if (m->type == RM_STR)
		rv_str(v, *(const char *const *)(rec + m->at));
	else if (m->type != RM_NONE)
		rv_int(v, field_member_int(m->type, rec + m->at));
	if (field_member_gated(m->gate, v)) {
		memset(v, 0, sizeof(*v));
		rv_null(v, NULL);
	}
}

void report_field_get(const struct report_field *f, const void *row, struct report_value *v)
{
	memset(v, 0, sizeof(*v));
	if (f->get)
		f->get(row, f->arg, v);
	else
		field_member_get(&f->member, row, v);
}

const struct report_field *report_field_by_csv(const struct report_field *f, size_t n,
					       const char *csv, unsigned kind)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (f[k].csv && !strcmp(f[k].csv, csv) && report_field_carries(&f[k], kind))
			return &f[k];
	return NULL;
}

json_t *report_fields_json(const struct report_field *f, size_t n, const void *row,
			   unsigned kind)
{
	return report_fields_json_add(json_object(), f, n, row, kind);
}

json_t *report_fields_json_add(json_t *o, const struct report_field *f, size_t n,
			       const void *row, unsigned kind)
{
	struct report_value v;
	size_t k;

	for (k = 0; k < n; k++) {
		if (!f[k].key || !report_field_carries(&f[k], kind))
			continue;
		report_field_get(&f[k], row, &v);
		if (v.type != RV_ABSENT)
			json_object_set_new(o, f[k].key, report_value_json(&v));
		report_value_clear(&v);
	}
	return o;
}

void report_fields_table(FILE *out, const struct report_field *f, size_t n, const void *row,
			 unsigned kind, bool wide)
{
	struct report_value v;
	const char *sep = "";
	char cell[80];
	size_t k;

	for (k = 0; k < n; k++) {
		if (!f[k].head[kind] || !report_field_carries(&f[k], kind))
			continue;
		if (row) {
			report_field_get(&f[k], row, &v);
			report_value_text(&v, &f[k].num, cell, sizeof(cell));
			report_value_clear(&v);
		}
		fprintf(out, "%s%*s", sep, wide && f[k].wide ? f[k].wide : f[k].width,
			row ? cell : f[k].head[kind]);
		sep = " ";
	}
	fputc('\n', out);
}

void report_fields_csv(FILE *out, const struct report_field *f, size_t n, const void *row,
		       unsigned kind)
{
	struct report_value v;
	const char *sep = "";
	size_t k;

	for (k = 0; k < n; k++) {
		if (!f[k].csv || !report_field_carries(&f[k], kind))
			continue;
		fputs(sep, out);
		sep = ",";
		if (!row) {
			fputs(f[k].csv, out);
			continue;
		}
		report_field_get(&f[k], row, &v);
		report_value_csv(out, &v, f[k].csv_prec);
		report_value_clear(&v);
	}
	fputc('\n', out);
}
