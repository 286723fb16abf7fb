/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The agent's gate (agent.h): every connection on the control port is
 * accepted at once and walked through its handshake (hello, and with a
 * token the challenge and its auth) alongside all the others in one poll
 * loop, so that no peer, idle or slow, holds up another. A frame is read
 * only once the kernel holds all of it (peeked), so no read here ever
 * waits on a peer; a handshake not through within AGENT_HANDSHAKE_MS is
 * dropped, and the pending set is capped overall and per address.
 */
#define _GNU_SOURCE	/* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_ctl.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/slots.h"
#include "base/stop.h"

#define GATE_IO_MS		100	/* a frame already in the kernel, or ours out */
#define GATE_FRAME_MAX_BYTES	1024	/* a handshake frame is ~150 bytes */
#define GATE_ACCEPT_BATCH	8	/* accepted per pass, between handshake steps */

void agent_gate_init(struct agent *a, int lfd, const char *token)
{
	size_t i;

	/* Accepts in a batch end on EAGAIN rather than block. */
	fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
	memset(a, 0, sizeof(*a));
	a->lfd = lfd;
	a->token = token;
	for (i = 0; i < AGENT_MAX_PENDING; i++)
		a->pend[i].ch.fd = -1;
}

/* Close @p's connection (counted in @a->dropped when @quiet, else logged with @why). */
static void gate_close(struct agent *a, struct agent_pending *p, bool quiet, const char *why)
{
	if (quiet)
		a->dropped++;
	else
		log_warn("%s: %s", p->ch.peer, why);
	ctl_chan_forget(&p->ch);
	close(p->ch.fd);
	p->ch.fd = -1;
}

void agent_gate_drop(struct agent *a)
{
	size_t i;

	for (i = 0; i < AGENT_MAX_PENDING; i++)
		if (a->pend[i].ch.fd >= 0)
			gate_close(a, &a->pend[i], true, NULL);
}

/* Wake poll on @fd once @bytes are in (1: any). */
static void gate_lowat(int fd, int bytes)
{
	setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof(bytes));
}

/*
 * Whether a whole plain frame of at most GATE_FRAME_MAX_BYTES waits on
 * @fd, without taking it: 1 yes, 0 not yet, -1 never (closed; or, with
 * the reason in @err, not a control frame or too long for a handshake).
 */
static int gate_frame_ready(int fd, char *err, size_t errlen)
{
	unsigned char b[8 + GATE_FRAME_MAX_BYTES];
	ssize_t n = recv(fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT);
	uint32_t magic, len = 0;

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	if (n >= 8) {
		magic = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
		len = (uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
		if (magic != CTL_MAGIC)
			return errbuf_set(err, errlen, -1, "not an rperf control frame");
		if (len > GATE_FRAME_MAX_BYTES)
			return errbuf_set(err, errlen, -1, "a frame of %u bytes exceeds a "
					  "handshake's %u", len, GATE_FRAME_MAX_BYTES);
		if ((size_t)n >= 8 + len)
			return 1;
	}
	/* Not all there: poll wakes us once it is (or the peer hangs up), not for each byte. */
	gate_lowat(fd, n < 8 ? 8 : 8 + (int)len);
	return 0;
}

/* Our hello, which ends a good handshake. 0 or -errno. */
static int gate_send_hello(struct ctl_chan *ch, char *err, size_t errlen)
{
	char host[256] = "?";
	json_t *m = ctl_msg("hello");
	int ret;

	gethostname(host, sizeof(host) - 1);
	json_object_set_new(m, "version", json_integer(CTL_VERSION));
	json_object_set_new(m, "host", json_string(host));
	json_object_set_new(m, "now_ns", json_integer((json_int_t)ctl_now_ns()));
	ret = ctl_send(ch, m, GATE_IO_MS, err, errlen);
	json_decref(m);
	return ret;
}

/* Our challenge to @p: our nonce and our proof over both (ctl.h). 0 or -errno. */
static int gate_challenge(struct agent *a, struct agent_pending *p, char *err, size_t errlen)
{
	char mac[CTL_MAC_HEX + 1];
	json_t *m;
	int ret = ctl_nonce(p->mine, err, errlen);

	if (ret)
		return ret;
	ret = ctl_auth_mac(a->token, "agent", p->mine, p->theirs, mac);
	if (ret)
		return errbuf_set(err, errlen, ret, "cannot make our proof (HMAC)");
	m = ctl_msg("challenge");
	json_object_set_new(m, "nonce", json_string(p->mine));
	json_object_set_new(m, "mac", json_string(mac));
	ret = ctl_send(&p->ch, m, GATE_IO_MS, err, errlen);
	json_decref(m);
	p->challenged = !ret;
	return ret;
}

/* @m, the coordinator's hello: its nonce kept. 0 or -EPROTO. */
static int gate_take_hello(struct agent_pending *p, const json_t *m, char *err, size_t errlen)
{
	const char *nonce = json_string_value(json_object_get(m, "nonce"));

	if (strcmp(ctl_type(m), "hello") || agent_ctl_int(m, "version") != CTL_VERSION || !nonce)
		return errbuf_set(err, errlen, -EPROTO, "expected a hello of version %d with a "
				  "nonce", CTL_VERSION);
	snprintf(p->theirs, sizeof(p->theirs), "%s", nonce);
	return 0;
}

/* @m, the coordinator's auth: its proof checked, the channel keyed. 0 or -errno. */
static int gate_take_auth(struct agent *a, struct agent_pending *p, const json_t *m,
			  char *err, size_t errlen)
{
	const char *got = json_string_value(json_object_get(m, "mac"));

	if (strcmp(ctl_type(m), "auth"))
		return errbuf_set(err, errlen, -EPROTO, "expected an auth, got '%s'", ctl_type(m));
	if (!ctl_auth_check(a->token, "coordinator", p->theirs, p->mine, got))
		return errbuf_set(err, errlen, -EACCES, "wrong token: the coordinator's proof "
				  "does not match (or is not a coordinator's)");
	return ctl_chan_key(&p->ch, a->token, p->theirs, p->mine, err, errlen);
}

/*
 * One step of @p's handshake, if its next frame is all there: 1 when it
 * is through (our hello sent), 0 when more is due, -1 when it was closed.
 * @revents: what poll() said of it (0: not polled yet).
 */
static int gate_step(struct agent *a, struct agent_pending *p, short revents)
{
	char err[256] = "";
	int ready = gate_frame_ready(p->ch.fd, err, sizeof(err)), ret;
	json_t *m = NULL;

	/* Hung up, or sent all it will and the frame is not whole: it never will be
	 * (and its end of stream would wake poll at once, again and again). */
	if ((ready < 0 && !err[0]) || (!ready && (revents & (POLLRDHUP | POLLHUP)))) {
		gate_close(a, p, true, NULL);
		return -1;
	}
	if (!ready)
		return 0;
	/* Reads wait for any byte again (poll would wait for the whole frame's, past the header). */
	gate_lowat(p->ch.fd, 1);
	ret = ready < 0 ? -EPROTO : ctl_recv(&p->ch, &m, GATE_IO_MS, err, sizeof(err));
	if (!ret && !p->challenged) {
		ret = gate_take_hello(p, m, err, sizeof(err));
		if (!ret && a->token)
			ret = gate_challenge(a, p, err, sizeof(err));
		else if (!ret)
			ret = 1;
	} else if (!ret) {
		ret = gate_take_auth(a, p, m, err, sizeof(err)) ?: 1;
	}
	json_decref(m);
	if (ret == 1)
		ret = gate_send_hello(&p->ch, err, sizeof(err)) ?: 1;
	if (ret < 0) {
		ctl_send_error(&p->ch, NULL, err, GATE_IO_MS);
		gate_close(a, p, false, err);
		return -1;
	}
	return ret;
}

/*
 * The slot for a new connection from @from: a free one, else (at the
 * cap overall, or for @from) the least advanced, oldest one, closed.
 */
static struct agent_pending *gate_slot(struct agent *a, const char *from)
{
	struct slot_view v[AGENT_MAX_PENDING];
	size_t i;
	bool evict;

	/* Rank: those not yet challenged first, then by age (deadlines are < 2^63 ns). */
	for (i = 0; i < AGENT_MAX_PENDING; i++)
		v[i] = (struct slot_view){ .used = a->pend[i].ch.fd >= 0, .from = a->pend[i].from,
					   .rank = (uint64_t)a->pend[i].challenged << 63 |
						   a->pend[i].deadline_ns };
	i = slots_pick(v, AGENT_MAX_PENDING, from, AGENT_PENDING_PER_ADDR, &evict);
	if (evict)
		gate_close(a, &a->pend[i], true, NULL);
	return &a->pend[i];
}

/* @p through its handshake: its channel into @ch, its slot freed (and its key wiped). */
static void gate_hand_over(struct agent_pending *p, struct ctl_chan *ch)
{
	*ch = p->ch;
	ctl_chan_forget(&p->ch);
	p->ch.fd = -1;
}

/* Accept what waits on the port, a batch at most, each a step at once. 1: one is through. */
static int gate_accept(struct agent *a, struct ctl_chan *ch)
{
	struct agent_pending *p;
	struct sockaddr_storage ss;
	char from[64];
	socklen_t sl;
	int fd, i;

	for (i = 0; i < GATE_ACCEPT_BATCH; i++) {
		fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return 0;
		/* The address alone: the cap is per source address, whatever the port. */
		sl = sizeof(ss);
		if (getpeername(fd, (struct sockaddr *)&ss, &sl))
			snprintf(from, sizeof(from), "?");
		else
			conn_addr_ip((struct sockaddr *)&ss, from, sizeof(from));
		p = gate_slot(a, from);
		snprintf(p->from, sizeof(p->from), "%s", from);
		ctl_chan_init(&p->ch, fd, false);
		p->challenged = false;
		p->deadline_ns = ctl_now_ns() + (uint64_t)AGENT_HANDSHAKE_MS * 1000000u;
		if (gate_step(a, p, 0) == 1) {
			gate_hand_over(p, ch);
			return 1;
		}
	}
	return 0;
}

/* Handshakes past their deadline closed; the quiet drops logged once none is left. */
static void gate_expire(struct agent *a)
{
	uint64_t now = ctl_now_ns();
	size_t i, left = 0;

	for (i = 0; i < AGENT_MAX_PENDING; i++) {
		if (a->pend[i].ch.fd >= 0 && now >= a->pend[i].deadline_ns)
			gate_close(a, &a->pend[i], true, NULL);
		left += a->pend[i].ch.fd >= 0;
	}
	if (!left && a->dropped) {
		log_warn("%u connection(s) closed without a handshake: timed out after %d ms, "
			 "crowded out, or hung up", a->dropped, AGENT_HANDSHAKE_MS);
		a->dropped = 0;
	}
}

bool agent_gate_wait(struct agent *a, int watch_fd, int tmo_ms, struct ctl_chan *ch)
{
	uint64_t end = ctl_now_ns() + (uint64_t)tmo_ms * 1000000u;
	struct pollfd p[AGENT_MAX_PENDING + 2];
	size_t i, n;

	while (!stop_requested() && ctl_now_ns() < end) {
		n = 0;
		p[n++] = (struct pollfd){ .fd = a->lfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = watch_fd, .events = POLLIN };
		for (i = 0; i < AGENT_MAX_PENDING; i++)
			p[n++] = (struct pollfd){ .fd = a->pend[i].ch.fd,
						  .events = POLLIN | POLLRDHUP };
		if (poll(p, n, 100) < 0 && errno != EINTR)
			return false;
		if (watch_fd >= 0 && p[1].revents)
			return false;
		/* Those already under way first, then the newcomers. */
		for (i = 0; i < AGENT_MAX_PENDING; i++) {
			if (p[i + 2].fd < 0 || !p[i + 2].revents || a->pend[i].ch.fd != p[i + 2].fd)
				continue;
			if (gate_step(a, &a->pend[i], p[i + 2].revents) == 1) {
				gate_hand_over(&a->pend[i], ch);
				return true;
			}
		}
		gate_expire(a);
		if (p[0].revents && gate_accept(a, ch))
			return true;
	}
	return false;
}
