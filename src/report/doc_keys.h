/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the code that writes rperf's documents (report.c, report_mesh.c)
 * and the code that reads them back as references (reference.c) both
 * need: the layout's version, the keys read back, and a percentile as
 * its JSON object gives it. Header only, so that the writer and the
 * reader depend on it and not on each other.
 */
#ifndef RPERF_REPORT_DOC_KEYS_H
#define RPERF_REPORT_DOC_KEYS_H

#include <stdbool.h>

#include "base/hist.h"

/*
 * The layout of every JSON document and --json-stream event, as the
 * schemas installed with rperf describe it (schema/COMMAND.schema.json); a
 * change that breaks a reader of the documents raises it.
 */
#define REPORT_SCHEMA_VERSION 2

/* The key that names a document's command (report_doc_new()). */
#define REPORT_KEY_COMMAND	"command"

/* The keys of a percentile's JSON object (report_pct_json()). */
#define REPORT_PCT_STATE	"state"
#define REPORT_PCT_VALUE_NS	"value_ns"
#define REPORT_PCT_CI_LOW_NS	"ci_low_ns"
#define REPORT_PCT_CI_HIGH_NS	"ci_high_ns"

/* A pair's keys in the mesh document (report_mesh.c's pair fields). */
#define MESH_COMMAND		"mesh"
#define MESH_KEY_PAIRS		"pairs"
#define MESH_KEY_SRC		"src"
#define MESH_KEY_DST		"dst"
#define MESH_KEY_SL		"sl"
#define MESH_KEY_TCLASS		"tclass"
#define MESH_KEY_P50		"p50"

/*
 * One percentile of a run as its JSON object says it (report_figure_pct()
 * fills it, the references read it back): its state, value and
 * interval's sides, in ns.
 */
struct ref_pct {
	enum hist_q_state state;	/* RESOLVED: @value_ns is a figure */
	double value_ns;
	bool has_lo, has_hi;		/* false: that side is open or unresolved */
	double lo_ns, hi_ns;
};

#endif
