/*
 * One coordinator's session: its hello and token, the time exchanges,
 * and for every setup message a step built from it (the device, the
 * clock, the role's flows), answered ready, run and torn down. While a
 * session runs, other coordinators are refused. Apart from cmd_agent.c
 * so that the command holds the options and the listening loop only.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "converge/agent_int.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"

#define AGENT_REFUSE_MS		500	/* a second coordinator's hello and our answer */
#define AGENT_SLICE_MS		200	/* waits look at signals and the control port this often */

/* The control port, and the coordinator a session serves: others are refused. */
int agent_lfd = -1;
static char agent_peer[64];

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

/* Message @o's integer field @k as an int: ctl_validate checked its range (0: absent). */
int agent_jint(const json_t *o, const char *k)
{
	return (int)json_integer_value(json_object_get(o, k));
}

static void agent_flow_from_json(const json_t *j, uint8_t timeout, uint8_t retry,
				 struct agent_flow *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", json_string_value(json_object_get(j, "name")));
	f->bw = !strcmp(json_string_value(json_object_get(j, "type")), "bw");
	f->path = (struct verbs_path){ .sl = (uint8_t)agent_jint(j, "sl"),
				       .tclass = (uint8_t)agent_jint(j, "tclass"),
				       .timeout = timeout, .retry = retry };
	f->size_bytes = (size_t)json_integer_value(json_object_get(j, "size"));
	f->rate_mbps = json_number_value(json_object_get(j, "rate_mbps"));
	f->threads = (unsigned)agent_jint(j, "threads");
	f->qps = (unsigned)agent_jint(j, "qps");
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
		agent_flow_from_json(json_array_get(flows, i), (uint8_t)agent_jint(m, "qp_timeout"),
				     (uint8_t)agent_jint(m, "retry"), &st->flows[i]);
	clock_source_parse(json_string_value(json_object_get(m, "clock")), &src);
	ret = clock_init(src, &st->clk, err, errlen);
	if (!ret)
		ret = verbs_dev_open(&st->dev, dev, agent_jint(m, "ib_port"),
				     agent_jint(m, "gid_index"), err, errlen);
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
/* Control messages                                                    */
/* ------------------------------------------------------------------ */

static int agent_answer_time(int cfd, char *err, size_t errlen);

/*
 * A coordinator waiting on the control port while a session runs: its
 * hello read (briefly, so that closing does not reset the connection
 * before our answer is read), an error naming the one being served,
 * closed. One a call, so that a crowd cannot stall a step's loop.
 */
void agent_refuse_waiting(void)
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
		if (stop_requested())
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
int agent_ctl_next(int cfd, json_t **m, int tmo_ms, char *err, size_t errlen)
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

void agent_set_window(struct agent_step *st, const json_t *m)
{
	st->at_ns = (uint64_t)json_integer_value(json_object_get(m, "at_ns"));
	st->warmup_ns = (uint64_t)agent_jint(m, "warmup_ms") * 1000000u;
	st->duration_ns = (uint64_t)agent_jint(m, "duration_ms") * 1000000u;
}

/*
 * A message once the step is set up: the sink takes its start here; stop
 * ends the step (-EINTR); anything else is a protocol error.
 */
int agent_run_ctl(struct agent_step *st, int cfd, char *err, size_t errlen)
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
	if (strcmp(ctl_type(m), "hello") || agent_jint(m, "version") != CTL_VERSION)
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

void agent_session(int cfd, const char *token)
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
	while (!stop_requested()) {
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
	if (stop_requested())
		ctl_send_error(cfd, NULL, "the agent is stopping", AGENT_REFUSE_MS);
	if (ret && ret != -ECONNRESET)
		log_warn("coordinator %s: %s", peer, err);
	else
		log_info("coordinator %s done", peer);
}
