/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: a flow's socket as the sink reads it (engine/sink.c),
 * partial reads included. The input's first byte picks the sizes of the
 * pieces the requests are read in; the rest is what a client sends: a
 * hello frame (read with conn_recv_hello(), as sink_accept_tcp() does),
 * then requests, read piece by piece through sink_ctl_take() as
 * sink_flow_sock_closed() does, until one is refused or the client
 * closes. Everything goes through a real socket.
 *
 * The hello's verdict must be conn_hello_unpack()'s on the same bytes,
 * and a short stream must end in -ECONNRESET; a request must be taken
 * exactly when its last byte arrives, whatever the pieces, and decoded
 * exactly as conn_msg_unpack() decodes its bytes in one piece.
 */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/sink.h"
#include "fuzz.h"
#include "rdma/conn.h"

#define FUZZ_SINK_MAX	4096

static bool fuzz_sink_same(const struct conn_msg *a, const struct conn_msg *b)
{
	return a->kind == b->kind && a->flow_id == b->flow_id &&
	       !memcmp(a->v, b->v, sizeof(a->v));
}

/* The size of piece @i: 1 to a frame, from the input's @seed. */
static size_t fuzz_sink_piece(uint8_t seed, size_t i)
{
	return 1 + ((size_t)seed * (i + 1) * 7 + i) % CONN_MSG_BYTES;
}

/* Read the requests after the hello (@at bytes into @stream of @len). */
static void fuzz_sink_requests(int fd, uint8_t seed, const uint8_t *stream, size_t len,
			       size_t at)
{
	uint8_t ctl[CONN_MSG_BYTES];
	struct conn_msg q, ref;
	size_t ctl_len = 0, frame_at = at, want, i;
	ssize_t n;
	int r;

	for (i = 0;; i++) {
		want = fuzz_sink_piece(seed, i);
		if (want > sizeof(ctl) - ctl_len)
			want = sizeof(ctl) - ctl_len;
		n = recv(fd, ctl + ctl_len, want, MSG_DONTWAIT);
		if (n <= 0) {
			if (n < 0 || at != len)
				abort();	/* the whole stream is there to read */
			return;
		}
		if (memcmp(ctl + ctl_len, stream + at, (size_t)n))
			abort();
		at += (size_t)n;
		r = sink_ctl_take(ctl, &ctl_len, (size_t)n, &q);
		if (!r) {
			if (at - frame_at >= CONN_MSG_BYTES || ctl_len != at - frame_at)
				abort();	/* a whole frame not taken */
			continue;
		}
		if (at - frame_at != CONN_MSG_BYTES || ctl_len)
			abort();		/* taken before its last byte */
		if (conn_msg_unpack(stream + frame_at, &ref) ? r != -EPROTO :
		    r != 1 || !fuzz_sink_same(&q, &ref))
			abort();
		if (r < 0)
			return;			/* the sink closes the flow */
		frame_at = at;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *stream = data + 1;
	struct conn_hello h, ref;
	size_t len = size - 1;
	int sv[2], rc;

	if (size < 1 || size > FUZZ_SINK_MAX || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 0;
	memset(&h, 0, sizeof(h));	/* compared whole, padding included */
	memset(&ref, 0, sizeof(ref));
	if (write(sv[0], stream, len) != (ssize_t)len)
		abort();
	shutdown(sv[0], SHUT_WR);
	rc = conn_recv_hello(sv[1], &h, 1000);
	if (len < CONN_HELLO_BYTES ? rc != -ECONNRESET : rc != conn_hello_unpack(stream, &ref))
		abort();
	if (!rc && memcmp(&h, &ref, sizeof(h)))
		abort();
	if (!rc)
		fuzz_sink_requests(sv[1], data[0], stream, len, CONN_HELLO_BYTES);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
