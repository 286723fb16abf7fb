/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A client's flow set up over TCP (conn.h): connect, the hello, the
 * token's proofs when either side has a token (conn_auth.c), the
 * server's answer judged, and the QP brought to RTS; or a side
 * connection attached to an rdma_cm flow.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "rdma/conn.h"

/* Connect to @host:@port, send hello @h, take the server's answer into @r.
 * The socket, or -errno with a message naming the server. */
static int client_hello(const char *host, uint16_t port, const struct conn_hello *h,
			const char *token, struct conn_hello *r, int timeout_ms, char *err,
			size_t errlen)
{
	char why[200];
	int fd, ret;

	fd = conn_connect(host, port, timeout_ms, err, errlen);
	if (fd < 0)
		return fd;
	ret = conn_send_hello(fd, h, timeout_ms);
	if (!ret)
		ret = conn_auth_client(fd, token, r, timeout_ms, why, sizeof(why));
	if (ret == -EACCES || ret == -ENOKEY)
		ret = errbuf_set(err, errlen, ret, "server '%s': %s", host, why);
	else if (ret == -EPROTO || (!ret && r->kind != CONN_HELLO_SERVER))
		ret = errbuf_set(err, errlen, -EPROTO, "'%s' port %u is not an rperf server",
				 host, port);
	else if (ret)
		ret = errbuf_set(err, errlen, ret, "server '%s': exchange failed: %s", host,
				 ret == -ECONNRESET ? "connection closed" : strerror(-ret));
	else
		ret = conn_answer_check(h, r, host, err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int conn_client_flow(const char *host, uint16_t port, struct verbs_qp *q,
		     const struct verbs_path *path, size_t max_msg_bytes,
		     const uint8_t *secret, const char *token, int timeout_ms, char *err,
		     size_t errlen)
{
	struct conn_hello h = { .kind = CONN_HELLO_CLIENT, .flags = token ? CONN_HELLO_F_TOKEN : 0 };
	struct conn_hello r;
	int fd, ret;

	if (secret)
		memcpy(h.secret, secret, CONN_SECRET_BYTES);
	verbs_qp_local(q, &h.ep);
	h.path = *path;
	h.max_msg_bytes = (uint32_t)max_msg_bytes;
	fd = client_hello(host, port, &h, token, &r, timeout_ms, err, errlen);
	if (fd < 0)
		return fd;
	ret = verbs_qp_connect(q, &r.ep, path, err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int conn_client_attach(const char *host, uint16_t port, uint32_t flow_id,
		       const uint8_t secret[CONN_SECRET_BYTES], int timeout_ms, char *err,
		       size_t errlen)
{
	struct conn_hello h = { .kind = CONN_HELLO_ATTACH, .flow_id = flow_id }, r;

	memcpy(h.secret, secret, CONN_SECRET_BYTES);

	return client_hello(host, port, &h, NULL, &r, timeout_ms, err, errlen);
}
