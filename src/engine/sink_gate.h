/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The sink's data port, before a hello: every connection is accepted at
 * once and kept pending, without any read that could wait, until its
 * whole hello (CONN_HELLO_BYTES) is in the kernel; one that is not by
 * its deadline is closed, and so is the oldest of an address (or of all)
 * once its cap is reached. So no peer, idle or slow, holds up the sink's
 * thread, which keeps posting RECVs whatever the port sees. Drops are
 * counted, and told once the pending set is empty again (a count, not a
 * line each). Sockets only: the unit tests drive it on the loopback.
 * A server with a token parks a connection again once challenged
 * (sink_gate_park), until its proof, a frame of the same size, is whole.
 */
#ifndef RPERF_SINK_GATE_H
#define RPERF_SINK_GATE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdma/conn.h"

#define SINK_GATE_MAX		32	/* connections pending a hello, overall */
#define SINK_GATE_PER_ADDR	8	/* and from one source address */
#define SINK_GATE_BATCH		8	/* accepted per pass */

struct sink_pending {
	int fd;				/* -1: a free slot */
	char from[48];			/* its source address alone */
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC */
	bool proving;			/* challenged: its next frame is the proof */
	uint8_t hello[CONN_HELLO_BYTES];	/* then: the hello it came with */
	uint8_t nonce[CONN_NONCE_BYTES];	/* and the challenge's nonce */
};

struct sink_gate {
	struct sink_pending pend[SINK_GATE_MAX];
	uint64_t dropped;		/* closed without a hello, ever */
	uint64_t untold;		/* of those, not yet told (sink_gate_expire) */
	unsigned accepted;		/* this pass (sink_gate_poll starts one) */
	struct sink_pending taken;	/* the slot sink_gate_next() last handed over
					 * (proving: the frame is a proof) */
};

void sink_gate_init(struct sink_gate *g);
/* Close every pending connection (not counted). */
void sink_gate_release(struct sink_gate *g);

/*
 * A pass begins: the pending connections' slots in @pfd (SINK_GATE_MAX of
 * them, fd -1 for a free slot) for poll().
 */
void sink_gate_poll(struct sink_gate *g, struct pollfd pfd[SINK_GATE_MAX]);

/*
 * After poll(): the next connection whose hello is whole, its bytes read
 * into @frame and its socket handed over in *@fd (blocking, close-on-exec),
 * 1; 0 when none is left in this pass. The slots poll() found readable
 * are looked at first, then newcomers on @lfd (when @lfd_ready; at most
 * SINK_GATE_BATCH a pass, each given @hello_ms for its hello). Hung up,
 * crowded out: closed and counted.
 */
int sink_gate_next(struct sink_gate *g, struct pollfd pfd[SINK_GATE_MAX], int lfd,
		   bool lfd_ready, int hello_ms, int *fd, uint8_t frame[CONN_HELLO_BYTES]);

/*
 * Park @fd (taken from the gate, its challenge sent) until its proof is
 * whole, within @wait_ms, with the @hello it came with and the
 * challenge's @nonce; the gate owns @fd from here (the oldest pending
 * one dropped if the gate is full).
 */
void sink_gate_park(struct sink_gate *g, int fd, const uint8_t hello[CONN_HELLO_BYTES],
		    const uint8_t nonce[CONN_NONCE_BYTES], int wait_ms);

/*
 * Close the connections past their deadline (counted). Once none is
 * pending, how many were dropped since last told (then 0 again), for the
 * caller's one line; 0 while some are pending or none was dropped.
 */
uint64_t sink_gate_expire(struct sink_gate *g);

#endif
