/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The coordinator's side of the agents' control protocol (ctl.h): reach
 * every agent (launched if asked: coord_launch.c), check its version and token,
 * measure its clock against ours, then for each step set up the flows,
 * give every agent the start on its own clock, and collect what each
 * measured, stopping the others when one fails or a signal comes. Apart
 * from cmd_converge.c because it is the part that talks to the agents.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdma/conn.h"
#include "coord/coord.h"
#include "coord/coord_pool.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"

#define COORD_MSG_MS		10000
#define COORD_REACH_SLICE_MS	1000	/* between looks at an agent's launcher */
#define COORD_SETUP_MS		60000	/* QPs connect under a slow software NIC */
#define COORD_SLACK_MS		30000	/* past the window, for results to come */
#define COORD_STOP_MS		15000	/* after a stop, for what the agents measured */
#define COORD_LEAD_NS		500000000ull	/* start time ahead of now */
/* The most: a second under what an agent takes (CTL_START_LEAD_MAX_S). */
#define COORD_LEAD_MAX_NS	((uint64_t)(CTL_START_LEAD_MAX_S - 1) * 1000000000u)
#define COORD_TIME_ROUNDS	5
#define COORD_RATE_SPAN_NS	2000000000ull	/* between syncs, to measure a clock's rate */

/* ------------------------------------------------------------------ */
/* Agents                                                              */
/* ------------------------------------------------------------------ */

/* "destination, lat1, bw1" for messages: what agent @a runs. */
static void coord_agent_flows(const struct coord *c, const struct coord_agent *a, char *buf,
			      size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	if (a->is_dest)
		n += snprintf(buf, len, "destination");
	for (i = 0; i < c->sc.n_flows && n < len; i++)
		if (!strcmp(c->sc.flows[i].host, a->addr))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", c->sc.flows[i].name);
}

/* The run's error, once: the agent's address and flows, @state ("is gone"), @what. */
static void coord_fail(struct coord *c, const struct coord_agent *a, const char *flow,
		      const char *state, const char *what)
{
	char flows[256];

	if (c->error[0])
		return;
	coord_agent_flows(c, a, flows, sizeof(flows));
	if (flow)
		snprintf(c->error, sizeof(c->error), "agent '%s', flow '%s': %s", a->addr, flow,
			 what);
	else
		snprintf(c->error, sizeof(c->error), "agent '%s' (%s)%s%s: %s", a->addr, flows,
			 *state ? " " : "", state, what);
}

struct coord_agent *coord_agent_of(struct coord *c, const char *addr)
{
	json_int_t id = json_integer_value(json_object_get(c->agent_ids, addr));

	return id > 0 ? &c->agents[id - 1] : NULL;
}

int coord_agents_alloc(struct coord *c, size_t n)
{
	struct coord_agent *a;
	struct coord_launcher *l;

	if (n <= c->max_agents)
		return 0;
	a = realloc(c->agents, n * sizeof(*a));
	if (a)
		c->agents = a;
	l = a ? realloc(c->launchers, n * sizeof(*l)) : NULL;
	if (!l)
		return -ENOMEM;
	c->launchers = l;
	memset(a + c->max_agents, 0, (n - c->max_agents) * sizeof(*a));
	memset(l + c->max_agents, 0, (n - c->max_agents) * sizeof(*l));
	c->max_agents = n;
	return 0;
}

void coord_agents_free(struct coord *c)
{
	for (size_t i = 0; i < c->n_agents; i++)
		json_decref(c->agents[i].env);
	free(c->agents);
	free(c->launchers);
	c->agents = NULL;
	c->launchers = NULL;
	c->n_agents = c->max_agents = 0;
}

/* The agent at @addr, added if new (the scenario checked the address). */
static struct coord_agent *coord_agent_add(struct coord *c, const char *addr, bool dest)
{
	struct coord_agent *a = coord_agent_of(c, addr);

	if (!a) {
		a = &c->agents[c->n_agents];
		*a = (struct coord_agent){ .addr = addr, .ch = { .fd = -1 }, .launcher = -1 };
		scenario_agent_addr(addr, a->host, sizeof(a->host), &a->ctl_port);
		a->ctl_port = a->ctl_port ? a->ctl_port : c->sc.agent_port;
		json_object_set_new(c->agent_ids, addr, json_integer((json_int_t)++c->n_agents));
	}
	a->is_dest = a->is_dest || dest;
	return a;
}

/*
 * Every agent of the mesh's hosts and of the flows, once each, the
 * destinations first (their sinks are set up first). Destinations that
 * share a host get data ports of their own: the scenario's data_port,
 * then the next ones.
 */
static int coord_agents(struct coord *c)
{
	json_t *per_host;
	json_int_t k;
	size_t i;

	if (coord_agents_alloc(c, c->n_agents + c->n_hosts + 2 * c->sc.n_flows + 1))
		return -ENOMEM;
	c->agent_ids = json_object();
	per_host = json_object();
	if (!c->agent_ids || !per_host) {
		json_decref(per_host);
		return -ENOMEM;
	}
	for (i = 0; i < c->n_hosts; i++)
		coord_agent_add(c, c->hosts[i], true);
	for (i = 0; i < c->sc.n_flows; i++)
		coord_agent_add(c, c->sc.flows[i].dest, true);
	for (i = 0; i < c->n_agents; i++) {
		k = json_integer_value(json_object_get(per_host, c->agents[i].host));
		c->agents[i].data_port = (uint16_t)(c->sc.data_port + k);
		json_object_set_new(per_host, c->agents[i].host, json_integer(k + 1));
	}
	json_decref(per_host);
	for (i = 0; i < c->sc.n_flows; i++)
		coord_agent_add(c, c->sc.flows[i].host, false);
	return 0;
}

/* Send @m (consumed) to @a and take its answer into *@r. 0 or -errno. */
static int coord_ask(struct coord_agent *a, json_t *m, json_t **r, char *err, size_t errlen)
{
	int ret;

	ret = ctl_send(&a->ch, m, COORD_MSG_MS, err, errlen);
	json_decref(m);
	return ret ? ret : ctl_recv(&a->ch, r, COORD_MSG_MS, err, errlen);
}

/* One time exchange; keep the sample of the fastest round trip. */
static int coord_time(struct coord_agent *a, char *err, size_t errlen)
{
	uint64_t t0, t1;
	json_t *m = ctl_msg("time"), *r;
	int ret;

	t0 = ctl_now_ns();
	ret = coord_ask(a, m, &r, err, errlen);
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
static int coord_sync(struct coord_agent *a, char *err, size_t errlen)
{
	double span;
	int i, ret = 0;

	a->rtt_ns = 0;
	for (i = 0; !ret && i < COORD_TIME_ROUNDS; i++)
		ret = coord_time(a, err, errlen);
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
	if (span >= COORD_RATE_SPAN_NS / 2)
		a->rate = (double)(a->agent_ns - a->first_agent_ns) / span;
	return 0;
}

/* Our time @t_ns on @a's clock. */
static int64_t coord_agent_time(const struct coord_agent *a, uint64_t t_ns)
{
	return a->agent_ns + (int64_t)(a->rate * ((double)t_ns - (double)a->mid_ns));
}

static int coord_hello(struct coord *c, struct coord_agent *a, char *err, size_t errlen)
{
	json_t *r;
	int ret;

	ret = ctl_hello_client(&a->ch, c->token[0] ? c->token : NULL, &r, COORD_MSG_MS, err,
			       errlen);
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
	return ret ? ret : coord_sync(a, err, errlen);
}


/*
 * Connect to @a within the --timeout, trying again while it refuses (it
 * may still be starting); a launcher that ended meanwhile is the answer.
 */
static int coord_reach(struct coord_pool *p, struct coord_agent *a, char *err, size_t errlen)
{
	uint64_t end = ctl_now_ns() + (uint64_t)(p->c->o->timeout_s * 1e9);
	bool ended;
	int fd;

	for (;;) {
		fd = conn_connect(a->host, a->ctl_port, COORD_REACH_SLICE_MS, err, errlen);
		if (fd >= 0 || (fd != -ECONNREFUSED && fd != -ETIMEDOUT))
			return fd;
		pthread_mutex_lock(&p->mu);	/* an srun launcher is every agent's */
		ended = coord_launcher_failed(p->c, a, err, errlen);
		pthread_mutex_unlock(&p->mu);
		if (ended)
			return -ECHILD;
		if (stop_requested())
			return errbuf_set(err, errlen, -EINTR, "interrupted");
		if (ctl_now_ns() >= end)
			return fd;
	}
}

/*
 * @work on every agent whose @out[].todo is set (coord_pool.h); 0, or the
 * first failure in the agents' order, said (coord_fail).
 */
static int coord_pool_all(struct coord *c, coord_work_fn work, struct coord_pool_out *out)
{
	size_t failed;
	int ret = coord_pool_run(c, work, out, &failed);

	if (ret)
		coord_fail(c, &c->agents[failed], NULL, out[failed].state, out[failed].err);
	return ret;
}

/* Reach @a, check it, say hello and sync its clock: a pool's work. */
static int coord_reach_work(struct coord_pool *p, struct coord_agent *a, struct coord_pool_out *o)
{
	int ret = coord_reach(p, a, o->err, sizeof(o->err));

	o->state = "cannot be reached";
	if (ret < 0)
		return ret;
	ctl_chan_init(&a->ch, ret, true);
	ret = coord_tokenless_check(p->c, a->ch.fd, o->err, sizeof(o->err));
	if (ret) {
		o->state = "refused";
		return ret;
	}
	return coord_hello(p->c, a, o->err, sizeof(o->err));
}

/* Sync @a's clock again: a pool's work. */
static int coord_sync_work(struct coord_pool *p, struct coord_agent *a, struct coord_pool_out *o)
{
	(void)p;
	o->state = "is gone";
	return coord_sync(a, o->err, sizeof(o->err));
}

int coord_connect_agents(struct coord *c)
{
	uint64_t t0 = ctl_now_ns();
	struct coord_pool_out *out;
	struct coord_agent *a;
	size_t i;
	int ret;

	if (coord_agents(c))
		return snprintf(c->error, sizeof(c->error), "out of memory"), -ENOMEM;
	if (c->o->launch && (ret = coord_launch(c)))
		return ret;
	out = coord_pool_outs(c);
	if (!out)
		return -ENOMEM;
	for (i = 0; i < c->n_agents; i++)
		out[i].todo = true;
	ret = coord_pool_all(c, coord_reach_work, out);
	free(out);
	if (ret)
		return ret;
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		log_info("agent %s: clock offset %+.3f ms, control round trip %.3f ms", a->addr,
			 (double)(a->agent_ns - (int64_t)a->mid_ns) / 1e6, (double)a->rtt_ns / 1e6);
	}
	c->connect_ms = (double)(ctl_now_ns() - t0) / 1e6;
	/* With a token, an agent that did not prove it was refused above. */
	c->authenticated = c->token[0] != 0;
	if (!c->authenticated)
		log_warn("the agents are not authenticated (no --token-file): on the loopback, "
			 "any local user could have answered in their place");
	return 0;
}

/* Tell @a to stop what it runs, and why (@reason, may be empty): 0, or
 * -errno when it is gone. */
static int coord_send_stop(struct coord_agent *a, const char *reason)
{
	json_t *m = ctl_msg("stop");
	char err[128];
	int ret;

	if (reason[0])
		json_object_set_new(m, "reason", json_stringn(reason, strnlen(reason, 255)));
	ret = ctl_send(&a->ch, m, 1000, err, sizeof(err));
	json_decref(m);
	return ret;
}

/* Tell every agent to stop (best effort) and hang up. */
void coord_hangup(struct coord *c, bool stop)
{
	size_t i;

	for (i = 0; i < c->n_agents; i++) {
		if (c->agents[i].ch.fd < 0)
			continue;
		if (stop)
			coord_send_stop(&c->agents[i], c->error);
		close(c->agents[i].ch.fd);
		ctl_chan_forget(&c->agents[i].ch);
		c->agents[i].ch.fd = -1;
	}
	coord_launch_end(c);
	json_decref(c->agent_ids);
	c->agent_ids = NULL;
}

/* ------------------------------------------------------------------ */
/* One step                                                            */
/* ------------------------------------------------------------------ */

/* Does flow @i run in step @st? */
bool coord_flow_active(const struct coord *c, size_t i, const struct converge_step *st)
{
	unsigned k = 0, active_bw = st->active_bw;
	size_t j;

	if (st->baseline)
		return st->alone == i;
	if (c->sc.flows[i].type == SCENARIO_FLOW_LAT)
		return true;
	for (j = 0; j < i; j++)
		k += c->sc.flows[j].type == SCENARIO_FLOW_BW;
	return k < active_bw;
}

/* Flow @f to the sink of @dest. */
static json_t *coord_flow_json(const struct scenario_flow *f, const struct coord_agent *dest)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "type", json_string(scenario_flow_type_name(f->type)));
	json_object_set_new(o, "dest", json_string(dest->host));
	json_object_set_new(o, "dest_port", json_integer(dest->data_port));
	ctl_flow_spec_pack(o, &f->spec);
	return o;
}

/*
 * SECRET: a fresh secret for flow @f, just added to its source's setup
 * @src_msg: in that flow, and in what the sink of @dst_msg admits (from
 * @src's address, as many connections as the flow makes, its size).
 */
static void coord_flow_secret(const struct scenario_flow *f, const struct coord_agent *src,
			      json_t *src_msg, json_t *dst_msg)
{
	json_t *flows = json_object_get(src_msg, "flows"), *e = json_object();
	char hex[CTL_SECRET_HEX + 1] = "", ip[64] = "?";
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (ctl_secret_new(hex, NULL, 0)) {	/* none: the sink admits nothing of it */
		json_decref(e);
		return;
	}
	if (!getpeername(src->ch.fd, (struct sockaddr *)&ss, &sl))
		conn_addr_ip((struct sockaddr *)&ss, ip, sizeof(ip));
	json_object_set_new(json_array_get(flows, json_array_size(flows) - 1), "secret",
			    json_string(hex));
	json_object_set_new(e, "secret", json_string(hex));
	json_object_set_new(e, "src", json_string(ip));
	json_object_set_new(e, "conns", json_integer(f->spec.threads *
			    (f->type == SCENARIO_FLOW_BW ? f->spec.qps : 1)));
	json_object_set_new(e, "size", json_integer((json_int_t)f->spec.size_bytes));
	if (!json_object_get(dst_msg, "expect"))
		json_object_set_new(dst_msg, "expect", json_array());
	json_array_append_new(json_object_get(dst_msg, "expect"), e);
}

/* A setup for @a: its sink's port and the scenario's settings; no flows yet. */
static json_t *coord_setup_msg(const struct coord *c, const struct coord_agent *a)
{
	const struct scenario *sc = &c->sc;
	json_t *m = ctl_msg("setup");

	json_object_set_new(m, "sink", json_false());
	if (sc->device[0])
		json_object_set_new(m, "device", json_string(sc->device));
	json_object_set_new(m, "ib_port", json_integer(sc->ib_port));
	json_object_set_new(m, "gid_index", json_integer(sc->gid_index));
	json_object_set_new(m, "data_port", json_integer(a->data_port ? a->data_port :
							  sc->data_port));
	json_object_set_new(m, "clock", json_string(clock_source_name(sc->clock)));
	json_object_set_new(m, "yield", json_boolean(sc->yield));
	json_object_set_new(m, "qp_timeout", json_integer(sc->qp_timeout));
	json_object_set_new(m, "retry", json_integer(sc->retry));
	json_object_set_new(m, "flows", json_array());
	return m;
}

/*
 * Every agent's setup for step @st into @msgs, in one pass over the
 * flows: each active flow joins its source's setup and makes its
 * destination a sink. An agent is in the step if it has either role.
 */
static void coord_step_roles(struct coord *c, const struct converge_step *st, json_t *msgs[])
{
	const struct scenario_flow *f;
	struct coord_agent *src, *dst;
	size_t i;

	for (i = 0; i < c->n_agents; i++) {
		msgs[i] = coord_setup_msg(c, &c->agents[i]);
		c->agents[i].in_step = false;
		c->agents[i].done = false;
	}
	for (i = 0; i < c->sc.n_flows; i++) {
		if (!coord_flow_active(c, i, st))
			continue;
		f = &c->sc.flows[i];
		src = coord_agent_of(c, f->host);
		dst = coord_agent_of(c, f->dest);
		json_array_append_new(json_object_get(msgs[src - c->agents], "flows"),
				      coord_flow_json(f, dst));
		coord_flow_secret(f, src, msgs[src - c->agents], msgs[dst - c->agents]);
		json_object_set_new(msgs[dst - c->agents], "sink", json_true());
		src->in_step = dst->in_step = true;
	}
}

/*
 * Wait for @a's answer of @want; an error or anything else fails the run.
 * SIGINT or SIGTERM ends the wait (NULL, with a stop requested).
 */
static json_t *coord_expect(struct coord *c, struct coord_agent *a, const char *want, int tmo_ms)
{
	uint64_t end = ctl_now_ns() + (uint64_t)tmo_ms * 1000000u;
	char err[512];
	json_t *r;
	int ret;

	while (!conn_fd_readable(a->ch.fd)) {
		if (stop_requested()) {
			snprintf(c->error, sizeof(c->error), "interrupted");
			return NULL;
		}
		if (ctl_now_ns() >= end) {
			snprintf(err, sizeof(err), "no answer within %d s", tmo_ms / 1000);
			coord_fail(c, a, NULL, "", err);
			return NULL;
		}
		poll(&(struct pollfd){ .fd = a->ch.fd, .events = POLLIN }, 1, 200);
	}
	ret = ctl_recv(&a->ch, &r, COORD_MSG_MS, err, sizeof(err));
	if (ret) {
		coord_fail(c, a, NULL, "is gone", err);
		return NULL;
	}
	if (!strcmp(ctl_type(r), want))
		return r;
	if (!strcmp(ctl_type(r), "error"))
		coord_fail(c, a, json_string_value(json_object_get(r, "flow")),
			  "", json_string_value(json_object_get(r, "error")));
	else
		coord_fail(c, a, NULL, "", "unexpected message");
	json_decref(r);
	return NULL;
}

/* The environment an agent's first ready told. */
static void coord_keep_env(struct coord_agent *a, const json_t *ready)
{
	json_t *e = json_object_get(ready, "environment");

	if (!a->env && e)
		a->env = json_incref(e);
}

/*
 * Every agent of the step gets its setup, the destinations' first (they
 * come first in c->agents): each listens at once, and its sources then
 * connect to the others' sinks, which refuse no one still starting.
 * Then every ready, with the sockets of each agent's flows in @conns.
 */
int coord_setup(struct coord *c, const struct converge_step *st, json_t *conns[])
{
	json_t **msgs = calloc(c->n_agents + 1, sizeof(*msgs)), *r;
	struct coord_agent *a;
	char err[512];
	size_t i;

	if (!msgs)
		return snprintf(c->error, sizeof(c->error), "out of memory"), -ENOMEM;
	coord_step_roles(c, st, msgs);
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (a->in_step && !c->error[0] &&
		    ctl_send(&a->ch, msgs[i], COORD_MSG_MS, err, sizeof(err)))
			coord_fail(c, a, NULL, "is gone", err);
		json_decref(msgs[i]);
	}
	free(msgs);
	if (c->error[0])
		return -EIO;
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (!a->in_step)
			continue;
		r = coord_expect(c, a, "ready", COORD_SETUP_MS);
		if (!r)
			return stop_requested() ? -EINTR : -EIO;
		conns[i] = json_incref(json_object_get(r, "conns"));
		coord_keep_env(a, r);
		json_decref(r);
	}
	return 0;
}

/* Sync every agent of the step again, all at once; 0 or -errno (c->error set). */
static int coord_sync_step(struct coord *c)
{
	struct coord_pool_out *out = coord_pool_outs(c);
	struct coord_agent *a;
	size_t i;
	int ret;

	if (!out)
		return -ENOMEM;
	for (i = 0; i < c->n_agents; i++)
		out[i].todo = c->agents[i].in_step;
	ret = coord_pool_all(c, coord_sync_work, out);
	free(out);
	for (i = 0; !ret && i < c->n_agents; i++) {
		a = &c->agents[i];
		if (a->in_step && fabs(a->rate - 1) > 0.02)
			log_warn("agent %s: its clock runs at %.3fx ours; its times are scaled "
				 "to match", a->addr, a->rate);
	}
	return ret;
}

uint64_t coord_start_lead_ns(uint64_t sync_ns)
{
	uint64_t lead = COORD_LEAD_NS + sync_ns;

	return lead < COORD_LEAD_MAX_NS ? lead : COORD_LEAD_MAX_NS;
}

/* Sync every agent of the step again, then give each the start on its clock. */
int coord_start(struct coord *c)
{
	struct coord_agent *a;
	char err[512];
	uint64_t at, sync_start_ns;
	json_t *m;
	size_t i;

	/* The first step may come quickly: give the rate its span. */
	for (i = 0; i < c->n_agents; i++)
		if (c->agents[i].in_step)
			while (ctl_now_ns() < c->agents[i].first_mid_ns + COORD_RATE_SPAN_NS && !stop_requested())
				poll(NULL, 0, 50);
	if (stop_requested())
		return snprintf(c->error, sizeof(c->error), "interrupted"), -EINTR;
	sync_start_ns = ctl_now_ns();
	if (coord_sync_step(c))
		return -EIO;
	at = ctl_now_ns();
	at += coord_start_lead_ns(at - sync_start_ns);
	c->window_start_ns = at + (uint64_t)(c->sc.warmup_s * 1e9);
	c->window_end_ns = c->window_start_ns + (uint64_t)(c->sc.duration_s * 1e9);
	c->sw_read[0] = c->sw_read[1] = false;
	c->sw_error[0] = '\0';
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (a->in_step && a->mid_ns - a->first_mid_ns < COORD_RATE_SPAN_NS / 2)
			log_warn("agent %s: clock rate not measured", a->addr);
	}
	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (!a->in_step)
			continue;
		m = ctl_msg("start");
		json_object_set_new(m, "at_ns", json_integer((json_int_t)coord_agent_time(a, at)));
		json_object_set_new(m, "warmup_ms",
				    json_integer((json_int_t)(c->sc.warmup_s * 1000 * a->rate)));
		json_object_set_new(m, "duration_ms",
				    json_integer((json_int_t)(c->sc.duration_s * 1000 * a->rate)));
		if (ctl_send(&a->ch, m, COORD_MSG_MS, err, sizeof(err)))
			coord_fail(c, a, NULL, "is gone", err);
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
static uint64_t coord_stop_step(struct coord *c)
{
	struct coord_agent *a;
	size_t i;

	for (i = 0; i < c->n_agents; i++) {
		a = &c->agents[i];
		if (a->in_step && !a->done && coord_send_stop(a, c->error))
			a->done = true;	/* gone: nothing to wait for */
	}
	return ctl_now_ns() + (uint64_t)COORD_STOP_MS * 1000000u;
}

/* coord_collect() with room for every agent's poll in @pfd and @idx. */
static int coord_collect_poll(struct coord *c, struct pollfd *pfd, size_t *idx)
{
	int tmo_ms = (int)((c->sc.warmup_s + c->sc.duration_s) * 1000) + COORD_SLACK_MS;
	uint64_t end = ctl_now_ns() + (uint64_t)tmo_ms * 1000000u;
	size_t i, n, left;
	struct coord_agent *a;
	bool stopping = false;
	int ret = -EINTR;

	for (;;) {
		for (n = 0, left = 0, i = 0; i < c->n_agents; i++) {
			if (!c->agents[i].in_step || c->agents[i].done)
				continue;
			idx[n] = i;
			pfd[n++] = (struct pollfd){ .fd = c->agents[i].ch.fd, .events = POLLIN };
			left++;
		}
		if (!left) {
			coord_switch_last(c);
			return stopping ? ret : 0;
		}
		if (stop_requested() && !stopping) {
			snprintf(c->error, sizeof(c->error), "interrupted");
			stopping = true;
			end = coord_stop_step(c);
			continue;
		}
		if (ctl_now_ns() > end) {
			if (stopping)
				return ret;	/* what came is kept */
			a = &c->agents[idx[0]];
			coord_fail(c, a, NULL, "", "no result in time");
			return -ETIMEDOUT;
		}
		if (poll(pfd, n, stopping ? 200 : coord_switch_poll(c, 200)) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			a = &c->agents[idx[i]];
			a->result = coord_expect(c, a, "result", COORD_MSG_MS);
			a->done = true;
			if (!a->result && !stopping) {
				ret = -EIO;
				stopping = true;
				end = coord_stop_step(c);
			}
		}
	}
}

/*
 * Results from every agent of the step, in whatever order they come. On
 * SIGINT or SIGTERM (-EINTR), or when an agent fails (-EIO), the others'
 * partial results.
 */
int coord_collect(struct coord *c)
{
	struct pollfd *pfd = calloc(c->n_agents + 1, sizeof(*pfd));
	size_t *idx = calloc(c->n_agents + 1, sizeof(*idx));
	int ret = -ENOMEM;

	if (pfd && idx)
		ret = coord_collect_poll(c, pfd, idx);
	else
		snprintf(c->error, sizeof(c->error), "out of memory");
	free(pfd);
	free(idx);
	return ret;
}
