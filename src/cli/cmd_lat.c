/*
 * rperf lat: the RTT a message sees through the fabric, without the end
 * hosts' software and PCIe (RPerf's method, see probe.h). Each worker
 * thread is pinned near the NIC, has its own wire QP (one server flow)
 * and loopback pair, and runs every size in turn; results are merged
 * per size after join and formatted by the report.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/client.h"
#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "cli/lat.h"
#include "base/log.h"
#include "base/stop.h"
#include "base/pin.h"
#include "engine/probe.h"
#include "report/report.h"

/* What every worker shares, read-only once the workers start. */
struct lat_run {
	const struct lat_opts *o;
	struct verbs_dev dev;
	struct verbs_path path;
	struct clock_cal clk;
	size_t sizes[LAT_MAX_SIZES];
	size_t n_sizes;
	size_t max_bytes;
	FILE *csv;
	struct conn_cm cm0;		/* rdma_cm: worker 0's id, resolved up front */
	struct run_env env;
};

struct lat_worker {
	struct lat_run *run;
	unsigned index;
	pthread_t tid;
	struct flow_result res[LAT_MAX_SIZES];
	size_t n_res;			/* initialized results, the last maybe partial */
	int status;
	char err[256];
	bool got_huge;
	int cpu;			/* where it was pinned; -1: not */
};

void cmd_lat_usage(FILE *out)
{
	opts_usage(out, &lat_opts_usage);
}

/* ------------------------------------------------------------------ */
/* Worker                                                              */
/* ------------------------------------------------------------------ */

/* What the --csv callback needs to know of a sample's worker and size. */
struct lat_csv_ctx {
	struct lat_worker *w;
	size_t size;
};

/* The probe's sample callback with --csv: each measured sample, one row. */
static void lat_csv_sample(void *arg, const struct probe_sample *s)
{
	struct lat_csv_ctx *c = arg;
	struct lat_run *run = c->w->run;

	if (!s->warmup)
		report_lat_csv_row(run->csv, c->w->index, c->size, run->o->warmup, s, &run->clk);
}

static int lat_run_sizes(struct lat_worker *w, struct probe *p, int ctl_fd, bool ctl_cm)
{
	struct lat_run *run = w->run;
	struct verbs_counters before, after;
	struct lat_csv_ctx csv = { .w = w };
	struct probe_cfg cfg = {
		.iterations = run->o->iterations,
		.duration_ticks = clock_ns_to_ticks(&run->clk, run->o->duration_s * 1e9),
		.warmup = run->o->warmup,
		.sample_timeout_ticks = client_completion_timeout_ticks(&run->clk, &run->path),
		.clk = &run->clk,
		.ctl_fd = ctl_fd,
		.ctl_any_event = ctl_cm,
		.peer = run->o->flow.host,
		.stop = stop_flag(),
		.yield = run->o->flow.yield,
		.on_sample = run->csv ? lat_csv_sample : NULL,
		.arg = &csv,
	};
	struct flow_result *res;
	size_t k;
	int ret;

	for (k = 0; k < run->n_sizes; k++) {
		res = &w->res[k];
		if (flow_result_init(res, run->sizes[k]))
			return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
		w->n_res = k + 1;
		cfg.size_bytes = csv.size = run->sizes[k];
		verbs_counters_read(&run->dev, &before);
		ret = probe_run(p, &cfg, res);
		if (!verbs_counters_read(&run->dev, &after))
			res->retrans = verbs_counters_retrans(&before, &after);
		if (ret) {
			memcpy(w->err, res->error, sizeof(w->err));
			return ret;
		}
	}
	return 0;
}

static void *lat_worker_main(void *arg)
{
	struct lat_worker *w = arg;
	struct lat_run *run = w->run;
	struct probe p;
	int fd = -1, ret;

	ret = client_pin_worker(&run->o->flow, run->dev.ctx, w->index, w->err,
				sizeof(w->err));
	w->cpu = ret >= 0 ? ret : -1;
	if (ret >= 0) {
		log_debug("worker %u on CPU %d", w->index, ret);
		ret = probe_init(&p, &run->dev, run->max_bytes, run->o->flow.hugepages, &run->path,
				 &w->got_huge, w->err, sizeof(w->err));
	}
	if (ret) {
		w->status = ret;
		return NULL;
	}
	ret = client_connect(&run->o->flow, &run->cm0, &p.wire, &run->path, run->max_bytes,
			     w->err, sizeof(w->err));
	if (ret >= 0)
		ret = lat_run_sizes(w, &p, ret, run->o->flow.rdma_cm);
	w->status = ret < 0 ? ret : 0;
	fd = run->o->flow.rdma_cm ? -1 : ret;
	if (fd >= 0)
		close(fd);
	probe_release(&p);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Setup, run, report                                                  */
/* ------------------------------------------------------------------ */

static int lat_pick_sizes(struct lat_run *run, char *err, size_t errlen)
{
	size_t max = verbs_dev_max_msg_bytes(&run->dev), k;
	const struct lat_opts *o = run->o;

	if (o->all_sizes) {
		run->n_sizes = lat_sweep_sizes(max, run->sizes, LAT_MAX_SIZES);
	} else {
		memcpy(run->sizes, o->sizes, o->n_sizes * sizeof(o->sizes[0]));
		run->n_sizes = o->n_sizes;
	}
	for (k = 0; k < run->n_sizes; k++) {
		if (run->sizes[k] > max)
			return errbuf_set(err, errlen, -EMSGSIZE,
					  "size %zu larger than %s port %u allows (%zu bytes)",
					  run->sizes[k], run->dev.name, run->dev.port, max);
		if (run->sizes[k] > run->max_bytes)
			run->max_bytes = run->sizes[k];
	}
	return 0;
}

static FILE *lat_csv_open(const char *path)
{
	char err[256];
	FILE *f = client_file_open(path, err, sizeof(err));

	if (!f) {
		log_error("%s", err);
		return NULL;
	}
	report_lat_csv_header(f);
	return f;
}

/*
 * Start the workers and wait for all. A thread that cannot start is its
 * worker's error and stops the others; lat_first_error() finds it.
 */
static void lat_start(struct lat_run *run, struct lat_worker *w, unsigned n)
{
	unsigned i;
	int ret;

	for (i = 0; i < n; i++) {
		w[i].run = run;
		w[i].index = i;
		ret = pthread_create(&w[i].tid, NULL, lat_worker_main, &w[i]);
		if (ret) {
			w[i].status = -ret;
			snprintf(w[i].err, sizeof(w[i].err), "cannot start a thread: %s",
				 strerror(ret));
			stop_request();
			break;
		}
	}
	while (i--)
		pthread_join(w[i].tid, NULL);
}

/* Per size, every worker's result into @out; returns how many sizes. */
static size_t lat_merge(struct lat_run *run, struct lat_worker *w, unsigned nw,
			struct flow_result *out)
{
	uint64_t retrans;
	size_t k, n = 0;
	unsigned i;

	for (i = 0; i < nw; i++)
		n = w[i].n_res > n ? w[i].n_res : n;
	for (k = 0; k < n; k++) {
		flow_result_init(&out[k], run->sizes[k]);
		retrans = 0;
		for (i = 0; i < nw; i++) {
			if (k >= w[i].n_res)
				continue;
			flow_result_merge(&out[k], &w[i].res[k]);
			/* Port counters: the workers' windows overlap; never add them. */
			retrans = w[i].res[k].retrans > retrans ? w[i].res[k].retrans : retrans;
		}
		out[k].retrans = retrans;
	}
	return n;
}

static const char *lat_first_error(struct lat_worker *w, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (w[i].status)
			return w[i].err;
	return NULL;
}

/* The --max-* criteria, per size, on the merged RTTs. */
static void lat_judge(const struct lat_run *run, const struct flow_result *res, size_t n,
		      struct criteria *cs)
{
	const struct lat_opts *o = run->o;
	const struct { const char *name; double pct, limit_s; } want[] = {
		{ "max_p50", 50, o->max_p50_s },
		{ "max_p99", 99, o->max_p99_s },
		{ "max_p99.9", 99.9, o->max_p99_9_s },
	};
	struct criterion *c;
	char scope[32];
	size_t i, k;

	for (k = 0; k < n; k++) {
		snprintf(scope, sizeof(scope), "size %zu", res[k].size_bytes);
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			if (want[i].limit_s <= 0)
				continue;
			c = criteria_add(cs, want[i].name, CRITERION_MAX, "us",
					 want[i].limit_s * 1e6, scope);
			if (c)
				criterion_judge(c, res[k].samples > 0,
						clock_ticks_to_ns(&run->clk, hist_percentile(
							res[k].rtt, want[i].pct)) / 1e3);
		}
	}
}

static int lat_report(struct lat_run *run, struct lat_worker *w, const char *error,
		      struct criteria *cs)
{
	const struct lat_opts *o = run->o;
	struct flow_result merged[LAT_MAX_SIZES];
	struct lat_report_info info = {
		.criteria = cs,
		.env = &run->env,
		.server = o->flow.host,
		.device = run->dev.name,
		.port = run->dev.port,
		.gid_index = run->dev.gid_index,
		.roce = run->dev.roce,
		.mtu = verbs_mtu_str(run->dev.port_attr.active_mtu),
		.path = run->path,
		.clk = &run->clk,
		.threads = o->flow.threads,
		.rdma_cm = o->flow.rdma_cm,
		.hugepages = o->flow.hugepages && w[0].got_huge,
		.iterations = o->iterations,
		.duration_s = o->duration_s,
		.warmup = o->warmup,
	};
	char err[256];
	size_t n, k;
	json_t *doc;
	int ret = 0;

	for (k = 0; k < o->flow.threads; k++)
		run_env_worker(&run->env, (unsigned)k, w[k].cpu);
	n = lat_merge(run, w, o->flow.threads, merged);
	lat_judge(run, merged, n, cs);
	if (!(o->flow.json_path && !strcmp(o->flow.json_path, "-")) &&
	    !(o->flow.csv_path && !strcmp(o->flow.csv_path, "-")) && n) {
		report_lat_table(stdout, &info, merged, n);
		report_criteria_table(stdout, cs);
	}
	if (o->flow.json_path) {
		doc = report_lat_json(&info, merged, n, error);
		ret = jsonfile_write(doc, o->flow.json_path, err, sizeof(err));
		json_decref(doc);
		if (ret)
			log_error("%s", err);
	}
	for (k = 0; k < n; k++)
		flow_result_release(&merged[k]);
	return ret;
}

static void lat_release(struct lat_run *run, struct lat_worker *w, unsigned nw)
{
	unsigned i;
	size_t k;

	for (i = 0; i < nw; i++)
		for (k = 0; k < w[i].n_res; k++)
			flow_result_release(&w[i].res[k]);
	if (run->csv && run->csv != stdout)
		fclose(run->csv);
	verbs_dev_close(&run->dev);
	if (run->cm0.id || run->cm0.ch)
		conn_cm_close(&run->cm0);
}

static int lat_prepare(struct lat_run *run, char *err, size_t errlen)
{
	const struct lat_opts *o = run->o;
	int ret;

	ret = clock_init(o->flow.clock, &run->clk, err, errlen);
	if (ret)
		return ret;
	run->path = client_path(&o->flow);
	ret = client_open_device(&o->flow, &run->dev, &run->cm0, err, errlen);
	run_env_host(&run->env);
	if (!ret)
		verbs_env(&run->dev, &run->env);
	if (!ret)
		ret = lat_pick_sizes(run, err, errlen);
	return ret;
}

/*
 * The option combinations lat cannot run, refused before any device is
 * opened: an rdma_cm id serves a single worker. 0 or -EINVAL with the
 * reason in @err.
 */
static int lat_check(const struct lat_opts *o, char *err, size_t errlen)
{
	if (o->flow.threads > 1 && o->flow.rdma_cm)
		return errbuf_set(err, errlen, -EINVAL, "--rdma-cm runs one thread");
	return 0;
}

int cmd_lat(int argc, char **argv)
{
	struct lat_opts o;
	struct lat_run run = { .o = &o };
	struct criteria crit = { 0 };
	struct lat_worker *w;
	const char *error;
	char err[256];
	int ret;

	ret = lat_opts_parse(argc, argv, &o, err, sizeof(err));
	if (!ret && !o.help)
		ret = lat_check(&o, err, sizeof(err));
	if (ret) {
		opts_report(&lat_opts_usage, err);
		return RPERF_EXIT_USAGE;
	}
	if (o.help) {
		cmd_lat_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (client_begin(&o.flow, err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	ret = lat_prepare(&run, err, sizeof(err));
	if (ret) {
		log_error("%s", err);
		lat_release(&run, NULL, 0);
		return cmd_failed_json(o.flow.json_path, "lat", err,
				       client_error_is_usage(ret) ? RPERF_EXIT_USAGE :
								    RPERF_EXIT_FAILURE);
	}
	w = calloc(o.flow.threads, sizeof(*w));
	run.csv = o.flow.csv_path ? lat_csv_open(o.flow.csv_path) : NULL;
	if (!w || (o.flow.csv_path && !run.csv)) {
		free(w);
		lat_release(&run, NULL, 0);
		return cmd_failed_json(o.flow.json_path, "lat", w ? "cannot open the CSV file" :
				       "out of memory", RPERF_EXIT_FAILURE);
	}
	stop_install();
	lat_start(&run, w, o.flow.threads);
	if (o.flow.hugepages && !w[0].got_huge)
		log_warn("no huge pages available: buffers on normal pages");
	error = lat_first_error(w, o.flow.threads);
	if (error)
		log_error("%s", error);
	ret = lat_report(&run, w, error, &crit);
	lat_release(&run, w, o.flow.threads);
	free(w);
	if (error || ret)
		return RPERF_EXIT_FAILURE;
	return cmd_criteria_exit(&crit);
}
