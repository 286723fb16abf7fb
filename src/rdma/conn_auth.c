/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The token's proofs on a flow's socket (conn.h): a server started with
 * --token-file admits only clients that hold the same token, and a
 * client that holds one accepts only a server that proves it. The HMAC
 * and the comparison are base/token.c's, the same as converge's; this
 * file binds them to the data port's label, roles and frames, and plays
 * the client's side (the server's is the sink's, engine/sink_auth.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/rand.h>

#include "base/errbuf.h"
#include "base/token.h"
#include "rdma/conn.h"

int conn_auth_nonce(uint8_t nonce[CONN_NONCE_BYTES])
{
	return RAND_bytes(nonce, CONN_NONCE_BYTES) == 1 ? 0 : -EIO;
}

int conn_auth_prove(const char *token, const char *who, const uint8_t mine[CONN_NONCE_BYTES],
		    const uint8_t theirs[CONN_NONCE_BYTES], uint8_t mac[CONN_MAC_BYTES])
{
	char m[2 * CONN_NONCE_BYTES + 1], t[2 * CONN_NONCE_BYTES + 1], hex[TOKEN_MAC_HEX + 1];
	unsigned i, b;

	token_hex(mine, CONN_NONCE_BYTES, m);
	token_hex(theirs, CONN_NONCE_BYTES, t);
	if (token_mac(token, CONN_AUTH_LABEL, who, m, t, hex))
		return -EIO;
	for (i = 0; i < CONN_MAC_BYTES; i++) {
		sscanf(hex + 2 * i, "%2x", &b);
		mac[i] = (uint8_t)b;
	}
	return 0;
}

bool conn_auth_verify(const char *token, const char *who, const uint8_t mine[CONN_NONCE_BYTES],
		      const uint8_t theirs[CONN_NONCE_BYTES], const uint8_t mac[CONN_MAC_BYTES])
{
	char m[2 * CONN_NONCE_BYTES + 1], t[2 * CONN_NONCE_BYTES + 1], got[TOKEN_MAC_HEX + 1];

	token_hex(mine, CONN_NONCE_BYTES, m);
	token_hex(theirs, CONN_NONCE_BYTES, t);
	token_hex(mac, CONN_MAC_BYTES, got);
	return token_check(token, CONN_AUTH_LABEL, who, m, t, got);
}

/*
 * A hello that came where a proof was due (@r, read from @frame): a
 * refusal is the server's word and passes on; an admission is not taken
 * from a server that did not prove our @token. 0 or -EACCES.
 */
static int auth_unproven(const uint8_t frame[CONN_HELLO_BYTES], const char *token,
			 struct conn_hello *r, char *why, size_t whylen)
{
	int ret = conn_hello_unpack(frame, r);

	if (ret || !token || r->kind != CONN_HELLO_SERVER || r->status)
		return ret;
	return errbuf_set(why, whylen, -EACCES, "it admitted the flow without proving our "
			  "token: it was started without --token-file (or is not the server "
			  "that holds the token)");
}

/* Our proof for challenge @ch, with our fresh nonce in @mine, sent on @fd. */
static int auth_answer(int fd, const char *token, const struct conn_auth *ch,
		       uint8_t mine[CONN_NONCE_BYTES], int timeout_ms)
{
	struct conn_auth a = { .kind = CONN_AUTH_PROOF };
	uint8_t frame[CONN_HELLO_BYTES];

	if (conn_auth_nonce(mine) || conn_auth_prove(token, "client", mine, ch->nonce, a.mac))
		return -EIO;
	memcpy(a.nonce, mine, CONN_NONCE_BYTES);
	conn_auth_pack(&a, frame);
	return conn_write_full(fd, frame, sizeof(frame), timeout_ms);
}

int conn_auth_client(int fd, const char *token, struct conn_hello *r, int timeout_ms, char *why,
		     size_t whylen)
{
	uint8_t frame[CONN_HELLO_BYTES], mine[CONN_NONCE_BYTES];
	struct conn_auth ch, a;
	int ret;

	ret = conn_read_full(fd, frame, sizeof(frame), timeout_ms);
	if (ret)
		return ret;
	if (conn_auth_unpack(frame, &ch))
		return auth_unproven(frame, token, r, why, whylen);
	if (ch.kind != CONN_AUTH_CHALLENGE)
		return -EPROTO;
	if (!token)
		return errbuf_set(why, whylen, -ENOKEY, "the server requires a token: "
				  "--token-file");
	ret = auth_answer(fd, token, &ch, mine, timeout_ms);
	if (!ret)
		ret = conn_read_full(fd, frame, sizeof(frame), timeout_ms);
	if (ret)
		return ret;
	/* A refusal (a wrong token) comes as a hello; an admission only after the proof. */
	if (conn_auth_unpack(frame, &a))
		return auth_unproven(frame, token, r, why, whylen);
	if (a.kind != CONN_AUTH_PROOF || !conn_auth_verify(token, "server", ch.nonce, mine, a.mac))
		return errbuf_set(why, whylen, -EACCES, "its proof does not match our token: it "
				  "is not the server that holds it");
	return conn_recv_hello(fd, r, timeout_ms);
}
