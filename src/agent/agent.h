/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf agent's entry into the agent layer: the agent's context, which
 * the command fills from its options and its listening socket, the gate
 * that accepts and authenticates coordinators (agent_gate.c), and one
 * coordinator's session served on it (agent_session.c). The rest of the
 * agent (its control helpers, its sources and its sink) stays inside
 * the agent layer.
 */
#ifndef RPERF_AGENT_H
#define RPERF_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/ctl.h"

#define AGENT_MAX_PENDING	32	/* handshakes under way, overall */
#define AGENT_PENDING_PER_ADDR	8	/* and from one source address */
#define AGENT_HANDSHAKE_MS	5000	/* from accept to the agent's hello */
#define AGENT_PINNED_DEFAULT	(1ull << 30)	/* --max-pinned: 1 GiB, a quarter of the unit's MemoryMax */

/* One connection that has not yet proved itself (agent_gate.c). */
struct agent_pending {
	struct ctl_chan ch;		/* ch.fd -1: a free slot */
	char from[64];			/* its source address, without the port */
	uint64_t deadline_ns;		/* dropped if not through by then */
	bool challenged;		/* our challenge went out: its auth is due */
	char theirs[CTL_NONCE_HEX + 1], mine[CTL_NONCE_HEX + 1];
};

/*
 * What every part of a running agent shares, passed explicitly: the
 * control port (so that a second coordinator is refused while one is
 * served), the token a coordinator must show, who is being served, and
 * the handshakes under way.
 */
struct agent {
	int lfd;			/* the control port, -1: none to watch */
	const char *token;		/* NULL: none asked for (loopback) */
	const char *bind;		/* the address the ports are on; NULL: every address */
	char peer[64];			/* the coordinator being served */
	size_t max_pinned_bytes;	/* a step's buffers, at most (--max-pinned) */
	struct agent_pending pend[AGENT_MAX_PENDING];
	unsigned dropped;		/* connections dropped without a handshake, not yet logged */
};

/* @a listening on @lfd, asking @token (NULL: none) of every coordinator. */
void agent_gate_init(struct agent *a, int lfd, const char *token);
/*
 * Accept and authenticate connections on @a's port, all at once in one
 * poll loop, for up to @tmo_ms or until @watch_fd (-1: none) is readable
 * or a stop is requested. Each handshake must be through within
 * AGENT_HANDSHAKE_MS; past AGENT_MAX_PENDING (or AGENT_PENDING_PER_ADDR
 * from one address) the least advanced, oldest one makes room. True with
 * the first coordinator through in @ch (its socket is the caller's to
 * close); the others still under way stay pending.
 */
bool agent_gate_wait(struct agent *a, int watch_fd, int tmo_ms, struct ctl_chan *ch);
/* Drop every handshake under way (a session starts, or the agent ends). */
void agent_gate_drop(struct agent *a);

/*
 * Serve the coordinator on @ch, through the gate, until it hangs up,
 * fails, or a stop is requested: its steps. Logs how it ended; the
 * caller closes the socket.
 */
void agent_session_serve(struct agent *a, struct ctl_chan *ch);

#endif
