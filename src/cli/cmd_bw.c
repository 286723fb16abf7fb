/*
 * rperf bw: bandwidth generators on any SL. Each worker thread is pinned
 * near the NIC and drives its QPs (one server flow each) through the load
 * engine. At every interval a worker asks the server what it received on
 * its flows; the main thread adds the workers' snapshots up and prints
 * one line per interval. The received figures are what the destination
 * port really got: shares are computed from them.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bw.h"
#include "engine/client.h"
#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "engine/load.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/report.h"

#define BW_QUERY_MS 2000

/* What every worker shares, read-only once the workers start. */
struct bw_run {
	const struct bw_opts *o;
	struct verbs_dev dev;
	struct verbs_path path;
	struct clock_cal clk;
	struct conn_cm cm0;		/* rdma_cm: worker 0's id, resolved up front */
	size_t max_snaps;
};

/* A worker's cumulative counts at an interval boundary. */
struct bw_snap {
	uint64_t t_ticks;		/* since the worker's run began */
	uint64_t msgs, bytes;
	bool rx_valid;
	uint64_t rx_msgs, rx_bytes;
};

struct bw_worker {
	struct bw_run *run;
	unsigned index;
	pthread_t tid;
	struct load load;
	struct flow_result res[BW_MAX_QPS];
	unsigned n_res;
	int status;
	char err[256];
	bool got_huge;
	int query_fd[BW_MAX_QPS];	/* where to ask the server for QP i's counters */
	struct bw_snap *snaps;
	size_t n_taken;			/* snapshots taken */
	bool rx_broken;			/* an answer went missing: stop asking */
	size_t n_snaps;			/* complete, published to the main thread */
	bool done;			/* likewise */
};

void cmd_bw_usage(FILE *out)
{
	fputs("usage: rperf bw [options] HOST\n"
	      "\n"
	      "Load the fabric with open-loop RC traffic to an 'rperf server' on HOST, on\n"
	      "any SL or traffic class; report Gb/s and Mpps as sent and as received.\n"
	      "\n", out);
	fputs(flow_opts_usage_path, out);
	fputs("  -s, --size BYTES      message size (default 65536)\n"
	      "  -D, --duration SECS   how long to send (default 10)\n"
	      "      --interval SECS   report every SECS (default 1)\n"
	      "      --write           RDMA WRITE (with immediate) instead of SEND\n"
	      "      --tx-depth N      requests outstanding per QP (default 128)\n"
	      "      --batch N         requests per post list (default 1)\n"
	      "      --cq-mod N        a completion every N requests (default 16)\n"
	      "      --qps N           QPs (server flows) per thread (default 1)\n"
	      "      --rate RATE       pace each QP at RATE (e.g. 5m, 2.5g) in software\n"
	      "      --hw-rate RATE    limit each QP to RATE with the NIC's rate limiter\n"
	      "      --event           sleep until a completion event when nothing can be\n"
	      "                        posted, instead of polling (software NICs such as\n"
	      "                        Soft-RoCE on few CPUs)\n",
	      out);
	fputs(flow_opts_usage_run, out);
	fputs("      --csv FILE        write one row per interval ('-': stdout)\n"
	      "  -h, --help            show this help\n", out);
}

/* ------------------------------------------------------------------ */
/* Worker                                                              */
/* ------------------------------------------------------------------ */

/*
 * The server is asked at each interval boundary, but its answers are read
 * at the next one: on a shaped path the query waits behind the data in
 * the switch's queue, and the worker must not stop posting meanwhile.
 */
static bool bw_ask(struct bw_worker *w)
{
	struct conn_msg q = { .kind = CONN_MSG_QUERY };
	bool ok = true;
	unsigned i;

	for (i = 0; i < w->load.n_qps; i++)
		ok = ok && w->query_fd[i] >= 0 && !conn_send_msg(w->query_fd[i], &q, BW_QUERY_MS);
	return ok;
}

/* Read the answers to bw_ask() into @s (and, at the end, the results). */
static void bw_answers(struct bw_worker *w, struct bw_snap *s, bool last)
{
	struct conn_msg a;
	unsigned i;

	for (i = 0; i < w->load.n_qps && s->rx_valid; i++) {
		if (conn_recv_msg(w->query_fd[i], &a, BW_QUERY_MS) ||
		    a.kind != CONN_MSG_STATS) {
			s->rx_valid = false;
			break;
		}
		s->rx_msgs += a.v[0];
		s->rx_bytes += a.v[1];
		w->res[i].rx_valid = last;
		w->res[i].rx_msgs = a.v[0];
		w->res[i].rx_bytes = a.v[1];
	}
}

/* The engine's interval callback: complete the last snapshot, start one. */
static void bw_on_interval(void *arg, const struct load_interval *iv)
{
	struct bw_worker *w = arg;
	size_t k = w->n_taken;
	struct bw_snap *s;

	if (k >= w->run->max_snaps)
		return;
	if (k && w->snaps[k - 1].rx_valid)
		bw_answers(w, &w->snaps[k - 1], false);
	/* Once an answer went missing, the ones after it would not match. */
	w->rx_broken = w->rx_broken || (k && !w->snaps[k - 1].rx_valid);
	s = &w->snaps[k];
	*s = (struct bw_snap){ .t_ticks = iv->now_ticks - iv->start_ticks, .msgs = iv->msgs,
			       .bytes = iv->bytes };
	s->rx_valid = !w->rx_broken && bw_ask(w);
	w->n_taken = k + 1;
	if (iv->last && s->rx_valid)
		bw_answers(w, s, true);
	__atomic_store_n(&w->n_snaps, iv->last ? k + 1 : k, __ATOMIC_RELEASE);
}

/*
 * Over rdma_cm the flow has no socket: its counters are asked on a side
 * connection. Without one (an older server) the run goes on, and the
 * received figures are unknown.
 */
static int bw_attach(struct bw_worker *w)
{
	const struct flow_opts *o = &w->run->o->flow;
	char err[256];
	int fd;

	fd = conn_client_attach(o->host, o->tcp_port, w->run->cm0.flow_id,
				(int)(o->timeout_s * 1000), err, sizeof(err));
	if (fd < 0)
		log_warn("the received figures will be unknown: %s", err);
	return fd;
}

/* Connect QP @i: the flow, where it may write, its rate limit. */
static int bw_connect_qp(struct bw_worker *w, unsigned i)
{
	struct bw_run *run = w->run;
	const struct bw_opts *o = run->o;
	struct load_qp *q = &w->load.qps[i];
	struct conn_msg a;
	int ret;

	ret = client_connect(&o->flow, &run->cm0, &q->qp, &run->path, o->size_bytes, w->err,
			     sizeof(w->err));
	if (ret < 0)
		return ret;
	q->ctl_fd = ret;
	q->ctl_any_event = o->flow.rdma_cm;
	w->query_fd[i] = o->flow.rdma_cm ? bw_attach(w) : ret;
	/* The server's buffer: the target of --write, and of the zero-length
	 * WRITE that makes the last requests of a run report. */
	if (!o->flow.rdma_cm) {
		ret = conn_request(q->ctl_fd, CONN_MSG_MR, CONN_MSG_MR, &a, BW_QUERY_MS);
		if (ret || a.v[2] < o->size_bytes || !a.v[1])
			return errbuf_set(w->err, sizeof(w->err), ret ? ret : -EPROTO,
					  "server '%s' did not say where to write", o->flow.host);
		q->remote_addr = a.v[0];
		q->rkey = (uint32_t)a.v[1];
	}
	if (o->hw_rate_bps)
		return verbs_qp_rate_limit(&q->qp, (uint32_t)(o->hw_rate_bps / 1000), w->err,
					   sizeof(w->err));
	return 0;
}

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
		.on_interval = bw_on_interval,
		.arg = w,
	};
	unsigned i;
	int ret;

	for (i = 0; i < w->load.n_qps; i++) {
		w->load.qps[i].res = &w->res[i];
		if (flow_result_init(&w->res[i], o->size_bytes))
			return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
		w->n_res = i + 1;
	}
	/* If one QP cannot connect, the others' partial results still count. */
	for (i = 0; i < w->load.n_qps; i++) {
		ret = bw_connect_qp(w, i);
		if (ret)
			return ret;
	}
	verbs_counters_read(&run->dev, &before);
	ret = load_run(&w->load, &cfg, w->res);
	if (!verbs_counters_read(&run->dev, &after))
		w->res[0].retrans = verbs_counters_retrans(&before, &after);
	if (ret)
		memcpy(w->err, w->res[0].error, sizeof(w->err));
	return ret;
}

static void *bw_worker_main(void *arg)
{
	struct bw_worker *w = arg;
	struct bw_run *run = w->run;
	const struct bw_opts *o = run->o;
	unsigned i;
	int ret;

	ret = client_pin_worker(&o->flow, run->dev.ctx, w->index, w->err, sizeof(w->err));
	if (!ret)
		ret = load_init(&w->load, &run->dev, o->qps, o->tx_depth, o->size_bytes,
				o->flow.hugepages, o->event, &w->got_huge, w->err,
				sizeof(w->err));
	if (!ret)
		ret = bw_worker_run(w);
	w->status = ret;
	for (i = 0; i < w->load.n_qps; i++) {
		if (w->query_fd[i] >= 0 && w->query_fd[i] != w->load.qps[i].ctl_fd)
			close(w->query_fd[i]);
		if (w->load.qps[i].ctl_fd >= 0 && !w->load.qps[i].ctl_any_event)
			close(w->load.qps[i].ctl_fd);
	}
	load_release(&w->load);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Intervals: the workers' snapshots added up, printed as they come    */
/* ------------------------------------------------------------------ */

/* Worker @w's snapshot @k, or its last when it stopped before; NULL if none. */
static const struct bw_snap *bw_snap_at(const struct bw_worker *w, size_t k, size_t n)
{
	if (!n)
		return NULL;
	return &w->snaps[k < n ? k : n - 1];
}

/* Interval @k over every worker, from snapshots k - 1 and k. */
static void bw_interval_sum(struct bw_run *run, struct bw_worker *w, unsigned nw, size_t k,
			    const size_t *n, struct bw_interval *iv)
{
	const struct bw_snap *a, *b;
	double end_s;
	unsigned i;

	memset(iv, 0, sizeof(*iv));
	iv->rx_valid = true;
	iv->start_s = k * run->o->interval_s;
	for (i = 0; i < nw; i++) {
		b = bw_snap_at(&w[i], k, n[i]);
		a = k ? bw_snap_at(&w[i], k - 1, n[i]) : NULL;
		if (!b)
			continue;
		end_s = clock_ticks_to_ns(&run->clk, b->t_ticks) / 1e9;
		iv->end_s = end_s > iv->end_s ? end_s : iv->end_s;
		iv->msgs += b->msgs - (a ? a->msgs : 0);
		iv->bytes += b->bytes - (a ? a->bytes : 0);
		iv->rx_valid = iv->rx_valid && b->rx_valid && (!a || a->rx_valid);
		iv->rx_msgs += b->rx_msgs - (a ? a->rx_msgs : 0);
		iv->rx_bytes += b->rx_bytes - (a ? a->rx_bytes : 0);
	}
	if (iv->end_s < iv->start_s)
		iv->end_s = iv->start_s;
}

/* Is interval @k known: every worker has snapshot k, or stopped? */
static bool bw_interval_ready(struct bw_worker *w, unsigned nw, size_t k, size_t *n,
			      bool *all_done)
{
	bool ready = true;
	unsigned i;

	*all_done = true;
	for (i = 0; i < nw; i++) {
		bool done = __atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE);

		n[i] = __atomic_load_n(&w[i].n_snaps, __ATOMIC_ACQUIRE);
		*all_done = *all_done && done;
		ready = ready && (n[i] > k || done);
	}
	return ready;
}

/* Print each interval once every worker is past it; keep them in @iv. */
static size_t bw_follow(struct bw_run *run, struct bw_worker *w, unsigned nw,
			struct bw_interval *iv, FILE *human, FILE *csv)
{
	size_t n[FLOW_MAX_THREADS], k = 0, i, most;
	bool all_done;

	for (;;) {
		if (!bw_interval_ready(w, nw, k, n, &all_done)) {
			usleep(10000);
			continue;
		}
		for (most = 0, i = 0; i < nw; i++)
			most = n[i] > most ? n[i] : most;
		if (k >= most)
			return k;
		bw_interval_sum(run, w, nw, k, n, &iv[k]);
		if (human)
			report_bw_interval(human, &iv[k]);
		if (csv)
			report_bw_csv_row(csv, &iv[k]);
		k++;
		if (all_done && k >= most)
			return k;
	}
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

/* Every flow of every worker into @total. */
static void bw_merge(struct bw_run *run, struct bw_worker *w, unsigned nw,
		     struct flow_result *total)
{
	uint64_t retrans = 0;
	unsigned i, j;

	flow_result_init(total, run->o->size_bytes);
	total->rx_valid = true;
	for (i = 0; i < nw; i++) {
		if (!w[i].n_res)
			total->rx_valid = false;
		for (j = 0; j < w[i].n_res; j++)
			flow_result_merge(total, &w[i].res[j]);
		/* Port counters: the workers' windows overlap; never add them. */
		if (w[i].n_res && w[i].res[0].retrans > retrans)
			retrans = w[i].res[0].retrans;
	}
	total->retrans = retrans;
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
	n = i;
	n_iv = bw_follow(run, w, n, iv, human, csv);
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
	unsigned i, j;

	for (i = 0; w && i < nw; i++) {
		for (j = 0; j < w[i].n_res; j++)
			flow_result_release(&w[i].res[j]);
		free(w[i].snaps);
	}
	free(w);
	verbs_dev_close(&run->dev);
	if (run->cm0.id || run->cm0.ch)
		conn_cm_close(&run->cm0);
}

static struct bw_worker *bw_workers(const struct bw_run *run)
{
	unsigned i, j, n = run->o->flow.threads;
	struct bw_worker *w = calloc(n, sizeof(*w));

	for (i = 0; w && i < n; i++) {
		for (j = 0; j < BW_MAX_QPS; j++)
			w[i].query_fd[j] = -1;
		w[i].snaps = calloc(run->max_snaps, sizeof(*w[i].snaps));
		if (!w[i].snaps) {
			while (i--)
				free(w[i].snaps);
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
	struct bw_report_info info;
	struct flow_result total;
	struct bw_interval *iv;
	const char *error;
	size_t n_iv;
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
	bw_merge(run, w, o->flow.threads, &total);
	if (human)
		report_bw_total(human, &total, &run->clk);
	if (!total.rx_valid && !error)
		log_warn("the server could not be asked what it received%s",
			 o->flow.rdma_cm ? " (no TCP connection with --rdma-cm)" : "");
	if (o->flow.json_path)
		ret = bw_write_json(o->flow.json_path, &info, &total, iv, n_iv, error);
	flow_result_release(&total);
	free(iv);
	return error || ret ? RPERF_EXIT_FAILURE : RPERF_EXIT_OK;
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
		log_error("%s", err);
		fprintf(stderr, "see 'rperf bw --help'\n");
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
		return client_error_is_usage(ret) ? RPERF_EXIT_USAGE :
						     RPERF_EXIT_FAILURE;
	}
	w = bw_workers(&run);
	if (w && o.flow.csv_path)
		csv = bw_csv_open(o.flow.csv_path);
	if (!w || (o.flow.csv_path && !csv)) {
		bw_release(&run, w, o.flow.threads);
		return RPERF_EXIT_FAILURE;
	}
	ret = bw_main(&run, w, csv);
	if (csv && csv != stdout)
		fclose(csv);
	bw_release(&run, w, o.flow.threads);
	return ret;
}
