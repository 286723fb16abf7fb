/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the token's frames on rperf server's data port
 * (rdma/conn.h), which any TCP peer sends once it is challenged, and a
 * client reads from any server it connects to. The input is a frame:
 *
 * - refused exactly when its magic, version or kind (challenge, proof)
 *   is wrong, and only with -EPROTO; an accepted frame packs back to the
 *   same bytes but for those the decoder never reads (the pad after the
 *   kind, the zeros after the mac);
 * - read as a client's proof against a fixed challenge, it passes
 *   exactly when its mac is the token's proof over its own nonce and the
 *   challenge's (conn_auth_prove): no input is taken for a proof it is not.
 */
#include <errno.h>
#include <stdbool.h>

#include "fuzz.h"
#include "rdma/conn.h"

#define FUZZ_AUTH_TOKEN "3f1c9a7be24d8056c1a3e9f7d2b4086a5c7e1f3b9d2a4c6e8f0b1d3a5c7e9f1b"

static const uint8_t fuzz_auth_head[6] = { 'R', 'P', 'R', 'F', 0, CONN_VERSION };
static const uint8_t fuzz_auth_nonce_s[CONN_NONCE_BYTES] = { 0x5a, 0x17, [15] = 0x42 };

/* The decoder's verdict on @frame, and the bytes it packs back to. */
static int fuzz_auth_frame(const uint8_t *frame, struct conn_auth *a)
{
	uint8_t want[CONN_HELLO_BYTES], got[CONN_HELLO_BYTES];
	unsigned kind = (unsigned)frame[6] << 8 | frame[7];
	int valid = !memcmp(frame, fuzz_auth_head, sizeof(fuzz_auth_head)) &&
		    (kind == CONN_AUTH_CHALLENGE || kind == CONN_AUTH_PROOF);
	int rc = conn_auth_unpack(frame, a);

	if (rc != (valid ? 0 : -EPROTO))
		abort();
	if (rc)
		return rc;
	memcpy(want, frame, sizeof(want));
	memset(want + 8, 0, 4);
	memset(want + 60, 0, CONN_HELLO_BYTES - 60);
	conn_auth_pack(a, got);
	if (memcmp(want, got, sizeof(want)))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mac[CONN_MAC_BYTES];
	struct conn_auth a;
	bool pass, real;

	if (size < CONN_HELLO_BYTES || fuzz_auth_frame(data, &a) || a.kind != CONN_AUTH_PROOF)
		return 0;
	pass = conn_auth_verify(FUZZ_AUTH_TOKEN, "client", a.nonce, fuzz_auth_nonce_s, a.mac);
	if (conn_auth_prove(FUZZ_AUTH_TOKEN, "client", a.nonce, fuzz_auth_nonce_s, mac))
		abort();
	real = !memcmp(mac, a.mac, sizeof(mac));
	if (pass != real)
		abort();
	return 0;
}
