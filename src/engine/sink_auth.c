/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The server's side of the token's proofs (rdma/conn.h), between a
 * client's hello and its answer: a sink with a token serves no hello
 * whose client has not proved the token, and proves it back. The
 * challenged connection waits in the gate like a hello (sink_gate_park),
 * so a client that never answers holds up nothing.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "engine/sink_auth.h"

#define SINK_AUTH_SEND_MS	100	/* a fresh socket's send buffer takes a frame at once */

/* Refuse @fd with @status in a server hello, closed and counted in @refused. */
static int auth_refuse(uint64_t *refused, int fd, int status)
{
	struct conn_hello r = { .kind = CONN_HELLO_SERVER, .status = status };

	conn_send_hello(fd, &r, SINK_AUTH_SEND_MS);
	close(fd);
	(*refused)++;
	return status;
}

/*
 * Frame @a to client @peer on @fd, @ok (0) when it was made: 0, or the
 * -errno with the reason (@what: "a nonce", "our proof") and @fd closed.
 */
static int auth_send(int fd, int ok, const struct conn_auth *a, const char *peer,
		     const char *what, char *err, size_t errlen)
{
	uint8_t out[CONN_HELLO_BYTES];

	if (ok) {
		close(fd);
		return errbuf_set(err, errlen, -EIO, "client %s: cannot make %s", peer, what);
	}
	conn_auth_pack(a, out);
	if (conn_write_full(fd, out, sizeof(out), SINK_AUTH_SEND_MS)) {
		close(fd);
		return errbuf_set(err, errlen, -ECONNRESET, "client %s: cannot send %s", peer,
				  what);
	}
	return 0;
}

/* A client's hello @frame, with a token: challenged and parked (0), or refused. */
static int auth_challenge(struct sink_gate *g, uint64_t *refused, int fd,
			  const uint8_t frame[CONN_HELLO_BYTES], const char *peer, int wait_ms,
			  char *err, size_t errlen)
{
	struct conn_auth ch = { .kind = CONN_AUTH_CHALLENGE };
	struct conn_hello h;
	int ret;

	if (!conn_hello_unpack(frame, &h) && !(h.flags & CONN_HELLO_F_TOKEN))
		return errbuf_set(err, errlen, auth_refuse(refused, fd, -ENOKEY), "client %s "
				  "refused: it holds no token (the server requires one: "
				  "--token-file)", peer);
	ret = auth_send(fd, conn_auth_nonce(ch.nonce), &ch, peer, "the challenge (a nonce)",
			err, errlen);
	if (!ret)
		sink_gate_park(g, fd, frame, ch.nonce, wait_ms);
	return ret;
}

/* @frame, the proof of a client challenged with @nonce: checked, ours sent. */
static int auth_proof(const char *token, const uint8_t nonce[CONN_NONCE_BYTES],
		      uint64_t *refused, int fd, const uint8_t frame[CONN_HELLO_BYTES],
		      const char *peer, char *err, size_t errlen)
{
	struct conn_auth a, ours = { .kind = CONN_AUTH_PROOF };

	if (conn_auth_unpack(frame, &a) || a.kind != CONN_AUTH_PROOF ||
	    !conn_auth_verify(token, "client", a.nonce, nonce, a.mac))
		return errbuf_set(err, errlen, auth_refuse(refused, fd, -EPERM), "client %s "
				  "refused: wrong token (its proof does not match the server's "
				  "--token-file)", peer);
	memcpy(ours.nonce, nonce, CONN_NONCE_BYTES);
	return auth_send(fd, conn_auth_prove(token, "server", nonce, a.nonce, ours.mac), &ours,
			 peer, "our proof (HMAC)", err, errlen);
}

int sink_auth_step(const char *token, struct sink_gate *g, uint64_t *refused, int fd,
		   const uint8_t frame[CONN_HELLO_BYTES], int wait_ms,
		   uint8_t hello[CONN_HELLO_BYTES], bool *proven, char *err, size_t errlen)
{
	char peer[64];
	int ret;

	*proven = false;
	if (!token) {
		memcpy(hello, frame, CONN_HELLO_BYTES);
		return 1;
	}
	conn_peer_name(fd, peer, sizeof(peer));
	if (!g->taken.proving)
		return auth_challenge(g, refused, fd, frame, peer, wait_ms, err, errlen);
	ret = auth_proof(token, g->taken.nonce, refused, fd, frame, peer, err, errlen);
	if (ret)
		return ret;
	memcpy(hello, g->taken.hello, CONN_HELLO_BYTES);
	*proven = true;
	return 1;
}
