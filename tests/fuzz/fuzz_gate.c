/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the agent's gate (agent/agent_gate.c), the first
 * code any peer on the control port reaches. The input's first byte,
 * read as flags, gives the agent a token (bit 0); the rest is what a
 * peer sends, all of it, before it half-closes. The peer connects to a
 * real listening socket and the real gate (agent_gate_wait) accepts it
 * and walks it through its handshake, frame by frame, until it is through
 * or dropped.
 *
 * With a token nothing gets through: the peer would have to prove it
 * over the gate's fresh nonce. Without one, a peer gets through exactly
 * when its first frame is a hello of our version with a nonce. Either
 * way the handshake ends within a bounded number of the gate's passes,
 * and leaves no socket open behind it.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/log.h"
#include "agent/agent.h"
#include "fuzz.h"

#define FUZZ_GATE_TOKEN		"fuzz-token-0123456789abcdef0123456789abcdef"
#define FUZZ_GATE_MAX		8192
#define FUZZ_GATE_PASSES	(FUZZ_GATE_MAX / 8 + 8)	/* a frame is 8 bytes at least */

static struct sockaddr_un fuzz_gate_addr;

/* The gate's port: a listening socket in the abstract namespace, made once. */
static int fuzz_gate_port(void)
{
	static int lfd = -1;

	if (lfd >= 0)
		return lfd;
	log_set_level(LOG_LEVEL_ERROR);	/* every refused peer is a warning */
	fuzz_gate_addr.sun_family = AF_UNIX;
	snprintf(fuzz_gate_addr.sun_path + 1, sizeof(fuzz_gate_addr.sun_path) - 1,
		 "rperf-fuzz-gate-%d", (int)getpid());
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&fuzz_gate_addr, sizeof(fuzz_gate_addr)) ||
	    listen(lfd, 4))
		abort();
	return lfd;
}

/* Whether @data of @size starts with a whole frame the gate must take as a hello. */
static bool fuzz_gate_hello(const uint8_t *data, size_t size)
{
	char err[256];
	struct ctl_chan ch;
	json_t *m = NULL;
	bool ok;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	if (write(sv[0], data, size) != (ssize_t)size)
		abort();
	close(sv[0]);
	ctl_chan_init(&ch, sv[1], false);
	ok = size >= 8 && ((uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 |
			   (uint32_t)data[6] << 8 | data[7]) <= 1024 &&
	     !ctl_recv(&ch, &m, 1000, err, sizeof(err)) && !strcmp(ctl_type(m), "hello") &&
	     json_integer_value(json_object_get(m, "version")) == CTL_VERSION &&
	     json_is_integer(json_object_get(m, "version")) &&
	     json_string_value(json_object_get(m, "nonce"));
	json_decref(m);
	close(sv[1]);
	return ok;
}

/*
 * Take what the gate said to the peer so far: true once the gate has
 * closed the connection. The gate's wait watches the peer's socket, so
 * each pass ends as soon as the gate says something or hangs up (not
 * after its poll's idle timeout).
 */
static bool fuzz_gate_heard(int peer)
{
	char b[4096];
	ssize_t n;

	while ((n = recv(peer, b, sizeof(b), MSG_DONTWAIT)) > 0)
		;
	return n == 0;
}

/* Whether any handshake is still under way at @a's gate. */
static bool fuzz_gate_pending(const struct agent *a)
{
	size_t i;

	for (i = 0; i < AGENT_MAX_PENDING; i++)
		if (a->pend[i].ch.fd >= 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agent a;
	struct ctl_chan ch = { .fd = -1 };
	bool token, through = false;
	int lfd = fuzz_gate_port(), peer, probe, i;

	if (size < 1 || size > FUZZ_GATE_MAX)
		return 0;
	token = data[0] & 1;
	peer = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (peer < 0 || connect(peer, (struct sockaddr *)&fuzz_gate_addr, sizeof(fuzz_gate_addr)))
		abort();
	if (write(peer, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	shutdown(peer, SHUT_WR);
	agent_gate_init(&a, lfd, token ? FUZZ_GATE_TOKEN : NULL);
	/* Each pass takes a frame at least, or drops the peer. */
	for (i = 0; i < FUZZ_GATE_PASSES && !through && !fuzz_gate_heard(peer); i++)
		through = agent_gate_wait(&a, peer, 1, &ch);
	if (fuzz_gate_pending(&a) && !through)
		abort();	/* a peer that said all it will is still pending */
	if (through != (!token && fuzz_gate_hello(data + 1, size - 1)))
		abort();
	if (through)
		close(ch.fd);
	agent_gate_drop(&a);
	close(peer);
	/* Every socket the gate opened is closed: the next one gets the peer's number. */
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe != peer)
		abort();
	close(probe);
	return 0;
}
