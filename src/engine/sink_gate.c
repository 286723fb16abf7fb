/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The sink's data port before a hello: see sink_gate.h. The same shape as
 * the agent's control-port gate (agent/agent_gate.c), for a fixed-size
 * frame: a hello is taken only once all of it is in the kernel (peeked),
 * and poll() wakes a pending socket only then (SO_RCVLOWAT) or on hang-up.
 */
#define _GNU_SOURCE	/* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/slots.h"
#include "engine/sink_gate.h"

static uint64_t gate_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sink_gate_init(struct sink_gate *g)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < SINK_GATE_MAX; i++)
		g->pend[i].fd = -1;
}

static void gate_free(struct sink_pending *p)
{
	close(p->fd);
	p->fd = -1;
}

/* Close @p without its hello: counted. */
static void gate_drop(struct sink_gate *g, struct sink_pending *p)
{
	gate_free(p);
	g->dropped++;
	g->untold++;
}

void sink_gate_release(struct sink_gate *g)
{
	size_t i;

	for (i = 0; i < SINK_GATE_MAX; i++)
		if (g->pend[i].fd >= 0)
			gate_free(&g->pend[i]);
}

void sink_gate_poll(struct sink_gate *g, struct pollfd pfd[SINK_GATE_MAX])
{
	size_t i;

	g->accepted = 0;
	/* POLLRDHUP: a peer that half-closes after part of a hello is told apart. */
	for (i = 0; i < SINK_GATE_MAX; i++)
		pfd[i] = (struct pollfd){ .fd = g->pend[i].fd, .events = POLLIN | POLLRDHUP };
}

static void gate_lowat(int fd, int bytes)
{
	setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof(bytes));
}

/*
 * @p's hello, if all of it is there: 1 with it read into @frame and the
 * slot handed over in *@fd; 0 not yet (poll wakes once it is); -1 hung up
 * or failed (dropped). @revents: what poll() said of it (0: not polled).
 */
static int gate_take(struct sink_gate *g, struct sink_pending *p, short revents, int *fd,
		     uint8_t frame[CONN_HELLO_BYTES])
{
	ssize_t n = recv(p->fd, frame, CONN_HELLO_BYTES, MSG_PEEK | MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		gate_lowat(p->fd, CONN_HELLO_BYTES);
		return 0;
	}
	/*
	 * Part of a hello from a peer that sent all it will: it never becomes
	 * whole, and its end of stream would wake poll() at once, again and
	 * again, until the deadline.
	 */
	if (n < CONN_HELLO_BYTES && n > 0 && !(revents & (POLLRDHUP | POLLHUP))) {
		gate_lowat(p->fd, CONN_HELLO_BYTES);
		return 0;
	}
	if (n <= 0 || recv(p->fd, frame, CONN_HELLO_BYTES, MSG_DONTWAIT) != CONN_HELLO_BYTES) {
		gate_drop(g, p);
		return -1;
	}
	/* From here the flow's socket: requests wake poll at any byte, reads may wait. */
	gate_lowat(p->fd, 1);
	conn_sock_tune(p->fd);
	fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) & ~O_NONBLOCK);
	*fd = p->fd;
	g->taken = *p;
	p->fd = -1;
	p->proving = false;
	return 1;
}

/*
 * The slot for a connection from @from: a free one, else (at the cap
 * overall, or for @from) the oldest one, dropped.
 */
static struct sink_pending *gate_slot(struct sink_gate *g, const char *from)
{
	struct slot_view v[SINK_GATE_MAX];
	size_t i;
	bool evict;

	for (i = 0; i < SINK_GATE_MAX; i++)
		v[i] = (struct slot_view){ .used = g->pend[i].fd >= 0, .from = g->pend[i].from,
					   .rank = g->pend[i].deadline_ns };
	i = slots_pick(v, SINK_GATE_MAX, from, SINK_GATE_PER_ADDR, &evict);
	if (evict)
		gate_drop(g, &g->pend[i]);
	return &g->pend[i];
}

/* A newcomer on @lfd in a slot: the slot, or NULL when none waits. */
static struct sink_pending *gate_accept(struct sink_gate *g, int lfd, int hello_ms)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct sink_pending *p;
	char from[48];
	int fd;

	fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return NULL;
	/* The address alone: the cap is per source address, whatever the port. */
	conn_addr_ip((struct sockaddr *)&ss, from, sizeof(from));
	p = gate_slot(g, from);
	snprintf(p->from, sizeof(p->from), "%s", from);
	p->fd = fd;
	p->proving = false;
	p->deadline_ns = gate_now_ns() + (uint64_t)hello_ms * 1000000u;
	return p;
}

void sink_gate_park(struct sink_gate *g, int fd, const uint8_t hello[CONN_HELLO_BYTES],
		    const uint8_t nonce[CONN_NONCE_BYTES], int wait_ms)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct sink_pending *p;
	char from[48] = "?";

	if (!getpeername(fd, (struct sockaddr *)&ss, &sl))
		conn_addr_ip((struct sockaddr *)&ss, from, sizeof(from));
	p = gate_slot(g, from);
	snprintf(p->from, sizeof(p->from), "%s", from);
	p->fd = fd;
	p->proving = true;
	memcpy(p->hello, hello, CONN_HELLO_BYTES);
	memcpy(p->nonce, nonce, CONN_NONCE_BYTES);
	p->deadline_ns = gate_now_ns() + (uint64_t)wait_ms * 1000000u;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	gate_lowat(fd, CONN_HELLO_BYTES);
}

int sink_gate_next(struct sink_gate *g, struct pollfd pfd[SINK_GATE_MAX], int lfd,
		   bool lfd_ready, int hello_ms, int *fd, uint8_t frame[CONN_HELLO_BYTES])
{
	struct sink_pending *p;
	short revents;
	size_t i;

	/* Those already under way first (each looked at once a pass), then newcomers. */
	for (i = 0; i < SINK_GATE_MAX; i++) {
		p = &g->pend[i];
		if (!pfd[i].revents || p->fd < 0 || p->fd != pfd[i].fd)
			continue;
		revents = pfd[i].revents;
		pfd[i].revents = 0;
		if (gate_take(g, p, revents, fd, frame) == 1)
			return 1;
	}
	if (lfd < 0 || !lfd_ready)
		return 0;
	/* Accepts end on EAGAIN rather than block. */
	fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
	while (g->accepted < SINK_GATE_BATCH) {
		p = gate_accept(g, lfd, hello_ms);
		if (!p)
			break;
		g->accepted++;
		if (gate_take(g, p, 0, fd, frame) == 1)
			return 1;
	}
	return 0;
}

uint64_t sink_gate_expire(struct sink_gate *g)
{
	uint64_t now = gate_now_ns(), n;
	size_t i, left = 0;

	for (i = 0; i < SINK_GATE_MAX; i++) {
		if (g->pend[i].fd >= 0 && now >= g->pend[i].deadline_ns)
			gate_drop(g, &g->pend[i]);
		left += g->pend[i].fd >= 0;
	}
	if (left || !g->untold)
		return 0;
	n = g->untold;
	g->untold = 0;
	return n;
}
