/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf lat: the RTT a message sees through the fabric, without the end
 * hosts' software and PCIe (RPerf's method, see probe.h). The run engine
 * (engine/run.h) runs the workers, the sizes, the merge and the
 * criteria; this command parses, calls it and reports.
 */
#include <stdio.h>
#include <unistd.h>

#include "engine/client.h"
#include "engine/run.h"
#include "cli/cmd.h"
#include "cli/lat.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/reference.h"
#include "report/report_lat.h"

#define LAT_PROGRESS_S 3.0	/* a terminal's line during a long size, every */

/* What follows the run as it goes: --csv's rows, each size's progress
 * lines (stderr a terminal: every LAT_PROGRESS_S during it, and as it
 * ends) and --json-stream's events. */
struct lat_follow {
	FILE *csv;
	const struct lat_opts *o;
	const struct run_lat *r;
	struct lat_report_info info;
	bool progress;
	struct cmd_stream stream;
	const struct ref_doc *ref;	/* --reference, or NULL */
};

/* The run's sample callback with --csv: each measured sample, one row. */
static void lat_csv_sample(void *arg, unsigned index, size_t size_bytes,
			   const struct probe_sample *s)
{
	struct lat_follow *c = arg;

	if (!s->warmup)
		report_lat_csv_row(c->csv, index, size_bytes, c->o->warmup, s, c->info.clk);
}

/* The run's progress callback (stderr a terminal): a long size's line
 * every few seconds, before it ends. */
static void lat_sofar(void *arg, size_t index, const struct flow_result *sofar)
{
	struct lat_follow *c = arg;

	report_lat_progress_sofar(stderr, index, c->r->n_sizes, sofar, c->info.clk);
}

/* The run's size callback: the progress line, the stream's event. */
static void lat_size(void *arg, size_t index, const struct flow_result *merged)
{
	struct lat_follow *c = arg;

	if (c->progress)
		report_lat_progress(stderr, index, c->r->n_sizes, merged, c->info.clk);
	cmd_stream_put(&c->stream, report_lat_event_size(&c->info, index, merged));
}

/* The table (unless stdout carries JSON, CSV or the stream), the --json
 * file and the stream's end. */
static int lat_report(const struct lat_opts *o, struct run_lat *r, struct lat_follow *fl)
{
	struct lat_report_info info;
	int ret = 0;

	report_lat_info(&info, r, o->ci);
	info.ref = fl->ref;
	cmd_stream_put(&fl->stream, report_lat_event_end(&info, r->n_merged, r->c.error));
	if (!cmd_stdout_taken(&o->flow) && r->n_merged) {
		report_lat_table(stdout, &info, r->merged, r->n_merged);
		report_criteria_table(stdout, &r->crit);
	}
	if (o->flow.json_path)
		ret = cmd_write_json(o->flow.json_path, report_lat_json(&info, r->merged, r->n_merged,
									r->c.error));
	return ret;
}

/* Run and report, the CSV and the stream open; the exit status. */
static int lat_main(const struct lat_opts *o, struct run_lat *r, struct lat_follow *fl)
{
	int ret;

	report_lat_info(&fl->info, r, o->ci);
	fl->info.ref = fl->ref;
	fl->info.hugepages = o->flow.hugepages;	/* what was asked: had is known at the end */
	cmd_stream_put(&fl->stream, report_lat_event_start(&fl->info));
	stop_install();
	run_lat_go(r);
	cmd_run_ended(&o->flow, &r->c);
	ret = lat_report(o, r, fl);
	return cmd_run_exit(&r->c, &r->crit, ret, &fl->stream);
}

static int lat_run(void *p)
{
	struct lat_opts *o = p;
	struct run_lat_cfg cfg;
	struct run_lat r;
	struct lat_follow fl = { .o = o, .r = &r, .progress = isatty(STDERR_FILENO) };
	struct ref_doc ref;
	char err[256], warn[320];
	int ret;

	if (o->reference_path && ref_doc_load(o->reference_path, &ref, err, sizeof(err))) {
		log_error("%s", err);
		return cmd_failed_json(o->flow.json_path, "lat", err, RPERF_EXIT_USAGE);
	}
	fl.ref = o->reference_path ? &ref : NULL;
	if (cmd_run_begin(&o->flow, err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	lat_opts_run_cfg(o, &cfg);
	cfg.on_size = lat_size;
	if (fl.progress) {
		cfg.on_progress = lat_sofar;
		cfg.progress_s = LAT_PROGRESS_S;
	}
	cfg.arg = &fl;
	if (cmd_stream_open(&fl.stream, o->flow.json_stream_path))
		return cmd_failed_json(o->flow.json_path, "lat", NULL, RPERF_EXIT_FAILURE);
	ret = run_lat_prepare(&r, &cfg, err, sizeof(err));
	cmd_run_prepared(&r.c);
	fl.info.clk = &r.c.clk;
	if (!ret && fl.ref)
		ret = ref_doc_check_run(fl.ref, &r, warn, sizeof(warn), err, sizeof(err));
	if (!ret && fl.ref && warn[0])
		log_warn("%s", warn);
	ret = cmd_run_csv(&o->flow, ret, &fl.csv, err, sizeof(err));
	if (ret) {
		run_lat_release(&r);
		return cmd_run_failed(&o->flow, "lat", ret, err, &fl.stream,
				      report_lat_event_end(&fl.info, 0, err));
	}
	if (fl.csv) {
		report_lat_csv_header(fl.csv);
		cfg.on_sample = lat_csv_sample;
	}
	ret = lat_main(o, &r, &fl);
	if (fl.csv && fl.csv != stdout)
		fclose(fl.csv);
	run_lat_release(&r);
	return ret;
}

/* lat_opts_parse(), its --help said as the command table takes it. */
static int lat_parse(int argc, char **argv, void *p, char *err, size_t errlen)
{
	struct lat_opts *o = p;
	int ret = lat_opts_parse(argc, argv, o, err, errlen);

	return !ret && o->help ? OPTS_HELP : ret;
}

const struct cmd_def cmd_lat = {
	.usage = &lat_opts_usage,
	.opts_size = sizeof(struct lat_opts),
	.parse = lat_parse,
	.run = lat_run,
};
