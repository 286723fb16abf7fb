/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf lat: the RTT a message sees through the fabric, without the end
 * hosts' software and PCIe (RPerf's method, see probe.h). The run engine
 * (engine/run.h) runs the workers, the sizes, the merge and the
 * criteria; this command parses, calls it and reports.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/client.h"
#include "engine/run.h"
#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "base/errbuf.h"
#include "cli/lat.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/report.h"

void cmd_lat_usage(FILE *out)
{
	opts_usage(out, &lat_opts_usage);
}

/* Where --csv's rows go, and what they say of the run. */
struct lat_csv {
	FILE *f;
	const struct lat_opts *o;
	const struct clock_cal *clk;
};

/* The run's sample callback with --csv: each measured sample, one row. */
static void lat_csv_sample(void *arg, unsigned index, size_t size_bytes,
			   const struct probe_sample *s)
{
	struct lat_csv *c = arg;

	if (!s->warmup)
		report_lat_csv_row(c->f, index, size_bytes, c->o->warmup, s, c->clk);
}

/* The table (unless stdout carries JSON or CSV) and the --json file. */
static int lat_report(const struct lat_opts *o, struct run_lat *r, const struct ref_doc *ref)
{
	struct lat_report_info info = {
		.criteria = &r->crit, .env = &r->c.env, .server = o->flow.host,
		.device = r->c.dev.name, .port = r->c.dev.port, .gid_index = r->c.dev.gid_index,
		.roce = r->c.dev.roce, .mtu = verbs_mtu_str(r->c.dev.port_attr.active_mtu),
		.path = r->c.path, .clk = &r->c.clk, .threads = o->flow.spec.threads,
		.rdma_cm = o->flow.rdma_cm, .hugepages = o->flow.hugepages && r->c.got_huge,
		.iterations = o->iterations, .duration_s = o->duration_s, .warmup = o->warmup,
		.ci = o->ci, .ref = o->reference_path ? ref : NULL,
	};
	char err[256];
	json_t *doc;
	int ret = 0;

	if (!(o->flow.json_path && !strcmp(o->flow.json_path, "-")) &&
	    !(o->flow.csv_path && !strcmp(o->flow.csv_path, "-")) && r->n_merged) {
		report_lat_table(stdout, &info, r->merged, r->n_merged);
		report_criteria_table(stdout, &r->crit);
	}
	if (o->flow.json_path) {
		doc = report_lat_json(&info, r->merged, r->n_merged, r->c.error);
		ret = jsonfile_write(doc, o->flow.json_path, err, sizeof(err));
		json_decref(doc);
		if (ret)
			log_error("%s", err);
	}
	return ret;
}

/*
 * The reference against the run about to start: its clock and sizes
 * (known once the port is, for -a). 0, or -EINVAL with the reason in
 * @err; a size the reference lacks is warned of, the rest compared.
 */
static int lat_ref_check(const struct ref_doc *ref, const struct run_lat *r, char *err,
			 size_t errlen)
{
	char missing[256];

	if (ref_doc_check(ref, clock_source_name(r->c.clk.source), r->sizes, r->n_sizes, missing,
			  sizeof(missing), err, errlen))
		return -EINVAL;
	if (missing[0])
		log_warn("reference '%s' has no size %s: %s compared without it", ref->path, missing,
			 strchr(missing, ',') ? "those sizes are" : "that size is");
	return 0;
}

/* Parse: 0, or the exit status for bad usage and --help (*@done). */
static int lat_parse(int argc, char **argv, struct lat_opts *o, bool *done)
{
	char err[256];
	int ret;

	*done = true;
	ret = lat_opts_parse(argc, argv, o, err, sizeof(err));
	if (!ret && !o->help && o->flow.spec.threads > 1 && o->flow.rdma_cm)
		ret = errbuf_set(err, sizeof(err), -EINVAL, "--rdma-cm runs one thread");
	if (ret) {
		opts_report(&lat_opts_usage, err);
		return RPERF_EXIT_USAGE;
	}
	if (o->help) {
		cmd_lat_usage(stdout);
		return RPERF_EXIT_OK;
	}
	*done = false;
	return 0;
}

/* Run and report, the CSV open; the exit status. */
static int lat_main(const struct lat_opts *o, struct run_lat *r, const struct ref_doc *ref)
{
	int ret;

	stop_install();
	run_lat_go(r);
	if (o->flow.hugepages && !r->c.got_huge)
		log_warn("no huge pages available: buffers on normal pages");
	if (r->c.error)
		log_error("%s", r->c.error);
	ret = lat_report(o, r, ref);
	if (r->c.error || ret)
		return RPERF_EXIT_FAILURE;
	return cmd_criteria_exit(&r->crit);
}

int cmd_lat(int argc, char **argv)
{
	struct lat_opts o;
	struct lat_csv csv = { .o = &o };
	struct run_lat_cfg cfg;
	struct run_lat r;
	struct ref_doc ref;
	char err[256];
	bool done;
	int ret;

	ret = lat_parse(argc, argv, &o, &done);
	if (done)
		return ret;
	if (o.reference_path && ref_doc_load(o.reference_path, &ref, err, sizeof(err))) {
		log_error("%s", err);
		return cmd_failed_json(o.flow.json_path, "lat", err, RPERF_EXIT_USAGE);
	}
	if (client_begin(&o.flow, err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	cfg = (struct run_lat_cfg){
		.flow = &o.flow, .iterations = o.iterations, .duration_s = o.duration_s,
		.warmup = o.warmup, .sizes = o.sizes, .n_sizes = o.n_sizes,
		.all_sizes = o.all_sizes, .max_p50_s = o.max_p50_s, .max_p99_s = o.max_p99_s,
		.max_p99_9_s = o.max_p99_9_s, .arg = &csv,
	};
	ret = run_lat_prepare(&r, &cfg, err, sizeof(err));
	if (r.c.clk.fallback)
		log_warn("%s", r.c.clk.fallback);
	if (ret) {
		log_error("%s", err);
		run_lat_release(&r);
		return cmd_failed_json(o.flow.json_path, "lat", err,
				       client_error_is_usage(ret) ? RPERF_EXIT_USAGE :
								    RPERF_EXIT_FAILURE);
	}
	if (o.reference_path && lat_ref_check(&ref, &r, err, sizeof(err))) {
		log_error("%s", err);
		run_lat_release(&r);
		return cmd_failed_json(o.flow.json_path, "lat", err, RPERF_EXIT_USAGE);
	}
	csv.clk = &r.c.clk;
	csv.f = o.flow.csv_path ? client_file_open(o.flow.csv_path, err, sizeof(err)) : NULL;
	if (o.flow.csv_path && !csv.f) {
		log_error("%s", err);
		run_lat_release(&r);
		return cmd_failed_json(o.flow.json_path, "lat", err, RPERF_EXIT_FAILURE);
	}
	if (csv.f) {
		report_lat_csv_header(csv.f);
		cfg.on_sample = lat_csv_sample;
	}
	ret = lat_main(&o, &r, &ref);
	if (csv.f && csv.f != stdout)
		fclose(csv.f);
	run_lat_release(&r);
	return ret;
}
