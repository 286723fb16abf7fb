/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf bw: bandwidth generators on any SL. The run engine (engine/run.h)
 * runs the workers, each pinned near the NIC with its QPs (one server
 * flow each), asks the server what it received, sums the intervals,
 * merges and judges; this command parses, calls it and prints one line
 * per interval as they come, then the total. The received figures are
 * what the destination port really got: shares are computed from them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/bw.h"
#include "engine/client.h"
#include "engine/run.h"
#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/report_bw.h"

/* Where the intervals go: the human table, the CSV, the stream. */
struct bw_out {
	FILE *human, *csv;
	struct cmd_stream stream;
	size_t n_iv;			/* given so far */
};

/* The run's interval callback: one interval, printed. */
static void bw_print_interval(void *arg, const struct bw_interval *iv)
{
	struct bw_out *out = arg;

	if (out->human)
		report_bw_interval(out->human, iv);
	if (out->csv)
		report_bw_csv_row(out->csv, iv);
	cmd_stream_put(&out->stream, report_bw_event_interval(out->n_iv++, iv));
}

/* Run and report; the exit status. */
static int bw_main(const struct bw_opts *o, struct run_bw *r, struct bw_out *out)
{
	struct bw_report_info info;
	int ret = 0;

	report_bw_info(&info, r);
	if (out->human)
		report_bw_header(out->human, &info);
	info.flow.hugepages = o->flow.hugepages;	/* what was asked: had is known at the end */
	cmd_stream_put(&out->stream, report_bw_event_start(&info));
	stop_install();
	run_bw_go(r);
	if (r->rx_warning[0])
		log_warn("the received figures will be unknown: %s", r->rx_warning);
	cmd_run_ended(&o->flow, &r->c);
	report_bw_info(&info, r);
	if (out->human) {
		report_bw_total(out->human, &r->total, &r->c.clk);
		report_criteria_table(out->human, &r->crit);
	}
	if (!r->total.rx_valid && !r->c.error)
		log_warn("the server could not be asked what it received%s",
			 o->flow.rdma_cm ? " (no TCP connection with --rdma-cm)" : "");
	cmd_stream_put(&out->stream, report_bw_event_end(&info, &r->total, r->n_iv, r->c.error));
	if (o->flow.json_path)
		ret = cmd_write_json(o->flow.json_path, report_bw_json(&info, &r->total, r->iv,
									 r->n_iv, r->c.error));
	return cmd_run_exit(&r->c, &r->crit, ret, &out->stream);
}

static int bw_run(void *p)
{
	struct bw_opts *o = p;
	struct bw_out out = { 0 };
	struct run_bw_cfg cfg;
	struct run_bw r;
	char err[256];
	int ret;

	if (cmd_run_begin(&o->flow, err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	cfg = (struct run_bw_cfg){
		.flow = &o->flow, .duration_s = o->duration_s, .interval_s = o->interval_s,
		.tx_depth = o->tx_depth, .batch = o->batch, .cq_mod = o->cq_mod,
		.hw_rate_bps = o->hw_rate_bps, .write = o->write, .event = o->event,
		.min_bps = o->min_bps, .on_interval = bw_print_interval, .arg = &out,
	};
	if (cmd_stream_open(&out.stream, o->flow.json_stream_path))
		return cmd_failed_json(o->flow.json_path, "bw", NULL, RPERF_EXIT_FAILURE);
	ret = run_bw_prepare(&r, &cfg, err, sizeof(err));
	cmd_run_prepared(&r.c);
	ret = cmd_run_csv(&o->flow, ret, &out.csv, err, sizeof(err));
	if (ret) {
		run_bw_release(&r);
		return cmd_run_failed(&o->flow, "bw", ret, err, &out.stream,
				      report_bw_event_end(&(struct bw_report_info){ 0 }, NULL, 0,
							  err));
	}
	if (out.csv)
		report_bw_csv_header(out.csv);
	if (!cmd_stdout_taken(&o->flow))
		out.human = stdout;
	ret = bw_main(o, &r, &out);
	if (out.csv && out.csv != stdout)
		fclose(out.csv);
	run_bw_release(&r);
	return ret;
}

/* bw_opts_parse(), its --help said as the command table takes it. */
static int bw_parse(int argc, char **argv, void *p, char *err, size_t errlen)
{
	struct bw_opts *o = p;
	int ret = bw_opts_parse(argc, argv, o, err, errlen);

	return !ret && o->help ? OPTS_HELP : ret;
}

const struct cmd_def cmd_bw = {
	.usage = &bw_opts_usage,
	.opts_size = sizeof(struct bw_opts),
	.parse = bw_parse,
	.run = bw_run,
};
