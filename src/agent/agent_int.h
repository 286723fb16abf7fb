/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the parts of `rperf agent` share and nothing outside converge
 * includes: a step's state (its flows, its workers, the sink) and each
 * role's setup, run and release for the session (agent_session.c): the
 * sources in agent_source.c, the destination's sink in agent_sink.c. An
 * agent may have both roles in one step (all-to-all): the sink then
 * serves from its own thread from setup on, so that the agent's sources
 * connect to other sinks while its own accepts theirs. The control
 * messages all of them wait on are agent_ctl.h's.
 */
#ifndef RPERF_AGENT_INT_H
#define RPERF_AGENT_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "agent/agent.h"
#include "wire/ctl.h"
#include "flow/flow_spec.h"
#include "engine/load.h"
#include "engine/probe.h"
#include "engine/result.h"
#include "engine/run.h"
#include "engine/sink.h"
#include "rdma/verbs.h"

#define AGENT_MSG_MS		10000	/* one message, once it started */
#define AGENT_IDLE_MS		600000	/* a coordinator that says nothing */
#define AGENT_HELLO_MS		2000	/* a data connection's hello to the sink, from its accept */
#define AGENT_REFUSE_MS		100	/* our refusal to a second coordinator (its buffer is empty) */
#define AGENT_REFUSE_BATCH	16	/* refused at once, between looks at the session */
#define AGENT_TAIL_NS		1000000000ull	/* bw runs on past the window */
#define AGENT_READY_MS		50000	/* a step's workers connected, within the coordinator's 60 s for ready */
/* One flow of a setup, as the message gave it (validated by ctl). */
struct agent_flow {
	char name[CTL_NAME_MAX];
	bool bw;
	struct flow_spec spec;		/* its settings: see flow/flow_spec.h */
	struct verbs_path path;		/* spec's SL and traffic class, the setup's RC knobs */
	char dest[256];			/* the host whose sink it goes to */
	uint16_t dest_port;		/* and that sink's data port */
	uint8_t secret[CONN_SECRET_BYTES];	/* SECRET: shown in its data connections' hello */
};

/* SECRET: a flow the sink admits (the setup's "expect"), and how many of its connections came. */
struct agent_expect {
	char src[64];			/* its source's address */
	uint8_t secret[CONN_SECRET_BYTES];
	unsigned conns, used;
	size_t size_bytes;		/* its messages' largest */
};

/* Everything one step of a session holds; torn down after its result. */
struct agent_step {
	struct agent *agent;		/* the agent that runs the step */
	bool sink_role;			/* a destination of the step */
	uint16_t data_port;		/* its sink's */
	struct verbs_dev dev;
	struct clock_cal clk;
	bool yield;
	struct agent_flow flows[CTL_MAX_FLOWS];
	size_t n_flows;
	/* each flow's source: its workers, made and pinned at setup, wait
	 * at the gate for the start */
	struct run_gate gate;
	struct run_src_cfg src_cfg[CTL_MAX_FLOWS];
	struct run_src src[CTL_MAX_FLOWS];
	size_t n_src;			/* prepared (the last maybe in part) */
	size_t n_w;			/* their workers */
	/* sink: owned by its thread while it runs */
	struct agent_expect expect[CTL_MAX_FLOWS];	/* SECRET: all it admits */
	size_t n_expect;
	struct sink sink;
	bool sink_ok;
	int lfd;
	uint64_t *base_bytes, *base_msgs, *base_errors;
	/* per flow marked: bytes in each ended interval (CTL_INTERVALS a
	 * flow), and its count at the last interval's end */
	uint64_t *iv_bytes, *iv_last;
	unsigned n_iv;			/* intervals ended */
	pthread_t sink_tid;
	bool sink_thread;		/* started */
	volatile sig_atomic_t sink_quit;	/* to the thread: stop serving */
	int sink_ready;			/* from the thread (atomic): sink_res is set */
	int sink_open;			/* from the thread (atomic): a source is still connected */
	json_t *sink_res;		/* what it counted in the window */
	uint64_t sink_refused;		/* SECRET: and the data connections it refused */
	uint64_t sink_window_ns;
	/* the run: at_ns is stored last (atomic), the window with it */
	uint64_t at_ns, warmup_ns, duration_ns;
	volatile sig_atomic_t stop;
	char stop_reason[256];		/* why the step was stopped, if it was */
};

/* agent_session.c: the roles, data port and flows of setup message @m,
 * which ctl_recv() has validated, into @st. Pure. 0, or -EINVAL when a
 * flow's settings do not hold together (*@bad_flow names it, @err why). */
int agent_setup_decode(struct agent_step *st, const json_t *m, const char **bad_flow, char *err,
		       size_t errlen);

/* agent_source.c: lat and bw flows, each to its destination's sink */
int agent_source_setup(struct agent_step *st, json_t *conns, const char **bad_flow, char *err,
		       size_t errlen);
/*
 * The memory a setup @m would make the agent pin for its data buffers:
 * per lat thread 3 buffers of its size (wire, loopback pair), per bw QP
 * one; per connection the sink admits (its "expect"), one of that flow's
 * size; each rounded up to 4 KiB. @st holds the setup's flows (decoded).
 */
size_t agent_pinned_bytes(const struct agent_step *st, const json_t *m);

/* Open the gate to the workers, made and pinned at setup: each runs from st->at_ns. */
void agent_source_start(struct agent_step *st);
/* Join the workers that ended; true when none runs. */
bool agent_source_reap(struct agent_step *st);
/* Each flow's result, for the result message. */
json_t *agent_source_results(struct agent_step *st);
/* The workers' sockets, engines and results; the step's other parts stay. */
void agent_source_release(struct agent_step *st);

/* agent_sink.c: a destination; its thread serves from setup to release */
/*
 * SECRET: the flows setup @m's "expect" lists (ctl-validated; those with
 * a malformed secret left out) into st->expect, the only ones the sink
 * admits, and the sink's admission set to agent_sink_admit().
 */
void agent_sink_expect(struct agent_step *st, const json_t *m);
/*
 * SECRET: admission of a data connection's hello @h from @src_ip (struct
 * sink's admit; @arg the step): the first flow whose secret @h shows
 * decides: from its source (else -EPERM), within its message size (else
 * -EMSGSIZE) and its connections (else -EUSERS; each admitted counted).
 * No flow's secret: -EACCES. 0 or -errno with why in @err.
 */
int agent_sink_admit(void *arg, const struct conn_hello *h, const char *src_ip, char *err,
		     size_t errlen);
int agent_sink_setup(struct agent_step *st, const json_t *m, char *err, size_t errlen);
/* Whether the window's counts are in (st->sink_res, st->sink_window_ns):
 * the window ended, or a stop came. */
bool agent_sink_done(struct agent_step *st);
/* Whether a source is still connected (they run on past the window). */
bool agent_sink_busy(struct agent_step *st);
/* Stop the thread; the sink, its flows' sockets, its listening socket, its marks. */
void agent_sink_release(struct agent_step *st);

#endif
