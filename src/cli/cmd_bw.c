/*
 * rperf bw: bandwidth generators on any SL. Each worker thread is pinned
 * near the NIC and drives its QPs (one server flow each) through the load
 * engine; the bw client (engine/bw_client.h) asks the server at every
 * interval what it received on the worker's flows, and adds the workers'
 * snapshots up; this command sets up, starts the workers and prints one
 * line per interval. The received figures are what the destination port
 * really got: shares are computed from them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bw.h"
#include "engine/bw_client.h"
#include "engine/client.h"
#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "engine/load.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/report.h"

/* What every worker shares, read-only once the workers start. */
struct bw_run {
	const struct bw_opts *o;
	struct verbs_dev dev;
	struct verbs_path path;
	struct clock_cal clk;
	struct conn_cm cm0;		/* rdma_cm: worker 0's id, resolved up front */
	size_t max_snaps;
	struct run_env env;
};

struct bw_worker {
	struct bw_run *run;
	unsigned index;
	pthread_t tid;
	struct load load;
	struct bw_client bc;		/* its flows, results and snapshots */
	int status;
	char err[256];
	bool got_huge;
	int cpu;			/* where it was pinned; -1: not */
};

void cmd_bw_usage(FILE *out)
{
	opts_usage(out, &bw_opts_usage);
}

/* ------------------------------------------------------------------ */
/* Worker                                                              */
/* ------------------------------------------------------------------ */

static int bw_worker_run(struct bw_worker *w)
{
	struct bw_run *run = w->run;
	const struct bw_opts *o = run->o;
	struct verbs_counters before, after;
	struct load_cfg cfg = {
		.size_bytes = o->size_bytes,
		.tx_depth = o->tx_depth,
		.batch = o->batch,
		.cq_mod = o->cq_mod,
		.rate_bps = o->rate_bps,
		.duration_ticks = clock_ns_to_ticks(&run->clk, o->duration_s * 1e9),
		.interval_ticks = clock_ns_to_ticks(&run->clk, o->interval_s * 1e9),
		.drain_timeout_ticks = client_completion_timeout_ticks(&run->clk, &run->path),
		.clk = &run->clk,
		.peer = o->flow.host,
		.stop = stop_flag(),
		.yield = o->flow.yield,
		.event = o->event,
		.on_interval = bw_client_on_interval,
		.arg = &w->bc,
	};
	unsigned i;
	int ret;

	ret = bw_client_results_init(&w->bc, w->err, sizeof(w->err));
	if (ret)
		return ret;
	/* If one QP cannot connect, the others' partial results still count. */
	for (i = 0; i < w->load.n_qps; i++) {
		ret = bw_client_connect_qp(&w->bc, i, w->err, sizeof(w->err));
		if (w->bc.rx_error[0])
			log_warn("the received figures will be unknown: %s", w->bc.rx_error);
		if (ret)
			return ret;
	}
	verbs_counters_read(&run->dev, &before);
	ret = load_run(&w->load, &cfg, w->bc.res);
	if (!verbs_counters_read(&run->dev, &after))
		w->bc.res[0].retrans = verbs_counters_retrans(&before, &after);
	if (ret)
		memcpy(w->err, w->bc.res[0].error, sizeof(w->err));
	return ret;
}

static void *bw_worker_main(void *arg)
{
	struct bw_worker *w = arg;
	struct bw_run *run = w->run;
	const struct bw_opts *o = run->o;
	int ret;

	ret = client_pin_worker(&o->flow, run->dev.ctx, w->index, w->err, sizeof(w->err));
	w->cpu = ret >= 0 ? ret : -1;
	if (ret >= 0) {
		log_debug("worker %u on CPU %d", w->index, ret);
		ret = load_init(&w->load, &run->dev, o->qps, o->tx_depth, o->size_bytes,
				o->flow.hugepages, o->event, &w->got_huge, w->err,
				sizeof(w->err));
	}
	if (!ret)
		ret = bw_worker_run(w);
	w->status = ret;
	bw_client_close(&w->bc);
	load_release(&w->load);
	bw_client_finish(&w->bc);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Intervals: printed as they come                                     */
/* ------------------------------------------------------------------ */

/* Where the intervals go: the human table, the CSV, either or both. */
struct bw_out {
	FILE *human, *csv;
};

/* bw_client_follow()'s callback: one interval, printed. */
static void bw_print_interval(void *arg, const struct bw_interval *iv)
{
	const struct bw_out *out = arg;

	if (out->human)
		report_bw_interval(out->human, iv);
	if (out->csv)
		report_bw_csv_row(out->csv, iv);
}

/* The workers' clients, for the bw client's sums. */
static struct bw_client_set bw_set(struct bw_run *run, struct bw_worker *w, unsigned n,
				   struct bw_client **c)
{
	unsigned i;

	for (i = 0; i < n; i++)
		c[i] = &w[i].bc;
	return (struct bw_client_set){ .c = c, .n = n, .interval_s = run->o->interval_s,
				       .clk = &run->clk };
}

/* ------------------------------------------------------------------ */
/* Setup, run, report                                                  */
/* ------------------------------------------------------------------ */

static void bw_info(const struct bw_run *run, const struct bw_worker *w,
		    struct bw_report_info *info)
{
	const struct bw_opts *o = run->o;

	*info = (struct bw_report_info){
		.flow = {
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
			.hugepages = o->flow.hugepages && w && w[0].got_huge,
			.duration_s = o->duration_s,
			.env = &run->env,
		},
		.write = o->write,
		.size_bytes = o->size_bytes,
		.qps = o->qps,
		.tx_depth = o->tx_depth,
		.batch = o->batch,
		.cq_mod = o->cq_mod,
		.yield = o->flow.yield,
		.event = o->event,
		.rate_bps = o->rate_bps,
		.hw_rate_bps = o->hw_rate_bps,
		.duration_s = o->duration_s,
		.interval_s = o->interval_s,
	};
}

/* --min-gbps on the whole run: what the server received, else what was sent. */
static void bw_judge(const struct bw_run *run, const struct flow_result *total,
		     struct criteria *cs)
{
	double s = clock_ticks_to_ns(&run->clk, total->elapsed_ticks) / 1e9;
	uint64_t bytes = total->rx_valid ? total->rx_bytes : total->bytes;
	struct criterion *c;

	if (!run->o->min_bps)
		return;
	c = criteria_add(cs, "min_gbps", CRITERION_MIN, "gbps", (double)run->o->min_bps / 1e9,
			 total->rx_valid ? "total received" : "total sent");
	if (c)
		criterion_judge(c, s > 0, s > 0 ? (double)bytes * 8 / s / 1e9 : 0);
}

static int bw_write_json(const char *path, const struct bw_report_info *info,
			 const struct flow_result *total, const struct bw_interval *iv,
			 size_t n_iv, const char *error)
{
	char err[256];
	json_t *doc;
	int ret;

	doc = report_bw_json(info, total, iv, n_iv, error);
	ret = jsonfile_write(doc, path, err, sizeof(err));
	json_decref(doc);
	if (ret)
		log_error("%s", err);
	return ret;
}

static const char *bw_first_error(const struct bw_worker *w, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (w[i].status)
			return w[i].err;
	return NULL;
}

static FILE *bw_csv_open(const char *path)
{
	char err[256];
	FILE *f = client_file_open(path, err, sizeof(err));

	if (!f) {
		log_error("%s", err);
		return NULL;
	}
	report_bw_csv_header(f);
	return f;
}

/* Start the workers, follow their intervals, join them. */
static size_t bw_start(struct bw_run *run, struct bw_worker *w, struct bw_interval *iv,
		       FILE *human, FILE *csv)
{
	unsigned i, n = run->o->flow.threads;
	struct bw_out out = { .human = human, .csv = csv };
	struct bw_client *c[FLOW_MAX_THREADS];
	struct bw_client_set set;
	size_t n_iv;
	int ret;

	for (i = 0; i < n; i++) {
		w[i].run = run;
		w[i].index = i;
		ret = pthread_create(&w[i].tid, NULL, bw_worker_main, &w[i]);
		if (ret) {
			w[i].status = -ret;
			snprintf(w[i].err, sizeof(w[i].err), "cannot start a thread: %s",
				 strerror(ret));
			stop_request();
			break;
		}
	}
	set = bw_set(run, w, i, c);
	n_iv = bw_client_follow(&set, iv, bw_print_interval, &out);
	while (i--)
		pthread_join(w[i].tid, NULL);
	return n_iv;
}

static int bw_prepare(struct bw_run *run, char *err, size_t errlen)
{
	const struct bw_opts *o = run->o;
	size_t max = 0;
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
		max = verbs_dev_max_msg_bytes(&run->dev);
	if (!ret && o->size_bytes > max)
		ret = errbuf_set(err, errlen, -EMSGSIZE,
				 "size %zu larger than %s port %u allows (%zu bytes)",
				 o->size_bytes, run->dev.name, run->dev.port, max);
	/* One snapshot per interval, one for the end, one for rounding. */
	run->max_snaps = (size_t)(o->duration_s / o->interval_s) + 3;
	return ret;
}

static void bw_release(struct bw_run *run, struct bw_worker *w, unsigned nw)
{
	unsigned i;

	for (i = 0; w && i < nw; i++)
		bw_client_release(&w[i].bc);
	free(w);
	verbs_dev_close(&run->dev);
	if (run->cm0.id || run->cm0.ch)
		conn_cm_close(&run->cm0);
}

/* The workers, each with its bw client; NULL when out of memory. */
static struct bw_worker *bw_workers(struct bw_run *run)
{
	const struct bw_opts *o = run->o;
	struct bw_client_cfg cfg = {
		.flow = &o->flow,
		.cm = &run->cm0,
		.path = run->path,
		.size_bytes = o->size_bytes,
		.hw_rate_bps = o->hw_rate_bps,
		.n_qps = o->qps,
		.max_snaps = run->max_snaps,
	};
	unsigned i, n = o->flow.threads;
	struct bw_worker *w = calloc(n, sizeof(*w));

	for (i = 0; w && i < n; i++) {
		if (bw_client_init(&w[i].bc, &cfg, &w[i].load)) {
			while (i--)
				bw_client_release(&w[i].bc);
			free(w);
			return NULL;
		}
	}
	return w;
}

/* Run and report; the exit status. */
static int bw_main(struct bw_run *run, struct bw_worker *w, FILE *csv)
{
	const struct bw_opts *o = run->o;
	bool quiet = (o->flow.json_path && !strcmp(o->flow.json_path, "-")) ||
		     (o->flow.csv_path && !strcmp(o->flow.csv_path, "-"));
	FILE *human = quiet ? NULL : stdout;
	struct bw_client *c[FLOW_MAX_THREADS];
	struct bw_client_set set;
	struct bw_report_info info;
	struct criteria crit = { 0 };
	struct flow_result total;
	struct bw_interval *iv;
	const char *error;
	size_t n_iv;
	unsigned i;
	int ret = 0;

	iv = calloc(run->max_snaps, sizeof(*iv));
	if (!iv)
		return RPERF_EXIT_FAILURE;
	bw_info(run, w, &info);
	if (human)
		report_bw_header(human, &info);
	stop_install();
	n_iv = bw_start(run, w, iv, human, csv);
	if (o->flow.hugepages && !w[0].got_huge)
		log_warn("no huge pages available: buffers on normal pages");
	error = bw_first_error(w, o->flow.threads);
	if (error)
		log_error("%s", error);
	bw_info(run, w, &info);
	set = bw_set(run, w, o->flow.threads, c);
	bw_client_merge(&set, o->size_bytes, &total);
	for (i = 0; w && i < o->flow.threads; i++)
		run_env_worker(&run->env, i, w[i].cpu);
	bw_judge(run, &total, &crit);
	info.flow.criteria = &crit;
	if (human) {
		report_bw_total(human, &total, &run->clk);
		report_criteria_table(human, &crit);
	}
	if (!total.rx_valid && !error)
		log_warn("the server could not be asked what it received%s",
			 o->flow.rdma_cm ? " (no TCP connection with --rdma-cm)" : "");
	if (o->flow.json_path)
		ret = bw_write_json(o->flow.json_path, &info, &total, iv, n_iv, error);
	flow_result_release(&total);
	free(iv);
	if (error || ret)
		return RPERF_EXIT_FAILURE;
	return cmd_criteria_exit(&crit);
}

int cmd_bw(int argc, char **argv)
{
	struct bw_opts o;
	struct bw_run run = { .o = &o };
	struct bw_worker *w;
	char err[256];
	FILE *csv = NULL;
	int ret;

	if (bw_opts_parse(argc, argv, &o, err, sizeof(err))) {
		opts_report(&bw_opts_usage, err);
		return RPERF_EXIT_USAGE;
	}
	if (o.help) {
		cmd_bw_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (client_begin(&o.flow, err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	ret = bw_prepare(&run, err, sizeof(err));
	if (ret) {
		log_error("%s", err);
		bw_release(&run, NULL, 0);
		return cmd_failed_json(o.flow.json_path, "bw", err,
				       client_error_is_usage(ret) ? RPERF_EXIT_USAGE :
								    RPERF_EXIT_FAILURE);
	}
	w = bw_workers(&run);
	if (w && o.flow.csv_path)
		csv = bw_csv_open(o.flow.csv_path);
	if (!w || (o.flow.csv_path && !csv)) {
		bw_release(&run, w, o.flow.threads);
		return cmd_failed_json(o.flow.json_path, "bw", w ? "cannot open the CSV file" :
				       "cannot set up the workers", RPERF_EXIT_FAILURE);
	}
	ret = bw_main(&run, w, csv);
	if (csv && csv != stdout)
		fclose(csv);
	bw_release(&run, w, o.flow.threads);
	return ret;
}
