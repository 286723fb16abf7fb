/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server --token-file without RDMA: the server's loop on the
 * loopback, its sink given no device, and clients as rperf lat and bw
 * connect (conn_client_flow). A client with the right token passes the
 * proofs both ways and is refused only at the memory cap (the sink has
 * no device to make its flow on); one without a token, with a wrong one,
 * or replaying a proof recorded in another session is refused for the
 * token, told why, and counted. And the client's side against servers
 * scripted on a socket pair: one that admits without a challenge, one
 * whose proof is not the token's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "unit.h"

#include "base/stop.h"
#include "engine/server.h"
#include "report/report_server.h"

#define TOKEN	"3f1c9a7be24d8056c1a3e9f7d2b4086a5c7e1f3b9d2a4c6e8f0b1d3a5c7e9f1b"
#define OTHER	"8e2d4b6a0c1f3e5d7b9a2c4e6f8a0b1c3d5e7f9a1b2c3d4e5f6a7b8c9d0e1f2a"
#define MIB	(1024u * 1024u)

struct lo_server {
	struct flow_opts flow;
	struct server_cfg cfg;
	struct server sv;
	uint16_t port;
	pthread_t tid;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *loop_main(void *arg)
{
	server_loop(arg);
	return NULL;
}

/*
 * A server on 127.0.0.1 requiring @token (NULL: none), whose sink has no
 * device: a flow that passes the token is refused at --max-pinned (1 MiB).
 */
static void lo_start(struct lo_server *l, const char *token)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	char err[256];

	memset(l, 0, sizeof(*l));
	l->cfg = (struct server_cfg){ .flow = &l->flow,
				      .caps = { .max_clients = 16, .max_client_bytes = MIB } };
	l->sv.cfg = &l->cfg;
	l->sv.sink.ring_depth = 512;
	sink_gate_init(&l->sv.sink.gate);
	l->sv.sink.admit = server_admit;
	l->sv.sink.admit_arg = &l->sv;
	l->sv.sink.token = token;
	l->sv.lfd = conn_listen("127.0.0.1", 0, err, sizeof(err));
	assert_true(l->sv.lfd >= 0);
	assert_int_equal(getsockname(l->sv.lfd, (struct sockaddr *)&sa, &sl), 0);
	l->port = ntohs(sa.sin_port);
	assert_int_equal(pthread_create(&l->tid, NULL, loop_main, &l->sv), 0);
}

static void lo_stop(struct lo_server *l)
{
	stop_request();
	assert_int_equal(pthread_join(l->tid, NULL), 0);
	stop_reset();
	close(l->sv.lfd);
}

/* A flow request as rperf lat sends it, with @token (NULL: none), of 2 MiB messages. */
static int client_asks(uint16_t port, const char *token, char *err, size_t errlen)
{
	struct ibv_qp qp = { .qp_num = 7 };
	struct verbs_dev dev = { .gid_index = -1 };
	struct verbs_qp q = { .dev = &dev, .qp = &qp };
	struct verbs_path path = { .sl = 0 };
	int fd = conn_client_flow("127.0.0.1", port, &q, &path, 2 * MIB, NULL, token, 2000, err,
				  errlen);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/* The right token: both proofs pass, the flow reaches admission (its cap refuses it). */
static void test_right_token(void **state)
{
	struct lo_server l;
	char err[256];
	json_t *doc;
	struct verbs_dev dev = { .name = "fake0" };

	(void)state;
	lo_start(&l, TOKEN);
	assert_int_equal(client_asks(l.port, TOKEN, err, sizeof(err)), -EDQUOT);
	assert_non_null(strstr(err, "--max-pinned"));
	lo_stop(&l);
	assert_int_equal(l.sv.sink.auth_refused, 0);
	assert_int_equal(l.sv.sink.admit_refused, 1);
	l.sv.sink.dev = &dev;
	doc = report_server_json(&l.sv.sink, 1.0);
	assert_true(json_is_true(json_object_get(doc, "authenticated")));
	assert_int_equal(json_integer_value(json_object_get(doc, "clients_refused_token")), 0);
	json_decref(doc);
	sink_release(&l.sv.sink);
}

/*
 * A client with @token (NULL: none) refused by a server with TOKEN with
 * @want and @why, at once (well inside the 5 s a handshake may take, the
 * margin for a loaded machine), counted as a token refusal, never reaching
 * admission.
 */
static void refused_for_token(const char *token, int want, const char *why)
{
	struct lo_server l;
	char err[256];
	int64_t t0;

	lo_start(&l, TOKEN);
	t0 = now_ms();
	assert_int_equal(client_asks(l.port, token, err, sizeof(err)), want);
	assert_true(now_ms() - t0 < 4000);
	assert_string_equal(err, why);
	lo_stop(&l);
	assert_int_equal(l.sv.sink.auth_refused, 1);
	assert_int_equal(l.sv.sink.admit_refused, 0);
	sink_release(&l.sv.sink);
}

/* A wrong token: refused for it, told so. */
static void test_wrong_token(void **state)
{
	(void)state;
	refused_for_token(OTHER, -EPERM, "server '127.0.0.1' refused the flow: wrong token "
			  "(the server's --token-file holds another)");
}

/* No token: refused, told what is missing. */
static void test_missing_token(void **state)
{
	(void)state;
	refused_for_token(NULL, -ENOKEY, "server '127.0.0.1' refused the flow: the server "
			  "requires a token: --token-file");
}

/* A server without a token serves a client without one as before. */
static void test_no_token_either_side(void **state)
{
	struct lo_server l;
	char err[256];
	json_t *doc;
	struct verbs_dev dev = { .name = "fake0" };

	(void)state;
	lo_start(&l, NULL);
	assert_int_equal(client_asks(l.port, NULL, err, sizeof(err)), -EDQUOT);
	lo_stop(&l);
	assert_int_equal(l.sv.sink.auth_refused, 0);
	l.sv.sink.dev = &dev;
	doc = report_server_json(&l.sv.sink, 1.0);
	assert_true(json_is_false(json_object_get(doc, "authenticated")));
	json_decref(doc);
	sink_release(&l.sv.sink);
}

/* A hello asking to prove a token, on a fresh connection to @port; its challenge in @ch. */
static int raw_hello(uint16_t port, struct conn_auth *ch)
{
	struct conn_hello h = { .kind = CONN_HELLO_CLIENT, .flags = CONN_HELLO_F_TOKEN,
				.max_msg_bytes = 2 * MIB };
	uint8_t frame[CONN_HELLO_BYTES];
	int fd = unit_connect_lo(port);

	assert_int_equal(conn_send_hello(fd, &h, 1000), 0);
	assert_int_equal(conn_read_full(fd, frame, sizeof(frame), 1000), 0);
	assert_int_equal(conn_auth_unpack(frame, ch), 0);
	assert_int_equal(ch->kind, CONN_AUTH_CHALLENGE);
	return fd;
}

/* A proof recorded in one session, replayed in another, is refused there. */
static void test_replayed_proof(void **state)
{
	struct conn_auth ch1, ch2, proof = { .kind = CONN_AUTH_PROOF }, ours;
	uint8_t frame[CONN_HELLO_BYTES], recorded[CONN_HELLO_BYTES];
	struct conn_hello r;
	struct lo_server l;
	int fd;

	(void)state;
	lo_start(&l, TOKEN);
	/* Session 1, as a client that holds the token: its proof passes. */
	fd = raw_hello(l.port, &ch1);
	assert_int_equal(conn_auth_nonce(proof.nonce), 0);
	assert_int_equal(conn_auth_prove(TOKEN, "client", proof.nonce, ch1.nonce, proof.mac), 0);
	conn_auth_pack(&proof, recorded);
	assert_int_equal(conn_write_full(fd, recorded, sizeof(recorded), 1000), 0);
	assert_int_equal(conn_read_full(fd, frame, sizeof(frame), 1000), 0);
	assert_int_equal(conn_auth_unpack(frame, &ours), 0);
	assert_true(conn_auth_verify(TOKEN, "server", ch1.nonce, proof.nonce, ours.mac));
	assert_int_equal(conn_recv_hello(fd, &r, 1000), 0);
	assert_int_equal(r.status, -EDQUOT);	/* admission reached */
	close(fd);
	/* Session 2: a fresh challenge, the recorded proof: refused. */
	fd = raw_hello(l.port, &ch2);
	assert_memory_not_equal(ch1.nonce, ch2.nonce, CONN_NONCE_BYTES);
	assert_int_equal(conn_write_full(fd, recorded, sizeof(recorded), 1000), 0);
	assert_int_equal(conn_recv_hello(fd, &r, 1000), 0);
	assert_int_equal(r.kind, CONN_HELLO_SERVER);
	assert_int_equal(r.status, -EPERM);
	close(fd);
	lo_stop(&l);
	assert_int_equal(l.sv.sink.auth_refused, 1);
	assert_int_equal(l.sv.sink.admit_refused, 1);
	sink_release(&l.sv.sink);
}

/* The client's side against the frames in @script, written ahead on a socket pair. */
static int client_against(const uint8_t *script, size_t n, const char *token, char *why,
			  size_t whylen)
{
	struct conn_hello r;
	int sv[2], ret;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(conn_write_full(sv[1], script, n, 1000), 0);
	why[0] = '\0';
	ret = conn_auth_client(sv[0], token, &r, 1000, why, whylen);
	close(sv[0]);
	close(sv[1]);
	return ret;
}

/* A server without a token admits at once: a client with a token refuses it. */
static void test_tokenless_server(void **state)
{
	struct conn_hello admit = { .kind = CONN_HELLO_SERVER, .flow_id = 1 };
	uint8_t frame[CONN_HELLO_BYTES];
	char why[256];

	(void)state;
	conn_hello_pack(&admit, frame);
	assert_int_equal(client_against(frame, sizeof(frame), TOKEN, why, sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "admitted the flow without proving our token"));
	/* Without a token the same answer is today's. */
	assert_int_equal(client_against(frame, sizeof(frame), NULL, why, sizeof(why)), 0);
}

/* A challenge, then a proof not made with the token (or the server's proof replayed). */
static void test_server_proof_wrong(void **state)
{
	struct conn_auth ch = { .kind = CONN_AUTH_CHALLENGE }, p = { .kind = CONN_AUTH_PROOF };
	uint8_t script[2 * CONN_HELLO_BYTES], nonce_c[CONN_NONCE_BYTES];
	char why[256];

	(void)state;
	assert_int_equal(conn_auth_nonce(ch.nonce), 0);
	assert_int_equal(conn_auth_nonce(nonce_c), 0);	/* not the client's nonce */
	assert_int_equal(conn_auth_prove(TOKEN, "server", ch.nonce, nonce_c, p.mac), 0);
	conn_auth_pack(&ch, script);
	conn_auth_pack(&p, script + CONN_HELLO_BYTES);
	assert_int_equal(client_against(script, sizeof(script), TOKEN, why, sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "its proof does not match our token"));
	/* A client without a token, challenged, says what it lacks. */
	assert_int_equal(client_against(script, sizeof(script), NULL, why, sizeof(why)), -ENOKEY);
	assert_string_equal(why, "the server requires a token: --token-file");
}

/* One role's proof is not the other's; the label binds it to this protocol. */
static void test_roles(void **state)
{
	uint8_t a[CONN_NONCE_BYTES] = { 1 }, b[CONN_NONCE_BYTES] = { 2 }, mac[CONN_MAC_BYTES];

	(void)state;
	assert_int_equal(conn_auth_prove(TOKEN, "client", a, b, mac), 0);
	assert_true(conn_auth_verify(TOKEN, "client", a, b, mac));
	assert_false(conn_auth_verify(TOKEN, "server", a, b, mac));
	assert_false(conn_auth_verify(TOKEN, "client", b, a, mac));
	assert_false(conn_auth_verify(OTHER, "client", a, b, mac));
}

/* --token-file read once for lat, bw and server: refused with --rdma-cm, and when others may read it. */
static void test_token_option(void **state)
{
	char path[] = "/tmp/test_server_token.XXXXXX", err[256];
	struct flow_opts o;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, TOKEN "\n", sizeof(TOKEN)), (ssize_t)sizeof(TOKEN));
	close(fd);
	flow_opts_defaults(&o);
	assert_int_equal(flow_opts_token(&o, err, sizeof(err)), 0);
	assert_null(flow_opts_token_of(&o));
	o.token_file = path;
	assert_int_equal(flow_opts_token(&o, err, sizeof(err)), 0);
	assert_string_equal(flow_opts_token_of(&o), TOKEN);
	o.rdma_cm = true;
	assert_int_equal(flow_opts_token(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--token-file needs the TCP setup"));
	o.rdma_cm = false;
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(flow_opts_token(&o, err, sizeof(err)), -EPERM);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_right_token),
		cmocka_unit_test(test_wrong_token),
		cmocka_unit_test(test_missing_token),
		cmocka_unit_test(test_no_token_either_side),
		cmocka_unit_test(test_replayed_proof),
		cmocka_unit_test(test_tokenless_server),
		cmocka_unit_test(test_server_proof_wrong),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_token_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
