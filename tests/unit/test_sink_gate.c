/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The sink's data port before a hello (engine/sink_gate.c), on the
 * loopback: idle connections never hold up a client whose hello is
 * whole, a hello sent in pieces is taken once whole, connections without
 * a hello are closed at their deadline and counted once, and an address
 * holds at most its share of the pending slots (base/slots.c, which the
 * agent's control-port gate shares).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "unit.h"

#include "base/slots.h"
#include "engine/sink_gate.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A listener on 127.0.0.1 (an ephemeral port, in *@port). */
static int listen_lo(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 64), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/*
 * Passes of the gate (poll, then every connection whose hello is whole)
 * for up to @ms: the first hello taken (its socket in *@fd, its first
 * byte in *@b0), 1; 0 when none came.
 */
static int gate_run(struct sink_gate *g, int lfd, int hello_ms, int ms, int *fd, uint8_t *b0)
{
	int64_t end = now_ms() + ms;
	struct pollfd p[SINK_GATE_MAX + 1];
	uint8_t frame[CONN_HELLO_BYTES];

	do {
		sink_gate_poll(g, p + 1);
		p[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		poll(p, SINK_GATE_MAX + 1, 20);
		if (sink_gate_next(g, p + 1, lfd, p[0].revents != 0, hello_ms, fd, frame) == 1) {
			*b0 = frame[0];
			return 1;
		}
	} while (now_ms() < end);
	return 0;
}

static size_t gate_pending(const struct sink_gate *g)
{
	size_t i, n = 0;

	for (i = 0; i < SINK_GATE_MAX; i++)
		n += g->pend[i].fd >= 0;
	return n;
}

/* 3 idle connections ahead of a good client: its hello is taken at once. */
static void test_idle_ahead(void **state)
{
	struct sink_gate g;
	uint8_t hello[CONN_HELLO_BYTES], b0 = 0;
	int lfd, idle[3], c, fd = -1, i;
	uint16_t port;
	int64_t t0;

	(void)state;
	sink_gate_init(&g);
	lfd = listen_lo(&port);
	for (i = 0; i < 3; i++)
		idle[i] = unit_connect_lo(port);
	c = unit_connect_lo(port);
	memset(hello, 0x5a, sizeof(hello));
	assert_int_equal(send(c, hello, sizeof(hello), 0), (ssize_t)sizeof(hello));
	t0 = now_ms();
	assert_int_equal(gate_run(&g, lfd, 5000, 2000, &fd, &b0), 1);
	assert_true(now_ms() - t0 < 500);
	assert_int_equal(b0, 0x5a);
	assert_int_equal(gate_pending(&g), 3);
	/* A data socket: keepalive after 10 s idle, not the system's two hours. */
	{
		int v = 0;
		socklen_t vl = sizeof(v);

		assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, &vl), 0);
		assert_int_equal(v, 1);
		assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &v, &vl), 0);
		assert_int_equal(v, CONN_KEEPIDLE_S);
	}
	/* The socket handed over is the client's: our answer reaches it. */
	assert_int_equal(send(fd, "x", 1, 0), 1);
	assert_int_equal(recv(c, &b0, 1, 0), 1);
	assert_int_equal(b0, 'x');
	assert_int_equal(g.dropped, 0);
	close(fd);
	close(c);
	for (i = 0; i < 3; i++)
		close(idle[i]);
	sink_gate_release(&g);
	close(lfd);
}

/* A hello in two pieces is taken once whole, not before. */
static void test_pieces(void **state)
{
	struct sink_gate g;
	uint8_t hello[CONN_HELLO_BYTES], b0 = 0;
	int lfd, c, fd = -1;
	uint16_t port;

	(void)state;
	sink_gate_init(&g);
	lfd = listen_lo(&port);
	c = unit_connect_lo(port);
	memset(hello, 0x33, sizeof(hello));
	assert_int_equal(send(c, hello, 30, 0), 30);
	assert_int_equal(gate_run(&g, lfd, 5000, 300, &fd, &b0), 0);
	assert_int_equal(gate_pending(&g), 1);
	assert_int_equal(send(c, hello + 30, sizeof(hello) - 30, 0), (ssize_t)sizeof(hello) - 30);
	assert_int_equal(gate_run(&g, lfd, 5000, 1000, &fd, &b0), 1);
	assert_int_equal(b0, 0x33);
	assert_int_equal(gate_pending(&g), 0);
	close(fd);
	close(c);
	close(lfd);
}

/*
 * Without a hello by the deadline: closed (the peer sees its end) and
 * counted, told once all are gone; a peer that hangs up is counted too.
 */
static void test_deadline(void **state)
{
	struct sink_gate g;
	uint8_t b0;
	int lfd, idle[3], fd, i;
	uint16_t port;
	char c;

	(void)state;
	sink_gate_init(&g);
	lfd = listen_lo(&port);
	for (i = 0; i < 3; i++)
		idle[i] = unit_connect_lo(port);
	assert_int_equal(gate_run(&g, lfd, 1000, 100, &fd, &b0), 0);
	assert_int_equal(gate_pending(&g), 3);
	assert_int_equal(sink_gate_expire(&g), 0);	/* not yet */
	close(idle[2]);
	assert_int_equal(gate_run(&g, lfd, 1000, 100, &fd, &b0), 0);
	assert_int_equal(gate_pending(&g), 2);
	assert_int_equal(sink_gate_expire(&g), 0);	/* two still pending */
	usleep(1000 * 1000);
	assert_int_equal(sink_gate_expire(&g), 3);
	assert_int_equal(sink_gate_expire(&g), 0);	/* told once */
	assert_int_equal(g.dropped, 3);
	for (i = 0; i < 2; i++) {
		assert_int_equal(recv(idle[i], &c, 1, 0), 0);
		close(idle[i]);
	}
	close(lfd);
}

/*
 * Part of a hello, then the peer's end of stream: dropped at once, not
 * left to its deadline (its end of stream woke poll at every pass until
 * then, a busy loop).
 */
static void test_half_close(void **state)
{
	struct sink_gate g;
	uint8_t hello[CONN_HELLO_BYTES / 2] = { 0x5a }, b0;
	int lfd, c, fd;
	uint16_t port;

	(void)state;
	sink_gate_init(&g);
	lfd = listen_lo(&port);
	c = unit_connect_lo(port);
	assert_int_equal(send(c, hello, sizeof(hello), 0), (ssize_t)sizeof(hello));
	assert_int_equal(shutdown(c, SHUT_WR), 0);
	assert_int_equal(gate_run(&g, lfd, 5000, 300, &fd, &b0), 0);
	assert_int_equal(gate_pending(&g), 0);
	assert_int_equal(g.dropped, 1);
	close(c);
	sink_gate_release(&g);
	close(lfd);
}

/* One address holds SINK_GATE_PER_ADDR slots at most: the oldest make room. */
static void test_per_addr(void **state)
{
	struct sink_gate g;
	int lfd, c[SINK_GATE_PER_ADDR + 5], fd, i, n = SINK_GATE_PER_ADDR + 5;
	uint16_t port;
	uint8_t b0;

	(void)state;
	sink_gate_init(&g);
	lfd = listen_lo(&port);
	for (i = 0; i < n; i++)
		c[i] = unit_connect_lo(port);
	assert_int_equal(gate_run(&g, lfd, 5000, 300, &fd, &b0), 0);
	assert_int_equal(gate_pending(&g), SINK_GATE_PER_ADDR);
	assert_int_equal(g.dropped, 5);
	for (i = 0; i < n; i++)
		close(c[i]);
	sink_gate_release(&g);
	close(lfd);
}

/* The choice itself (base/slots.c): a free slot, else the lowest rank of the address or of all. */
static void test_slots_pick(void **state)
{
	struct slot_view v[3] = {
		{ .used = true, .from = "a", .rank = 5 },
		{ .used = false },
		{ .used = true, .from = "b", .rank = 3 },
	};
	bool evict;

	(void)state;
	assert_int_equal(slots_pick(v, 3, "c", 2, &evict), 1);
	assert_false(evict);
	/* "a" at its cap of 1: its own oldest makes room, though a slot is free. */
	assert_int_equal(slots_pick(v, 3, "a", 1, &evict), 0);
	assert_true(evict);
	/* None free: the lowest rank of all. */
	v[1] = (struct slot_view){ .used = true, .from = "a", .rank = 9 };
	assert_int_equal(slots_pick(v, 3, "c", 2, &evict), 2);
	assert_true(evict);
	/* "a" at its cap of 2, none free: a's lowest, not b's lower one. */
	assert_int_equal(slots_pick(v, 3, "a", 2, &evict), 0);
	assert_true(evict);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_ahead),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_half_close),
		cmocka_unit_test(test_per_addr),
		cmocka_unit_test(test_slots_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
