/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the parts of `rperf converge` share and nothing outside them
 * includes: the run's state (the scenario, the agents and their clocks,
 * the steps measured so far), the agents' control session for the
 * command's top level (coord_session.c), and turning what the agents sent
 * into a step's flows, classes and shares (coord_results.c).
 */
#ifndef RPERF_COORD_H
#define RPERF_COORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/env.h"
#include "base/jsonfile.h"
#include "qos/arb.h"
#include "wire/ctl.h"
#include "coord/step.h"
#include "coord/scenario.h"

struct converge_opts {
	const char *scenario;
	double tolerance_pp;
	const char *json_path;
	const char *json_stream_path;	/* --json-stream: one event a line */
	const char *csv_path;
	bool sweep;
	bool fit_best;			/* --fit best: the verdict follows the best reading */
	enum scenario_baseline baseline;	/* --baseline: overrides the scenario's */
	bool baseline_set;
	const char *launch;		/* "ssh", "srun" or NULL */
	const char *agent_cmd;		/* with --launch: the rperf to start */
	const char *token_file;
	const char *arbitration;	/* overrides the scenario's */
	double timeout_s;
	bool help;
};

struct coord_agent {
	const char *addr;		/* as the flows name it: HOST or HOST:PORT */
	char host[SCENARIO_HOST_MAX];	/* what its control and data ports are on */
	uint16_t ctl_port, data_port;	/* its sink's, when it is a destination */
	bool is_dest;			/* of some flow of the scenario */
	struct ctl_chan ch;		/* its control connection; ch.fd -1: none */
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
	int launcher;			/* its launcher in coord's, or -1 */
	bool in_step;			/* has a setup in the current step */
	bool done;			/* answered the current step */
	json_t *result;
	json_t *env;			/* its run_env_json(), from its first ready */
};

/* A process that started agents (coord_launch.c): ssh, one agent; srun, all. */
struct coord_launcher {
	char what[96];			/* "ssh h2", "srun": for errors */
	pid_t pid;			/* 0 once reaped */
	int token_fd;			/* ssh: the token's pipe, open while it runs */
	int log_fd;			/* what it and its agent wrote (a memfd) */
	int status;			/* once ended */
	bool ended, reported;
};

struct coord {
	const struct converge_opts *o;
	struct scenario sc;
	struct arb_config cfg;
	bool have_cfg;
	enum scenario_baseline baseline;	/* the option's, else the scenario's */
	char arb_name[SCENARIO_PATH_MAX * 2];	/* what c->cfg was read from, for reports */
	char dests_name[1024];			/* "h3" or "h1, h2, h3": the destinations */
	char semantics_name[64];		/* ib-packet's configured reading; "": ETS */
	char token[CTL_MAX_TOKEN_BYTES];
	/* The agents, room for max_agents (coord_agents_alloc(): a mesh's
	 * hosts and each flow's two ends), and as many launchers. */
	struct coord_agent *agents;
	size_t n_agents, max_agents;
	json_t *agent_ids;		/* an agent's address -> its index + 1 */
	double connect_ms;		/* to reach, authenticate and sync them all */
	bool authenticated;		/* every agent reached proved the token */
	struct coord_launcher *launchers;
	size_t n_launchers;
	struct converge_step *steps;
	size_t n_steps;
	/*
	 * A mesh's hosts (their agents' addresses, kept by the caller): each
	 * an agent and a destination, in this order, before any flow's;
	 * the flows of each step then name them. NULL: the flows' hosts.
	 */
	const char *const *hosts;
	size_t n_hosts;
	struct jsonl *stream;		/* --json-stream, or NULL */
	struct run_env env;		/* the coordinator's host */
	bool stream_failed;
	char error[512];
	/* The step's window on our clock, and the switch's counters at its
	 * start [0] and end [1] (coord_switch.c). */
	uint64_t window_start_ns, window_end_ns;
	bool sw_read[2];
	uint64_t sw_bytes[2][ARB_MAX_BANDS];
	int sw_bands;
	char sw_error[256];
};

/* coord_run.c: a run, from its inputs to its last step */
/*
 * What the caller hears of a run as it goes: its start (before the
 * agents are reached), each step as it ends (c->steps[@index], complete
 * or cut short) and its end (the agents hung up, c->error set when it
 * failed).
 */
struct coord_events {
	void (*start)(void *arg, struct coord *c);
	void (*step)(void *arg, struct coord *c, size_t index);
	void (*end)(void *arg, struct coord *c);
	void *arg;
};
/*
 * c->o's scenario, its destinations, its arbitration (c->cfg, when it
 * names one) and the token into @c. 0; -EINVAL (the user's inputs) or
 * -EIO (a fabric that could not be read), each said.
 */
int coord_inputs(struct coord *c);
/* Every step of the run, in order, @ev told of each. 0 or -errno (c->error set). */
int coord_run(struct coord *c, const struct coord_events *ev);
/* What the run holds: the agents' environments, the steps and their histograms. */
void coord_release(struct coord *c);

/* coord_switch.c: the switch's per-band counters, read around the window */
/* Read them if one is due; returns the ms to the next read (at most @max_ms). */
int coord_switch_poll(struct coord *c, int max_ms);
/* Every agent has reported: the end's read now if it is still due. */
void coord_switch_last(struct coord *c);
void coord_switch_results(struct coord *c, struct converge_step *st);

/* coord_launch.c: --launch ssh|srun */
/* Start the agents of c->agents; 0, or -errno with c->error set. */
int coord_launch(struct coord *c);
/* Has @a's launcher ended before its agent answered? The reason in @err. */
bool coord_launcher_failed(struct coord *c, const struct coord_agent *a, char *err, size_t errlen);
/* End the launchers (after the agents' hang-up); report those that failed. */
void coord_launch_end(struct coord *c);

/* coord_trust.c: what is not taken on trust */
/*
 * Without a token (c->token empty), the peer on @fd must be on the
 * loopback: an agent anywhere else always asks for a token, so a peer
 * there can only be an impostor. 0, or -EACCES naming --token-file.
 */
int coord_tokenless_check(const struct coord *c, int fd, char *err, size_t errlen);
/*
 * Could a flow from agent @from (NULL: not known) into @dest have carried
 * @gbps? Not above the slowest of the port rates the two agents gave and
 * @link_gbps (the scenario's link_rate; 0: not given), with 2 % for the
 * clocks: 0, or -EPROTO with the reason in @why. 0 when no rate is known.
 */
int coord_rate_check(const struct coord_agent *dest, const struct coord_agent *from,
		     double link_gbps, double gbps, char *why, size_t len);

/* coord_session.c: the agents' control connections */
/* Room for @n agents and their launchers, kept when there is already as
 * much (the agents added so far stay): 0 or -ENOMEM. */
int coord_agents_alloc(struct coord *c, size_t n);
/* What the agents hold (their env) and their room; after coord_hangup(). */
void coord_agents_free(struct coord *c);
/* The agent at @addr (as a flow names it), or NULL. */
struct coord_agent *coord_agent_of(struct coord *c, const char *addr);
int coord_connect_agents(struct coord *c);
/*
 * How far ahead of now a step's start is set, after a sync pass of
 * @sync_ns: half a second plus as long again, since the starts go out
 * one agent at a time as the syncs do and the last to hear of it still
 * needs the lead; never past a second under CTL_START_LEAD_MAX_S, which
 * an agent refuses. Pure.
 */
uint64_t coord_start_lead_ns(uint64_t sync_ns);
void coord_hangup(struct coord *c, bool stop);
bool coord_flow_active(const struct coord *c, size_t i, const struct converge_step *st);
int coord_setup(struct coord *c, const struct converge_step *st, json_t *conns[]);
int coord_start(struct coord *c);
int coord_collect(struct coord *c);

/* coord_results.c: what the agents measured, into a step */
/*
 * One step into c->steps[c->n_steps] (which the caller sized), then
 * n_steps + 1: set up the flows coord_flow_active() admits (@active_bw bw
 * flows; or, @baseline, flow @alone by itself), start them together,
 * collect, read the results. Partial results are kept (cut_short); 0 or
 * -errno with c->error set.
 */
int coord_run_step(struct coord *c, unsigned active_bw, bool baseline, size_t alone);
void coord_step_flows(struct coord *c, struct converge_step *st);
int coord_step_results(struct coord *c, struct converge_step *st, json_t *conns[]);

/* coord_judge.c: the scenario's criteria on every flow that ran in step @st */
void coord_judge(const struct coord *c, struct converge_step *st);
/*
 * A lat flow's result @r (validated by ctl_recv(): "rtt" a histogram in
 * its agent's ticks, "ticks_per_ns" their rate) into @cf->rtt, and into
 * class @k's histogram in ns (@k may be NULL), @rate being its agent's
 * clock against ours. A histogram that does not unpack is left out; a
 * flow keeps its first. Pure but for a warning when @k cannot hold it.
 */
void coord_flow_rtt(struct converge_flow *cf, struct converge_class *k, const json_t *r,
		    double rate);

#endif
