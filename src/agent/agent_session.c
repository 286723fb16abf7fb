/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One coordinator's session, once through the gate (agent_gate.c): the time exchanges,
 * and for every setup message a step built from it (the device, the
 * clock, the sink and the flows it sends), answered ready, run and torn
 * down. While a
 * session runs, other coordinators are refused. Apart from cmd_agent.c
 * so that the command holds the options and the listening loop only; the
 * messages a step waits on are agent_ctl.c's.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent_ctl.h"
#include "agent/agent_int.h"
#include "engine/client.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

/*
 * Flow @j of a setup (validated by ctl) into @f, with the setup's RC
 * @timeout and @retry; its settings must also hold together
 * (flow_spec_check). 0 or -EINVAL with the reason in @err.
 */
static int agent_flow_from_json(const json_t *j, uint8_t timeout, uint8_t retry,
				struct agent_flow *f, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", json_string_value(json_object_get(j, "name")));
	f->bw = !strcmp(json_string_value(json_object_get(j, "type")), "bw");
	ctl_flow_spec_unpack(j, &f->spec);
	f->path = client_spec_path(&f->spec, timeout, retry);
	snprintf(f->dest, sizeof(f->dest), "%s", json_string_value(json_object_get(j, "dest")));
	f->dest_port = (uint16_t)agent_ctl_int(j, "dest_port");
	/* SECRET: none (or a bad one) leaves it zero, and the sink refuses that */
	ctl_secret_parse(json_string_value(json_object_get(j, "secret")), f->secret);
	return flow_spec_check(&f->spec, f->bw, err, errlen);
}

int agent_setup_decode(struct agent_step *st, const json_t *m, const char **bad_flow, char *err,
		       size_t errlen)
{
	const json_t *flows = json_object_get(m, "flows");
	size_t i;
	int ret;

	st->sink_role = json_is_true(json_object_get(m, "sink"));
	st->data_port = (uint16_t)agent_ctl_int(m, "data_port");
	st->yield = json_is_true(json_object_get(m, "yield"));
	st->n_flows = json_array_size(flows);
	for (i = 0; i < st->n_flows; i++) {
		ret = agent_flow_from_json(json_array_get(flows, i),
					   (uint8_t)agent_ctl_int(m, "qp_timeout"),
					   (uint8_t)agent_ctl_int(m, "retry"), &st->flows[i], err,
					   errlen);
		if (ret) {
			*bad_flow = st->flows[i].name;
			return ret;
		}
	}
	return 0;
}

static size_t agent_page_up(size_t bytes)
{
	return (bytes + 4095) / 4096 * 4096;
}

size_t agent_pinned_bytes(const struct agent_step *st, const json_t *m)
{
	const struct flow_spec *s;
	const json_t *e;
	size_t i, n = 0;

	for (i = 0; i < st->n_flows; i++) {
		s = &st->flows[i].spec;
		n += agent_page_up(s->size_bytes) * s->threads * (st->flows[i].bw ? s->qps : 3);
	}
	json_array_foreach(json_object_get(m, "expect"), i, e)
		n += agent_page_up((size_t)json_integer_value(json_object_get(e, "size"))) *
		     (size_t)agent_ctl_int(e, "conns");
	return n;
}

static int agent_setup(struct agent_step *st, const json_t *m, json_t *conns,
		       const char **bad_flow, char *err, size_t errlen)
{
	const char *dev = json_string_value(json_object_get(m, "device"));
	enum clock_source src;
	size_t pinned;
	int ret;

	ret = agent_setup_decode(st, m, bad_flow, err, errlen);
	if (ret)
		return ret;
	/* Before any device or buffer: what the step would pin, against our cap. */
	pinned = agent_pinned_bytes(st, m);
	if (pinned > st->agent->max_pinned_bytes)
		return errbuf_set(err, errlen, -ENOMEM, "the step would pin %.1f MiB of buffers, "
				  "above this agent's --max-pinned %.1f MiB",
				  (double)pinned / 1048576, (double)st->agent->max_pinned_bytes /
				  1048576);
	clock_source_parse(json_string_value(json_object_get(m, "clock")), &src);
	ret = clock_init(src, &st->clk, err, errlen);
	if (!ret)
		ret = verbs_dev_open(&st->dev, dev, agent_ctl_int(m, "ib_port"),
				     agent_ctl_int(m, "gid_index"), err, errlen);
	/* The sink first: it serves while the sources connect. */
	if (!ret && st->sink_role)
		ret = agent_sink_setup(st, m, err, errlen);
	return ret ? ret : agent_source_setup(st, conns, bad_flow, err, errlen);
}

/* Everything the step holds, whichever roles it had; @st is left empty. */
static void agent_step_release(struct agent_step *st)
{
	struct agent *a = st->agent;

	agent_sink_release(st);
	agent_source_release(st);
	verbs_dev_close(&st->dev);
	memset(st, 0, sizeof(*st));
	st->agent = a;
	st->lfd = -1;
}

/* ------------------------------------------------------------------ */
/* Run                                                                 */
/* ------------------------------------------------------------------ */

/*
 * The result message: each flow's, the sink's window, and the port's
 * retransmissions over the run (@before: the counters at its start;
 * NULL or none: not known).
 */
static int agent_send_result(struct agent_step *st, struct ctl_chan *ch,
			     const struct verbs_counters *before, char *err, size_t errlen)
{
	struct verbs_counters *after = before ? malloc(sizeof(*after)) : NULL;
	json_t *m = ctl_msg("result");
	int ret;

	json_object_set_new(m, "flows", agent_source_results(st));
	json_object_set_new(m, "sink", st->sink_res ? json_incref(st->sink_res) : json_array());
	json_object_set_new(m, "window_ns", json_integer((json_int_t)(st->sink_role ?
			    st->sink_window_ns : st->duration_ns)));
	if (st->sink_role)	/* SECRET: data connections refused, none counted in a class */
		json_object_set_new(m, "refused", json_integer((json_int_t)st->sink_refused));
	if (before && before->n && after && !verbs_counters_read(&st->dev, after))
		json_object_set_new(m, "retrans", json_integer((json_int_t)
				    verbs_counters_retrans(before, after)));
	free(after);
	ret = ctl_send(ch, m, AGENT_MSG_MS, err, errlen);
	json_decref(m);
	return ret;
}

/*
 * After the result the sources run on for a tail (bw keeps every band
 * backlogged to the window's very end): keep the sink serving until they
 * hang up, or the coordinator speaks again.
 */
static void agent_linger(struct agent_step *st, const struct ctl_chan *ch)
{
	uint64_t end = ctl_now_ns() + AGENT_TAIL_NS + (uint64_t)AGENT_IDLE_MS / 20 * 1000000u;

	while (st->sink_role && !stop_requested() && ctl_now_ns() < end && agent_sink_busy(st) &&
	       !conn_fd_readable(ch->fd))
		poll(NULL, 0, 50);
}

/*
 * The step's run: wait for the start, run the workers from its instant
 * while the sink (if this agent is a destination) counts the window;
 * once both are through, or a stop came, send what they measured.
 */
static int agent_run(struct agent_step *st, struct ctl_chan *ch, char *err, size_t errlen)
{
	struct verbs_counters *before = NULL;
	json_t *m;
	int ret;

	ret = agent_ctl_next(st->agent, ch, &m, AGENT_IDLE_MS, err, errlen);
	if (ret)
		return ret;
	if (strcmp(ctl_type(m), "start")) {
		ret = strcmp(ctl_type(m), "stop") ? -EPROTO : -EINTR;
		json_decref(m);
		return errbuf_set(err, errlen, ret, "stopped before the start");
	}
	ret = agent_ctl_window(st, m, err, errlen);
	json_decref(m);
	if (ret)
		return ret;
	if (st->n_w && (before = calloc(1, sizeof(*before))) &&
	    verbs_counters_read(&st->dev, before))
		before->n = 0;
	agent_source_start(st);
	for (;;) {
		/* Any message ends the run; a stop quietly, anything else with a line. */
		if (!st->stop && conn_fd_readable(ch->fd)) {
			ret = agent_ctl_during_run(st, ch, err, errlen);
			if (ret && ret != -EINTR)
				log_warn("%s", err);
		}
		if (stop_requested() && !st->stop) {
			/* The workers end; their results still go out. */
			snprintf(st->stop_reason, sizeof(st->stop_reason), "the agent is stopping");
			st->stop = 1;
		}
		agent_ctl_refuse_waiting(st->agent);
		if (agent_source_reap(st) && (!st->sink_role || agent_sink_done(st)))
			break;
		poll(NULL, 0, 20);
	}
	ret = agent_send_result(st, ch, before, err, errlen);
	free(before);
	if (!ret)
		agent_linger(st, ch);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Session                                                             */
/* ------------------------------------------------------------------ */

/* One setup message: build the step, answer ready or error, run it. */
static int agent_step(struct agent *a, struct ctl_chan *ch, const json_t *m, char *err,
		      size_t errlen)
{
	struct agent_step st = { .agent = a, .lfd = -1 };
	const char *bad_flow = NULL;
	struct run_env env;
	json_t *ready, *conns = json_array();
	int ret;

	ret = agent_setup(&st, m, conns, &bad_flow, err, errlen);
	if (ret) {
		json_decref(conns);
		ctl_send_error(ch, bad_flow, err, AGENT_MSG_MS);
		agent_step_release(&st);
		return ret;
	}
	run_env_host(&env);
	verbs_env(&st.dev, &env);
	ready = ctl_msg("ready");
	json_object_set_new(ready, "conns", conns);
	json_object_set_new(ready, "environment", run_env_json(&env));
	ret = ctl_send(ch, ready, AGENT_MSG_MS, err, errlen);
	json_decref(ready);
	if (!ret)
		ret = agent_run(&st, ch, err, errlen);
	if (ret && ret != -ECONNRESET && ret != -EINTR)
		ctl_send_error(ch, NULL, err, AGENT_MSG_MS);
	agent_step_release(&st);
	return ret;
}

void agent_session_serve(struct agent *a, struct ctl_chan *ch)
{
	char err[512];
	json_t *m;
	int ret = 0;

	conn_peer_name(ch->fd, a->peer, sizeof(a->peer));
	/* Handshakes still under way are refused with the rest while this runs. */
	agent_gate_drop(a);
	log_info("%s connected", ch->peer);
	while (!stop_requested()) {
		ret = agent_ctl_next(a, ch, &m, AGENT_IDLE_MS, err, sizeof(err));
		if (ret)
			break;
		if (!strcmp(ctl_type(m), "setup"))
			ret = agent_step(a, ch, m, err, sizeof(err));
		else if (strcmp(ctl_type(m), "stop"))
			ret = errbuf_set(err, sizeof(err), -EPROTO, "unexpected '%s'", ctl_type(m));
		json_decref(m);
		if (ret && ret != -EINTR)
			break;
	}
	if (stop_requested())
		ctl_send_error(ch, NULL, "the agent is stopping", AGENT_REFUSE_MS);
	if (ret && ret != -ECONNRESET)
		log_warn("%s: %s", ch->peer, err);
	else
		log_info("%s done", ch->peer);
	ctl_chan_forget(ch);
}
