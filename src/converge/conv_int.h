/*
 * What the parts of `rperf converge` share and nothing outside them
 * includes: the run's state (the scenario, the agents and their clocks,
 * the steps measured so far), the agents' control session for the
 * command's top level (conv_session.c), and turning what the agents sent
 * into a step's flows, classes and shares (conv_results.c).
 */
#ifndef RPERF_CONV_INT_H
#define RPERF_CONV_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "qos/arb.h"
#include "converge/ctl.h"
#include "converge/step.h"
#include "converge/scenario.h"

#define CONV_MAX_HOSTS		(SCEN_MAX_FLOWS + 1)

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
	/* The step's window on our clock, and the switch's counters at its
	 * start [0] and end [1] (conv_switch.c). */
	uint64_t window_start_ns, window_end_ns;
	bool sw_read[2];
	uint64_t sw_bytes[2][ARB_MAX_BANDS];
	int sw_bands;
	char sw_error[256];
};

/* conv_switch.c: the switch's per-band counters, read around the window */
/* Read them if one is due; returns the ms to the next read (at most @max_ms). */
int conv_switch_poll(struct conv *c, int max_ms);
void conv_switch_results(struct conv *c, struct converge_step *st);

/* conv_session.c: the agents' control connections */
int conv_connect_agents(struct conv *c);
void conv_hangup(struct conv *c, bool stop);
bool conv_flow_active(const struct conv *c, size_t i, unsigned active_bw);
int conv_setup(struct conv *c, unsigned active_bw, json_t *conns[]);
int conv_start(struct conv *c);
int conv_collect(struct conv *c);

/* conv_results.c: what the agents measured, into a step */
void conv_step_flows(struct conv *c, struct converge_step *st);
int conv_step_results(struct conv *c, struct converge_step *st, json_t *conns[]);

#endif
