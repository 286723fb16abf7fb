/*
 * The destination's side of a step: a sink that accepts the sources'
 * flows on the data port and counts what each receives, marked at the
 * window's start so that only the window counts, kept serving through
 * the sources' tail. Apart from the sources: one role, its own loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "converge/agent_ctl.h"
#include "converge/agent_int.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"

#define AGENT_RING		512	/* RECVs per sink flow: keep bw flows backlogged */

/* ------------------------------------------------------------------ */
/* Sink: setup and counts                                              */
/* ------------------------------------------------------------------ */

/* The sink side: listen for the sources' flows on the data port. */
int agent_sink_setup(struct agent_step *st, const json_t *m, char *err, size_t errlen)
{
	int ret;

	ret = sink_init(&st->sink, &st->dev, AGENT_RING, false, err, errlen);
	if (ret)
		return ret;
	st->sink_ok = true;
	st->lfd = conn_listen((uint16_t)agent_ctl_int(m, "data_port"), err, errlen);
	return st->lfd < 0 ? st->lfd : 0;
}

void agent_sink_release(struct agent_step *st)
{
	size_t i;

	for (i = 0; st->sink_ok && i < st->sink.n_flows; i++)
		if (st->sink.flows[i]->fd >= 0)
			close(st->sink.flows[i]->fd);
	if (st->sink_ok)
		sink_release(&st->sink);
	st->sink_ok = false;
	if (st->lfd >= 0)
		close(st->lfd);
	st->lfd = -1;
	free(st->base_bytes);
	free(st->base_msgs);
	free(st->base_errors);
	st->base_bytes = st->base_msgs = st->base_errors = NULL;
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
/* Sink: the step                                                      */
/* ------------------------------------------------------------------ */

static void agent_sink_warn(const char *err, void *arg)
{
	(void)arg;
	log_warn("%s", err);
}

/*
 * One wait of the sink's loop (engine/sink.c serves its flows); a
 * message on @cfd (-1: none watched) goes to agent_ctl, its result into
 * *@ctl_ret.
 */
static void agent_sink_poll(struct agent_step *st, int cfd, int tmo_ms, int *ctl_ret,
			    char *err, size_t errlen)
{
	struct sink_wait w = { .lfd = st->lfd, .extra_fd = { cfd, -1 }, .timeout_ms = tmo_ms,
			       .hello_ms = AGENT_HELLO_MS, .on_error = agent_sink_warn };

	if (sink_wait(&st->sink, &w) > 0 && w.extra_ready[0])
		*ctl_ret = agent_ctl_during_run(st, cfd, err, errlen);
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

	while (!stop_requested() && !ret && ctl_now_ns() < end && agent_sink_open(st) &&
	       !conn_fd_readable(cfd))
		agent_sink_poll(st, -1, 100, &ret, err, sizeof(err));
}

/*
 * The sink's step: accept and count until the window ends (or a stop),
 * a start message first setting the window. Result only for a window seen
 * whole or cut by a stop.
 */
int agent_sink_run(struct agent_step *st, int cfd, char *err, size_t errlen)
{
	uint64_t idle_end = ctl_now_ns() + (uint64_t)AGENT_IDLE_MS * 1000000u, now, mark_ns = 0;
	size_t n_base = 0;
	json_t *m = NULL;
	int ret = 0;

	while (!st->stop && !stop_requested()) {
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
		agent_ctl_refuse_waiting(st->agent);
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
