/*
 * rperf converge: run a scenario's latency and bandwidth flows together,
 * from many hosts to one destination, through the agents on those hosts;
 * report per class (SL, or ETS band) the tail latency, the bandwidth
 * share the destination received and the share `rperf analyze` predicts
 * for the port's arbitration, and exit 3 when they differ by more than
 * the tolerance. Every flow starts at one instant: the coordinator
 * measures each agent's clock offset and hands it a start time on its
 * own clock.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arb.h"
#include "cmd.h"
#include "conn.h"
#include "ctl.h"
#include "errbuf.h"
#include "log.h"
#include "qosconf.h"
#include "report.h"
#include "scenario.h"

#define CONV_MAX_HOSTS		(SCEN_MAX_FLOWS + 1)
#define CONV_MSG_MS		10000
#define CONV_SETUP_MS		60000	/* QPs connect under a slow software NIC */
#define CONV_SLACK_MS		30000	/* past the window, for results to come */
#define CONV_STOP_MS		15000	/* after a stop, for what the agents measured */
#define CONV_LEAD_NS		500000000ull	/* start time ahead of now */
#define CONV_TIME_ROUNDS	5
#define CONV_RATE_SPAN_NS	2000000000ull	/* between syncs, to measure a clock's rate */

struct converge_opts {
	const char *scenario;
	double tolerance_pp;
	const char *json_path;
	const char *csv_path;
	bool sweep;
	const char *launch;		/* "ssh" or NULL */
	const char *agent_cmd;		/* with --launch: the rperf to start */
	const char *token_file;
	const char *arbitration;	/* overrides the scenario's */
	double timeout_s;
	bool help;
};

struct conv_agent {
	const char *host;
	int fd;
	/*
	 * The agent's clock against ours, from time exchanges (the one with
	 * the shortest round trip of each sync): agent ns = agent_ns +
	 * rate * (our ns - mid_ns). Virtual machines' clocks can run at a
	 * rate far from ours; the first sync and the latest give the rate.
	 */
	uint64_t first_mid_ns, mid_ns;
	int64_t first_agent_ns, agent_ns;
	double rate;
	uint64_t rtt_ns;		/* of the latest sync */
	pid_t launcher;			/* ssh, or 0 */
	bool in_step;			/* has a setup in the current step */
	bool done;			/* answered the current step */
	json_t *result;
};

struct conv {
	const struct converge_opts *o;
	struct scenario sc;
	struct arb_config cfg;
	bool have_cfg;
	char token[CTL_MAX_TOKEN_BYTES];
	struct conv_agent agents[CONV_MAX_HOSTS];
	size_t n_agents;
	struct converge_step *steps;
	size_t n_steps;
	char error[512];
};

static volatile sig_atomic_t conv_stop;

static void conv_on_signal(int sig)
{
	(void)sig;
	conv_stop = 1;
}

void cmd_converge_usage(FILE *out)
{
	fprintf(out,
		"usage: rperf converge [options] SCENARIO\n"
		"\n"
		"Run a scenario's lat and bw flows together through 'rperf agent' on every\n"
		"host; compare per-class bandwidth shares with the arbitration's analysis.\n"
		"Exit status: 0 within tolerance, 3 out of it, 1 runtime failure, 2 bad usage.\n"
		"\n"
		"  -t, --tolerance PP    allowed gap between measured and analyzed share, in\n"
		"                        percentage points (default 2)\n"
		"      --sweep           activate the bw flows one at a time, 0 .. N\n"
		"      --json FILE       write the results as JSON ('-': stdout)\n"
		"      --csv FILE        write one row per step and class ('-': stdout)\n"
		"      --arbitration F   compare with this configuration, not the scenario's\n"
		"      --launch ssh      start the agents over ssh (rperf agent --once)\n"
		"      --agent-command C with --launch: the rperf to run there (default rperf)\n"
		"      --token-file FILE the agents' shared token\n"
		"      --timeout SECS    reaching an agent (default 10)\n"
		"  -h, --help            show this help\n");
}

/* ------------------------------------------------------------------ */
/* Options and inputs                                                  */
/* ------------------------------------------------------------------ */

static int conv_opts_parse(int argc, char **argv, struct converge_opts *o)
{
	static const struct option lo[] = {
		{ "tolerance", required_argument, NULL, 't' },
		{ "sweep", no_argument, NULL, 'S' },
		{ "json", required_argument, NULL, 'J' },
		{ "csv", required_argument, NULL, 'C' },
		{ "arbitration", required_argument, NULL, 'A' },
		{ "launch", required_argument, NULL, 'L' },
		{ "agent-command", required_argument, NULL, 'G' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "timeout", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct converge_opts){ .tolerance_pp = 2, .timeout_s = 10, .agent_cmd = "rperf" };
	optind = 0;
	while ((c = getopt_long(argc, argv, "t:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			o->tolerance_pp = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(o->tolerance_pp) ||
			    o->tolerance_pp < 0 || o->tolerance_pp > 100)
				return log_error("--tolerance '%s': expected 0 to 100 points", optarg);
			break;
		case 'W':
			o->timeout_s = strtod(optarg, &end);
			if (*end || end == optarg || !(o->timeout_s > 0) || o->timeout_s > 3600)
				return log_error("--timeout '%s': expected seconds above 0", optarg);
			break;
		case 'L':
			if (strcmp(optarg, "ssh"))
				return log_error("--launch '%s': only ssh is built in", optarg);
			o->launch = optarg;
			break;
		case 'S': o->sweep = true; break;
		case 'J': o->json_path = optarg; break;
		case 'C': o->csv_path = optarg; break;
		case 'A': o->arbitration = optarg; break;
		case 'G': o->agent_cmd = optarg; break;
		case 'T': o->token_file = optarg; break;
		case 'h': o->help = true; return 0;
		default: return -1;
		}
	}
	if (optind != argc - 1)
		return log_error(optind < argc ? "one scenario file, please" :
						 "the scenario file is missing");
	if (o->launch && !o->token_file)
		return log_error("--launch needs --token-file: the agents listen beyond the loopback");
	o->scenario = argv[optind];
	return 0;
}

/* The arbitration files (qosconf formats) into c->cfg. */
static int conv_load_arb(struct conv *c)
{
	struct qosconf_source src[SCEN_MAX_ARB_FILES];
	char *text[SCEN_MAX_ARB_FILES] = { NULL };
	struct qosconf_opts qo;
	enum qosconf_format fmt;
	struct qosconf_err qe;
	int i, n = c->sc.n_arb_files, ret = 0;

	qosconf_opts_init(&qo);
	for (i = 0; i < n && !ret; i++) {
		ret = qosconf_read_file(c->sc.arb_files[i], &text[i], &qe);
		src[i] = (struct qosconf_source){ .name = c->sc.arb_files[i], .text = text[i] };
	}
	if (!ret)
		ret = qosconf_parse(src, n, &qo, &c->cfg, &fmt, &qe);
	for (i = 0; i < n; i++)
		free(text[i]);
	if (ret)
		return log_errno(ret, "%s", qe.msg);
	c->have_cfg = true;
	return 0;
}

static int conv_inputs(struct conv *c)
{
	char err[512];
	int ret;

	ret = scenario_load(c->o->scenario, &c->sc, err, sizeof(err));
	if (ret)
		return log_errno(ret, "%s", err);
	if (c->o->arbitration) {
		snprintf(c->sc.arb_files[0], SCEN_PATH_MAX, "%s", c->o->arbitration);
		c->sc.n_arb_files = 1;
	}
	if (c->sc.n_arb_files && conv_load_arb(c))
		return -EINVAL;
	if (c->have_cfg && c->sc.model_set &&
	    (c->sc.model == ARB_MODEL_ETS) != (c->cfg.kind == ARB_KIND_ETS))
		return log_errno(-EINVAL, "%s: model %s does not fit %s", c->sc.name,
				 arb_model_name(c->sc.model), c->sc.arb_files[0]);
	if (c->o->token_file &&
	    ctl_token_read(c->o->token_file, c->token, sizeof(c->token), err, sizeof(err)))
		return log_errno(-EINVAL, "%s", err);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Agents                                                              */
/* ------------------------------------------------------------------ */

/* "lat1, bw1" for messages: the flows an agent runs. */
static void conv_host_flows(const struct conv *c, const char *host, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	if (!strcmp(host, c->sc.dest))
		n += snprintf(buf, len, "destination");
	for (i = 0; i < c->sc.n_flows && n < len; i++)
		if (!strcmp(c->sc.flows[i].host, host))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", c->sc.flows[i].name);
}

/* The run's error, once: the agent's host and flows, @state ("is gone"), @what. */
static void conv_fail(struct conv *c, const struct conv_agent *a, const char *flow,
		      const char *state, const char *what)
{
	char flows[256];

	if (c->error[0])
		return;
	conv_host_flows(c, a->host, flows, sizeof(flows));
	if (flow)
		snprintf(c->error, sizeof(c->error), "agent '%s', flow '%s': %s", a->host, flow,
			 what);
	else
		snprintf(c->error, sizeof(c->error), "agent '%s' (%s)%s%s: %s", a->host, flows,
			 *state ? " " : "", state, what);
}

static struct conv_agent *conv_agent(struct conv *c, const char *host)
{
	size_t i;

	for (i = 0; i < c->n_agents; i++)
		if (!strcmp(c->agents[i].host, host))
			return &c->agents[i];
	c->agents[c->n_agents] = (struct conv_agent){ .host = host, .fd = -1 };
	return &c->agents[c->n_agents++];
}

/* ssh HOST rperf agent --once ...; the agent's output goes to our stderr. */
static void conv_launch(struct conv *c, struct conv_agent *a)
{
	char port[16];
	pid_t pid;

	snprintf(port, sizeof(port), "%u", c->sc.agent_port);
	pid = fork();
	if (pid == 0) {
		/* The token file's path is the same on every host (a shared home). */
		execlp("ssh", "ssh", "-o", "BatchMode=yes", a->host, c->o->agent_cmd, "agent",
		       "--once", "--port", port, "--token-file", c->o->token_file, (char *)NULL);
		_exit(127);
	}
	a->launcher = pid > 0 ? pid : 0;
}

/* Send @m (consumed) to @a and take its answer into *@r. 0 or -errno. */
static int conv_ask(struct conv_agent *a, json_t *m, json_t **r, char *err, size_t errlen)
{
	int ret;

	ret = ctl_send(a->fd, m, CONV_MSG_MS, err, errlen);
	json_decref(m);
	return ret ? ret : ctl_recv(a->fd, r, CONV_MSG_MS, err, errlen);
}

/* One time exchange; keep the sample of the fastest round trip. */
static int conv_time(struct conv_agent *a, char *err, size_t errlen)
{
	uint64_t t0, t1;
	json_t *m = ctl_msg("time"), *r;
	int ret;

	t0 = ctl_now_ns();
	ret = conv_ask(a, m, &r, err, errlen);
	if (ret)
		return ret;
	t1 = ctl_now_ns();
	if (strcmp(ctl_type(r), "time") || !json_object_get(r, "now_ns")) {
		json_decref(r);
		return errbuf_set(err, errlen, -EPROTO, "no time in the answer");
	}
	if (!a->rtt_ns || t1 - t0 < a->rtt_ns) {
		a->rtt_ns = t1 - t0;
		a->mid_ns = t0 + (t1 - t0) / 2;
		a->agent_ns = (int64_t)json_integer_value(json_object_get(r, "now_ns"));
	}
	json_decref(r);
	return 0;
}

/*
 * A few exchanges; the first sync anchors the rate, later ones (seconds
 * apart, before each start) measure it. 0 or -errno.
 */
static int conv_sync(struct conv_agent *a, char *err, size_t errlen)
{
	double span;
	int i, ret = 0;

	a->rtt_ns = 0;
	for (i = 0; !ret && i < CONV_TIME_ROUNDS; i++)
		ret = conv_time(a, err, errlen);
	if (ret)
		return ret;
	if (!a->first_mid_ns) {
		a->first_mid_ns = a->mid_ns;
		a->first_agent_ns = a->agent_ns;
		a->rate = 1;
		return 0;
	}
	span = (double)(a->mid_ns - a->first_mid_ns);
	/* Over a short span the round trips' noise would outweigh any rate. */
	if (span >= CONV_RATE_SPAN_NS / 2)
		a->rate = (double)(a->agent_ns - a->first_agent_ns) / span;
	if (fabs(a->rate - 1) > 0.02)
		log_warn("agent %s: its clock runs at %.3fx ours; its times are scaled to match",
			 a->host, a->rate);
	return 0;
}

/* Our time @t_ns on @a's clock. */
static int64_t conv_agent_time(const struct conv_agent *a, uint64_t t_ns)
{
	return a->agent_ns + (int64_t)(a->rate * ((double)t_ns - (double)a->mid_ns));
}

static int conv_hello(struct conv *c, struct conv_agent *a, char *err, size_t errlen)
{
	json_t *m = ctl_msg("hello"), *r;
	int ret;

	json_object_set_new(m, "version", json_integer(CTL_VERSION));
	if (c->token[0])
		json_object_set_new(m, "token", json_string(c->token));
	ret = conv_ask(a, m, &r, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(ctl_type(r), "error"))
		ret = errbuf_set(err, errlen, -EACCES, "refused: %s",
				 json_string_value(json_object_get(r, "error")));
	else if (strcmp(ctl_type(r), "hello") ||
		 json_integer_value(json_object_get(r, "version")) != CTL_VERSION)
		ret = errbuf_set(err, errlen, -EPROTO, "not an rperf agent of version %d",
				 CTL_VERSION);
	json_decref(r);
	return ret ? ret : conv_sync(a, err, errlen);
}

static int conv_connect_agents(struct conv *c)
{
	struct conv_agent *a;
	char err[512];
	size_t i;
	int ret;

	conv_agent(c, c->sc.dest);
	for (i = 0; i < c->sc.n_flows; i++)
		conv_agent(c, c->sc.flows[i].host);
	for (i = 0; c->o->launch && i < c->n_agents; i++)
		conv_launch(c, &c->agents[i]);
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		a->fd = conn_connect(a->host, c->sc.agent_port, (int)(c->o->timeout_s * 1000), err,
				     sizeof(err));
		ret = a->fd < 0 ? a->fd : conv_hello(c, a, err, sizeof(err));
		if (ret) {
			conv_fail(c, a, NULL, "cannot be reached", err);
			return ret;
		}
		log_info("agent %s: clock offset %+.3f ms, control round trip %.3f ms", a->host,
			 (double)(a->agent_ns - (int64_t)a->mid_ns) / 1e6, (double)a->rtt_ns / 1e6);
	}
	return 0;
}

/* Tell @a to stop what it runs, and why (@reason, may be empty): 0, or
 * -errno when it is gone. */
static int conv_send_stop(const struct conv_agent *a, const char *reason)
{
	json_t *m = ctl_msg("stop");
	char err[128];
	int ret;

	if (reason[0])
		json_object_set_new(m, "reason", json_stringn(reason, strnlen(reason, 255)));
	ret = ctl_send(a->fd, m, 1000, err, sizeof(err));
	json_decref(m);
	return ret;
}

/* Tell every agent to stop (best effort) and hang up. */
static void conv_hangup(struct conv *c, bool stop)
{
	size_t i;

	for (i = 0; i < c->n_agents; i++) {
		if (c->agents[i].fd < 0)
			continue;
		if (stop)
			conv_send_stop(&c->agents[i], c->error);
		close(c->agents[i].fd);
		c->agents[i].fd = -1;
	}
	for (i = 0; i < c->n_agents; i++)
		if (c->agents[i].launcher)
			waitpid(c->agents[i].launcher, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* One step                                                            */
/* ------------------------------------------------------------------ */

/* Does flow @i run in a step with @active_bw bw flows? */
static bool conv_flow_active(const struct conv *c, size_t i, unsigned active_bw)
{
	unsigned k = 0;
	size_t j;

	if (c->sc.flows[i].type == SCEN_FLOW_LAT)
		return true;
	for (j = 0; j < i; j++)
		k += c->sc.flows[j].type == SCEN_FLOW_BW;
	return k < active_bw;
}

static json_t *conv_flow_json(const struct scen_flow *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "type", json_string(scenario_flow_type_name(f->type)));
	json_object_set_new(o, "sl", json_integer(f->sl));
	json_object_set_new(o, "tclass", json_integer(f->tclass));
	json_object_set_new(o, "size", json_integer((json_int_t)f->size_bytes));
	json_object_set_new(o, "rate_mbps", json_real(f->rate_gbps * 1000));
	json_object_set_new(o, "threads", json_integer(f->threads));
	json_object_set_new(o, "qps", json_integer(f->qps));
	return o;
}

static json_t *conv_setup_msg(const struct conv *c, const char *host, unsigned active_bw,
			      size_t *n_flows)
{
	const struct scenario *sc = &c->sc;
	bool sink = !strcmp(host, sc->dest);
	json_t *m = ctl_msg("setup"), *flows = json_array();
	size_t i;

	for (i = 0; i < sc->n_flows; i++)
		if (conv_flow_active(c, i, active_bw) && (sink || !strcmp(sc->flows[i].host, host)))
			json_array_append_new(flows, conv_flow_json(&sc->flows[i]));
	*n_flows = json_array_size(flows);
	json_object_set_new(m, "role", json_string(sink ? "sink" : "source"));
	if (sc->device[0])
		json_object_set_new(m, "device", json_string(sc->device));
	json_object_set_new(m, "ib_port", json_integer(sc->ib_port));
	json_object_set_new(m, "gid_index", json_integer(sc->gid_index));
	json_object_set_new(m, "data_port", json_integer(sc->data_port));
	if (!sink)
		json_object_set_new(m, "dest", json_string(sc->dest));
	json_object_set_new(m, "clock", json_string(clock_source_name(sc->clock)));
	json_object_set_new(m, "yield", json_boolean(sc->yield));
	json_object_set_new(m, "qp_timeout", json_integer(sc->qp_timeout));
	json_object_set_new(m, "retry", json_integer(sc->retry));
	json_object_set_new(m, "flows", flows);
	return m;
}

/*
 * Wait for @a's answer of @want; an error or anything else fails the run.
 * SIGINT or SIGTERM ends the wait (NULL, with conv_stop set).
 */
static json_t *conv_expect(struct conv *c, struct conv_agent *a, const char *want, int tmo_ms)
{
	uint64_t end = ctl_now_ns() + (uint64_t)tmo_ms * 1000000u;
	char err[512];
	json_t *r;
	int ret;

	while (!conn_fd_readable(a->fd)) {
		if (conv_stop) {
			snprintf(c->error, sizeof(c->error), "interrupted");
			return NULL;
		}
		if (ctl_now_ns() >= end) {
			snprintf(err, sizeof(err), "no answer within %d s", tmo_ms / 1000);
			conv_fail(c, a, NULL, "", err);
			return NULL;
		}
		poll(&(struct pollfd){ .fd = a->fd, .events = POLLIN }, 1, 200);
	}
	ret = ctl_recv(a->fd, &r, CONV_MSG_MS, err, sizeof(err));
	if (ret) {
		conv_fail(c, a, NULL, "is gone", err);
		return NULL;
	}
	if (!strcmp(ctl_type(r), want))
		return r;
	if (!strcmp(ctl_type(r), "error"))
		conv_fail(c, a, json_string_value(json_object_get(r, "flow")),
			  "", json_string_value(json_object_get(r, "error")));
	else
		conv_fail(c, a, NULL, "", "unexpected message");
	json_decref(r);
	return NULL;
}

/* The sink first, then every source; each connects its QPs to the sink. */
static int conv_setup(struct conv *c, unsigned active_bw, json_t *conns[])
{
	struct conv_agent *a;
	char err[512];
	json_t *m, *r;
	size_t i, n;

	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		m = conv_setup_msg(c, a->host, active_bw, &n);
		a->in_step = i == 0 || n > 0;	/* agents[0] is the destination */
		a->done = false;
		if (a->in_step && ctl_send(a->fd, m, CONV_MSG_MS, err, sizeof(err)))
			conv_fail(c, a, NULL, "is gone", err);
		json_decref(m);
		if (c->error[0])
			return -EIO;
		if (i > 0)
			continue;
		r = conv_expect(c, a, "ready", CONV_SETUP_MS);
		if (!r)
			return conv_stop ? -EINTR : -EIO;
		json_decref(r);
	}
	for (i = 1; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (!a->in_step)
			continue;
		r = conv_expect(c, a, "ready", CONV_SETUP_MS);
		if (!r)
			return conv_stop ? -EINTR : -EIO;
		conns[i] = json_incref(json_object_get(r, "conns"));
		json_decref(r);
	}
	return 0;
}

/* Sync every agent of the step again, then give each the start on its clock. */
static int conv_start(struct conv *c)
{
	struct conv_agent *a;
	char err[512];
	uint64_t at;
	json_t *m;
	size_t i;

	/* The first step may come quickly: give the rate its span. */
	for (i = 0; i < c->n_agents; i++)
		if (c->agents[i].in_step)
			while (ctl_now_ns() < c->agents[i].first_mid_ns + CONV_RATE_SPAN_NS && !conv_stop)
				poll(NULL, 0, 50);
	if (conv_stop)
		return snprintf(c->error, sizeof(c->error), "interrupted"), -EINTR;
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (a->in_step && conv_sync(a, err, sizeof(err))) {
			conv_fail(c, a, NULL, "is gone", err);
			return -EIO;
		}
	}
	at = ctl_now_ns() + CONV_LEAD_NS;
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (a->in_step && a->mid_ns - a->first_mid_ns < CONV_RATE_SPAN_NS / 2)
			log_warn("agent %s: clock rate not measured", a->host);
	}
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (!a->in_step)
			continue;
		m = ctl_msg("start");
		json_object_set_new(m, "at_ns", json_integer((json_int_t)conv_agent_time(a, at)));
		json_object_set_new(m, "warmup_ms",
				    json_integer((json_int_t)(c->sc.warmup_s * 1000 * a->rate)));
		json_object_set_new(m, "duration_ms",
				    json_integer((json_int_t)(c->sc.duration_s * 1000 * a->rate)));
		if (ctl_send(a->fd, m, CONV_MSG_MS, err, sizeof(err)))
			conv_fail(c, a, NULL, "is gone", err);
		json_decref(m);
		if (c->error[0])
			return -EIO;
	}
	log_info("flows start in %.1f s: %.1f s warm-up, then a %.1f s window",
		 (double)(at - ctl_now_ns()) / 1e9, c->sc.warmup_s, c->sc.duration_s);
	return 0;
}

/*
 * Interrupted, or an agent failed: stop the step's agents that still run;
 * each answers with what it measured so far. Returns the deadline for
 * those answers.
 */
static uint64_t conv_stop_step(struct conv *c)
{
	struct conv_agent *a;
	size_t i;

	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (a->in_step && !a->done && conv_send_stop(a, c->error))
			a->done = true;	/* gone: nothing to wait for */
	}
	return ctl_now_ns() + (uint64_t)CONV_STOP_MS * 1000000u;
}

/*
 * Results from every agent of the step, in whatever order they come. On
 * SIGINT or SIGTERM (-EINTR), or when an agent fails (-EIO), the others'
 * partial results.
 */
static int conv_collect(struct conv *c)
{
	int tmo_ms = (int)((c->sc.warmup_s + c->sc.duration_s) * 1000) + CONV_SLACK_MS;
	uint64_t end = ctl_now_ns() + (uint64_t)tmo_ms * 1000000u;
	struct pollfd pfd[CONV_MAX_HOSTS];
	size_t idx[CONV_MAX_HOSTS], i, n, left;
	struct conv_agent *a;
	bool stopping = false;
	int ret = -EINTR;

	for (;;) {
		for (n = 0, left = 0, i = 0; i < c->n_agents; i++) {
			if (!c->agents[i].in_step || c->agents[i].done)
				continue;
			idx[n] = i;
			pfd[n++] = (struct pollfd){ .fd = c->agents[i].fd, .events = POLLIN };
			left++;
		}
		if (!left)
			return stopping ? ret : 0;
		if (conv_stop && !stopping) {
			snprintf(c->error, sizeof(c->error), "interrupted");
			stopping = true;
			end = conv_stop_step(c);
			continue;
		}
		if (ctl_now_ns() > end) {
			if (stopping)
				return ret;	/* what came is kept */
			a = &c->agents[idx[0]];
			conv_fail(c, a, NULL, "", "no result in time");
			return -ETIMEDOUT;
		}
		if (poll(pfd, n, 200) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			a = &c->agents[idx[i]];
			a->result = conv_expect(c, a, "result", CONV_MSG_MS);
			a->done = true;
			if (!a->result && !stopping) {
				ret = -EIO;
				stopping = true;
				end = conv_stop_step(c);
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Results into a step                                                 */
/* ------------------------------------------------------------------ */

static int conv_class_key(const struct conv *c, int sl, int tclass)
{
	if (c->have_cfg && c->cfg.kind == ARB_KIND_ETS)
		return arb_ets_dscp_band(&c->cfg, arb_tclass_to_dscp(tclass));
	return sl;
}

static struct converge_class *conv_class(struct converge_step *st, int key)
{
	struct converge_class *k;
	size_t i;

	for (i = 0; i < st->n_classes; i++)
		if (st->classes[i].key == key)
			return &st->classes[i];
	if (st->n_classes == CONVERGE_MAX_CLASSES)
		return NULL;
	k = &st->classes[st->n_classes++];
	memset(k, 0, sizeof(*k));
	k->key = key;
	return k;
}

static void conv_step_flows(struct conv *c, struct converge_step *st)
{
	const struct scen_flow *f;
	struct converge_flow *cf;
	struct converge_class *k;
	size_t i;

	st->n_flows = c->sc.n_flows;
	for (i = 0; i < c->sc.n_flows; i++) {
		f = &c->sc.flows[i];
		cf = &st->flows[i];
		*cf = (struct converge_flow){ .name = f->name, .host = f->host,
			.type = scenario_flow_type_name(f->type), .sl = f->sl, .tclass = f->tclass,
			.dscp = arb_tclass_to_dscp(f->tclass),
			.class_key = conv_class_key(c, f->sl, f->tclass),
			.ran = conv_flow_active(c, i, st->active_bw) };
		if (!cf->ran)
			continue;
		k = conv_class(st, cf->class_key);
		if (!k)
			continue;
		k->dscp = cf->dscp;
		if (f->type == SCEN_FLOW_LAT) {
			k->n_lat++;
		} else {
			k->n_bw++;
			k->saturating = k->saturating || f->rate_gbps == 0;
		}
	}
}

static struct converge_flow *conv_step_flow(struct converge_step *st, const char *name)
{
	size_t i;

	for (i = 0; name && i < st->n_flows; i++)
		if (!strcmp(st->flows[i].name, name))
			return &st->flows[i];
	return NULL;
}

/* A lat flow's buckets into its class's histogram, in our ns (@rate: its agent's clock). */
static void conv_add_cdf(struct converge_class *k, const json_t *cdf, double rate)
{
	const json_t *pair;
	uint64_t v, n;
	size_t i;

	if (!k->lat_ns)
		k->lat_ns = hist_new();
	json_array_foreach(cdf, i, pair) {
		v = (uint64_t)(json_number_value(json_array_get(pair, 0)) / rate);
		n = (uint64_t)json_integer_value(json_array_get(pair, 1));
		while (k->lat_ns && n--)
			hist_record(k->lat_ns, v);
	}
}

/* What the sources said about their flows: latency, errors. */
static void conv_source_results(struct conv *c, struct converge_step *st)
{
	struct converge_flow *cf;
	const json_t *r, *e;
	size_t i, j;

	for (i = 1; i < c->n_agents; i++) {
		if (!c->agents[i].result)
			continue;
		json_array_foreach(json_object_get(c->agents[i].result, "flows"), j, r) {
			cf = conv_step_flow(st, json_string_value(json_object_get(r, "name")));
			if (!cf)
				continue;
			cf->sent_bytes = (uint64_t)json_integer_value(json_object_get(r, "bytes"));
			e = json_object_get(r, "error");
			if (e)
				snprintf(cf->error, sizeof(cf->error), "%s", json_string_value(e));
			if (!json_object_get(r, "cdf"))
				continue;
			cf->rtt_ns = json_incref(json_object_get(r, "rtt_ns"));
			cf->cdf = json_incref(json_object_get(r, "cdf"));
			conv_add_cdf(conv_class(st, cf->class_key), cf->cdf, c->agents[i].rate);
		}
	}
}

/* The flow whose data connection is @peer, from the sources' ready messages. */
static struct converge_flow *conv_flow_by_peer(struct converge_step *st, json_t *conns[],
					       size_t n_agents, const char *peer)
{
	const json_t *cn;
	size_t i, j;

	for (i = 1; i < n_agents; i++)
		json_array_foreach(conns[i], j, cn)
			if (!strcmp(json_string_value(json_object_get(cn, "local")), peer))
				return conv_step_flow(st,
					json_string_value(json_object_get(cn, "flow")));
	return NULL;
}

/* What the destination received, per flow and per class. */
static void conv_sink_results(struct conv *c, struct converge_step *st, json_t *conns[])
{
	const json_t *res = c->agents[0].result, *s;
	struct converge_class *k;
	struct converge_flow *cf;
	uint64_t bytes;
	size_t i;

	if (!res)
		return;
	st->window_s = (double)json_integer_value(json_object_get(res, "window_ns")) / 1e9 /
		       c->agents[0].rate;
	json_array_foreach(json_object_get(res, "sink"), i, s) {
		bytes = (uint64_t)json_integer_value(json_object_get(s, "bytes"));
		k = conv_class(st, conv_class_key(c, (int)json_integer_value(json_object_get(s, "sl")),
					(int)json_integer_value(json_object_get(s, "tclass"))));
		if (k)
			k->bytes += bytes;
		cf = conv_flow_by_peer(st, conns, c->n_agents,
				       json_string_value(json_object_get(s, "peer")));
		if (cf)
			cf->bytes += bytes;
	}
	for (i = 0; st->window_s > 0 && i < st->n_flows; i++)
		st->flows[i].gbps = (double)st->flows[i].bytes * 8 / st->window_s / 1e9;
}

/* ------------------------------------------------------------------ */
/* Analysis                                                            */
/* ------------------------------------------------------------------ */

static void conv_shares(struct converge_step *st)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < st->n_classes; i++)
		total += st->classes[i].bytes;
	st->total_gbps = st->window_s > 0 ? (double)total * 8 / st->window_s / 1e9 : 0;
	for (i = 0; i < st->n_classes; i++) {
		st->classes[i].gbps = st->window_s > 0 ?
			(double)st->classes[i].bytes * 8 / st->window_s / 1e9 : 0;
		st->classes[i].share_pct = total ? 100.0 * (double)st->classes[i].bytes /
						   (double)total : 0;
	}
}

/*
 * What the arbitration predicts for this step's traffic: classes with a
 * bw flow without a rate are saturating; every other class offers what
 * it was measured to carry (a lat flow has one message in flight). When
 * something saturates, the port ran full, and the link of the analysis
 * is what the destination received in all.
 */
static int conv_analyze(struct conv *c, struct converge_step *st, double tol)
{
	struct arb_params params;
	struct arb_result res;
	struct converge_class *k;
	bool ets = c->cfg.kind == ARB_KIND_ETS;
	int band, i;
	size_t j;

	arb_params_init(&params);
	params.model = c->sc.model_set ? c->sc.model : ets ? ARB_MODEL_ETS : ARB_MODEL_IB_FLUID;
	for (i = 0; i < ARB_NUM_SLS; i++)
		params.load_gbps[i] = 0;
	st->compared = false;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		st->compared = st->compared || k->saturating;
		if (ets) {
			params.band_load_set[k->key] = true;
			params.band_load_gbps[k->key] = k->saturating ? -1.0 : k->gbps;
		} else {
			params.load_gbps[k->key] = k->saturating ? -1.0 : k->gbps;
		}
	}
	st->analysis_link_gbps = st->compared && st->total_gbps > 0 ? st->total_gbps :
				 c->sc.link_gbps > 0 ? c->sc.link_gbps : st->total_gbps;
	params.link_gbps = st->analysis_link_gbps > 0 ? st->analysis_link_gbps : 1;
	if (arb_analyze(&c->cfg, &params, &res))
		return log_errno(-EINVAL, "the %s model does not fit %s",
				 arb_model_name(params.model), c->sc.arb_files[0]);
	st->within = true;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		k->has_analyzed = ets ? !arb_ets_dscp_share(&c->cfg, &res, k->dscp, &band,
							    &k->analyzed_pct) :
					(k->analyzed_pct = res.sls[k->key].share_pct, true);
		k->diff_pp = k->share_pct - k->analyzed_pct;
		k->within = fabs(k->diff_pp) <= tol;
		if (st->compared && k->has_analyzed && !k->within)
			st->within = false;
	}
	return 0;
}

static void conv_step_results(struct conv *c, struct converge_step *st, json_t *conns[])
{
	conv_source_results(c, st);
	conv_sink_results(c, st, conns);
	conv_shares(st);
	st->within = true;
	if (c->have_cfg && st->window_s > 0)
		conv_analyze(c, st, c->o->tolerance_pp);
}

/* One step: set up, start together, collect; partial results kept. */
static int conv_run_step(struct conv *c, unsigned active_bw)
{
	struct converge_step *st = &c->steps[c->n_steps];
	json_t *conns[CONV_MAX_HOSTS] = { NULL };
	size_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	st->active_bw = active_bw;
	conv_step_flows(c, st);
	ret = conv_setup(c, active_bw, conns);
	if (!ret)
		ret = conv_start(c);
	if (!ret)
		ret = conv_collect(c);
	st->cut_short = ret != 0;
	conv_step_results(c, st, conns);
	c->n_steps++;
	for (i = 0; i < c->n_agents; i++) {
		json_decref(conns[i]);
		json_decref(c->agents[i].result);
		c->agents[i].result = NULL;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Report                                                              */
/* ------------------------------------------------------------------ */

static int conv_report(struct conv *c)
{
	char arb[SCEN_PATH_MAX * 2] = "", err[256];
	struct converge_report_info info = {
		.scenario = c->sc.name, .destination = c->sc.dest,
		.ets = c->have_cfg && c->cfg.kind == ARB_KIND_ETS,
		.link_gbps = c->sc.link_gbps, .duration_s = c->sc.duration_s,
		.warmup_s = c->sc.warmup_s, .tolerance_pp = c->o->tolerance_pp,
		.sweep = c->o->sweep,
	};
	const char *j = c->o->json_path, *v = c->o->csv_path;
	json_t *doc;
	FILE *f;
	int i, ret = 0;

	for (i = 0; i < c->sc.n_arb_files; i++)
		snprintf(arb + strlen(arb), sizeof(arb) - strlen(arb), "%s%s", i ? "," : "",
			 c->sc.arb_files[i]);
	info.arbitration = c->have_cfg ? arb : NULL;
	info.model = !c->have_cfg ? NULL : arb_model_name(c->sc.model_set ? c->sc.model :
				info.ets ? ARB_MODEL_ETS : ARB_MODEL_IB_FLUID);
	if (!(j && !strcmp(j, "-")) && !(v && !strcmp(v, "-")))
		report_converge_table(stdout, &info, c->steps, c->n_steps);
	if (j) {
		doc = report_converge_json(&info, c->steps, c->n_steps,
					   c->error[0] ? c->error : NULL);
		ret = report_json_write(doc, j, err, sizeof(err));
		json_decref(doc);
		if (ret)
			log_error("%s", err);
	}
	if (v) {
		f = strcmp(v, "-") ? fopen(v, "w") : stdout;
		if (!f)
			return log_error("'%s': %s", v, strerror(errno));
		report_converge_csv(f, &info, c->steps, c->n_steps);
		if (f != stdout)
			fclose(f);
	}
	fflush(stdout);
	return ret;
}

static void conv_release(struct conv *c)
{
	size_t i, k;

	for (i = 0; i < c->n_steps; i++) {
		for (k = 0; k < c->steps[i].n_classes; k++)
			hist_free(c->steps[i].classes[k].lat_ns);
		for (k = 0; k < c->steps[i].n_flows; k++) {
			json_decref(c->steps[i].flows[k].rtt_ns);
			json_decref(c->steps[i].flows[k].cdf);
		}
	}
	free(c->steps);
}

static unsigned conv_n_bw(const struct scenario *sc)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < sc->n_flows; i++)
		n += sc->flows[i].type == SCEN_FLOW_BW;
	return n;
}

static int conv_run(struct conv *c)
{
	unsigned n_bw = conv_n_bw(&c->sc), k;
	int ret;

	c->steps = calloc(n_bw + 1, sizeof(*c->steps));
	if (!c->steps)
		return log_errno(-ENOMEM, "out of memory");
	ret = conv_connect_agents(c);
	for (k = c->o->sweep ? 0 : n_bw; !ret && k <= n_bw; k++) {
		log_info("step: %u bandwidth flow%s", k, k == 1 ? "" : "s");
		ret = conv_run_step(c, k);
	}
	conv_hangup(c, ret != 0);
	if (ret && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s", strerror(-ret));
	return ret;
}

int cmd_converge(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = conv_on_signal };
	struct converge_opts o;
	struct conv *c;
	bool within = true;
	size_t i;
	int ret, rep;

	if (conv_opts_parse(argc, argv, &o)) {
		fprintf(stderr, "see 'rperf converge --help'\n");
		return RPERF_EXIT_USAGE;
	}
	if (o.help) {
		cmd_converge_usage(stdout);
		return RPERF_EXIT_OK;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return RPERF_EXIT_FAILURE;
	c->o = &o;
	if (conv_inputs(c)) {
		free(c);
		return RPERF_EXIT_USAGE;
	}
	/* Before the run: a missing directory must not cost the results. */
	if (o.json_path && report_json_check(o.json_path, c->error, sizeof(c->error))) {
		log_error("%s", c->error);
		free(c);
		return RPERF_EXIT_FAILURE;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = conv_run(c);
	if (c->error[0])
		log_error("%s", c->error);
	rep = c->n_steps ? conv_report(c) : 0;
	for (i = 0; i < c->n_steps; i++)
		within = within && c->steps[i].within;
	conv_release(c);
	free(c);
	if (ret || rep)
		return RPERF_EXIT_FAILURE;
	return within ? RPERF_EXIT_OK : RPERF_EXIT_TOLERANCE;
}
