/*
 * What the parts of `rperf agent` share and nothing outside them
 * includes: a step's state (its flows, its workers, the sink), the
 * session's control messages the sink and the sources wait on, and each
 * role's setup and run for the session (agent_session.c): the sources in
 * agent_source.c, the destination's sink in agent_sink.c.
 */
#ifndef RPERF_AGENT_INT_H
#define RPERF_AGENT_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "converge/ctl.h"
#include "engine/load.h"
#include "engine/probe.h"
#include "engine/result.h"
#include "engine/sink.h"
#include "rdma/verbs.h"

#define AGENT_MSG_MS		10000	/* one message, once it started */
#define AGENT_IDLE_MS		600000	/* a coordinator that says nothing */
#define AGENT_HELLO_MS		5000
#define AGENT_TAIL_NS		1000000000ull	/* bw runs on past the window */

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

/* The control port while a session runs (-1 otherwise): others are refused. */
extern int agent_lfd;

/* agent_session.c: the messages and the coordinators waiting */
int agent_jint(const json_t *o, const char *k);
void agent_session(int cfd, const char *token);
void agent_refuse_waiting(void);
int agent_ctl_next(int cfd, json_t **m, int tmo_ms, char *err, size_t errlen);
void agent_set_window(struct agent_step *st, const json_t *m);
int agent_run_ctl(struct agent_step *st, int cfd, char *err, size_t errlen);

/* agent_source.c: lat and bw flows to the destination */
size_t agent_worker_fds(const struct agent_worker *w, int *fds, size_t cap);
int agent_source_setup(struct agent_step *st, const json_t *m, json_t *conns,
		       const char **bad_flow, char *err, size_t errlen);
int agent_source_run(struct agent_step *st, int cfd, char *err, size_t errlen);

/* agent_sink.c: the destination */
int agent_sink_setup(struct agent_step *st, const json_t *m, char *err, size_t errlen);
int agent_sink_run(struct agent_step *st, int cfd, char *err, size_t errlen);

#endif
