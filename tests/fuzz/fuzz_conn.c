/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the connection frames a server reads from any TCP
 * peer before it trusts it (rdma/conn.c). The input is a session as it
 * arrives on a flow's socket: one hello frame, then fixed message frames,
 * until a frame is refused or the input ends (a short tail is a peer that
 * closed mid-frame and never reaches a decoder).
 *
 * A frame is refused exactly when its magic, version or kind is wrong,
 * and only with -EPROTO; an accepted frame packs back to the same bytes
 * (for a hello: but for the bits the decoder drops, the top byte of the
 * 24-bit QPN and PSN).
 */
#include <errno.h>

#include "fuzz.h"
#include "rdma/conn.h"

static const uint8_t fuzz_conn_head[6] = { 'R', 'P', 'R', 'F', 0, CONN_VERSION };

/* A decoder's answer @rc to @frame, whose kinds are [lo, hi], once it is
 * known to be right: 0 for a frame it had to accept, else -EPROTO. */
static int fuzz_conn_verdict(int rc, const uint8_t *frame, unsigned lo, unsigned hi)
{
	unsigned kind = (unsigned)frame[6] << 8 | frame[7];
	int valid = !memcmp(frame, fuzz_conn_head, sizeof(fuzz_conn_head)) &&
		    kind >= lo && kind <= hi;

	if (rc != (valid ? 0 : -EPROTO))
		abort();
	return rc;
}

/* 0 when the hello is accepted, -EPROTO when refused. */
static int fuzz_conn_hello(const uint8_t *frame)
{
	uint8_t want[CONN_HELLO_BYTES], got[CONN_HELLO_BYTES];
	struct conn_hello h;

	if (fuzz_conn_verdict(conn_hello_unpack(frame, &h), frame,
			      CONN_HELLO_CLIENT, CONN_HELLO_ATTACH))
		return -EPROTO;
	memcpy(want, frame, sizeof(want));
	want[12] = want[16] = 0;	/* qpn, psn: 24 bits */
	conn_hello_pack(&h, got);
	if (memcmp(want, got, sizeof(want)))
		abort();
	return 0;
}

/* 0 when the message is accepted, -EPROTO when refused. */
static int fuzz_conn_msg(const uint8_t *frame)
{
	uint8_t got[CONN_MSG_BYTES];
	struct conn_msg m;

	if (fuzz_conn_verdict(conn_msg_unpack(frame, &m), frame, CONN_MSG_QUERY, CONN_MSG_LAST))
		return -EPROTO;
	conn_msg_pack(&m, got);
	if (memcmp(frame, got, sizeof(got)))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = CONN_HELLO_BYTES;

	if (size < CONN_HELLO_BYTES || fuzz_conn_hello(data))
		return 0;
	while (size - at >= CONN_MSG_BYTES && !fuzz_conn_msg(data + at))
		at += CONN_MSG_BYTES;
	return 0;
}
