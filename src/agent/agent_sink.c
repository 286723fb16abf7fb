/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The destination's side of a step: a sink that accepts the sources'
 * flows on the data port and counts what each receives, marked at the
 * window's start so that only the window counts, kept serving through
 * the sources' tail. It runs in its own thread from setup to release:
 * the same agent's sources (all-to-all) connect to other sinks while
 * this one accepts theirs. The thread owns the sink; the session reads
 * only what it hands over (the window's counts, whether a source is
 * still connected), through atomics.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_ctl.h"
#include "agent/agent_int.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"

#define AGENT_RING		512	/* RECVs per sink flow: keep bw flows backlogged */

/* ------------------------------------------------------------------ */
/* Sink: setup and counts                                              */
/* ------------------------------------------------------------------ */

static void *agent_sink_main(void *arg);

/*
 * SECRET: the sink's admission (struct sink's admit): a data connection
 * gets a QP only with the secret of a flow of the setup, from that flow's
 * source, within its connections and message size. 0 or -errno with why.
 */
int agent_sink_admit(void *arg, const struct conn_hello *h, const char *src_ip, char *err,
		     size_t errlen)
{
	struct agent_step *st = arg;
	struct agent_expect *e;
	size_t i;
	int ret = errbuf_set(err, errlen, -EACCES, "no flow of the step has its secret");

	for (i = 0; i < st->n_expect; i++) {
		e = &st->expect[i];
		ret = sink_secret_check(e->src, e->secret, src_ip, h->secret, err, errlen);
		if (ret == -EACCES)
			continue;	/* not this flow's secret */
		if (ret)
			return ret;	/* this flow's secret, from elsewhere */
		if (h->max_msg_bytes > e->size_bytes)
			return errbuf_set(err, errlen, -EMSGSIZE, "messages of %u bytes, the "
					  "flow's are %zu at most", h->max_msg_bytes, e->size_bytes);
		if (e->used >= e->conns)
			return errbuf_set(err, errlen, -EUSERS, "the flow's %u connections "
					  "are all made", e->conns);
		e->used++;
		return 0;
	}
	return ret;
}

/* SECRET: the flows @m's "expect" lists, the only ones the sink admits. */
void agent_sink_expect(struct agent_step *st, const json_t *m)
{
	const json_t *arr = json_object_get(m, "expect"), *j;
	struct agent_expect *e;
	size_t i;

	st->n_expect = 0;
	json_array_foreach(arr, i, j) {
		e = &st->expect[st->n_expect];
		memset(e, 0, sizeof(*e));
		if (ctl_secret_parse(json_string_value(json_object_get(j, "secret")), e->secret))
			continue;
		snprintf(e->src, sizeof(e->src), "%s", json_string_value(json_object_get(j, "src")));
		e->conns = (unsigned)agent_ctl_int(j, "conns");
		e->size_bytes = (size_t)json_integer_value(json_object_get(j, "size"));
		st->n_expect++;
	}
	st->sink.admit = agent_sink_admit;
	st->sink.admit_arg = st;
}

/* Listen for the sources' flows on the data port, and serve them from a thread. */
int agent_sink_setup(struct agent_step *st, const json_t *m, char *err, size_t errlen)
{
	uint16_t port = (uint16_t)agent_ctl_int(m, "data_port");
	int ret;

	ret = sink_init(&st->sink, &st->dev, AGENT_RING, false, err, errlen);
	if (ret)
		return ret;
	st->sink_ok = true;
	agent_sink_expect(st, m);
	/* On the agent's --bind address alone, as its control port. */
	st->lfd = conn_listen(st->agent->bind, port, err, errlen);
	if (st->lfd < 0)
		return st->lfd;
	ret = pthread_create(&st->sink_tid, NULL, agent_sink_main, st);
	if (ret)
		return errbuf_set(err, errlen, -ret, "cannot start the sink's thread");
	st->sink_thread = true;
	return 0;
}

void agent_sink_release(struct agent_step *st)
{
	size_t i;

	if (st->sink_thread) {
		st->sink_quit = 1;
		pthread_join(st->sink_tid, NULL);
		st->sink_thread = false;
	}
	json_decref(st->sink_res);
	st->sink_res = NULL;
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
	free(st->iv_bytes);
	free(st->iv_last);
	st->base_bytes = st->base_msgs = st->base_errors = st->iv_bytes = st->iv_last = NULL;
	st->n_iv = 0;
}

/* Counts of every sink flow now, the window's start. */
static int agent_sink_mark(struct agent_step *st)
{
	size_t n = st->sink.n_flows, i;

	st->base_bytes = calloc(n + 1, sizeof(uint64_t));
	st->base_msgs = calloc(n + 1, sizeof(uint64_t));
	st->base_errors = calloc(n + 1, sizeof(uint64_t));
	st->iv_bytes = calloc((n + 1) * CTL_INTERVALS, sizeof(uint64_t));
	st->iv_last = calloc(n + 1, sizeof(uint64_t));
	st->n_iv = 0;
	if (!st->base_bytes || !st->base_msgs || !st->base_errors || !st->iv_bytes || !st->iv_last)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		st->iv_last[i] = st->sink.flows[i]->bytes;
		st->base_bytes[i] = st->sink.flows[i]->bytes;
		st->base_msgs[i] = st->sink.flows[i]->msgs;
		st->base_errors[i] = st->sink.flows[i]->errors;
	}
	return 0;
}

/*
 * At @now, when the window's next interval has ended (the window of
 * @duration_ns from @mark_ns in CTL_INTERVALS equal parts), what each of
 * the @n_base flows marked received in it. One interval a call: a late
 * wake-up ends it late and the next one short, each still whole.
 */
static void agent_sink_interval(struct agent_step *st, uint64_t now, uint64_t mark_ns,
				size_t n_base)
{
	uint64_t end = mark_ns + st->duration_ns / CTL_INTERVALS * (st->n_iv + 1), b;
	size_t i;

	if (!st->iv_bytes || st->n_iv >= CTL_INTERVALS || now < end)
		return;
	for (i = 0; i < n_base; i++) {
		b = st->sink.flows[i]->bytes;
		st->iv_bytes[i * CTL_INTERVALS + st->n_iv] = b - st->iv_last[i];
		st->iv_last[i] = b;
	}
	st->n_iv++;
}

/* Flow @i's bytes in each ended interval; none for a flow that came later. */
static json_t *agent_sink_intervals(const struct agent_step *st, size_t i, size_t n_base)
{
	json_t *arr = json_array();
	unsigned k;

	for (k = 0; i < n_base && k < st->n_iv; k++)
		json_array_append_new(arr, json_integer((json_int_t)
				      st->iv_bytes[i * CTL_INTERVALS + k]));
	return arr;
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
		json_object_set_new(o, "intervals", agent_sink_intervals(st, i, n_base));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ------------------------------------------------------------------ */
/* Sink: the thread                                                    */
/* ------------------------------------------------------------------ */

static void agent_sink_warn(const char *err, void *arg)
{
	(void)arg;
	log_warn("%s", err);
}

static bool agent_sink_open(const struct agent_step *st)
{
	size_t i;

	for (i = 0; i < st->sink.n_flows; i++)
		if (st->sink.flows[i]->fd >= 0)
			return true;
	return false;
}

/* The window's counts (none when it never began) handed to the session. */
static void agent_sink_hand_over(struct agent_step *st, uint64_t mark_ns, size_t n_base)
{
	st->sink_res = mark_ns ? agent_sink_result(st, n_base) : json_array();
	st->sink_refused = st->sink.admit_refused + st->sink.gate.dropped;
	st->sink_window_ns = mark_ns ? ctl_now_ns() - mark_ns : 0;
	__atomic_store_n(&st->sink_ready, 1, __ATOMIC_RELEASE);
}

/*
 * Accept and count until told to quit: the window's start (st->at_ns plus
 * the warm-up, once a start came) marks the counts, its end or a stop
 * hands them over; then on serving, for the sources' tail.
 */
static void *agent_sink_main(void *arg)
{
	struct agent_step *st = arg;
	struct sink_wait w = { .lfd = st->lfd, .extra_fd = { -1, -1 },
			       .hello_ms = AGENT_HELLO_MS, .on_error = agent_sink_warn };
	uint64_t at, now, mark_ns = 0;
	size_t n_base = 0;
	bool ready = false;

	while (!st->sink_quit) {
		at = __atomic_load_n(&st->at_ns, __ATOMIC_ACQUIRE);
		now = ctl_now_ns();
		if (!ready && at && !mark_ns && now >= at + st->warmup_ns) {
			if (agent_sink_mark(st))
				log_warn("the sink cannot mark its window: out of memory");
			else
				n_base = st->sink.n_flows;
			mark_ns = now;
		}
		if (!ready && mark_ns)
			agent_sink_interval(st, now, mark_ns, n_base);
		if (!ready && (st->stop || (mark_ns && now >= mark_ns + st->duration_ns))) {
			agent_sink_hand_over(st, st->base_bytes ? mark_ns : 0, n_base);
			ready = true;
			/*
			 * Every source of the step connected before its start:
			 * stop listening, so that a source of the next step that
			 * comes before this agent has its setup is refused (and
			 * tries again) instead of taken by this step's sink.
			 */
			close(st->lfd);
			st->lfd = w.lfd = -1;
		}
		__atomic_store_n(&st->sink_open, agent_sink_open(st), __ATOMIC_RELAXED);
		w.timeout_ms = at ? 20 : 100;
		sink_wait(&st->sink, &w);
	}
	return NULL;
}

bool agent_sink_done(struct agent_step *st)
{
	return __atomic_load_n(&st->sink_ready, __ATOMIC_ACQUIRE);
}

bool agent_sink_busy(struct agent_step *st)
{
	return __atomic_load_n(&st->sink_open, __ATOMIC_RELAXED);
}
