/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A row's figure in each format (value.h): the one place a field's value
 * becomes JSON, a table's cell or a CSV cell, and a number in the JSON's
 * unit becomes the table's.
 */
#include <string.h>

#include "report/value.h"

double report_us(double ns)
{
	return ns / 1e3;
}

double report_s(double ns)
{
	return ns / 1e9;
}

double report_mbps(double gbps)
{
	return gbps * 1e3;
}

double report_bps_gbps(double bps)
{
	return bps / 1e9;
}

double report_bps_mbps(double bps)
{
	return bps / 1e6;
}

void rv_int(struct report_value *v, long long n)
{
	v->type = RV_INT;
	v->n = n;
}

void rv_real(struct report_value *v, double x)
{
	v->type = RV_REAL;
	v->x = x;
}

void rv_bool(struct report_value *v, bool b)
{
	v->type = RV_BOOL;
	v->n = b;
}

void rv_str(struct report_value *v, const char *s)
{
	v->type = s ? RV_STR : RV_NULL;
	v->s = s;
}

void rv_null(struct report_value *v, const char *word)
{
	v->type = RV_NULL;
	v->word = word;
}

void rv_real_or_null(struct report_value *v, bool has, double x)
{
	if (has)
		rv_real(v, x);
	else
		rv_null(v, NULL);
}

const char *report_state_word(enum hist_q_state state)
{
	return state == HIST_Q_UNRESOLVED ? "unresolved" : state == HIST_Q_TOO_FEW ?
	       "too_few_samples" : state == HIST_Q_EMPTY ? "no_samples" : "resolved";
}

json_t *report_value_json(struct report_value *v)
{
	json_t *a, *j;
	long long k;

	switch (v->type) {
	case RV_INT:
		return json_integer(v->n);
	case RV_REAL:
		return json_real(v->x);
	case RV_BOOL:
		return json_boolean(v->n);
	case RV_STR:
		return json_string(v->s);
	case RV_INTS:
		a = json_array();
		for (k = 0; k < v->n; k++)
			json_array_append_new(a, json_integer(v->ints[k]));
		return a;
	case RV_JSON:
		j = v->json ? v->json : json_null();
		v->json = NULL;
		return j;
	default:
		return json_null();
	}
}

void report_value_text(const struct report_value *v, const struct report_num *num, char *buf,
		       size_t len)
{
	double scale = num->scale ? num->scale : 1;

	if (v->word) {
		snprintf(buf, len, "%s", v->word);
		return;
	}
	switch (v->type) {
	case RV_INT:
		snprintf(buf, len, "%lld", v->n);
		break;
	case RV_REAL:
		if (v->range)
			snprintf(buf, len, "%.*f-%.*f", v->prec, v->lo * scale, v->prec,
				 v->hi * scale);
		else if (num->prec < 0)
			snprintf(buf, len, "%.*g", -num->prec, v->x * scale);
		else
			snprintf(buf, len, num->plus ? "%+.*f" : "%.*f", num->prec, v->x * scale);
		break;
	case RV_BOOL:
		snprintf(buf, len, "%s", v->n ? "yes" : "no");
		break;
	case RV_STR:
		snprintf(buf, len, "%s", v->s);
		break;
	default:
		snprintf(buf, len, "-");
	}
}

void report_value_csv(FILE *out, const struct report_value *v, int prec)
{
	long long k;

	switch (v->type) {
	case RV_INT:
		fprintf(out, "%lld", v->n);
		break;
	case RV_REAL:
		if (prec > 0)
			fprintf(out, "%.*f", prec, v->x);
		else
			fprintf(out, "%.17g", v->x);
		break;
	case RV_BOOL:
		fprintf(out, "%d", (int)v->n);
		break;
	case RV_STR:
		fprintf(out, "%s", v->s);
		break;
	case RV_INTS:
		for (k = 0; k < v->n; k++)
			fprintf(out, "%s%d", k ? " " : "", v->ints[k]);
		break;
	default:
		break;
	}
}

void report_value_clear(struct report_value *v)
{
	if (v->type == RV_JSON)
		json_decref(v->json);
	memset(v, 0, sizeof(*v));
}
