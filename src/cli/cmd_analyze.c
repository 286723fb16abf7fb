/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf analyze: predict, offline, the share of a port's bandwidth each
 * service level gets and how long it waits between turns, from the port's
 * arbitration configuration (opensm.conf, smpquery captures, a plain
 * table, or an ETS description). No RDMA hardware is needed; converge
 * compares its measurements with this prediction. Here: the analysis run
 * and its outputs; the options are analyze_opts.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonfile.h"
#include "base/log.h"
#include "cli/cmd.h"
#include "cli/analyze.h"
#include "qos/analyze.h"
#include "qos/arb.h"
#include "qos/qosconf.h"
#include "report/report_analyze.h"

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/* The warnings on stderr, grouped and wrapped (report_analyze_diags),
 * notes only with -v; their counts for the footer. */
static void analyze_warnings(const struct analyze_out *a, struct analyze_report_info *info)
{
	static struct report_diag diags[ARB_MAX_WARNINGS];
	int i, n = report_analyze_diags(&a->cfg, a->res, diags, ARB_MAX_WARNINGS);

	for (i = 0; i < n; i++) {
		if (!diags[i].note) {
			log_wrapped(false, diags[i].text);
			info->n_warnings++;
		} else if (log_get_level() >= LOG_LEVEL_INFO) {
			log_wrapped(true, diags[i].text);
			info->n_notes++;
		} else {
			info->n_hidden++;
		}
	}
	info->quiet = log_get_level() < LOG_LEVEL_WARN;
}

static int analyze_fill_csv(FILE *f, void *arg)
{
	const struct analyze_out *a = arg;

	report_analyze_csv(f, &a->cfg, &a->params, a->res);
	return ferror(f) ? -1 : 0;
}

/* The table on stdout, or the files --csv and --json name. */
static int emit(const struct analyze_opts *o, const struct analyze_out *a)
{
	const struct arb_source_info *src = &a->src;
	const char *port_name = src->port_name;
	struct analyze_report_info info = {
		.format = src->live ? "mad" : qosconf_format_name(src->format),
		.node_type = src->format == QOSCONF_FORMAT_OPENSM ?
			     qosconf_node_type_name(src->node_type) : NULL,
		.sources = src->live ? &port_name : o->req.src.files,
		.n_sources = src->live ? 1 : o->req.src.n_files,
		.port = src->live || !src->port_name[0] ? NULL : src->port_name,
	};
	char err[256];
	json_t *root;
	int rc;

	analyze_warnings(a, &info);
	if (!o->json_path && !o->csv_path) {
		report_analyze_table(stdout, &info, &a->cfg, &a->params, a->res);
		return fflush(stdout) ? log_error("cannot write to stdout") : 0;
	}
	if (o->csv_path) {
		rc = textfile_write(o->csv_path, analyze_fill_csv, (void *)a, err, sizeof(err));
		if (rc)
			return log_errno(rc, "%s", err);
	}
	if (!o->json_path)
		return 0;
	root = report_analyze_json(&info, &a->cfg, &a->params, a->res);
	rc = jsonfile_write(root, o->json_path, err, sizeof(err));
	json_decref(root);
	return rc ? log_errno(rc, "%s", err) : 0;
}

static int analyze_main(void *p)
{
	const struct analyze_opts *o = p;
	struct analyze_out a;
	char err[512];
	int rc;

	rc = analyze_run(&o->req, &a, err, sizeof(err));
	if (rc) {
		log_errno(rc, "%s", err);
		analyze_out_release(&a);
		/* A failure before the results: its document, with --json. */
		return cmd_failed_json(o->json_path, "analyze", NULL,
				       a.usage ? RPERF_EXIT_USAGE : RPERF_EXIT_FAILURE);
	}
	rc = emit(o, &a);
	analyze_out_release(&a);
	return rc ? RPERF_EXIT_FAILURE : RPERF_EXIT_OK;
}

const struct cmd_def cmd_analyze = {
	.usage = &analyze_opts_usage,
	.help = analyze_opts_help,
	.opts_size = sizeof(struct analyze_opts),
	.parse = analyze_opts_parse,
	.run = analyze_main,
};
