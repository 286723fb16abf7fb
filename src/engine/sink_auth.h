/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The server's side of the token's proofs on the sink's data port
 * (rdma/conn.h has the exchange): between a client's hello and its
 * answer, a sink with a token challenges the client, parks it in the
 * gate until its proof is whole, checks it and proves the token back.
 */
#ifndef RPERF_SINK_AUTH_H
#define RPERF_SINK_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/sink_gate.h"

/*
 * The token's step for a connection gate @g handed over on @fd with
 * @frame (g->taken says whether it was challenged already), for a sink
 * with @token (NULL: none): 1 when its hello, in @hello, is to be served
 * (*@proven: it proved the token); 0 when it was challenged and parked
 * in @g (for @wait_ms); -errno when refused (answered, closed, counted
 * in *@refused), the reason naming the client in @err. Without a token,
 * every hello is served unproven.
 */
int sink_auth_step(const char *token, struct sink_gate *g, uint64_t *refused, int fd,
		   const uint8_t frame[CONN_HELLO_BYTES], int wait_ms,
		   uint8_t hello[CONN_HELLO_BYTES], bool *proven, char *err, size_t errlen);

#endif
