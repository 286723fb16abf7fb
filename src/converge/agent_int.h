/*
 * What the parts of `rperf agent` share and nothing outside converge
 * includes: a step's state (its flows, its workers, the sink) and each
 * role's setup, run and release for the session (agent_session.c): the
 * sources in agent_source.c, the destination's sink in agent_sink.c. The
 * control messages all of them wait on are agent_ctl.h's.
 */
#ifndef RPERF_AGENT_INT_H
#define RPERF_AGENT_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "converge/agent.h"
#include "converge/ctl.h"
#include "engine/load.h"
#include "engine/probe.h"
#include "engine/result.h"
#include "engine/sink.h"
#include "rdma/verbs.h"

#define AGENT_MSG_MS		10000	/* one message, once it started */
#define AGENT_IDLE_MS		600000	/* a coordinator that says nothing */
#define AGENT_HELLO_MS		5000
#define AGENT_REFUSE_MS		500	/* a second coordinator's hello and our answer */
#define AGENT_TAIL_NS		1000000000ull	/* bw runs on past the window */

/* One flow of a setup, as the message gave it (validated by ctl). */
struct agent_flow {
	char name[CTL_NAME_MAX];
	bool bw;
	struct verbs_path path;
	size_t size_bytes;
	uint64_t rate_bps;		/* the whole flow's; 0: unpaced */
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
	struct agent *agent;		/* the agent that runs the step */
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

/* agent_source.c: lat and bw flows to the destination */
int agent_source_setup(struct agent_step *st, const json_t *m, json_t *conns,
		       const char **bad_flow, char *err, size_t errlen);
int agent_source_run(struct agent_step *st, int cfd, char *err, size_t errlen);
/* The workers' sockets, engines and results; the step's other parts stay. */
void agent_source_release(struct agent_step *st);

/* agent_sink.c: the destination */
int agent_sink_setup(struct agent_step *st, const json_t *m, char *err, size_t errlen);
int agent_sink_run(struct agent_step *st, int cfd, char *err, size_t errlen);
/* The sink, its flows' sockets, its listening socket and its marks. */
void agent_sink_release(struct agent_step *st);

#endif
