/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The receive side: one RC QP per client flow, RECVs kept posted on it,
 * and counts of the messages and bytes that arrived. The sink never sends
 * anything: the remote NIC's ACK is the whole answer a client gets, which
 * is what keeps remote software out of its measurement.
 *
 * Completions arrive through one completion channel for every flow, so a
 * server waits in poll() together with its sockets instead of spinning;
 * or, with busy_poll (the default on hardware NICs), the sink polls every
 * flow's CQ between quick looks at the sockets, so that a RECV consumed
 * is posted again within microseconds, not a wake-up later. RECVs go
 * back in linked lists, one doorbell a list.
 */
#ifndef RPERF_SINK_H
#define RPERF_SINK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdma/conn.h"
#include "rdma/verbs.h"
#include "engine/sink_gate.h"

struct sink_flow {
	uint32_t id;			/* 1, 2, ... in order of arrival */
	char peer[64];			/* "198.18.0.1:40112" */
	struct verbs_path path;		/* the client's SL and traffic class */
	int gid_index;			/* the GID its packets leave from; -1: none
					 * (InfiniBand without -x) or rdma_cm's */
	uint64_t msgs;
	uint64_t bytes;
	uint64_t errors;		/* RECVs completed in error */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC, open and close */
	bool active;
	bool authenticated;		/* its client proved the sink's token */
	int fd;				/* its TCP socket, -1 if none */
	void *cm_id;			/* its rdma_cm id, if it came that way */
	/* Its client's address alone (every flow), and over rdma_cm the
	 * flow's secret (sink_flow_bind). */
	char client_ip[48];
	uint8_t secret[CONN_SECRET_BYTES];
	struct verbs_qp qp;
	void *buf;
	size_t buf_bytes;
	bool buf_huge;
	size_t pinned_bytes;		/* its buffer and rings (sink_flow_pin_bytes) */
	uint32_t posted;
	struct verbs_counters ctr0;	/* the port's counters when the flow started */
	bool ctr0_ok;
	uint8_t ctl[CONN_MSG_BYTES];	/* a request read in part from fd */
	size_t ctl_len;
};

struct sink {
	struct verbs_dev *dev;
	struct ibv_comp_channel *chan;
	struct sink_flow **flows;	/* every flow, closed ones included */
	size_t n_flows, cap_flows;
	uint32_t ring_depth;		/* RECVs kept posted per flow */
	bool busy_poll;			/* poll the CQs, never sleep on events (set before
					 * the first flow) */
	bool hugepages;
	uint64_t attach_refused;	/* side connections refused (sink_attach_check) */
	/*
	 * Admission of a client's flow (NULL: every client is admitted),
	 * asked with its hello and address before any QP is made: 0 admits,
	 * -errno (with the reason) refuses; refusals are counted here.
	 */
	int (*admit)(void *arg, const struct conn_hello *h, const char *src_ip, char *err,
		     size_t errlen);
	void *admit_arg;
	uint64_t admit_refused;
	/*
	 * The token every client must prove before its hello is served (NULL:
	 * none; sink_auth.h); clients refused for it, counted.
	 */
	const char *token;
	uint64_t auth_refused;
	/* Data connections waiting for their hello; gate.dropped: closed without one. */
	struct sink_gate gate;
	/* sink_wait()'s poll set, kept from one wait to the next (a wait per
	 * completion event: no allocation each). */
	struct pollfd *pfd;
	size_t cap_pfd;
};

/*
 * The default ring: RECVs enough to cover @port_gbps of the smallest
 * messages (64 bytes and 58 of headers a packet) while the receiver
 * wakes up (SINK_WAKE_NS), at least SINK_RING_MIN and at most the
 * device's @max_qp_wr (0: no limit known).
 */
#define SINK_RING_MIN 512
#define SINK_WAKE_NS 50000.0
uint32_t sink_ring_default(double port_gbps, int max_qp_wr);

/* @ring_depth 0: sink_ring_default() for @dev's port. */
int sink_init(struct sink *s, struct verbs_dev *dev, uint32_t ring_depth, bool hugepages,
	      char *err, size_t errlen);
void sink_release(struct sink *s);
/* The fd to poll() for completions; -1 without a channel (a sink given no
 * device: it only admits, as the unit tests run it). */
int sink_event_fd(const struct sink *s);

/*
 * What a flow of messages up to @max_msg_bytes makes @s pin: its buffer
 * (in 4 KiB pages, or 2 MiB ones with hugepages) and its rings, the
 * RECV queue and its CQ (SINK_RING_ENTRY_BYTES an entry, at least what
 * mlx5 takes). What a server's per-client cap counts. Pure.
 */
#define SINK_RING_ENTRY_BYTES	128	/* a 64-byte receive WQE and a 64-byte CQE */
size_t sink_flow_pin_bytes(const struct sink *s, size_t max_msg_bytes);

/*
 * A new flow whose messages are at most @max_msg_bytes, along @path (the
 * server's ACKs then carry the client's SL and traffic class). Its QP is
 * left in RESET; connect it, then call sink_flow_start().
 */
int sink_flow_new(struct sink *s, const struct verbs_path *path, size_t max_msg_bytes,
		  const char *peer, struct sink_flow **out, char *err, size_t errlen);
/*
 * An rdma_cm flow from @client: remember its address and draw its
 * secret (OpenSSL's generator), which the caller sends in its rdma_cm
 * answer. 0 or -EIO with the reason.
 */
int sink_flow_bind(struct sink_flow *f, const struct sockaddr *client, char *err,
		   size_t errlen);
/*
 * Does a connection from address @src_ip, holding @got, belong to the
 * flow whose secret is @want and whose client is at @want_ip? The
 * secret is compared first (in constant time): 0, -EACCES for a wrong
 * secret, -EPERM for the right one from another address; the reason in
 * @err. What every per-flow secret is checked with (side connections,
 * a converge sink's admission). Pure.
 */
int sink_secret_check(const char *want_ip, const uint8_t want[CONN_SECRET_BYTES],
		      const char *src_ip, const uint8_t got[CONN_SECRET_BYTES], char *err,
		      size_t errlen);
/*
 * May a side connection from address @src_ip, holding @secret, attach to
 * rdma_cm flow @f? Only from the address the flow came from (checked
 * first: -EPERM), with its secret (sink_secret_check: -EACCES). 0, or
 * -EPERM/-EACCES with the reason.
 * Pure: the unit tests call it directly.
 */
int sink_attach_check(const struct sink_flow *f, const char *src_ip,
		      const uint8_t secret[CONN_SECRET_BYTES], char *err, size_t errlen);

/* Post the RECV ring and arm the CQ; the flow counts from now on. */
int sink_flow_start(struct sink *s, struct sink_flow *f, char *err, size_t errlen);
/* Forget the flow sink_flow_new() just made (setup failed). */
void sink_flow_drop(struct sink *s, struct sink_flow *f);
/* Count what is left, destroy the QP; the counts stay. */
void sink_flow_close(struct sink *s, struct sink_flow *f);

/* The completion channel is readable: count, post again, re-arm. */
int sink_service(struct sink *s, char *err, size_t errlen);

/*
 * The flow's socket is readable: true when the client closed it, and the
 * flow is then closed too (its counts stay); false for anything else.
 * Requests on it are answered here: QUERY with the flow's counters (its
 * CQ drained first, so they are current), MR with where the client may
 * RDMA WRITE, RX with the port's receive trouble since the flow started
 * (RNR NAKs sent, out-of-buffer drops; each + 1, 0 where the device has
 * no such counter). Each answer waits at most a second for the socket.
 */
bool sink_flow_sock_closed(struct sink *s, struct sink_flow *f);

/*
 * A flow's request as it arrives in pieces: @n more bytes were read into
 * @ctl at *@ctl_len (never past CONN_MSG_BYTES). 0 while the request is
 * incomplete; once whole, *@ctl_len goes back to 0 and the result is 1
 * with the request in @q, or -EPROTO for a frame conn_msg_unpack()
 * refuses. Pure: the socket's reads are the caller's.
 */
int sink_ctl_take(uint8_t ctl[CONN_MSG_BYTES], size_t *ctl_len, size_t n, struct conn_msg *q);

/*
 * One wait of a receiver's loop, what every receiver (the server, an
 * agent's sink) polls: the completion channel, the flows' sockets, the
 * TCP listener and up to two fds of the caller's own (an rdma_cm channel,
 * a control connection). The sink prints nothing: it tells the caller
 * through the callbacks, each optional.
 */
struct sink_wait {
	int lfd;			/* TCP listener, -1: none */
	int extra_fd[2];		/* the caller's, -1: none */
	bool extra_ready[2];		/* out: which of those are readable */
	int timeout_ms;
	int hello_ms;			/* a client's time for its hello (sink_gate.h) */
	void (*on_accept)(struct sink_flow *f, void *arg);	/* a flow came */
	void (*on_close)(struct sink_flow *f, void *arg);	/* its client hung up */
	void (*on_error)(const char *err, void *arg);		/* a flow or client failed */
	/*
	 * extra_fd[0] is readable: called before a waiting client is
	 * accepted, so that an rdma_cm flow exists before its side
	 * connection attaches. NULL: the caller serves it after the wait.
	 */
	void (*on_extra)(void *arg);
	void *arg;
};

/*
 * Wait up to @w->timeout_ms for any of @w's fds, then serve what is
 * ready: completions counted, requests answered, closed flows closed,
 * clients whose hello is whole made flows (or refused: an attach hello
 * gives its socket to the rdma_cm flow it names, if sink_attach_check()
 * passes, a refusal counted in attach_refused), others kept pending
 * without waiting on them (sink_gate.h); @w->extra_ready says which of the
 * caller's fds are readable (the caller serves those). 1 when something
 * was ready, 0 when nothing was, -ENOMEM.
 */
int sink_wait(struct sink *s, struct sink_wait *w);

#endif
