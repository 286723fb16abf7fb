/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * converge's rows (report_converge_rows.c): a class's or a flow's
 * figures, each described once (report_converge_fields()), for the
 * document, table and CSV around them (report_converge.c).
 * report_converge.h does not include it: report_converge.c and the unit
 * tests do.
 */
#ifndef RPERF_REPORT_CONVERGE_ROWS_H
#define RPERF_REPORT_CONVERGE_ROWS_H

#include <stdio.h>

#include "coord/step.h"
#include "report/converge_info.h"
#include "report/field.h"

/* A row: step @step's class @c, flow @f or port @p, with what it is read against. */
struct converge_row {
	const struct converge_report_info *info;
	const struct converge_step *st;
	size_t step;			/* @st's index */
	const struct converge_class *c;	/* a class row; NULL: the heading */
	const struct converge_flow *f;	/* a flow row */
	const struct converge_port *p;	/* a port row */
};

/* List @l's fields (key: schema/converge.schema.json's $defs/{class,flow,
 * port} property; kinds: RC_SL, RC_BAND), in order (@n of them): the
 * CSV's and the table's columns' order. */
const struct report_field *report_converge_fields(enum report_converge_list l,
						  size_t *n);

/* Class @c's impact factor @i: p50, p99, p99.9 (--baseline). */
double converge_impact(const struct converge_class *c, size_t i);
/* A paced bursty flow's duty cycle as the destination saw it: what it
 * carried over its rate. False for any other flow. */
bool converge_flow_duty(const struct converge_flow *f, double *duty);

/* A step's fields (key: schema/converge.schema.json's $defs/step
 * property), read from a row of no class or flow (report_converge.c). */
const struct report_field *report_converge_step_fields(size_t *n);
/* Row @w of list @l as its JSON object: the keys its kind carries. */
json_t *converge_row_json(enum report_converge_list l, const struct converge_row *w);
/* Port @p as its JSON object (RC_PORTS). */
json_t *converge_port_json(const struct converge_port *p);
/* Class row @w as the table's line (@w->c NULL: the heading). */
void converge_class_table(FILE *out, const struct converge_row *w);
/* Class row @w as a CSV line (@w->c NULL: the header). */
void converge_class_csv(FILE *out, const struct converge_row *w);

#endif
