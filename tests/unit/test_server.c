/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server's admission (engine/server.c) without RDMA: the caps on
 * clients and on what one client pins, checked on flows of our own; then
 * the server's own loop on the loopback, its sink given no device, with
 * idle peers connected ahead of clients that ask too much: each client
 * is answered at once with the reason, the refusals and the connections
 * without a hello are counted, and the JSON report says so.
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "unit.h"

#include "base/stop.h"
#include "engine/server.h"
#include "report/report_server.h"

#define MIB (1024u * 1024u)

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* An open (or closed) flow of @s from @ip that pins @bytes. */
static void add_flow(struct sink *s, const char *ip, size_t bytes, bool active)
{
	struct sink_flow *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	if (s->n_flows == s->cap_flows) {
		s->cap_flows = s->cap_flows ? 2 * s->cap_flows : 8;
		s->flows = realloc(s->flows, s->cap_flows * sizeof(*s->flows));
		assert_non_null(s->flows);
	}
	f->id = (uint32_t)s->n_flows + 1;
	f->fd = -1;
	f->active = active;
	f->pinned_bytes = bytes;
	snprintf(f->client_ip, sizeof(f->client_ip), "%s", ip);
	s->flows[s->n_flows++] = f;
}

/* A sink that only admits: no device, no channel, RECV rings of 512. */
static void sink_bare(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->ring_depth = 512;
	sink_gate_init(&s->gate);
}

/* What a flow pins: its buffer in pages (huge ones if asked) and its rings. */
static void test_pin_bytes(void **state)
{
	struct sink s;

	(void)state;
	sink_bare(&s);
	assert_int_equal(sink_flow_pin_bytes(&s, 0), 4096 + 512 * SINK_RING_ENTRY_BYTES);
	assert_int_equal(sink_flow_pin_bytes(&s, 4097), 8192 + 512 * SINK_RING_ENTRY_BYTES);
	s.hugepages = true;
	assert_int_equal(sink_flow_pin_bytes(&s, 4097), (2u << 20) + 512 * SINK_RING_ENTRY_BYTES);
	sink_release(&s);
}

/* --max-clients counts addresses with open flows; a known one is never refused for it. */
static void test_max_clients(void **state)
{
	struct server_caps caps = { .max_clients = 2, .max_client_bytes = 100 * MIB };
	struct sink s;
	char err[256];

	(void)state;
	sink_bare(&s);
	add_flow(&s, "198.18.0.1", MIB, true);
	add_flow(&s, "198.18.0.1", MIB, true);
	assert_int_equal(server_admit_check(&s, &caps, "198.18.0.2", MIB, err, sizeof(err)), 0);
	add_flow(&s, "198.18.0.2", MIB, true);
	assert_int_equal(server_admit_check(&s, &caps, "198.18.0.3", MIB, err, sizeof(err)),
			 -EBUSY);
	assert_non_null(strstr(err, "2 other clients have flows open, the server's --max-clients"));
	/* Those already in are not refused for the count. */
	assert_int_equal(server_admit_check(&s, &caps, "198.18.0.2", MIB, err, sizeof(err)), 0);
	/* A client whose flows have all closed holds no place. */
	s.flows[2]->active = false;
	assert_int_equal(server_admit_check(&s, &caps, "198.18.0.3", MIB, err, sizeof(err)), 0);
	sink_release(&s);
}

/* --max-pinned: the open flows of one address and the new one, summed. */
static void test_max_client_memory(void **state)
{
	struct server_caps caps = { .max_clients = 16, .max_client_bytes = 64 * MIB };
	struct sink s;
	char err[256];

	(void)state;
	sink_bare(&s);
	assert_int_equal(server_admit_check(&s, &caps, "10.0.0.1", 64 * MIB, err, sizeof(err)), 0);
	assert_int_equal(server_admit_check(&s, &caps, "10.0.0.1", 64 * MIB + 1, err,
					    sizeof(err)), -EDQUOT);
	add_flow(&s, "10.0.0.1", 40 * MIB, true);
	add_flow(&s, "10.0.0.1", 20 * MIB, false);	/* closed: pins nothing now */
	add_flow(&s, "10.0.0.2", 60 * MIB, true);	/* another client's */
	assert_int_equal(server_admit_check(&s, &caps, "10.0.0.1", 24 * MIB, err, sizeof(err)), 0);
	assert_int_equal(server_admit_check(&s, &caps, "10.0.0.1", 25 * MIB, err, sizeof(err)),
			 -EDQUOT);
	assert_non_null(strstr(err, "would pin 25.0 MiB beside the client's 40.0 MiB, above the "
				    "server's --max-pinned 64.0 MiB"));
	sink_release(&s);
}

static void *loop_main(void *arg)
{
	server_loop(arg);
	return NULL;
}

/*
 * A client's flow request as rperf lat and bw send it (conn_client_flow),
 * for messages of @bytes, its QPs on P_Key @pkey at @pkey_index (0: not
 * known): its result, the message in @err.
 */
static int client_asks_pkey(uint16_t port, size_t bytes, uint16_t pkey, uint16_t pkey_index,
			    char *err, size_t errlen)
{
	struct ibv_qp qp = { .qp_num = 7 };
	struct verbs_dev dev = { .gid_index = -1, .pkey = pkey, .pkey_index = pkey_index };
	struct verbs_qp q = { .dev = &dev, .qp = &qp };
	struct verbs_path path = { .sl = 0 };
	int fd = conn_client_flow("127.0.0.1", port, &q, &path, bytes, NULL, NULL, 2000, err,
				  errlen);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static int client_asks(uint16_t port, size_t bytes, char *err, size_t errlen)
{
	return client_asks_pkey(port, bytes, 0, 0, err, errlen);
}

/* A server on 127.0.0.1 (its port in *@port) whose sink has no device and the flows
 * @sv->sink holds already; its loop started in *@tid. */
static void loop_start(struct server *sv, uint16_t *port, pthread_t *tid)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	char err[256];

	sv->sink.admit = server_admit;
	sv->sink.admit_arg = sv;
	sv->lfd = conn_listen("127.0.0.1", 0, err, sizeof(err));
	assert_true(sv->lfd >= 0);
	assert_int_equal(getsockname(sv->lfd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	assert_int_equal(pthread_create(tid, NULL, loop_main, sv), 0);
}

static void loop_stop(struct server *sv, pthread_t tid)
{
	stop_request();
	assert_int_equal(pthread_join(tid, NULL), 0);
	stop_reset();
	close(sv->lfd);
}

/*
 * The server's loop on the loopback: 3 idle peers connected first hold up
 * no client, and a client over the memory cap is answered at once with
 * the reason; the refusal and the idle peers (once they hang up) are
 * counted, in the JSON report too.
 */
static void test_loop_memory_cap(void **state)
{
	struct flow_opts flow = { .tcp_port = 0 };
	struct server_cfg cfg = { .flow = &flow,
				  .caps = { .max_clients = 16, .max_client_bytes = 16 * MIB } };
	struct server sv = { .cfg = &cfg };
	struct verbs_dev dev = { .name = "fake0" };
	int idle[3], i;
	uint16_t port;
	pthread_t tid;
	char err[256];
	int64_t t0;
	json_t *doc;

	(void)state;
	sink_bare(&sv.sink);
	loop_start(&sv, &port, &tid);
	for (i = 0; i < 3; i++)
		idle[i] = unit_connect_lo(port);
	t0 = now_ms();
	assert_int_equal(client_asks(port, 32 * MIB, err, sizeof(err)), -EDQUOT);
	assert_true(now_ms() - t0 < 1000);
	assert_string_equal(err, "server '127.0.0.1' refused the flow: the flow's buffers exceed "
				 "what it lets one client pin (rperf server --max-pinned)");
	for (i = 0; i < 3; i++)
		close(idle[i]);
	usleep(300000);
	loop_stop(&sv, tid);
	assert_int_equal(sv.sink.admit_refused, 1);
	assert_int_equal(sv.sink.gate.dropped, 3);
	sv.sink.dev = &dev;
	doc = report_server_json(&sv.sink, 1.0);
	assert_int_equal(json_integer_value(json_object_get(doc, "flows_refused")), 1);
	assert_int_equal(json_integer_value(json_object_get(doc, "connections_without_hello")), 3);
	json_decref(doc);
	sink_release(&sv.sink);
}

/* Two other clients with flows open and --max-clients 2: a third is told why, at once. */
static void test_loop_client_cap(void **state)
{
	struct flow_opts flow = { .tcp_port = 0 };
	struct server_cfg cfg = { .flow = &flow,
				  .caps = { .max_clients = 2, .max_client_bytes = 16 * MIB } };
	struct server sv = { .cfg = &cfg };
	uint16_t port;
	pthread_t tid;
	char err[256];
	int64_t t0;

	(void)state;
	sink_bare(&sv.sink);
	add_flow(&sv.sink, "198.18.0.1", MIB, true);
	add_flow(&sv.sink, "198.18.0.2", MIB, true);
	loop_start(&sv, &port, &tid);
	t0 = now_ms();
	assert_int_equal(client_asks(port, 4096, err, sizeof(err)), -EBUSY);
	assert_true(now_ms() - t0 < 1000);
	assert_string_equal(err, "server '127.0.0.1' refused the flow: it serves as many clients "
				 "as it takes (rperf server --max-clients)");
	loop_stop(&sv, tid);
	assert_int_equal(sv.sink.admit_refused, 1);
	sink_release(&sv.sink);
}

/*
 * A client whose P_Key is of another partition than the server's is
 * refused before any QP is made, and told both ends' P_Keys and indices;
 * the refusal is the server's too (its answer carries its P_Key).
 */
static void test_loop_pkey(void **state)
{
	struct flow_opts flow = { .tcp_port = 0 };
	struct server_cfg cfg = { .flow = &flow,
				  .caps = { .max_clients = 16, .max_client_bytes = 16 * MIB } };
	struct server sv = { .cfg = &cfg };
	struct verbs_dev dev = { .name = "fake0", .pkey = 0x8002, .pkey_index = 2 };
	uint16_t port;
	pthread_t tid;
	char err[512];

	(void)state;
	sink_bare(&sv.sink);
	sv.sink.dev = &dev;
	loop_start(&sv, &port, &tid);
	assert_int_equal(client_asks_pkey(port, 4096, 0x8001, 1, err, sizeof(err)),
			 -EKEYREJECTED);
	assert_non_null(strstr(err, "P_Key 0x8001 (--pkey-index 1), server '127.0.0.1''s "
				    "0x8002 (--pkey-index 2)"));
	loop_stop(&sv, tid);
	assert_int_equal(sv.sink.n_flows, 0);
	sink_release(&sv.sink);
}

/* --bind: a name that does not resolve and an address not this host's, each named. */
static void test_bind(void **state)
{
	char err[256];
	int fd, c;
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	socklen_t sl = sizeof(sa);

	(void)state;
	assert_int_equal(conn_listen("no-such-host.invalid", 0, err, sizeof(err)), -EADDRNOTAVAIL);
	assert_non_null(strstr(err, "cannot resolve 'no-such-host.invalid'"));
	assert_int_equal(conn_listen("203.0.113.77", 0, err, sizeof(err)), -EADDRNOTAVAIL);
	assert_non_null(strstr(err, "cannot listen on 203.0.113.77 port 0"));
	/* IPv6: ::1 takes a client there. */
	fd = conn_listen("::1", 0, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	assert_int_equal(sa.sin6_family, AF_INET6);
	c = socket(AF_INET6, SOCK_STREAM, 0);
	inet_pton(AF_INET6, "::1", &sa.sin6_addr);
	assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(c);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_bytes),
		cmocka_unit_test(test_max_clients),
		cmocka_unit_test(test_max_client_memory),
		cmocka_unit_test(test_loop_memory_cap),
		cmocka_unit_test(test_loop_client_cap),
		cmocka_unit_test(test_loop_pkey),
		cmocka_unit_test(test_bind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
