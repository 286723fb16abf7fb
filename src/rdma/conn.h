/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Out-of-band connection setup. By default a TCP socket carries one fixed,
 * versioned frame each way (the QP endpoint and the path knobs) and then
 * stays open for the life of the flow: its closing tells each side that
 * the other is gone, long before RC retries would. Every wait has a
 * timeout and every read and write loops until the whole frame moved.
 *
 * The rdma_cm path (conn_cm_*) resolves and connects through librdmacm
 * but still creates and moves the QP itself, so that the SL and traffic
 * class the user asked for end up in the QP's address vector.
 */
#ifndef RPERF_CONN_H
#define RPERF_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/rdma_cma.h>

#include "rdma/verbs.h"

#define CONN_DEFAULT_PORT 18520
#define CONN_HELLO_BYTES 72
/*
 * An rdma_cm request carries only the hello's first bytes (its private
 * data holds 56 over IB and RoCE); the rest, the secret, is zero there.
 */
#define CONN_HELLO_REQ_BYTES 56
#define CONN_SECRET_BYTES 16
#define CONN_VERSION 3			/* 3: the P_Key and its index */

enum conn_hello_kind {
	CONN_HELLO_CLIENT = 1,
	CONN_HELLO_SERVER = 2,
	CONN_HELLO_ATTACH = 3,		/* client: a TCP side connection for the
					 * rdma_cm flow flow_id, to ask its counters */
};

/* A client hello's flags. */
#define CONN_HELLO_F_TOKEN	0x01	/* it holds a token and can prove it */

/* One frame: a client's request for a flow, or the server's answer. */
struct conn_hello {
	uint16_t kind;			/* enum conn_hello_kind */
	int32_t status;			/* server: 0 or the -errno it refused with */
	struct verbs_endpoint ep;
	struct verbs_path path;		/* client: how its packets travel */
	uint32_t max_msg_bytes;		/* client: largest SEND it will post */
	uint8_t flags;			/* client: CONN_HELLO_F_* */
	uint32_t flow_id;		/* server: the id it counts this flow under;
					 * attach: the flow the connection is for */
	/*
	 * Server, over rdma_cm: the flow's secret, random; attach: the same,
	 * so that only that flow's client can take its side connection.
	 */
	uint8_t secret[CONN_SECRET_BYTES];
};

void conn_hello_pack(const struct conn_hello *h, uint8_t out[CONN_HELLO_BYTES]);
/* 0, or -EPROTO when the frame is not an rperf frame of our version. */
int conn_hello_unpack(const uint8_t in[CONN_HELLO_BYTES], struct conn_hello *h);

/*
 * A server started with a token proves it, and has its clients prove it,
 * on a TCP flow's socket between the client's hello and the answer:
 *   hello {flags: TOKEN}           ->
 *                                  <- challenge {nonce_s}
 *   proof {nonce_c, mac_c}         ->
 *                                  <- proof {nonce_s, mac_s}, then the answer
 * mac_c is the client's proof over nonce_c then nonce_s, mac_s the
 * server's over nonce_s then nonce_c (base/token.h's token_mac, label
 * CONN_AUTH_LABEL, roles "client" and "server"): the token never crosses
 * the wire, a recorded proof does not pass a later challenge, and one
 * role's proof is not the other's. A wrong proof is answered with a
 * refusal hello (-EPERM), a hello without the TOKEN flag at once (-ENOKEY).
 * Both frames are CONN_HELLO_BYTES long, with the hello's magic and version.
 */
#define CONN_NONCE_BYTES	16
#define CONN_MAC_BYTES		32	/* HMAC-SHA256 */
#define CONN_STR_(x)		#x
#define CONN_STR(x)		CONN_STR_(x)
#define CONN_AUTH_LABEL		"rperf server v" CONN_STR(CONN_VERSION)

enum conn_auth_kind {
	CONN_AUTH_CHALLENGE = 8,	/* server: nonce */
	CONN_AUTH_PROOF = 9,		/* client: nonce and mac; server: mac */
};

struct conn_auth {
	uint16_t kind;			/* enum conn_auth_kind */
	uint8_t nonce[CONN_NONCE_BYTES];
	uint8_t mac[CONN_MAC_BYTES];
};

void conn_auth_pack(const struct conn_auth *a, uint8_t out[CONN_HELLO_BYTES]);
/* 0, or -EPROTO unless the frame is a challenge or proof of our version. Pure (fuzzed). */
int conn_auth_unpack(const uint8_t in[CONN_HELLO_BYTES], struct conn_auth *a);
/* A fresh nonce from OpenSSL's generator: 0 or -EIO. */
int conn_auth_nonce(uint8_t nonce[CONN_NONCE_BYTES]);
/* @who's ("client", "server") proof of @token over its nonce @mine, then @theirs. 0 or -EIO. */
int conn_auth_prove(const char *token, const char *who, const uint8_t mine[CONN_NONCE_BYTES],
		    const uint8_t theirs[CONN_NONCE_BYTES], uint8_t mac[CONN_MAC_BYTES]);
/* Whether @mac is conn_auth_prove()'s for the same arguments (constant time). */
bool conn_auth_verify(const char *token, const char *who, const uint8_t mine[CONN_NONCE_BYTES],
		      const uint8_t theirs[CONN_NONCE_BYTES], const uint8_t mac[CONN_MAC_BYTES]);
/*
 * The client's side, after its hello on @fd: the server's answer into @r,
 * through the challenge when it sends one (@token: ours; NULL: none).
 * 0 with @r (conn_answer_check() still to judge it); -EACCES or -ENOKEY
 * with the reason in @why: a server that challenges a client without a
 * token, one whose proof is wrong, or, with @token, one that admits the
 * flow without proving the token; else the read's -errno (-EPROTO: not
 * our frames), @why untouched.
 */
int conn_auth_client(int fd, const char *token, struct conn_hello *r, int timeout_ms, char *why,
		     size_t whylen);

/*
 * An rdma_cm request's private data (@len bytes) as the client's hello:
 * 0, or -EPROTO unless it holds CONN_HELLO_REQ_BYTES of a client hello
 * of our version. Pure: what a server takes from any peer (fuzzed).
 */
int conn_cm_request_take(const void *data, size_t len, struct conn_hello *h);
/*
 * An rdma_cm answer's (or rejection's) private data as the server's
 * hello: 0, or -EPROTO unless it holds a whole server hello. Pure.
 */
int conn_cm_answer_take(const void *data, size_t len, struct conn_hello *h);
/*
 * A client's error for server @host's refusal with @status: "server
 * '@host' refused the flow: " and why (the server's caps by their
 * option, else strerror) in @err, and @status; a status that is no
 * -errno (0, positive, or past CONN_ERRNO_MAX) is -EPROTO. Pure.
 */
#define CONN_ERRNO_MAX	4096
int conn_refused(char *err, size_t errlen, const char *host, int status);

/*
 * The P_Keys of a connection's two ends: @local's, and @peer's as its
 * hello said. Both must be of one partition (the same key but for the
 * top bit, the membership) and at least one end a full member (bit
 * 0x8000 set): two limited members cannot talk. The indices may differ
 * from host to host. 0, or -EKEYREJECTED with a message naming both
 * values and indices, @peer_name's ("server 'h2'", "client ...") and
 * ours, and the fix. An end whose P_Key is 0 (not known) is not
 * checked. Pure.
 */
#define CONN_PKEY_FULL	0x8000
int conn_pkey_check(const struct verbs_endpoint *local, const struct verbs_endpoint *peer,
		    const char *peer_name, char *err, size_t errlen);
/*
 * A client's verdict on server @host's answer @r to its hello @h: the
 * P_Keys checked first (a server that refused for them says which it
 * has), then the server's refusal (conn_refused()). 0 or -errno, @err
 * set. Pure.
 */
int conn_answer_check(const struct conn_hello *h, const struct conn_hello *r, const char *host,
		      char *err, size_t errlen);

/*
 * A listening TCP socket on @addr (a name or an IPv4 or IPv6 address;
 * NULL: every address, IPv4 and IPv6) and @port: the fd, or -errno with
 * the reason naming @addr (-EADDRNOTAVAIL: it does not resolve, or is
 * not this host's).
 */
int conn_listen(const char *addr, uint16_t port, char *err, size_t errlen);
/* Connect to @host:@port within @timeout_ms; fd or -errno. */
int conn_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen);

/* Move exactly @len bytes within @timeout_ms: 0, -ETIMEDOUT, -ECONNRESET
 * (peer closed), or another -errno. Bytes that are there already move even
 * past the deadline (or at 0): only waiting for more ends at it. */
int conn_write_full(int fd, const void *buf, size_t len, int timeout_ms);
int conn_read_full(int fd, void *buf, size_t len, int timeout_ms);

int conn_send_hello(int fd, const struct conn_hello *h, int timeout_ms);
int conn_recv_hello(int fd, struct conn_hello *h, int timeout_ms);

/*
 * After the hello, a flow's socket carries small fixed frames: a client
 * asks (QUERY, MR) and the server answers on the same socket (STATS, MR).
 * The server answers from its counters; it never touches the data path.
 */
#define CONN_MSG_BYTES 44

enum conn_msg_kind {
	CONN_MSG_QUERY = 3,		/* client: this flow's counters, please */
	CONN_MSG_STATS = 4,		/* server: v = msgs, bytes, errors, now_ns */
	CONN_MSG_MR = 5,		/* client: ask; server: v = addr, rkey, bytes */
	CONN_MSG_RX = 6,		/* client: ask; server: v = RNR NAKs sent + 1,
					 * out-of-buffer drops + 1 (0: not counted) */
	CONN_MSG_LAST = CONN_MSG_RX,	/* the decoder accepts QUERY .. LAST */
};

struct conn_msg {
	uint16_t kind;			/* enum conn_msg_kind */
	uint32_t flow_id;
	uint64_t v[4];
};

void conn_msg_pack(const struct conn_msg *m, uint8_t out[CONN_MSG_BYTES]);
/* 0, or -EPROTO when the frame is not a message of our version. */
int conn_msg_unpack(const uint8_t in[CONN_MSG_BYTES], struct conn_msg *m);
int conn_send_msg(int fd, const struct conn_msg *m, int timeout_ms);
int conn_recv_msg(int fd, struct conn_msg *m, int timeout_ms);
/* Send a request of @kind and wait for the answer of @want_kind. */
int conn_request(int fd, uint16_t kind, uint16_t want_kind, struct conn_msg *answer,
		 int timeout_ms);

/*
 * A client flow over TCP: connect to the server at @host:@port, send the
 * hello for @q along @path, take the answer and bring @q to RTS. The
 * socket (returned) stays open for the life of the flow. @secret (NULL:
 * none), CONN_SECRET_BYTES, goes in the hello: the flow's, for a server
 * that admits only the flows it was told of (a converge agent's sink).
 * @token (NULL: none): rperf server's --token-file, proved as above, and
 * the server's proof required. fd or -errno, with a message naming the server in @err; each wait
 * lasts @timeout_ms.
 */
int conn_client_flow(const char *host, uint16_t port, struct verbs_qp *q,
		     const struct verbs_path *path, size_t max_msg_bytes,
		     const uint8_t *secret, const char *token, int timeout_ms, char *err,
		     size_t errlen);

/*
 * A side connection for the flow the server counts as @flow_id (one that
 * came over rdma_cm, which has no socket): connect to @host:@port and
 * attach with the flow's @secret (from the server's rdma_cm answer);
 * QUERY then works on it as on a TCP flow's socket. fd or -errno.
 */
int conn_client_attach(const char *host, uint16_t port, uint32_t flow_id,
		       const uint8_t secret[CONN_SECRET_BYTES], int timeout_ms, char *err,
		       size_t errlen);

/* Non-blocking: true when the peer closed or reset the connection. */
bool conn_peer_gone(int fd);

/* Non-blocking: true when @fd has something to read. */
bool conn_fd_readable(int fd);

/* The one way a client says its server is gone: -ECONNRESET, @err set. */
int conn_err_peer_gone(char *err, size_t errlen, const char *peer);

/* @sa's address alone ("198.18.0.2"; an IPv4-mapped IPv6 one as IPv4). */
void conn_addr_ip(const struct sockaddr *sa, char *buf, size_t len);

/* "198.18.0.2:40112" for an accepted socket's peer. */
void conn_peer_name(int fd, char *buf, size_t len);
/*
 * A data socket's options, both ends: no Nagle delay, and keepalive
 * probes after CONN_KEEPIDLE_S idle, every CONN_KEEPINTVL_S, CONN_KEEPCNT
 * of them: a peer that vanished without a word is an error within 25 s,
 * not the system's two hours.
 */
#define CONN_KEEPIDLE_S		10
#define CONN_KEEPINTVL_S	5
#define CONN_KEEPCNT		3
void conn_sock_tune(int fd);
/* The same for the socket's own end: what its peer's conn_peer_name() says. */
void conn_sock_name(int fd, char *buf, size_t len);

/* ---- rdma_cm ---- */

#define CONN_CM_REJ_CONSUMER	28	/* IB CM reject reason: the listener's rdma_reject() */

/* A client-side rdma_cm connection: its channel and id. */
struct conn_cm {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	char host[64];			/* the server, for messages */
	struct sockaddr_storage dst;	/* its address, resolved once */
	uint8_t tos;
	uint32_t flow_id;		/* the server's id for the flow, once connected */
	uint8_t secret[CONN_SECRET_BYTES];	/* its secret, for the side connection */
};

/*
 * Resolve @host:@port, so that conn->id->verbs names the local device.
 * The caller then opens its device on that context and creates its QP.
 */
int conn_cm_resolve(struct conn_cm *c, const char *host, uint16_t port, uint8_t tos,
		    int timeout_ms, char *err, size_t errlen);
/*
 * Connect @q (created on conn->id->verbs, still in RESET) along @path:
 * the hello goes as private data, the server's answer comes back in
 * @reply; the QP reaches RTS with the attributes rdma_cm resolved and
 * the SL and traffic class of @path. The server's refusal, or P_Keys
 * that do not go together (conn_answer_check()), is an error in @err.
 */
int conn_cm_connect(struct conn_cm *c, struct verbs_qp *q, const struct conn_hello *hello,
		    struct conn_hello *reply, int timeout_ms, char *err, size_t errlen);
/* Listen for rdma_cm connection requests on @addr (NULL: every IPv4
 * address) and @port; 0 or -errno with the reason naming @addr. */
int conn_cm_listen(struct conn_cm *c, const char *addr, uint16_t port, char *err,
		   size_t errlen);
/* Move @q to RTS for the connection request @id, along @path. */
int conn_cm_qp_ready(struct rdma_cm_id *id, struct verbs_qp *q, const struct verbs_path *path,
		     char *err, size_t errlen);
/* Accept connection request @id for @q (already at RTS), answering @reply. */
int conn_cm_accept(struct rdma_cm_id *id, struct verbs_qp *q, const struct conn_hello *reply,
		   char *err, size_t errlen);
/*
 * The P_Key the QP of @id will take (the entry rdma_cm resolved for its
 * route): value and index in @ep, both 0 when unknown.
 */
void conn_cm_pkey(struct rdma_cm_id *id, struct verbs_endpoint *ep);
/* Refuse connection request @id, the reason (-errno @status) and our
 * P_Key in a server hello as the rejection's private data: the client
 * reports it. */
void conn_cm_refuse(struct rdma_cm_id *id, int status);
void conn_cm_close(struct conn_cm *c);
/*
 * Whether a connection rejected with @status may be tried again: any
 * rejection but the server's own (IB CM reason 28, consumer defined),
 * such as a port nobody listens on yet (reason 8, invalid service ID).
 */
bool conn_cm_reject_retryable(int status);

#endif
