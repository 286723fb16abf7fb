/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf agent's entry into the converge layer: the agent's context, which
 * the command fills from its options and its listening socket, and one
 * coordinator's session served on it (agent_session.c). The rest of the
 * agent (its control helpers, its sources and its sink) stays inside
 * converge.
 */
#ifndef RPERF_AGENT_H
#define RPERF_AGENT_H

/*
 * What every part of a running agent shares, passed explicitly: the
 * control port (so that a second coordinator is refused while one is
 * served), the token a coordinator must show, and who is being served.
 */
struct agent {
	int lfd;			/* the control port, -1: none to watch */
	const char *token;		/* NULL: none asked for (loopback) */
	char peer[64];			/* the coordinator being served */
};

/*
 * Serve the coordinator on @cfd until it hangs up, fails, or a stop is
 * requested: its hello and token, then its steps. Logs how it ended;
 * the caller closes @cfd.
 */
void agent_session_serve(struct agent *a, int cfd);

#endif
