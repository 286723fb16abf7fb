/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf analyze's report (report_analyze.c, report_diag.c): its
 * diagnostics as stderr shows them, and its rows as a document, CSV and
 * tables.
 */
#ifndef RPERF_REPORT_ANALYZE_H
#define RPERF_REPORT_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "report/report.h"

struct arb_config;
struct arb_params;
struct arb_result;

/* Where an analysis came from: the report's header and JSON "source". */
struct analyze_report_info {
	const char *format;		/* "opensm", "smpquery", ..., "mad" (live) */
	const char *node_type;		/* opensm key set, NULL otherwise */
	const char *const *sources;	/* input file names, or the live port */
	int n_sources;
	const char *port;		/* the live port an opensm.conf is read for */
	/* The warnings as stderr showed them: the footer's count. */
	int n_warnings;			/* shown at the default level */
	int n_notes;			/* routine notes shown (-v) */
	int n_hidden;			/* routine notes not shown (no -v) */
	bool quiet;			/* -q: none shown */
};

/*
 * analyze's diagnostics as stderr shows them (report_diag.c): messages
 * differing only in an SL grouped into one line (SL2-15), lines wrapped
 * to REPORT_DIAG_COLS with their prefix, each a warning or a note (-v).
 */
#define REPORT_DIAG_COLS	100
#define REPORT_DIAG_INDENT	4
#define REPORT_DIAG_WARN	"rperf: warning: "
#define REPORT_DIAG_NOTE	"rperf: note: "
struct report_diag {
	bool note;			/* modelling detail: shown with -v */
	char text[1024];		/* wrapped: "\n" and an indent between lines */
};
/* Fills @out (at most @max) from @res's warnings; returns how many. */
int report_analyze_diags(const struct arb_config *cfg,
			 const struct arb_result *res, struct report_diag *out, int max);

/* The rows of an analysis: per SL (or priority), per VL, per ETS band. */
enum report_analyze_list { RA_SLS, RA_VLS, RA_BANDS, RA_N_LISTS };
/* The arbitration a row is of: VLArb (ib-fluid, ib-packet), DTable, ETS. */
enum report_analyze_kind { RA_VLARB, RA_DTABLE, RA_ETS, RA_N_KINDS };
#define RA_ALL		((1u << RA_N_KINDS) - 1)

/*
 * List @l's fields, in order (@n of them): key (and CSV column):
 * schema/analyze.schema.json's $defs/{sl,vl,band} property; kinds: 1 <<
 * report_analyze_kind; head: the table's column per kind; wide: the
 * column's width when the shares are uncertain.
 */
const struct report_field *report_analyze_fields(enum report_analyze_list l, size_t *n);

/*
 * The analyze document: {"command", "version", "model", "runs", "limit",
 * "link_gbps", "format", "node_type", "source", "port", "sls", "vls", "bands"
 * (ETS only), "warnings"}; rperf-analyze(1) documents every field.
 */
json_t *report_analyze_json(const struct analyze_report_info *info,
			    const struct arb_config *cfg,
			    const struct arb_params *params,
			    const struct arb_result *res);
/*
 * analyze --csv: one row per SL (or priority), then per VL, then per ETS
 * band, each as its JSON object has it: "list" (sls, vls, bands), then
 * every key of report_analyze_fields() any kind carries (an empty cell
 * where the row has none; a list of members joined by spaces).
 */
void report_analyze_csv(FILE *out, const struct arb_config *cfg,
			const struct arb_params *params, const struct arb_result *res);
/* Per SL and per VL (or band) tables of shares, rates and distances. */
void report_analyze_table(FILE *out, const struct analyze_report_info *info,
			  const struct arb_config *cfg,
			  const struct arb_params *params,
			  const struct arb_result *res);

#endif
