/*
 * rperf agent: runs on every host of a converge scenario and does what
 * the coordinator's messages ask, with the same engines the commands use:
 * the destination's agent is a server (sink), the others run lat (probe)
 * and bw (load) flows to it. It listens on a control port (ctl.h), serves
 * one coordinator at a time, and never runs a command or opens a file
 * that a message names. Off the loopback it wants a shared token.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"
#include "ctl.h"
#include "errbuf.h"
#include "load.h"
#include "log.h"
#include "pin.h"
#include "probe.h"
#include "report.h"
#include "sink.h"

#define AGENT_MSG_MS		10000	/* one message, once it started */
#define AGENT_IDLE_MS		600000	/* a coordinator that says nothing */
#define AGENT_HELLO_MS		5000
#define AGENT_REFUSE_MS		500	/* a second coordinator's hello and our answer */
#define AGENT_SLICE_MS		200	/* waits look at signals and the control port this often */
#define AGENT_RING		512	/* RECVs per sink flow: keep bw flows backlogged */
#define AGENT_TAIL_NS		1000000000ull	/* bw runs on past the window */
/* bw's defaults: a window deep enough that a shaped band never runs dry. */
#define AGENT_TX_DEPTH		128
#define AGENT_BATCH		1
#define AGENT_CQ_MOD		16

struct agent_opts {
	const char *bind;		/* NULL: every address */
	uint16_t port;
	const char *token_file;
	bool once;
	bool help;
};

/* One flow of a setup, as the message gave it (validated by ctl). */
struct agent_flow {
	char name[CTL_NAME_MAX];
	bool bw;
	struct verbs_path path;
	size_t size_bytes;
	double rate_mbps;
	unsigned threads, qps;
};

/* One worker: a thread with its wire QP (lat) or its QPs (bw) to the destination. */
struct agent_worker {
	struct agent_step *st;
	struct agent_flow *flow;
	struct probe probe;
	bool probe_ok;
	int fd;				/* lat: the flow's TCP socket to the sink */
	struct load load;
	bool load_ok;
	struct flow_result *bw_res;	/* one per QP */
	pthread_t tid;
	bool running;
	volatile sig_atomic_t done;	/* set by the thread as it ends */
	struct flow_result res;
	bool res_ok;
	int status;
	char err[256];
};

/* Everything one step of a session holds; torn down after its result. */
struct agent_step {
	bool sink_role;
	char dest[256];			/* sources: the destination, for messages */
	struct verbs_dev dev;
	struct clock_cal clk;
	bool yield;
	struct agent_flow flows[CTL_MAX_FLOWS];
	size_t n_flows;
	struct agent_worker *w;
	size_t n_w;
	/* sink */
	struct sink sink;
	bool sink_ok;
	int lfd;
	uint64_t *base_bytes, *base_msgs, *base_errors;
	/* the run */
	uint64_t at_ns, warmup_ns, duration_ns;
	volatile sig_atomic_t stop;
	char stop_reason[256];		/* why the step was stopped, if it was */
};

static volatile sig_atomic_t agent_quit;
/* The control port, and the coordinator a session serves: others are refused. */
static int agent_lfd = -1;
static char agent_peer[64];

static void agent_on_signal(int sig)
{
	(void)sig;
	agent_quit = 1;
}

void cmd_agent_usage(FILE *out)
{
	fprintf(out,
		"usage: rperf agent [options]\n"
		"\n"
		"Run the flows an 'rperf converge' coordinator gives this host.\n"
		"\n"
		"  -b, --bind ADDR       listen on this address only (default: every address)\n"
		"  -p, --port N          control port (default %u)\n"
		"      --token-file FILE shared token; required unless bound to the loopback\n"
		"      --once            serve one coordinator, then exit\n"
		"  -h, --help            show this help\n", CTL_DEFAULT_PORT);
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

static int agent_opts_parse(int argc, char **argv, struct agent_opts *o)
{
	static const struct option lo[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "once", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	*o = (struct agent_opts){ .port = CTL_DEFAULT_PORT };
	optind = 0;
	while ((c = getopt_long(argc, argv, "b:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->bind = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 65535)
				return log_error("--port '%s': expected 1 to 65535", optarg);
			o->port = (uint16_t)v;
			break;
		case 'T':
			o->token_file = optarg;
			break;
		case 'O':
			o->once = true;
			break;
		case 'h':
			o->help = true;
			return 0;
		default:
			return -1;
		}
	}
	if (optind < argc)
		return log_error("unexpected argument '%s'", argv[optind]);
	if (!o->token_file && !ctl_addr_is_loopback(o->bind))
		return log_error("listening beyond the loopback needs --token-file");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static int jint(const json_t *o, const char *k)
{
	return (int)json_integer_value(json_object_get(o, k));
}

static void agent_flow_from_json(const json_t *j, uint8_t timeout, uint8_t retry,
				 struct agent_flow *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", json_string_value(json_object_get(j, "name")));
	f->bw = !strcmp(json_string_value(json_object_get(j, "type")), "bw");
	f->path = (struct verbs_path){ .sl = (uint8_t)jint(j, "sl"),
				       .tclass = (uint8_t)jint(j, "tclass"),
				       .timeout = timeout, .retry = retry };
	f->size_bytes = (size_t)json_integer_value(json_object_get(j, "size"));
	f->rate_mbps = json_number_value(json_object_get(j, "rate_mbps"));
	f->threads = (unsigned)jint(j, "threads");
	f->qps = (unsigned)jint(j, "qps");
}

/* The sink side: listen for the sources' flows on the data port. */
static int agent_sink_setup(struct agent_step *st, const json_t *m, char *err, size_t errlen)
{
	int ret;

	ret = sink_init(&st->sink, &st->dev, AGENT_RING, false, err, errlen);
	if (ret)
		return ret;
	st->sink_ok = true;
	st->lfd = conn_listen((uint16_t)jint(m, "data_port"), err, errlen);
	return st->lfd < 0 ? st->lfd : 0;
}

/* A bw worker's QPs, each a flow to the destination's sink. */
static int agent_worker_connect_bw(struct agent_worker *w, const char *dest, uint16_t port,
				   char *err, size_t errlen)
{
	struct agent_flow *f = w->flow;
	struct load_qp *q;
	unsigned i;
	bool huge;
	int ret;

	ret = load_init(&w->load, &w->st->dev, f->qps, AGENT_TX_DEPTH, f->size_bytes, false, false,
			&huge, err, errlen);
	if (ret)
		return ret;
	w->load_ok = true;
	for (i = 0; i < f->qps; i++) {
		q = &w->load.qps[i];
		q->ctl_fd = conn_client_flow(dest, port, &q->qp, &f->path, f->size_bytes,
					     AGENT_MSG_MS, err, errlen);
		if (q->ctl_fd < 0)
			return q->ctl_fd;
	}
	return 0;
}

/* The sockets of a worker's flows: one for lat, one per QP for bw. */
static size_t agent_worker_fds(const struct agent_worker *w, int *fds, size_t cap)
{
	size_t n = 0, i;

	if (w->fd >= 0 && n < cap)
		fds[n++] = w->fd;
	for (i = 0; w->load_ok && i < w->load.n_qps && n < cap; i++)
		if (w->load.qps[i].ctl_fd >= 0)
			fds[n++] = w->load.qps[i].ctl_fd;
	return n;
}

/* A lat worker's QPs, connected to the destination's sink. */
static int agent_worker_connect(struct agent_worker *w, const char *dest, uint16_t port,
				char *err, size_t errlen)
{
	struct agent_flow *f = w->flow;
	bool huge;
	int ret;

	if (f->bw)
		return agent_worker_connect_bw(w, dest, port, err, errlen);
	ret = probe_init(&w->probe, &w->st->dev, f->size_bytes, false, &f->path, &huge, err,
			 errlen);
	if (ret)
		return ret;
	w->probe_ok = true;
	w->fd = conn_client_flow(dest, port, &w->probe.wire, &f->path, f->size_bytes,
				 AGENT_MSG_MS, err, errlen);
	return w->fd < 0 ? w->fd : 0;
}

/* Every worker of every flow: create and connect; fill the ready message. */
static int agent_source_setup(struct agent_step *st, const json_t *m, json_t *conns,
			      const char **bad_flow, char *err, size_t errlen)
{
	const char *dest = json_string_value(json_object_get(m, "dest"));
	uint16_t port = (uint16_t)jint(m, "data_port");
	struct agent_worker *w;
	json_t *c;
	char name[128];
	size_t i, k, n = 0, n_fds;
	int ret, fds[64];
	unsigned t;

	if (!dest)
		return errbuf_set(err, errlen, -EPROTO, "setup: a source needs 'dest'");
	snprintf(st->dest, sizeof(st->dest), "%s", dest);
	for (i = 0; i < st->n_flows; i++)
		n += st->flows[i].threads;
	st->w = calloc(n ? n : 1, sizeof(*st->w));
	if (!st->w)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < st->n_flows; i++) {
		for (t = 0; t < st->flows[i].threads; t++) {
			w = &st->w[st->n_w++];
			*w = (struct agent_worker){ .st = st, .flow = &st->flows[i], .fd = -1 };
			*bad_flow = w->flow->name;
			ret = agent_worker_connect(w, dest, port, err, errlen);
			if (ret)
				return ret;
			n_fds = agent_worker_fds(w, fds, 64);
			for (k = 0; k < n_fds; k++) {
				conn_sock_name(fds[k], name, sizeof(name));
				c = json_object();
				json_object_set_new(c, "flow", json_string(w->flow->name));
				json_object_set_new(c, "local", json_string(name));
				json_array_append_new(conns, c);
			}
		}
	}
	*bad_flow = NULL;
	return 0;
}

static int agent_setup(struct agent_step *st, const json_t *m, json_t *conns,
		       const char **bad_flow, char *err, size_t errlen)
{
	const json_t *flows = json_object_get(m, "flows");
	const char *dev = json_string_value(json_object_get(m, "device"));
	enum clock_source src;
	size_t i;
	int ret;

	st->sink_role = !strcmp(json_string_value(json_object_get(m, "role")), "sink");
	st->yield = json_is_true(json_object_get(m, "yield"));
	st->n_flows = json_array_size(flows);
	for (i = 0; i < st->n_flows; i++)
		agent_flow_from_json(json_array_get(flows, i), (uint8_t)jint(m, "qp_timeout"),
				     (uint8_t)jint(m, "retry"), &st->flows[i]);
	clock_source_parse(json_string_value(json_object_get(m, "clock")), &src);
	ret = clock_init(src, &st->clk, err, errlen);
	if (!ret)
		ret = verbs_dev_open(&st->dev, dev, jint(m, "ib_port"), jint(m, "gid_index"), err,
				     errlen);
	if (ret)
		return ret;
	if (st->sink_role)
		return agent_sink_setup(st, m, err, errlen);
	return agent_source_setup(st, m, conns, bad_flow, err, errlen);
}

static void agent_step_release(struct agent_step *st)
{

	int fds[64];
	size_t i, k, n;

	for (i = 0; i < st->n_w; i++) {
		n = agent_worker_fds(&st->w[i], fds, 64);
		for (k = 0; k < n; k++)
			close(fds[k]);
		if (st->w[i].probe_ok)
			probe_release(&st->w[i].probe);
		if (st->w[i].load_ok)
			load_release(&st->w[i].load);
		if (st->w[i].res_ok)
			flow_result_release(&st->w[i].res);
		for (k = 0; st->w[i].bw_res && k < st->w[i].flow->qps; k++)
			flow_result_release(&st->w[i].bw_res[k]);
		free(st->w[i].bw_res);
	}
	free(st->w);
	for (i = 0; st->sink_ok && i < st->sink.n_flows; i++)
		if (st->sink.flows[i]->fd >= 0)
			close(st->sink.flows[i]->fd);
	if (st->sink_ok)
		sink_release(&st->sink);
	if (st->lfd >= 0)
		close(st->lfd);
	free(st->base_bytes);
	free(st->base_msgs);
	free(st->base_errors);
	verbs_dev_close(&st->dev);
	memset(st, 0, sizeof(*st));
	st->lfd = -1;
}

/* ------------------------------------------------------------------ */
/* Source: the workers                                                 */
/* ------------------------------------------------------------------ */

static void agent_sleep_until(uint64_t at_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(at_ns / 1000000000u),
			       .tv_nsec = (long)(at_ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Warm-up, then the measured window, on the lat engine. */
static int agent_worker_lat(struct agent_worker *w)
{
	struct agent_step *st = w->st;
	struct verbs_path *path = &w->flow->path;
	double rc_ns = (path->retry + 1.0) * 4096.0 * (double)(1ull << path->timeout);
	struct probe_cfg cfg = {
		.size_bytes = w->flow->size_bytes,
		.duration_ticks = clock_ns_to_ticks(&st->clk, (double)st->warmup_ns),
		.sample_timeout_ticks = clock_ns_to_ticks(&st->clk, 2 * rc_ns + 5e9),
		.clk = &st->clk,
		.ctl_fd = w->fd,
		.peer = st->dest,
		.stop = &st->stop,
		.yield = st->yield,
	};
	struct flow_result warm;
	int ret = 0;

	if (flow_result_init(&warm, cfg.size_bytes) || flow_result_init(&w->res, cfg.size_bytes))
		return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
	w->res_ok = true;
	if (st->warmup_ns)
		ret = probe_run(&w->probe, &cfg, &warm);
	if (ret)
		memcpy(w->res.error, warm.error, sizeof(w->res.error));
	flow_result_release(&warm);
	if (ret)
		return ret;
	cfg.duration_ticks = clock_ns_to_ticks(&st->clk, (double)st->duration_ns);
	return probe_run(&w->probe, &cfg, &w->res);
}

/*
 * The bw engine for warm-up, window and a tail, in one run: the sink
 * measures the window, and every band stays backlogged across it.
 */
static int agent_worker_bw(struct agent_worker *w)
{
	struct agent_step *st = w->st;
	struct agent_flow *f = w->flow;
	double rc_ns = (f->path.retry + 1.0) * 4096.0 * (double)(1ull << f->path.timeout);
	struct load_cfg cfg = {
		.size_bytes = f->size_bytes,
		.tx_depth = AGENT_TX_DEPTH,
		.batch = AGENT_BATCH,
		.cq_mod = AGENT_CQ_MOD,
		.rate_bps = (uint64_t)(f->rate_mbps * 1e6 / f->threads / f->qps),
		.duration_ticks = clock_ns_to_ticks(&st->clk, (double)(st->warmup_ns +
						    st->duration_ns + AGENT_TAIL_NS)),
		.drain_timeout_ticks = clock_ns_to_ticks(&st->clk, 2 * rc_ns + 5e9),
		.clk = &st->clk,
		.peer = st->dest,
		.stop = &st->stop,
		.yield = st->yield,
	};
	unsigned i;
	int ret;

	w->bw_res = calloc(f->qps, sizeof(*w->bw_res));
	if (!w->bw_res)
		return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
	for (i = 0; i < f->qps; i++)
		if (flow_result_init(&w->bw_res[i], f->size_bytes))
			return errbuf_set(w->err, sizeof(w->err), -ENOMEM, "out of memory");
	ret = load_cfg_check(&cfg, w->err, sizeof(w->err));
	if (!ret)
		ret = load_run(&w->load, &cfg, w->bw_res);
	if (ret && !w->err[0])
		snprintf(w->err, sizeof(w->err), "%s", w->bw_res[0].error);
	if (flow_result_init(&w->res, f->size_bytes))
		return ret;
	w->res_ok = true;
	for (i = 0; i < f->qps; i++)
		flow_result_merge(&w->res, &w->bw_res[i]);
	return ret;
}

static void *agent_worker_main(void *arg)
{
	struct agent_worker *w = arg;
	char err[256];
	int cpu;

	cpu = pin_pick_cpu(w->st->dev.ctx, (int)(w - w->st->w), err, sizeof(err));
	if (cpu >= 0)
		pin_thread(cpu, err, sizeof(err));
	agent_sleep_until(w->st->at_ns);
	w->status = w->flow->bw ? agent_worker_bw(w) : agent_worker_lat(w);
	if (w->status && !w->err[0])
		snprintf(w->err, sizeof(w->err), "%s", w->res.error);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

static json_t *agent_flow_result(struct agent_step *st, struct agent_flow *f)
{
	struct flow_result sum;
	json_t *o = json_object();
	const char *error = NULL;
	bool stopped = false;
	size_t i;

	flow_result_init(&sum, f->size_bytes);
	for (i = 0; i < st->n_w; i++) {
		if (st->w[i].flow != f)
			continue;
		if (st->w[i].res_ok)
			flow_result_merge(&sum, &st->w[i].res);
		if (st->w[i].status && !error) {
			error = st->w[i].err;
			stopped = st->w[i].status == -EINTR;
		}
	}
	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "type", json_string(f->bw ? "bw" : "lat"));
	json_object_set_new(o, "samples", json_integer((json_int_t)sum.samples));
	json_object_set_new(o, "msgs", json_integer((json_int_t)sum.msgs));
	json_object_set_new(o, "bytes", json_integer((json_int_t)sum.bytes));
	if (!f->bw) {
		json_object_set_new(o, "rtt_ns", report_hist_json(sum.rtt, &st->clk));
		json_object_set_new(o, "cdf", report_hist_buckets_json(sum.rtt, &st->clk));
	}
	/* Stopped by the coordinator or a signal: say why, not just "interrupted". */
	if (error && stopped && st->stop_reason[0])
		json_object_set_new(o, "error", json_sprintf("stopped: %s", st->stop_reason));
	else if (error)
		json_object_set_new(o, "error", json_string(error));
	flow_result_release(&sum);
	return o;
}

/* Counts of every sink flow now, the window's start. */
static int agent_sink_mark(struct agent_step *st)
{
	size_t n = st->sink.n_flows, i;

	st->base_bytes = calloc(n + 1, sizeof(uint64_t));
	st->base_msgs = calloc(n + 1, sizeof(uint64_t));
	st->base_errors = calloc(n + 1, sizeof(uint64_t));
	if (!st->base_bytes || !st->base_msgs || !st->base_errors)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		st->base_bytes[i] = st->sink.flows[i]->bytes;
		st->base_msgs[i] = st->sink.flows[i]->msgs;
		st->base_errors[i] = st->sink.flows[i]->errors;
	}
	return 0;
}

/* What each sink flow received in the window (flows that came later count from 0). */
static json_t *agent_sink_result(struct agent_step *st, size_t n_base)
{
	json_t *arr = json_array(), *o;
	struct sink_flow *f;
	size_t i;

	for (i = 0; i < st->sink.n_flows; i++) {
		f = st->sink.flows[i];
		o = json_object();
		json_object_set_new(o, "peer", json_string(f->peer));
		json_object_set_new(o, "sl", json_integer(f->path.sl));
		json_object_set_new(o, "tclass", json_integer(f->path.tclass));
		json_object_set_new(o, "msgs", json_integer((json_int_t)(f->msgs -
					(i < n_base ? st->base_msgs[i] : 0))));
		json_object_set_new(o, "bytes", json_integer((json_int_t)(f->bytes -
					(i < n_base ? st->base_bytes[i] : 0))));
		json_object_set_new(o, "errors", json_integer((json_int_t)(f->errors -
					(i < n_base ? st->base_errors[i] : 0))));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ------------------------------------------------------------------ */
/* Running a step                                                      */
/* ------------------------------------------------------------------ */

static int agent_answer_time(int cfd, char *err, size_t errlen);

/*
 * A coordinator waiting on the control port while a session runs: its
 * hello read (briefly, so that closing does not reset the connection
 * before our answer is read), an error naming the one being served,
 * closed. One a call, so that a crowd cannot stall a step's loop.
 */
static void agent_refuse_waiting(void)
{
	char peer[64], text[160], err[256];
	json_t *m;
	int fd;

	if (agent_lfd < 0 || !conn_fd_readable(agent_lfd))
		return;
	fd = accept(agent_lfd, NULL, NULL);
	if (fd < 0)
		return;
	conn_peer_name(fd, peer, sizeof(peer));
	if (!ctl_recv(fd, &m, AGENT_REFUSE_MS, err, sizeof(err)))
		json_decref(m);
	snprintf(text, sizeof(text), "busy with coordinator %s", agent_peer);
	ctl_send_error(fd, NULL, text, AGENT_REFUSE_MS);
	log_warn("coordinator %s refused: %s", peer, text);
	close(fd);
}

/*
 * Wait up to @tmo_ms for the coordinator to speak, refusing others and
 * ending early (-EINTR) when the agent is told to quit.
 */
static int agent_wait_ctl(int cfd, int tmo_ms, char *err, size_t errlen)
{
	uint64_t end = ctl_now_ns() + (uint64_t)tmo_ms * 1000000u, now;
	struct pollfd p[2] = { { .fd = cfd, .events = POLLIN },
			       { .fd = agent_lfd, .events = POLLIN } };

	for (;;) {
		if (agent_quit)
			return errbuf_set(err, errlen, -EINTR, "the agent was told to quit");
		now = ctl_now_ns();
		if (now >= end)
			return errbuf_set(err, errlen, -ETIMEDOUT,
					  "the coordinator said nothing for %d s", tmo_ms / 1000);
		if (poll(p, agent_lfd >= 0 ? 2 : 1, AGENT_SLICE_MS) <= 0)
			continue;
		if (p[0].revents)
			return 0;
		agent_refuse_waiting();
	}
}

/* The next message that is not a time exchange (those are answered here). */
static int agent_ctl_next(int cfd, json_t **m, int tmo_ms, char *err, size_t errlen)
{
	int ret;

	for (;;) {
		ret = agent_wait_ctl(cfd, tmo_ms, err, errlen);
		if (!ret)
			ret = ctl_recv(cfd, m, AGENT_MSG_MS, err, errlen);
		if (ret || strcmp(ctl_type(*m), "time"))
			return ret;
		json_decref(*m);
		*m = NULL;
		ret = agent_answer_time(cfd, err, errlen);
		if (ret)
			return ret;
	}
}

static void agent_set_window(struct agent_step *st, const json_t *m)
{
	st->at_ns = (uint64_t)json_integer_value(json_object_get(m, "at_ns"));
	st->warmup_ns = (uint64_t)jint(m, "warmup_ms") * 1000000u;
	st->duration_ns = (uint64_t)jint(m, "duration_ms") * 1000000u;
}

/*
 * A message once the step is set up: the sink takes its start here; stop
 * ends the step (-EINTR); anything else is a protocol error.
 */
static int agent_run_ctl(struct agent_step *st, int cfd, char *err, size_t errlen)
{
	json_t *m;
	int ret;

	ret = agent_ctl_next(cfd, &m, AGENT_MSG_MS, err, errlen);
	if (ret) {
		st->stop = 1;
		return ret;
	}
	if (st->sink_role && !st->at_ns && !strcmp(ctl_type(m), "start")) {
		agent_set_window(st, m);
	} else if (strcmp(ctl_type(m), "stop")) {
		ret = errbuf_set(err, errlen, -EPROTO, "'%s' during a run", ctl_type(m));
		st->stop = 1;
	} else {
		ret = errbuf_set(err, errlen, -EINTR, "stopped");
		snprintf(st->stop_reason, sizeof(st->stop_reason), "%s",
			 json_string_value(json_object_get(m, "reason")) ?: "");
		st->stop = 1;
	}
	json_decref(m);
	return ret;
}

static void agent_sink_poll(struct agent_step *st, int cfd, int tmo_ms, int *ctl_ret,
			    char *err, size_t errlen)
{
	struct pollfd pfd[3 + CTL_MAX_FLOWS * 64];
	size_t n = 3, i, j;
	struct sink_flow *f;
	char e[256];

	pfd[0] = (struct pollfd){ .fd = cfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = st->lfd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = sink_event_fd(&st->sink), .events = POLLIN };
	for (i = 0; i < st->sink.n_flows && n < sizeof(pfd) / sizeof(pfd[0]); i++)
		if (st->sink.flows[i]->fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = st->sink.flows[i]->fd, .events = POLLIN };
	if (poll(pfd, n, tmo_ms) <= 0)
		return;
	if (pfd[2].revents && sink_service(&st->sink, e, sizeof(e)))
		log_warn("%s", e);
	for (i = 3; i < n; i++)
		for (j = 0; pfd[i].revents && j < st->sink.n_flows; j++) {
			f = st->sink.flows[j];
			if (f->fd == pfd[i].fd)
				sink_flow_sock_closed(&st->sink, f);
		}
	if (pfd[1].revents && sink_accept_tcp(&st->sink, st->lfd, AGENT_HELLO_MS, &f, e, sizeof(e)))
		log_warn("%s", e);
	if (pfd[0].revents)
		*ctl_ret = agent_run_ctl(st, cfd, err, errlen);
}

static bool agent_sink_open(const struct agent_step *st)
{
	size_t i;

	for (i = 0; i < st->sink.n_flows; i++)
		if (st->sink.flows[i]->fd >= 0)
			return true;
	return false;
}

/*
 * After the window the sources run on for a tail (bw keeps every band
 * backlogged to the window's very end): keep their flows served until
 * they hang up, or the coordinator speaks again.
 */
static void agent_sink_linger(struct agent_step *st, int cfd)
{
	uint64_t end = ctl_now_ns() + AGENT_TAIL_NS + (uint64_t)AGENT_IDLE_MS / 20 * 1000000u;
	char err[256];
	int ret = 0;

	while (!agent_quit && !ret && ctl_now_ns() < end && agent_sink_open(st) &&
	       !conn_fd_readable(cfd))
		agent_sink_poll(st, -1, 100, &ret, err, sizeof(err));
}

/*
 * The sink's step: accept and count until the window ends (or a stop),
 * a start message first setting the window. Result only for a window seen
 * whole or cut by a stop.
 */
static int agent_sink_run(struct agent_step *st, int cfd, char *err, size_t errlen)
{
	uint64_t idle_end = ctl_now_ns() + (uint64_t)AGENT_IDLE_MS * 1000000u, now, mark_ns = 0;
	size_t n_base = 0;
	json_t *m = NULL;
	int ret = 0;

	while (!st->stop && !agent_quit) {
		now = ctl_now_ns();
		if (!st->at_ns && now > idle_end)
			return errbuf_set(err, errlen, -ETIMEDOUT, "no start message");
		if (st->at_ns && !mark_ns && now >= st->at_ns + st->warmup_ns) {
			if (agent_sink_mark(st))
				return errbuf_set(err, errlen, -ENOMEM, "out of memory");
			n_base = st->sink.n_flows;
			mark_ns = now;
		}
		if (mark_ns && now >= mark_ns + st->duration_ns)
			break;
		agent_sink_poll(st, cfd, st->at_ns ? 20 : 100, &ret, err, errlen);
		if (ret == -EINTR && st->stop)
			break;	/* a stop: what was counted goes out */
		if (ret)
			return ret;
		agent_refuse_waiting();
	}
	if (!mark_ns && !st->stop)
		return errbuf_set(err, errlen, -EINTR, "the agent was told to quit");
	/* Stopped before the window: an empty result says nothing was measured. */
	m = ctl_msg("result");
	json_object_set_new(m, "flows", json_array());
	json_object_set_new(m, "sink", mark_ns ? agent_sink_result(st, n_base) : json_array());
	json_object_set_new(m, "window_ns",
			    json_integer(mark_ns ? (json_int_t)(ctl_now_ns() - mark_ns) : 0));
	ret = ctl_send(cfd, m, AGENT_MSG_MS, err, errlen);
	json_decref(m);
	if (!ret)
		agent_sink_linger(st, cfd);
	return ret;
}

/* The sources' step: wait for start, run the workers, send their results. */
static int agent_source_run(struct agent_step *st, int cfd, char *err, size_t errlen)
{
	json_t *m, *flows;
	size_t i, done;
	int ret;

	ret = agent_ctl_next(cfd, &m, AGENT_IDLE_MS, err, errlen);
	if (ret)
		return ret;
	if (strcmp(ctl_type(m), "start")) {
		ret = strcmp(ctl_type(m), "stop") ? -EPROTO : -EINTR;
		json_decref(m);
		return errbuf_set(err, errlen, ret, "stopped before the start");
	}
	agent_set_window(st, m);
	json_decref(m);
	for (i = 0; i < st->n_w; i++) {
		ret = pthread_create(&st->w[i].tid, NULL, agent_worker_main, &st->w[i]);
		if (ret) {
			st->stop = 1;
			snprintf(st->w[i].err, sizeof(st->w[i].err), "cannot start a thread");
			st->w[i].status = -ret;
			break;
		}
		st->w[i].running = true;
	}
	for (done = 0; done < st->n_w;) {
		if (!st->stop && conn_fd_readable(cfd) && agent_run_ctl(st, cfd, err, errlen) &&
		    !st->stop)
			log_warn("%s", err);
		if (agent_quit && !st->stop) {
			/* The workers end; their results still go out. */
			snprintf(st->stop_reason, sizeof(st->stop_reason), "the agent is stopping");
			st->stop = 1;
		}
		agent_refuse_waiting();
		for (done = 0, i = 0; i < st->n_w; i++) {
			if (st->w[i].running && __atomic_load_n(&st->w[i].done, __ATOMIC_ACQUIRE)) {
				pthread_join(st->w[i].tid, NULL);
				st->w[i].running = false;
			}
			done += !st->w[i].running;
		}
		if (done < st->n_w)
			poll(NULL, 0, 50);
	}
	m = ctl_msg("result");
	flows = json_array();
	for (i = 0; i < st->n_flows; i++)
		json_array_append_new(flows, agent_flow_result(st, &st->flows[i]));
	json_object_set_new(m, "flows", flows);
	json_object_set_new(m, "sink", json_array());
	json_object_set_new(m, "window_ns", json_integer((json_int_t)st->duration_ns));
	ret = ctl_send(cfd, m, AGENT_MSG_MS, err, errlen);
	json_decref(m);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Session                                                             */
/* ------------------------------------------------------------------ */

static int agent_hello(int cfd, const char *token, char *err, size_t errlen)
{
	const char *got;
	char host[256] = "?";
	json_t *m;
	int ret;

	ret = ctl_recv(cfd, &m, AGENT_HELLO_MS, err, errlen);
	if (ret)
		return ret;
	got = json_string_value(json_object_get(m, "token"));
	if (strcmp(ctl_type(m), "hello") || jint(m, "version") != CTL_VERSION)
		ret = errbuf_set(err, errlen, -EPROTO, "expected a hello of version %d",
				 CTL_VERSION);
	else if (token && (!got || !ctl_token_equal(token, got)))
		ret = errbuf_set(err, errlen, -EACCES, "wrong or missing token");
	json_decref(m);
	if (ret) {
		ctl_send_error(cfd, NULL, err, AGENT_HELLO_MS);
		return ret;
	}
	gethostname(host, sizeof(host) - 1);
	m = ctl_msg("hello");
	json_object_set_new(m, "version", json_integer(CTL_VERSION));
	json_object_set_new(m, "host", json_string(host));
	json_object_set_new(m, "now_ns", json_integer((json_int_t)ctl_now_ns()));
	ret = ctl_send(cfd, m, AGENT_HELLO_MS, err, errlen);
	json_decref(m);
	return ret;
}

static int agent_answer_time(int cfd, char *err, size_t errlen)
{
	json_t *m = ctl_msg("time");
	int ret;

	json_object_set_new(m, "now_ns", json_integer((json_int_t)ctl_now_ns()));
	ret = ctl_send(cfd, m, AGENT_MSG_MS, err, errlen);
	json_decref(m);
	return ret;
}

/* One setup message: build the step, answer ready or error, run it. */
static int agent_step(int cfd, const json_t *m, char *err, size_t errlen)
{
	struct agent_step st = { .lfd = -1 };
	const char *bad_flow = NULL;
	json_t *ready, *conns = json_array();
	int ret;

	ret = agent_setup(&st, m, conns, &bad_flow, err, errlen);
	if (ret) {
		json_decref(conns);
		ctl_send_error(cfd, bad_flow, err, AGENT_MSG_MS);
		agent_step_release(&st);
		return ret;
	}
	ready = ctl_msg("ready");
	json_object_set_new(ready, "conns", conns);
	ret = ctl_send(cfd, ready, AGENT_MSG_MS, err, errlen);
	json_decref(ready);
	if (!ret)
		ret = st.sink_role ? agent_sink_run(&st, cfd, err, errlen) :
				     agent_source_run(&st, cfd, err, errlen);
	if (ret && ret != -ECONNRESET && ret != -EINTR)
		ctl_send_error(cfd, NULL, err, AGENT_MSG_MS);
	agent_step_release(&st);
	return ret;
}

static void agent_session(int cfd, const char *token)
{
	char peer[64], err[512];
	json_t *m;
	int ret;

	conn_peer_name(cfd, peer, sizeof(peer));
	snprintf(agent_peer, sizeof(agent_peer), "%s", peer);
	ret = agent_hello(cfd, token, err, sizeof(err));
	if (ret) {
		log_warn("coordinator %s: %s", peer, err);
		return;
	}
	log_info("coordinator %s connected", peer);
	while (!agent_quit) {
		ret = agent_ctl_next(cfd, &m, AGENT_IDLE_MS, err, sizeof(err));
		if (ret)
			break;
		if (!strcmp(ctl_type(m), "setup"))
			ret = agent_step(cfd, m, err, sizeof(err));
		else if (strcmp(ctl_type(m), "stop"))
			ret = errbuf_set(err, sizeof(err), -EPROTO, "unexpected '%s'", ctl_type(m));
		json_decref(m);
		if (ret && ret != -EINTR)
			break;
	}
	if (agent_quit)
		ctl_send_error(cfd, NULL, "the agent is stopping", AGENT_REFUSE_MS);
	if (ret && ret != -ECONNRESET)
		log_warn("coordinator %s: %s", peer, err);
	else
		log_info("coordinator %s done", peer);
}

int cmd_agent(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = agent_on_signal };
	char token[CTL_MAX_TOKEN_BYTES], err[256];
	struct agent_opts o;
	int lfd, cfd;

	if (agent_opts_parse(argc, argv, &o)) {
		fprintf(stderr, "see 'rperf agent --help'\n");
		return RPERF_EXIT_USAGE;
	}
	if (o.help) {
		cmd_agent_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (o.token_file && ctl_token_read(o.token_file, token, sizeof(token), err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_USAGE;
	}
	lfd = ctl_listen(o.bind, o.port, err, sizeof(err));
	if (lfd < 0) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	srand48(getpid() ^ (long)ctl_now_ns());
	log_info("agent listening on %s port %u", o.bind ? o.bind : "*", o.port);
	while (!agent_quit) {
		if (!conn_fd_readable(lfd)) {
			poll(&(struct pollfd){ .fd = lfd, .events = POLLIN }, 1, 500);
			continue;
		}
		cfd = accept(lfd, NULL, NULL);
		if (cfd < 0)
			continue;
		agent_lfd = lfd;
		agent_session(cfd, o.token_file ? token : NULL);
		agent_lfd = -1;
		close(cfd);
		if (o.once)
			break;
	}
	close(lfd);
	return RPERF_EXIT_OK;
}
