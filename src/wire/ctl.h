/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The control protocol between `rperf converge` (the coordinator) and
 * `rperf agent`. One TCP connection per agent; every message is a frame:
 * a 4-byte magic, a 4-byte big-endian length, then that many bytes of one
 * JSON object, at most CTL_MAX_MSG_BYTES. Every message has a "type";
 * each type has a fixed set of fields with fixed JSON types and ranges,
 * and a message with an unknown type, an unknown field, a missing field or
 * a value out of range is refused before anyone looks at it.
 *
 * The session, coordinator first:
 *   hello {version, nonce}       -> hello {version, host, now_ns}
 *   (an agent with a token answers the hello with a challenge first:
 *    challenge {nonce, mac}      <- the agent proves it holds the token
 *    auth {mac}                  -> and so does the coordinator
 *    each mac an HMAC-SHA256 over both fresh nonces under its role's
 *    proof key (see "Keys" below), so the token never crosses the wire,
 *    a recorded hello and auth do not pass a later challenge, and one
 *    role's proof is not the other's)
 *   (from then on, starting with the agent's hello, every frame either
 *    way is sealed: see "Sealed frames" below)
 *   time {}                      -> time {now_ns}         (clock offset)
 *   setup {sink, flows, ...}     -> ready {conns} | error {error, flow}
 *   (sink: the agent is a destination of the step; flows: those it
 *    sends, each to its dest's sink. One agent may be both. Each flow
 *    carries a fresh random secret, which its data connections show in
 *    their hello; a sink's "expect" lists the flows it admits: secret,
 *    source address, connections, message size. Nothing else gets a QP.)
 *   start {at_ns, warmup_ms, duration_ms}
 *                                -> result {flows, sink, refused} | error {...}
 *   (sink: per flow received, its bytes in the window and in each of
 *    its CTL_INTERVALS intervals that ended before the window did)
 *   stop {}                      (any time: end the run, keep results)
 * and again from setup for the next step of a sweep. The agent never runs
 * a command or opens a file the coordinator names: a setup only names
 * flows, the device and ports.
 *
 * The connection is plain TCP with TOS 0: on an ETS port it travels in
 * the default band, which must not be one that a strict band starves.
 *
 * Keys. Every key is HKDF-SHA256 of the token, its info CTL_KDF_LABEL
 * (which names the protocol's version), a space and what it is for:
 *   "proof by agent", "proof by coordinator"   (no salt) each role's proofs;
 *   "seal coordinator->agent", "seal agent->coordinator"
 *                    (salt: the coordinator's nonce then the agent's)
 *                    each direction's frames in one session.
 * A proof or frame made under one role's key is not the other role's, so
 * a peer cannot answer a challenge or a frame with what it was sent.
 *
 * Sealed frames. Once both sides have proved they hold the token, every
 * later frame, both directions, is
 *   magic "RPCM", 4-byte length, 8-byte sequence number, body,
 *   32-byte HMAC-SHA256 under the direction's key over the direction's
 *   label ("coordinator->agent" or "agent->coordinator"), the magic, the
 *   length, the sequence number and the body.
 * Each direction counts its frames from 0. The receiver checks the MAC
 * (in constant time), then that the number is exactly the next one; a
 * frame tampered with, replayed, reordered, from another session or of
 * the wrong direction, and a plain frame where a sealed one is due, each
 * drop the connection (ctl_recv shuts it down). Without a token (an agent
 * bound to the loopback) nothing is secret and frames stay plain.
 */
#ifndef RPERF_CTL_H
#define RPERF_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "base/token.h"
#include "flow/flow_spec.h"

#define CTL_VERSION		6
#define CTL_DEFAULT_PORT	18530
#define CTL_MAGIC		0x52504354u	/* "RPCT" */
#define CTL_MAGIC_SEALED	0x5250434du	/* "RPCM" */
#define CTL_SEQ_BYTES		8
#define CTL_SEAL_BYTES		32	/* HMAC-SHA256 */
#define CTL_KEY_BYTES		32
/* Every key's label names the protocol's version: made from CTL_VERSION, so the two never drift. */
#define CTL_STRINGIFY_(x)	#x
#define CTL_STRINGIFY(x)	CTL_STRINGIFY_(x)
#define CTL_KDF_LABEL		"rperf control v" CTL_STRINGIFY(CTL_VERSION)
#define CTL_MAX_MSG_BYTES	(1u << 20)
#define CTL_MAX_TOKEN_BYTES	TOKEN_MAX_BYTES
#define CTL_NONCE_HEX		64	/* 32 random bytes */
#define CTL_NEW_TOKEN_BYTES	32	/* rperf agent --new-token: 64 hex characters */
#define CTL_SECRET_HEX		32	/* a flow's data-connection secret (CONN_SECRET_BYTES) */
#define CTL_MAC_HEX		64	/* HMAC-SHA256 */
#define CTL_MAX_FLOWS		64
/*
 * A sink splits its window into this many equal intervals and reports
 * what each flow received in each (result's sink[].intervals): the
 * spread of the classes' shares over them is their confidence.
 */
#define CTL_INTERVALS		20
#define CTL_NAME_MAX		64
/*
 * How far ahead of an agent's clock a start may be: the agent refuses
 * one further ahead, so that no start holds its workers asleep for long;
 * the coordinator keeps its lead under it (coord_start_lead_ns).
 */
#define CTL_START_LEAD_MAX_S	10
/* A peer gone without a word is found within 25 s: 10 s idle, then 3 probes 5 s apart. */
#define CTL_KEEPIDLE_S		10
#define CTL_KEEPINTVL_S		5
#define CTL_KEEPCNT		3
#define CTL_USER_TIMEOUT_MS	25000

/*
 * Parse one message body and check it against its type's fields. 0 and
 * the object in *@msg (the caller's reference), or -EPROTO with the reason
 * in @err. Pure: the unit tests feed it directly.
 */
int ctl_parse(const char *buf, size_t len, json_t **msg, char *err, size_t errlen);
/* The checks ctl_parse() makes, on an object already in memory. */
int ctl_validate(const json_t *msg, char *err, size_t errlen);

/* A setup's flow carries its settings, each under its wire name
 * (flow_spec_fields[]): all of @s into @o. */
void ctl_flow_spec_pack(json_t *o, const struct flow_spec *s);
/* The settings of flow @o, which ctl_validate() passed (what it lacks at
 * its default). */
void ctl_flow_spec_unpack(const json_t *o, struct flow_spec *s);

/* The message's "type" ("" when there is none). */
const char *ctl_type(const json_t *msg);
/* A new message of @type (fields are added by the caller). */
json_t *ctl_msg(const char *type);

/*
 * One end of a control connection: its socket and, once keyed, the
 * session key and each direction's next sequence number. Every message
 * goes through one, so that no caller can send or take an unsealed frame
 * in a sealed session.
 */
struct ctl_chan {
	int fd;
	bool coordinator;		/* our end: picks the direction labels */
	bool keyed;			/* frames are sealed from now on */
	bool dropped;			/* a frame failed its checks: nothing more */
	uint64_t seq_out, seq_in;	/* the next frame's number, each way */
	unsigned char key_out[CTL_KEY_BYTES];	/* what we send is sealed under */
	unsigned char key_in[CTL_KEY_BYTES];	/* what we take must be sealed under */
	char peer[64];			/* "agent 198.18.0.2:18530", for errors */
};

/* @c for socket @fd (not owned), at the @coordinator end or the agent's. */
void ctl_chan_init(struct ctl_chan *c, int fd, bool coordinator);
/*
 * Seal every later frame on @c under the direction's key derived from
 * @token and both nonces (@coord_nonce first). 0 or -EIO with the reason.
 */
int ctl_chan_key(struct ctl_chan *c, const char *token, const char *coord_nonce,
		 const char *agent_nonce, char *err, size_t errlen);
/*
 * Make a vanished peer an error within CTL_USER_TIMEOUT_MS (keepalive
 * probes when idle, a bound on unacknowledged data when not): every
 * control socket, both ends (ctl_chan_init calls it). Best effort.
 */
void ctl_keepalive(int fd);
/* Wipe @c's keys (the socket is the caller's to close). */
void ctl_chan_forget(struct ctl_chan *c);

/*
 * Send @msg (validated first: a bug must not reach the wire) within
 * @timeout_ms, sealed if @c is keyed. 0 or -errno with the reason in @err.
 */
int ctl_send(struct ctl_chan *c, const json_t *msg, int timeout_ms, char *err, size_t errlen);
/*
 * Receive one message within @timeout_ms. 0 with *@msg, -ETIMEDOUT,
 * -ECONNRESET when the peer closed, -EPROTO for a bad frame or message,
 * -EBADMSG for a sealed frame that fails its MAC or sequence number (the
 * connection is then shut down and @c refuses all further I/O).
 */
int ctl_recv(struct ctl_chan *c, json_t **msg, int timeout_ms, char *err, size_t errlen);

/* Send {"type":"error","error":@text[,"flow":@flow]}; best effort. */
void ctl_send_error(struct ctl_chan *c, const char *flow, const char *text, int timeout_ms);

/* True when @addr names only the loopback (127.0.0.0/8, ::1, localhost). */
bool ctl_addr_is_loopback(const char *addr);

/* Token files, their entropy and comparison, HKDF and HMAC: base/token.h. */
#define CTL_TOKEN_MIN_BITS	TOKEN_MIN_BITS
/*
 * A new token in @path: CTL_NEW_TOKEN_BYTES from OpenSSL's generator as
 * one line of hex, the file made with mode 0600 and never over an
 * existing one. 0 or -errno with the reason.
 */
int ctl_token_new(const char *path, char *err, size_t errlen);
/* A fresh data-connection secret for a flow, from OpenSSL's generator, as hex. 0 or -EIO. */
int ctl_secret_new(char out[CTL_SECRET_HEX + 1], char *err, size_t errlen);
/* @hex (ctl_secret_new's) into @out: 0, or -EINVAL (and @out zero) if it is not one. */
int ctl_secret_parse(const char *hex, unsigned char out[CTL_SECRET_HEX / 2]);
/* A fresh nonce from OpenSSL's generator, as hex. 0 or -EIO. */
int ctl_nonce(char out[CTL_NONCE_HEX + 1], char *err, size_t errlen);
/* The key for @what ("Keys" above) from @token and @salt (may be ""). 0 or -EIO. */
int ctl_derive(const char *token, const char *salt, const char *what,
	       unsigned char out[CTL_KEY_BYTES]);
/*
 * The proof that @who ("agent" or "coordinator") holds @token: HMAC-SHA256
 * under @who's proof key over @who, its own nonce @mine and the peer's
 * @theirs. 0, or -EIO (and @out empty).
 */
int ctl_auth_mac(const char *token, const char *who, const char *mine, const char *theirs,
		 char out[CTL_MAC_HEX + 1]);
/*
 * Whether @got (may be NULL) is @who's proof of @token over @mine then
 * @theirs (@who's own nonce first), compared in constant time.
 */
bool ctl_auth_check(const char *token, const char *who, const char *mine, const char *theirs,
		    const char *got);
/*
 * The coordinator's side of the hello on @c: send it with a fresh nonce
 * and, if the agent challenges, check its proof, send ours (@token,
 * NULL: none) and key @c. 0 with the agent's last answer in *@reply (a
 * hello, or an error saying why it refused), or -errno with the reason;
 * with a @token, -EACCES for an agent that answers anything but a
 * refusal without first proving the token.
 */
int ctl_hello_client(struct ctl_chan *c, const char *token, json_t **reply, int timeout_ms,
		     char *err, size_t errlen);

/* CLOCK_MONOTONIC in ns: the clock start times are given on. */
uint64_t ctl_now_ns(void);

#endif
