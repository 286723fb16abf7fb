/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: an rdma_cm event's private data, which any peer that
 * reaches the port chooses. The input is read both ways:
 *
 * - as a connection request to rperf server --rdma-cm
 *   (conn_cm_request_take): taken exactly when its first
 *   CONN_HELLO_REQ_BYTES are a client hello of our version, packing back
 *   to those bytes with a zero secret; then the server's admission of it
 *   (server_admit_check, on a sink with no flow), which must refuse it
 *   with -EDQUOT exactly when what the flow would pin exceeds the cap,
 *   never less than the message size asked;
 * - as the server's answer or rejection to a client (conn_cm_answer_take):
 *   taken exactly when it holds a whole server hello, packing back to
 *   the same bytes; its status becomes the client's -errno and message
 *   (conn_refused), whatever it is (a status of INT_MIN was negated, and
 *   a positive one returned where a socket was due).
 *
 * The first input byte, read as flags, gives the sink huge pages (bit 0).
 */
#include <errno.h>

#include "fuzz.h"
#include "engine/server.h"
#include "rdma/conn.h"

static const uint8_t fuzz_cm_head[6] = { 'R', 'P', 'R', 'F', 0, CONN_VERSION };

/* Whether @frame's head and kind are what a decoder of kind @kind must take. */
static int fuzz_cm_valid(const uint8_t *frame, unsigned kind)
{
	return !memcmp(frame, fuzz_cm_head, sizeof(fuzz_cm_head)) &&
	       ((unsigned)frame[6] << 8 | frame[7]) == kind;
}

/* @h packs back to @len bytes of @frame (but for the bits the decoder drops). */
static void fuzz_cm_repack(const struct conn_hello *h, const uint8_t *frame, size_t len)
{
	uint8_t want[CONN_HELLO_BYTES] = { 0 }, got[CONN_HELLO_BYTES];

	memcpy(want, frame, len);
	want[12] = want[16] = 0;	/* qpn, psn: 24 bits */
	conn_hello_pack(h, got);
	if (memcmp(want, got, sizeof(want)))
		abort();
}

/* The server's admission of request @h on an empty sink: refused only over the cap. */
static void fuzz_cm_admit(const struct conn_hello *h, bool huge)
{
	struct server_caps caps = { .max_clients = 1, .max_client_bytes = SERVER_CLIENT_BYTES };
	struct sink s = { .ring_depth = 512, .hugepages = huge };
	size_t pin = sink_flow_pin_bytes(&s, h->max_msg_bytes);
	char err[256];
	int rc = server_admit_check(&s, &caps, "198.18.0.1", pin, err, sizeof(err));

	if (pin < h->max_msg_bytes || rc != (pin > caps.max_client_bytes ? -EDQUOT : 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conn_hello h;
	char err[256];
	int rc;

	rc = conn_cm_request_take(data, size, &h);
	if (rc != (size >= CONN_HELLO_REQ_BYTES && fuzz_cm_valid(data, CONN_HELLO_CLIENT) ?
		   0 : -EPROTO))
		abort();
	if (!rc) {
		fuzz_cm_repack(&h, data, CONN_HELLO_REQ_BYTES);
		fuzz_cm_admit(&h, size > 0 && (data[0] & 1));
	}
	rc = conn_cm_answer_take(data, size, &h);
	if (rc != (size >= CONN_HELLO_BYTES && fuzz_cm_valid(data, CONN_HELLO_SERVER) ? 0 : -EPROTO))
		abort();
	if (!rc) {
		fuzz_cm_repack(&h, data, CONN_HELLO_BYTES);
		rc = conn_refused(err, sizeof(err), "B", h.status);
		if (rc >= 0 || rc <= -CONN_ERRNO_MAX || strncmp(err, "server 'B' refused", 18))
			abort();
	}
	return 0;
}
