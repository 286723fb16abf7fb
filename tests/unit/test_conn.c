/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * conn: telling that a peer is gone, which every client checks while it
 * measures, including when the peer's last message is still unread; the
 * hello that attaches a side connection to an rdma_cm flow, and the check
 * that binds it to the flow's client address and secret; the P_Keys the
 * hello carries and the check that both ends are of one partition.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdma/conn.h"
#include "engine/sink.h"

/* A TCP connection on the loopback: *cli and *srv. */
static void tcp_pair(int *cli, int *srv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	*cli = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(*cli, (struct sockaddr *)&sa, sizeof(sa)), 0);
	*srv = accept(lfd, NULL, NULL);
	assert_true(*srv >= 0);
	close(lfd);
}

static void test_peer_gone(void **state)
{
	int cli, srv, i;

	(void)state;
	tcp_pair(&cli, &srv);
	assert_false(conn_peer_gone(cli));
	/* An answer the client has not read yet is not a closed peer... */
	assert_int_equal(write(srv, "a", 1), 1);
	usleep(10000);
	assert_false(conn_peer_gone(cli));
	/* ...but the peer closing behind it is, unread answer or not. */
	close(srv);
	for (i = 0; i < 100 && !conn_peer_gone(cli); i++)
		usleep(10000);
	assert_true(conn_peer_gone(cli));
	close(cli);
}

/* An attach hello names its flow; a kind past the known ones is refused. */
static void test_hello_attach(void **state)
{
	struct conn_hello h = { .kind = CONN_HELLO_ATTACH, .flow_id = 7 }, r;
	uint8_t frame[CONN_HELLO_BYTES];

	(void)state;
	conn_hello_pack(&h, frame);
	assert_int_equal(conn_hello_unpack(frame, &r), 0);
	assert_int_equal(r.kind, CONN_HELLO_ATTACH);
	assert_int_equal(r.flow_id, 7);
	/* The secret travels whole. */
	memset(h.secret, 0xa5, sizeof(h.secret));
	h.secret[15] = 0x01;
	conn_hello_pack(&h, frame);
	assert_int_equal(conn_hello_unpack(frame, &r), 0);
	assert_memory_equal(r.secret, h.secret, CONN_SECRET_BYTES);
	h.kind = CONN_HELLO_ATTACH + 1;
	conn_hello_pack(&h, frame);
	assert_int_not_equal(conn_hello_unpack(frame, &r), 0);
}

/*
 * A side connection attaches to an rdma_cm flow only from the address the
 * flow came from and with its secret; one byte off, another address, or a
 * flow with no address known is refused, saying why.
 */
static void test_attach_bound(void **state)
{
	struct sockaddr_in6 mapped = { .sin6_family = AF_INET6 };
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sink_flow f = { .id = 3 };
	uint8_t secret[CONN_SECRET_BYTES];
	char err[256], ip[48];

	(void)state;
	inet_pton(AF_INET, "198.18.0.1", &v4.sin_addr);
	assert_int_equal(sink_flow_bind(&f, (struct sockaddr *)&v4, err, sizeof(err)), 0);
	assert_string_equal(f.client_ip, "198.18.0.1");
	memcpy(secret, f.secret, sizeof(secret));
	assert_int_equal(sink_attach_check(&f, "198.18.0.1", secret, err, sizeof(err)), 0);
	/* Another address, the right secret. */
	assert_int_equal(sink_attach_check(&f, "198.18.0.9", secret, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "it comes from 198.18.0.9, the flow from 198.18.0.1"));
	/* The right address, one bit of the secret off (first and last byte). */
	secret[0] ^= 1;
	assert_int_equal(sink_attach_check(&f, "198.18.0.1", secret, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "wrong secret"));
	secret[0] ^= 1;
	secret[CONN_SECRET_BYTES - 1] ^= 0x80;
	assert_int_equal(sink_attach_check(&f, "198.18.0.1", secret, err, sizeof(err)), -EACCES);
	secret[CONN_SECRET_BYTES - 1] ^= 0x80;
	/* An all-zero secret (what a client that never saw one sends). */
	memset(secret, 0, sizeof(secret));
	assert_int_equal(sink_attach_check(&f, "198.18.0.1", secret, err, sizeof(err)), -EACCES);
	/* Each flow draws its own secret. */
	memcpy(secret, f.secret, sizeof(secret));
	assert_int_equal(sink_flow_bind(&f, (struct sockaddr *)&v4, err, sizeof(err)), 0);
	assert_memory_not_equal(secret, f.secret, CONN_SECRET_BYTES);
	/* A flow whose client address is not known takes no side connection. */
	f.client_ip[0] = '\0';
	assert_int_equal(sink_attach_check(&f, "198.18.0.1", f.secret, err, sizeof(err)),
			 -EPERM);
	/* An IPv4 client seen through a dual-stack socket is the same address. */
	inet_pton(AF_INET6, "::ffff:198.18.0.1", &mapped.sin6_addr);
	conn_addr_ip((struct sockaddr *)&mapped, ip, sizeof(ip));
	assert_string_equal(ip, "198.18.0.1");
	inet_pton(AF_INET6, "fd00::1", &mapped.sin6_addr);
	conn_addr_ip((struct sockaddr *)&mapped, ip, sizeof(ip));
	assert_string_equal(ip, "fd00::1");
}

/* rdma_cm: a port nobody listens on yet is tried again; the server's own refusal is final. */
static void test_cm_reject_retry(void **state)
{
	(void)state;
	assert_true(conn_cm_reject_retryable(8));	/* IB CM: invalid service ID */
	assert_true(conn_cm_reject_retryable(-ECONNREFUSED));	/* iWARP */
	assert_false(conn_cm_reject_retryable(CONN_CM_REJ_CONSUMER));
}

/*
 * A server's refusal as the client tells it: the caps by their option, an
 * errno by its text; a status that is no -errno (the fuzzer's INT_MIN,
 * which was negated; a positive one, which was returned where a socket
 * was due; 0) is a protocol error.
 */
static void test_refused(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(conn_refused(err, sizeof(err), "B", -EDQUOT), -EDQUOT);
	assert_string_equal(err, "server 'B' refused the flow: the flow's buffers exceed what it "
				 "lets one client pin (rperf server --max-pinned)");
	assert_int_equal(conn_refused(err, sizeof(err), "B", -EBUSY), -EBUSY);
	assert_non_null(strstr(err, "--max-clients"));
	assert_int_equal(conn_refused(err, sizeof(err), "B", -EACCES), -EACCES);
	assert_string_equal(err, "server 'B' refused the flow: Permission denied");
	assert_int_equal(conn_refused(err, sizeof(err), "B", INT_MIN), -EPROTO);
	assert_string_equal(err, "server 'B' refused the flow with status -2147483648, which is "
				 "no error number");
	assert_int_equal(conn_refused(err, sizeof(err), "B", 5), -EPROTO);
	assert_int_equal(conn_refused(err, sizeof(err), "B", 0), -EPROTO);
}

/* Ends with P_Key @a at index @ai, and @b at @bi: conn_pkey_check()'s verdict. */
static int pkeys(uint16_t a, uint16_t ai, uint16_t b, uint16_t bi, char *err, size_t errlen)
{
	struct verbs_endpoint l = { .pkey = a, .pkey_index = ai };
	struct verbs_endpoint p = { .pkey = b, .pkey_index = bi };

	err[0] = '\0';
	return conn_pkey_check(&l, &p, "server 'h2'", err, errlen);
}

/*
 * One partition: the same key at any index, a full member with a limited
 * one; refused: two keys (the message names both values and indices and
 * the fix), or two limited members. A P_Key not known (0) is not held
 * against the peer.
 */
static void test_pkey_check(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(pkeys(0xffff, 0, 0xffff, 0, err, sizeof(err)), 0);
	assert_int_equal(pkeys(0x8001, 1, 0x8001, 3, err, sizeof(err)), 0);
	assert_int_equal(pkeys(0x8001, 1, 0x0001, 0, err, sizeof(err)), 0);
	assert_int_equal(pkeys(0x0001, 2, 0x8001, 1, err, sizeof(err)), 0);
	assert_int_equal(pkeys(0, 0, 0x8001, 1, err, sizeof(err)), 0);
	assert_int_equal(pkeys(0x8001, 1, 0, 0, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(pkeys(0x8001, 1, 0x8002, 2, err, sizeof(err)), -EKEYREJECTED);
	assert_string_equal(err, "P_Key mismatch: this host's QPs use P_Key 0x8001 "
			    "(--pkey-index 1), server 'h2''s 0x8002 (--pkey-index 2), another "
			    "partition: on the side that is wrong, give --pkey-index the index of "
			    "the other's P_Key in its port's table (ibv_devinfo -v lists it), or "
			    "put both ports in one partition in the subnet manager's "
			    "partitions.conf");
	/* The membership bit aside, the keys differ: still two partitions. */
	assert_int_equal(pkeys(0x0001, 0, 0x8002, 0, err, sizeof(err)), -EKEYREJECTED);
	assert_non_null(strstr(err, "0x0001"));
	assert_non_null(strstr(err, "0x8002"));
	assert_int_equal(pkeys(0x0001, 1, 0x0001, 2, err, sizeof(err)), -EKEYREJECTED);
	assert_string_equal(err, "P_Key 0x0001: this host (--pkey-index 1) and server 'h2' "
			    "(P_Key 0x0001, --pkey-index 2) are both limited members of partition "
			    "0x0001, which cannot talk to each other: make one a full member in "
			    "the subnet manager's partitions.conf (=full), or give it --pkey-index "
			    "of a full-member P_Key");
}

/*
 * The P_Key and its index cross the wire, in a TCP hello and in the part
 * of it an rdma_cm request carries; a client told of the server's names
 * both ends when they do not match, and a refusal for the P_Key without
 * the server's still says which option.
 */
static void test_pkey_hello(void **state)
{
	struct conn_hello h = { .kind = CONN_HELLO_CLIENT, .ep = { .pkey = 0x8001,
								   .pkey_index = 5 } }, r;
	uint8_t frame[CONN_HELLO_BYTES];
	char err[512];

	(void)state;
	conn_hello_pack(&h, frame);
	assert_int_equal(conn_hello_unpack(frame, &r), 0);
	assert_int_equal(r.ep.pkey, 0x8001);
	assert_int_equal(r.ep.pkey_index, 5);
	assert_int_equal(conn_cm_request_take(frame, CONN_HELLO_REQ_BYTES, &r), 0);
	assert_int_equal(r.ep.pkey, 0x8001);
	assert_int_equal(r.ep.pkey_index, 5);
	r = (struct conn_hello){ .kind = CONN_HELLO_SERVER, .status = -EKEYREJECTED,
				 .ep = { .pkey = 0x8002, .pkey_index = 1 } };
	assert_int_equal(conn_answer_check(&h, &r, "B", err, sizeof(err)), -EKEYREJECTED);
	assert_non_null(strstr(err, "P_Key 0x8001 (--pkey-index 5), server 'B''s 0x8002 "
				    "(--pkey-index 1)"));
	r.ep.pkey = 0;
	assert_int_equal(conn_answer_check(&h, &r, "B", err, sizeof(err)), -EKEYREJECTED);
	assert_string_equal(err, "server 'B' refused the flow: its P_Key and this host's are not "
				 "of one partition with a full member (--pkey-index)");
	r.status = 0;
	assert_int_equal(conn_answer_check(&h, &r, "B", err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_gone),
		cmocka_unit_test(test_hello_attach),
		cmocka_unit_test(test_attach_bound),
		cmocka_unit_test(test_cm_reject_retry),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_pkey_check),
		cmocka_unit_test(test_pkey_hello),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
