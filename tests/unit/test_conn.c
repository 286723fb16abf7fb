/*
 * conn: telling that a peer is gone, which every client checks while it
 * measures, including when the peer's last message is still unread; the
 * hello that attaches a side connection to an rdma_cm flow.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdma/conn.h"

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
	h.kind = CONN_HELLO_ATTACH + 1;
	conn_hello_pack(&h, frame);
	assert_int_not_equal(conn_hello_unpack(frame, &r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_gone),
		cmocka_unit_test(test_hello_attach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
