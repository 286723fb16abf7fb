/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A running `rperf agent` against bad peers, on the loopback (no RDMA
 * needed): garbage, an oversize frame, a slowloris, a wrong version, a
 * missing or wrong token, a message type or field the protocol lacks.
 * The token never crosses the wire: a coordinator's hello relayed through
 * the test holds no token, and its recorded frames, replayed, are refused.
 * After the hello every frame is sealed: one replayed, reordered, tampered
 * with or from another session ends that session.
 * Each peer gets a clear line in the agent's log and a closed connection,
 * within a bound; the agent stays up and serves a good coordinator after
 * them all. Another shows that a second coordinator is refused while one
 * is served, and that SIGTERM ends an agent waiting on a silent one. A
 * last agent shows that --bind binds that address only.
 * Run by `make check` with RPERF (the built binary) set.
 */
#define _GNU_SOURCE	/* memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <cmocka.h>

#include "wire/ctl.h"

#define TOKEN		"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
#define N64		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define CLOSE_MS	8000	/* the agent's handshake deadline (5 s) and slack */

struct agent {
	pid_t pid;
	uint16_t port;
	char log[64];
};

static char dir[] = "/tmp/rperf-agent-XXXXXX";
static struct agent tok_agent;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int peer_connect(const char *addr, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Start `rperf agent` on @bind_addr, with @token_file if not NULL. */
static void agent_start(struct agent *a, const char *bind_addr, const char *token_file)
{
	const char *rperf = getenv("RPERF") ? getenv("RPERF") : "src/rperf";
	static int n_started;
	char port[8];
	int i, fd;

	a->port = (uint16_t)(20000 + (getpid() * 7 + n_started++) % 20000);
	snprintf(port, sizeof(port), "%u", a->port);
	snprintf(a->log, sizeof(a->log), "%s/agent-%u.log", dir, a->port);
	a->pid = fork();
	assert_true(a->pid >= 0);
	if (!a->pid) {
		assert_non_null(freopen(a->log, "w", stderr));
		if (token_file)
			execl(rperf, "rperf", "agent", "-b", bind_addr, "-p", port,
			      "--token-file", token_file, (char *)NULL);
		else
			execl(rperf, "rperf", "agent", "-b", bind_addr, "-p", port, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100; i++) {
		fd = peer_connect(bind_addr, a->port);
		if (fd >= 0) {
			close(fd);
			return;
		}
		usleep(50000);
	}
	fail_msg("agent on %s port %u does not listen", bind_addr, a->port);
}

/* Stop the agent with SIGTERM: it must exit 0 (it was up all along). */
static void agent_stop(struct agent *a)
{
	int status;

	assert_int_equal(kill(a->pid, 0), 0);
	kill(a->pid, SIGTERM);
	assert_int_equal(waitpid(a->pid, &status, 0), a->pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The agent's log has a line with @what, within a few seconds. */
static void log_has(const struct agent *a, const char *what)
{
	char line[512];
	int i;

	for (i = 0; i < 50; i++) {
		FILE *f = fopen(a->log, "r");

		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			if (strstr(line, what)) {
				fclose(f);
				return;
			}
		}
		fclose(f);
		usleep(100000);
	}
	fail_msg("agent log %s lacks '%s'", a->log, what);
}

/* Read until the agent closes; fail if it has not within @ms. */
static void closed_within(int fd, int ms)
{
	int64_t end = now_ms() + ms;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	char buf[4096];
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (now_ms() < end) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			close(fd);
			return;
		}
	}
	close(fd);
	fail_msg("the agent kept a bad peer's connection open for %d ms", ms);
}

static void send_all(int fd, const void *buf, size_t len)
{
	assert_int_equal(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* A frame with any body, valid or not. */
static void send_frame(int fd, const char *body)
{
	uint32_t head[2] = { htonl(CTL_MAGIC), htonl((uint32_t)strlen(body)) };

	send_all(fd, head, sizeof(head));
	send_all(fd, body, strlen(body));
}

/* Send @body as the first message; expect @why in the log and a close. */
static void refused(const char *body, const char *why)
{
	int fd = peer_connect("127.0.0.1", tok_agent.port);

	assert_true(fd >= 0);
	send_frame(fd, body);
	closed_within(fd, CLOSE_MS);
	log_has(&tok_agent, why);
}

static int setup(void **state)
{
	char path[128];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/token", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", TOKEN);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);	/* the agent refuses one others can read */
	agent_start(&tok_agent, "127.0.0.1", path);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (tok_agent.pid > 0 && !kill(tok_agent.pid, 0)) {
		kill(tok_agent.pid, SIGKILL);
		waitpid(tok_agent.pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static void test_garbage(void **state)
{
	const char req[] = "GET / HTTP/1.0\r\nHost: agent\r\n\r\n";
	int fd = peer_connect("127.0.0.1", tok_agent.port);

	(void)state;
	assert_true(fd >= 0);
	send_all(fd, req, sizeof(req) - 1);
	closed_within(fd, CLOSE_MS);
	log_has(&tok_agent, "not an rperf control frame");
}

/* A length above the cap is refused from the header alone. */
static void test_oversize(void **state)
{
	uint32_t head[2] = { htonl(CTL_MAGIC), htonl(CTL_MAX_MSG_BYTES + 1) };
	int fd = peer_connect("127.0.0.1", tok_agent.port);
	int64_t t0 = now_ms();

	(void)state;
	assert_true(fd >= 0);
	send_all(fd, head, sizeof(head));
	closed_within(fd, 2000);
	log_has(&tok_agent, "exceeds");
	assert_true(now_ms() - t0 < 2000);
}

/*
 * A handshake's first frame trickled, its header alone (@whole false) or
 * all of it, a byte every @gap_us: closed when the handshake's time is
 * up, within @max_ms of the connect.
 */
static void slowloris(bool whole, useconds_t gap_us, int64_t max_ms)
{
	const char body[] = "{\"type\":\"hello\",\"version\":1}";
	uint32_t head[2] = { htonl(CTL_MAGIC), htonl(sizeof(body) - 1) };
	int fd = peer_connect("127.0.0.1", tok_agent.port);
	int64_t t0 = now_ms();
	char frame[64];
	size_t i, n = sizeof(head) + (whole ? sizeof(body) - 1 : 0);

	assert_true(fd >= 0);
	memcpy(frame, head, sizeof(head));
	memcpy(frame + sizeof(head), body, sizeof(body) - 1);
	for (i = 0; i < n; i++) {
		if (send(fd, frame + i, 1, MSG_NOSIGNAL) != 1)
			break;	/* closed already */
		usleep(gap_us);
	}
	closed_within(fd, CLOSE_MS);
	log_has(&tok_agent, "timed out");
	assert_true(now_ms() - t0 < max_ms);
}

/* A byte of the header every 0.7 s: closed when the handshake's time is up, not later. */
static void test_slowloris(void **state)
{
	(void)state;
	slowloris(false, 700000, 2 * CLOSE_MS);
}

/* Header and body trickled: one deadline covers the whole frame (the
 * handshake's 5 s, not 5 s a part). */
static void test_slowloris_frame(void **state)
{
	(void)state;
	slowloris(true, 500000, 7000);
}

/*
 * Part of a frame, then the peer's end of stream: closed at once, as a
 * hang-up. It used to stay pending to the 5 s deadline, its end of
 * stream waking the agent's poll loop at every pass (a busy loop).
 */
static void test_half_close(void **state)
{
	const char body[] = "{\"type\":\"hello\",\"version\":1}";
	uint32_t head[2] = { htonl(CTL_MAGIC), htonl(sizeof(body) - 1) };
	int fd = peer_connect("127.0.0.1", tok_agent.port);
	int64_t t0 = now_ms();

	(void)state;
	assert_true(fd >= 0);
	send_all(fd, head, sizeof(head));
	send_all(fd, body, 5);
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	closed_within(fd, 1000);
	assert_true(now_ms() - t0 < 1000);
}

static void test_bad_hellos(void **state)
{
	(void)state;
	refused("{\"type\":\"hello\",\"version\":1,\"nonce\":\"" N64 "\"}",
		"expected a hello of version 6 with a nonce");
	/* The protocol before each role had its own keys. */
	refused("{\"type\":\"hello\",\"version\":5,\"nonce\":\"" N64 "\"}",
		"expected a hello of version 6 with a nonce");
	refused("{\"type\":\"hello\",\"version\":2}", "expected a hello of version 6 with a nonce");
	refused("{\"type\":\"hello\",\"version\":2,\"token\":\"" TOKEN "\"}",
		"unknown field 'token'");
	refused("{\"type\":\"run\",\"cmd\":\"touch /tmp/rperf-pwned\"}",
		"unknown message type 'run'");
	refused("{\"type\":\"hello\",\"version\":2,\"nonce\":\"" N64 "\",\"path\":\"/etc/passwd\"}",
		"unknown field 'path'");
	refused("{\"type\":\"hello\",\"version\":2,\"nonce\":\"" N64 "\"",
		"bad JSON");
	/* A field name that would end the log's line and forge the next one. */
	refused("{\"type\":\"hello\",\"version\":6,\"nonce\":\"" N64 "\","
		"\"x\\nrperf: coordinator 10.0.0.1 connected\\u001b[2J\":1}",
		"unknown field 'x\\x0arperf: coordinator 10.0.0.1 connected\\x1b[2J'");
}

/*
 * Connect to @a as a coordinator (with @token if not NULL) on @ch; the
 * agent's answer.
 */
static json_t *coordinator_hello(const struct agent *a, const char *token, struct ctl_chan *ch)
{
	char err[256];
	json_t *r;
	int fd;

	fd = peer_connect("127.0.0.1", a->port);
	assert_true(fd >= 0);
	ctl_chan_init(ch, fd, true);
	if (ctl_hello_client(ch, token, &r, 5000, err, sizeof(err))) {
		r = ctl_msg("error");
		json_object_set_new(r, "error", json_string(err));
	}
	return r;
}

/* A wrong token: the agent's challenge is answered with a proof it refuses. */
static void test_wrong_token(void **state)
{
	struct ctl_chan ch;
	json_t *r;

	(void)state;
	r = coordinator_hello(&tok_agent, "0123456789abcdef0124", &ch);
	assert_string_equal(ctl_type(r), "error");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")),
			       "the agent does not hold our token"));
	json_decref(r);
	close(ch.fd);
	r = coordinator_hello(&tok_agent, NULL, &ch);
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")),
			       "the agent asks for a token"));
	json_decref(r);
	close(ch.fd);
}

/*
 * Relay a coordinator's hello (ctl_hello_client, in a child) to the agent
 * and record every byte it sent: the token is not among them, and the
 * recorded hello and auth, replayed on a new connection, do not pass the
 * agent's fresh challenge.
 */
static void test_no_token_on_wire_and_replay(void **state)
{
	unsigned char sent[8192], buf[4096];
	size_t n_sent = 0, hello_len;
	struct ctl_chan ch;
	int sv[2], afd, status;
	char err[256];
	ssize_t n;
	pid_t pid;
	json_t *r;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	afd = peer_connect("127.0.0.1", tok_agent.port);
	assert_true(afd >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(sv[1]);
		close(afd);
		ctl_chan_init(&ch, sv[0], true);
		_exit(ctl_hello_client(&ch, TOKEN, &r, 5000, err, sizeof(err)) ||
		      strcmp(ctl_type(r), "hello") ? 1 : 0);
	}
	close(sv[0]);
	for (;;) {
		struct pollfd p[2] = { { sv[1], POLLIN, 0 }, { afd, POLLIN, 0 } };

		assert_true(poll(p, 2, 10000) > 0);
		if (p[0].revents) {
			n = read(sv[1], buf, sizeof(buf));
			if (n <= 0)
				break;	/* the coordinator is done */
			assert_true(n_sent + (size_t)n <= sizeof(sent));
			memcpy(sent + n_sent, buf, (size_t)n);
			n_sent += (size_t)n;
			assert_int_equal(write(afd, buf, (size_t)n), n);
		}
		if (p[1].revents) {
			n = read(afd, buf, sizeof(buf));
			assert_true(n > 0);
			assert_int_equal(write(sv[1], buf, (size_t)n), n);
		}
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);	/* the agent said hello */
	close(sv[1]);
	close(afd);
	assert_null(memmem(sent, n_sent, TOKEN, strlen(TOKEN)));
	/* Two frames: the hello, then the auth. */
	assert_true(n_sent > 16);
	hello_len = 8 + ((size_t)sent[4] << 24 | (size_t)sent[5] << 16 | (size_t)sent[6] << 8 |
			 sent[7]);
	assert_true(hello_len < n_sent);
	afd = -1;
	for (status = 0; status < 50 && afd < 0; status++) {
		afd = peer_connect("127.0.0.1", tok_agent.port);
		if (afd >= 0)
			break;
		usleep(100000);
	}
	assert_true(afd >= 0);
	send_all(afd, sent, hello_len);
	ctl_chan_init(&ch, afd, true);
	assert_int_equal(ctl_recv(&ch, &r, 5000, err, sizeof(err)), 0);
	if (!strcmp(ctl_type(r), "error"))	/* still busy with the relayed one: again */
		fail_msg("agent busy: %s", json_string_value(json_object_get(r, "error")));
	assert_string_equal(ctl_type(r), "challenge");
	json_decref(r);
	send_all(afd, sent + hello_len, n_sent - hello_len);
	assert_int_equal(ctl_recv(&ch, &r, 5000, err, sizeof(err)), 0);
	assert_string_equal(ctl_type(r), "error");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")), "wrong token"));
	json_decref(r);
	closed_within(afd, CLOSE_MS);
	log_has(&tok_agent, "wrong token: the coordinator's proof does not match");
}

/*
 * Answer the agent's challenge with @role's proof over both nonces, as a
 * coordinator's auth: the agent's answer (its hello, sealed, once it took
 * the proof).
 */
static json_t *auth_as(const char *role)
{
	char an[CTL_NONCE_HEX + 1], mac[CTL_MAC_HEX + 1], err[256];
	struct ctl_chan ch;
	json_t *r, *m;
	int fd, i;

	/* The agent may still be closing the last session: then it is busy. */
	for (i = 0;; i++) {
		fd = peer_connect("127.0.0.1", tok_agent.port);
		assert_true(fd >= 0);
		send_frame(fd, "{\"type\":\"hello\",\"version\":6,\"nonce\":\"" N64 "\"}");
		ctl_chan_init(&ch, fd, true);
		assert_int_equal(ctl_recv(&ch, &r, 5000, err, sizeof(err)), 0);
		if (!strcmp(ctl_type(r), "challenge") || i == 50)
			break;
		close(fd);
		json_decref(r);
		usleep(100000);
	}
	assert_string_equal(ctl_type(r), "challenge");
	snprintf(an, sizeof(an), "%s", json_string_value(json_object_get(r, "nonce")));
	json_decref(r);
	assert_int_equal(ctl_auth_mac(TOKEN, role, N64, an, mac), 0);
	m = ctl_msg("auth");
	json_object_set_new(m, "mac", json_string(mac));
	assert_int_equal(ctl_send(&ch, m, 2000, err, sizeof(err)), 0);
	json_decref(m);
	if (!strcmp(role, "coordinator"))
		assert_int_equal(ctl_chan_key(&ch, TOKEN, N64, an, err, sizeof(err)), 0);
	assert_int_equal(ctl_recv(&ch, &r, 5000, err, sizeof(err)), 0);
	ctl_chan_forget(&ch);
	close(fd);
	return r;
}

/*
 * The agent wants a coordinator's proof: an agent's, over the same nonces
 * and under the same token (what a peer reflecting the agent's own
 * challenge holds), is a wrong token.
 */
static void test_roles(void **state)
{
	json_t *r;

	(void)state;
	r = auth_as("coordinator");
	assert_string_equal(ctl_type(r), "hello");
	json_decref(r);
	r = auth_as("agent");
	assert_string_equal(ctl_type(r), "error");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")), "wrong token"));
	json_decref(r);
	log_has(&tok_agent, "does not match (or is not a coordinator's)");
}

/* How many lines of @a's log hold @what. */
static int log_count(const struct agent *a, const char *what)
{
	char line[512];
	FILE *f = fopen(a->log, "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* Wait until @a's log holds @n lines with @what; fail after a few seconds. */
static void log_has_n(const struct agent *a, const char *what, int n)
{
	int i;

	for (i = 0; i < 50 && log_count(a, what) < n; i++)
		usleep(100000);
	if (log_count(a, what) < n)
		fail_msg("agent log %s has %d lines with '%s', expected %d", a->log,
			 log_count(a, what), what, n);
}

/* A session with @a, its hello taken: @ch is keyed. */
static void sealed_session(const struct agent *a, struct ctl_chan *ch)
{
	json_t *r = NULL;
	int i;

	/* The agent may still be closing the last session: then it is busy. */
	for (i = 0; i < 50; i++) {
		r = coordinator_hello(a, TOKEN, ch);
		if (!strcmp(ctl_type(r), "hello"))
			break;
		json_decref(r);
		r = NULL;
		close(ch->fd);
		usleep(100000);
	}
	assert_non_null(r);
	json_decref(r);
	assert_true(ch->keyed);
}

/*
 * The sealed frame @ch would send next as a time message, @count times
 * (the last one's bytes in @buf), without sending it: a copy of @ch
 * writes into a socket pair.
 */
static size_t forge(const struct ctl_chan *ch, int count, unsigned char *buf, size_t len)
{
	struct ctl_chan spy = *ch;
	char err[256];
	ssize_t n = 0;
	int sv[2];
	json_t *m;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	spy.fd = sv[0];
	while (count--) {
		m = ctl_msg("time");
		assert_int_equal(ctl_send(&spy, m, 1000, err, sizeof(err)), 0);
		json_decref(m);
		n = read(sv[1], buf, len);
		assert_true(n > 8 + CTL_SEQ_BYTES + CTL_SEAL_BYTES);
	}
	close(sv[0]);
	close(sv[1]);
	return (size_t)n;
}

/* One time exchange on @ch: the agent answers. */
static void time_exchange(struct ctl_chan *ch)
{
	char err[256];
	json_t *m = ctl_msg("time"), *r;

	assert_int_equal(ctl_send(ch, m, 2000, err, sizeof(err)), 0);
	json_decref(m);
	assert_int_equal(ctl_recv(ch, &r, 5000, err, sizeof(err)), 0);
	assert_string_equal(ctl_type(r), "time");
	json_decref(r);
}

/*
 * Once authenticated every frame is sealed: a real agent drops a session
 * on a frame replayed, reordered, tampered with, or recorded in another
 * session, each with a line naming the coordinator, and serves the next.
 */
static void test_sealed_frames(void **state)
{
	unsigned char f[1024], old[1024];
	struct ctl_chan ch;
	struct agent a;
	char path[128];
	size_t n, n_old;

	(void)state;
	snprintf(path, sizeof(path), "%s/token", dir);
	agent_start(&a, "127.0.0.1", path);

	/* Replayed: frame 0 again once it was taken. */
	sealed_session(&a, &ch);
	n = forge(&ch, 1, f, sizeof(f));
	time_exchange(&ch);
	send_all(ch.fd, f, n);
	closed_within(ch.fd, CLOSE_MS);
	log_has(&a, "connection to coordinator 127.0.0.1:");
	log_has(&a, "dropped: frame 0 out of sequence (expected 1: replayed or reordered)");

	/* Reordered: frame 1 before frame 0. */
	sealed_session(&a, &ch);
	n = forge(&ch, 2, f, sizeof(f));
	send_all(ch.fd, f, n);
	closed_within(ch.fd, CLOSE_MS);
	log_has(&a, "dropped: frame 1 out of sequence (expected 0: replayed or reordered)");

	/* Tampered: one byte of the body changed; then a frame kept for later. */
	sealed_session(&a, &ch);
	n_old = forge(&ch, 1, old, sizeof(old));
	n = forge(&ch, 1, f, sizeof(f));
	f[8 + CTL_SEQ_BYTES + 3] ^= 0x01;
	send_all(ch.fd, f, n);
	closed_within(ch.fd, CLOSE_MS);
	log_has_n(&a, "dropped: frame 0 fails its MAC", 1);

	/* From another session: the last one's frame 0, where 0 is due. */
	sealed_session(&a, &ch);
	send_all(ch.fd, old, n_old);
	closed_within(ch.fd, CLOSE_MS);
	log_has_n(&a, "dropped: frame 0 fails its MAC", 2);

	/* And a good session still runs. */
	sealed_session(&a, &ch);
	time_exchange(&ch);
	time_exchange(&ch);
	close(ch.fd);
	agent_stop(&a);
}

/*
 * While one coordinator holds the agent (silent after its hello), a second
 * is refused at once, not told whom the agent serves (it proved nothing;
 * the agent's log names the first); SIGTERM then ends the
 * agent within a second, and the first is told so.
 */
static void test_busy_then_sigterm(void **state)
{
	struct ctl_chan c1, c2;
	struct agent a;
	char err[256];
	int64_t t0;
	int status;
	json_t *r;

	(void)state;
	agent_start(&a, "127.0.0.1", NULL);
	r = coordinator_hello(&a, NULL, &c1);
	assert_string_equal(ctl_type(r), "hello");
	json_decref(r);
	t0 = now_ms();
	r = coordinator_hello(&a, NULL, &c2);
	assert_true(now_ms() - t0 < 2000);
	assert_string_equal(ctl_type(r), "error");
	/* Not told whom the agent serves: it has proved nothing. */
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "busy with another coordinator");
	json_decref(r);
	closed_within(c2.fd, 2000);
	log_has(&a, "refused: busy with coordinator");
	t0 = now_ms();
	kill(a.pid, SIGTERM);
	assert_int_equal(ctl_recv(&c1, &r, 2000, err, sizeof(err)), 0);
	assert_string_equal(ctl_type(r), "error");
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "the agent is stopping");
	json_decref(r);
	closed_within(c1.fd, 2000);
	assert_int_equal(waitpid(a.pid, &status, 0), a.pid);
	assert_true(now_ms() - t0 < 2000);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* After every bad peer, a good coordinator is served. */
static void test_still_serves(void **state)
{
	struct ctl_chan ch;
	char err[256];
	json_t *m, *r;

	(void)state;
	r = coordinator_hello(&tok_agent, TOKEN, &ch);
	assert_string_equal(ctl_type(r), "hello");
	json_decref(r);
	m = ctl_msg("time");
	assert_int_equal(ctl_send(&ch, m, 2000, err, sizeof(err)), 0);
	json_decref(m);
	assert_int_equal(ctl_recv(&ch, &r, 5000, err, sizeof(err)), 0);
	assert_string_equal(ctl_type(r), "time");
	json_decref(r);
	/* Mid-session, an unsealed frame (here a message the protocol lacks)
	 * ends the session too. */
	send_frame(ch.fd, "{\"type\":\"exec\",\"argv\":[\"sh\"]}");
	closed_within(ch.fd, CLOSE_MS);
	log_has(&tok_agent, "frame 1 is not sealed in a sealed session");
	assert_int_equal(access("/tmp/rperf-pwned", F_OK), -1);
	agent_stop(&tok_agent);
	tok_agent.pid = 0;
}

/* --bind 127.0.0.2: nothing answers on 127.0.0.1 at that port. */
static void test_binds_given_address(void **state)
{
	struct agent a;

	(void)state;
	agent_start(&a, "127.0.0.2", NULL);
	assert_int_equal(peer_connect("127.0.0.1", a.port), -ECONNREFUSED);
	agent_stop(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_oversize),
		cmocka_unit_test(test_slowloris),
		cmocka_unit_test(test_slowloris_frame),
		cmocka_unit_test(test_half_close),
		cmocka_unit_test(test_bad_hellos),
		cmocka_unit_test(test_wrong_token),
		cmocka_unit_test(test_no_token_on_wire_and_replay),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_sealed_frames),
		cmocka_unit_test(test_busy_then_sigterm),
		cmocka_unit_test(test_still_serves),
		cmocka_unit_test(test_binds_given_address),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
