/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Control messages: the schema's checks, framing over a socket pair (plain
 * and sealed: tampered, replayed, reordered, foreign frames), tokens; a
 * reader stalled past its deadline (recv wrapped, below) still takes a
 * frame that came in time.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "wire/ctl.h"

static char err[512];

/*
 * recv, linked with --wrap=recv: with stall_ms set, the call after the
 * first one of a frame sleeps first, as a reader descheduled between the
 * header and the body does on a loaded host or in an emulated guest.
 */
ssize_t __real_recv(int fd, void *buf, size_t len, int flags);
static int stall_ms, recv_calls;

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags);
ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
	if (stall_ms && recv_calls++ == 1)
		usleep((useconds_t)stall_ms * 1000u);
	return __real_recv(fd, buf, len, flags);
}

static int parse(const char *s)
{
	json_t *m;
	int ret;

	err[0] = '\0';
	ret = ctl_parse(s, strlen(s), &m, err, sizeof(err));
	json_decref(m);
	return ret;
}

#define FLOW "{\"name\":\"bw1\",\"type\":\"bw\",\"sl\":0,\"tclass\":32,\"size\":4096," \
	     "\"threads\":1,\"qps\":2,\"dest\":\"h3\",\"dest_port\":18541,\"on_ns\":10000000,\"off_ns\":40000000}"
#define SETUP(flow) "{\"type\":\"setup\",\"sink\":false,\"ib_port\":1," \
	"\"gid_index\":-1,\"data_port\":18540,\"clock\":\"monotonic\"," \
	"\"yield\":true,\"qp_timeout\":20,\"retry\":7,\"flows\":[" flow "]}"

#define RESULT_LAT(rtt) "{\"type\":\"result\",\"window_ns\":1,\"sink\":[],\"flows\":" \
	"[{\"name\":\"lat1\",\"type\":\"lat\",\"samples\":2,\"msgs\":2,\"bytes\":128," \
	"\"ticks_per_ns\":2.5,\"start_late_ns\":120000,\"rtt\":" rtt "}]}"

#define N64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_good(void **state)
{
	(void)state;
	assert_int_equal(parse("{\"type\":\"hello\",\"version\":3,\"nonce\":\"" N64 "\"}"), 0);
	assert_int_equal(parse("{\"type\":\"challenge\",\"nonce\":\"" N64 "\",\"mac\":\""
			       N64 "\"}"), 0);
	assert_int_equal(parse("{\"type\":\"auth\",\"mac\":\"" N64 "\"}"), 0);
	/* The token itself is no field of any message. */
	assert_int_equal(parse("{\"type\":\"hello\",\"version\":2,\"token\":\"abc\"}"),
			 -EPROTO);
	assert_int_equal(parse("{\"type\":\"auth\",\"mac\":\"abc\"}"), -EPROTO);
	assert_int_equal(parse("{\"type\":\"time\"}"), 0);
	assert_int_equal(parse(SETUP(FLOW)), 0);
	assert_int_equal(parse("{\"type\":\"start\",\"at_ns\":5,\"warmup_ms\":0,"
			       "\"duration_ms\":10}"), 0);
	assert_int_equal(parse("{\"type\":\"error\",\"error\":\"x\",\"flow\":\"bw1\"}"), 0);
	assert_int_equal(parse("{\"type\":\"result\",\"flows\":[],\"window_ns\":1,\"sink\":"
			       "[{\"peer\":\"a:1\",\"sl\":0,\"tclass\":0,\"msgs\":1,\"bytes\":2,"
			       "\"errors\":0,\"intervals\":[1,0,1]}]}"), 0);
	assert_int_equal(parse(RESULT_LAT("{\"count\":2,\"min\":5,\"max\":6,\"sum\":\"b\","
					  "\"sumsq\":\"3d\",\"buckets\":[[5,1],[6,1]]}")), 0);
}

/* A result whose sink counted one flow, with @rest's fields besides. */
#define SINK(rest) "{\"type\":\"result\",\"flows\":[],\"window_ns\":1,\"sink\":" \
	"[{\"peer\":\"a:1\",\"sl\":0,\"tclass\":0,\"errors\":0,\"msgs\":1,\"bytes\":2" \
	rest "}]}"

static void test_bad(void **state)
{
	static const struct { const char *msg; const char *why; } bad[] = {
		{ "[1]", "not a JSON object" },
		{ "{\"type\":\"hello\"", "bad JSON" },
		{ "{\"type\":\"run\",\"cmd\":\"rm\"}", "unknown message type 'run'" },
		{ "{\"version\":1}", "unknown message type ''" },
		{ "{\"type\":\"hello\"}", "'version' is missing" },
		{ "{\"type\":\"hello\",\"version\":\"1\"}", "must be an integer" },
		{ "{\"type\":\"hello\",\"version\":1,\"path\":\"/etc\"}", "unknown field 'path'" },
		{ "{\"type\":\"hello\",\"version\":1,\"version\":2}", "bad JSON" },
		{ "{\"type\":\"start\",\"at_ns\":-1,\"warmup_ms\":0,\"duration_ms\":1}",
		  "out of range" },
		{ "{\"type\":\"start\",\"at_ns\":1,\"warmup_ms\":0,\"duration_ms\":0}",
		  "out of range" },
		{ SETUP("{\"name\":\"a\"}"), "setup.flows[0]: 'type' is missing" },
		{ SETUP("{\"name\":\"a\",\"type\":\"sh\",\"sl\":0,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"qps\":1,\"dest\":\"h3\"}"), "must be one of lat|bw" },
		{ SETUP("{\"name\":\"a\",\"type\":\"bw\",\"sl\":16,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"qps\":1,\"dest\":\"h3\",\"dest_port\":1}"),
		  "'sl' out of range" },
		/* A flow's settings have the limits of flow_spec_fields[]. */
		{ SETUP("{\"name\":\"a\",\"type\":\"bw\",\"sl\":1,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"qps\":65,\"dest\":\"h3\",\"dest_port\":1}"),
		  "'qps' out of range 1-64" },
		{ SETUP("{\"name\":\"a\",\"type\":\"bw\",\"sl\":1,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"dest\":\"h3\",\"dest_port\":1}"),
		  "setup.flows[0]: 'qps' is missing" },
		{ SETUP("{\"name\":\"a\",\"type\":\"bw\",\"sl\":1,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"qps\":1,\"dest\":\"h3\",\"dest_port\":1,"
			"\"on_ns\":3600000000001}"), "'on_ns' out of range" },
		{ SETUP("{\"name\":\"a\",\"type\":\"bw\",\"sl\":1,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"qps\":1}"), "setup.flows[0]: 'dest' is missing" },
		{ SETUP("{\"name\":\"a\",\"type\":\"bw\",\"sl\":1,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"qps\":1,\"dest\":\"h3\"}"),
		  "setup.flows[0]: 'dest_port' is missing" },
		{ SETUP("{\"name\":\"a\",\"type\":\"bw\",\"sl\":1,\"tclass\":0,\"size\":1,"
			"\"threads\":1,\"qps\":1,\"dest\":\"h3\",\"dest_port\":0}"),
		  "'dest_port' out of range" },
		{ SETUP(FLOW ",7"), "setup.flows[1]: not an object" },
		{ "{\"type\":\"setup\",\"sink\":\"yes\"}", "'sink' must be true or false" },
		{ "{\"type\":\"error\",\"error\":\"\"}", "bad length" },
		{ RESULT_LAT("[]"), "result.flows[0]: 'rtt' must be a histogram" },
		{ SINK(""), "result.sink[0]: 'intervals' is missing" },
		{ SINK(",\"intervals\":[1,-1]"), "'intervals'[1] must be an integer from 0" },
		{ SINK(",\"intervals\":[1,2.5]"), "'intervals'[1] must be an integer from 0" },
		{ SINK(",\"intervals\":{}"), "'intervals' must be an array of counts" },
		{ SINK(",\"intervals\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"),
		  "'intervals' has more than 20 items" },
		{ RESULT_LAT("{\"count\":3,\"min\":5,\"max\":6,\"sum\":\"b\",\"sumsq\":\"3d\","
			     "\"buckets\":[[5,1],[6,1]]}"),
		  "result.flows[0]: 'rtt': histogram: buckets hold 2 samples, count says 3" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].msg), -EPROTO);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: '%s', expected '%s'", bad[i].msg, err, bad[i].why);
	}
}

/* Two plain ends over a socket pair (@sv): @a the coordinator's, @b the agent's. */
static void plain_pair(struct ctl_chan *a, struct ctl_chan *b, int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ctl_chan_init(a, sv[0], true);
	ctl_chan_init(b, sv[1], false);
}

static void test_frames(void **state)
{
	static const unsigned char junk[8] = { 'H', 'T', 'T', 'P', 0, 0, 0, 1 };
	static const unsigned char huge[8] = { 0x52, 0x50, 0x43, 0x54, 0x7f, 0, 0, 0 };
	json_t *m = ctl_msg("time"), *r;
	struct ctl_chan a, b;
	int sv[2];

	(void)state;
	plain_pair(&a, &b, sv);
	assert_int_equal(ctl_send(&a, m, 1000, err, sizeof(err)), 0);
	assert_int_equal(ctl_recv(&b, &r, 1000, err, sizeof(err)), 0);
	assert_string_equal(ctl_type(r), "time");
	json_decref(r);
	/* Nothing sent: the wait ends. */
	assert_int_equal(ctl_recv(&b, &r, 50, err, sizeof(err)), -ETIMEDOUT);
	assert_int_equal(write(sv[0], junk, sizeof(junk)), 8);
	assert_int_equal(ctl_recv(&b, &r, 1000, err, sizeof(err)), -EPROTO);
	assert_int_equal(write(sv[0], huge, sizeof(huge)), 8);
	assert_int_equal(ctl_recv(&b, &r, 1000, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "exceeds"));
	/* A message that breaks the schema never leaves. */
	json_object_set_new(m, "bogus", json_true());
	assert_int_equal(ctl_send(&a, m, 1000, err, sizeof(err)), -EPROTO);
	close(sv[0]);
	assert_int_equal(ctl_recv(&b, &r, 1000, err, sizeof(err)), -ECONNRESET);
	close(sv[1]);
	json_decref(m);
}

/*
 * A frame all in the kernel before its deadline is read, however late the
 * reader looks; a frame that never comes whole still ends at the deadline,
 * without a wait past it. (The agent's gate reads a whole frame in 100 ms:
 * once, a guest's stall turned a coordinator's hello into "receive: timed
 * out".)
 */
static void test_stalled_reader(void **state)
{
	json_t *m = ctl_msg("time"), *r = NULL;
	struct ctl_chan a, b;
	uint64_t t0;
	int sv[2];

	(void)state;
	plain_pair(&a, &b, sv);
	assert_int_equal(ctl_send(&a, m, 1000, err, sizeof(err)), 0);
	stall_ms = 150;
	recv_calls = 0;
	assert_int_equal(ctl_recv(&b, &r, 100, err, sizeof(err)), 0);
	assert_int_equal(recv_calls, 2);	/* the stall happened, inside the read */
	assert_string_equal(ctl_type(r), "time");
	json_decref(r);
	/* Looked at only after its deadline (0 ms), a frame already in is still taken. */
	stall_ms = 0;
	assert_int_equal(ctl_send(&a, m, 1000, err, sizeof(err)), 0);
	assert_int_equal(ctl_recv(&b, &r, 0, err, sizeof(err)), 0);
	json_decref(r);
	/* A header whose body never comes: refused at the deadline, not past it. */
	assert_int_equal(write(sv[0], "RPCT\0\0\0\x10", 8), 8);
	t0 = ctl_now_ns();
	assert_int_equal(ctl_recv(&b, &r, 100, err, sizeof(err)), -ETIMEDOUT);
	assert_true(ctl_now_ns() - t0 < 2000000000u);
	assert_non_null(strstr(err, "timed out"));
	close(sv[0]);
	close(sv[1]);
	json_decref(m);
}

/* Two keyed ends over a socket pair: @a the coordinator's, @b the agent's. */
static void keyed_pair(struct ctl_chan *a, struct ctl_chan *b, const char *agent_nonce)
{
	int sv[2];

	plain_pair(a, b, sv);
	assert_int_equal(ctl_chan_key(a, "0123456789abcdef", N64, agent_nonce, err,
				      sizeof(err)), 0);
	assert_int_equal(ctl_chan_key(b, "0123456789abcdef", N64, agent_nonce, err,
				      sizeof(err)), 0);
}

/* Send a time message on @from and read the sealed frame's bytes raw. */
static size_t sealed_bytes(struct ctl_chan *from, int raw_fd, unsigned char *buf, size_t len)
{
	json_t *m = ctl_msg("time");
	ssize_t n;

	assert_int_equal(ctl_send(from, m, 1000, err, sizeof(err)), 0);
	json_decref(m);
	n = read(raw_fd, buf, len);
	assert_true(n > 8);
	return (size_t)n;
}

/* @frame written raw to @fd must be refused by @c with @why. */
static void unsealed_refused(struct ctl_chan *c, int fd, const unsigned char *frame, size_t n,
			     const char *why)
{
	json_t *r;

	assert_int_equal(write(fd, frame, n), (ssize_t)n);
	assert_int_equal(ctl_recv(c, &r, 1000, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, why))
		fail_msg("'%s', expected '%s'", err, why);
	/* Dropped: nothing more goes either way. */
	assert_int_equal(ctl_recv(c, &r, 1000, err, sizeof(err)), -EPIPE);
	assert_int_equal(ctl_send(c, r = ctl_msg("time"), 1000, err, sizeof(err)), -EPIPE);
	json_decref(r);
}

/*
 * The agent's next frame, sealed by a copy of its end (labelled as the
 * coordinator's if @as_coordinator), sent back to it: refused.
 */
static void reflected_refused(bool as_coordinator)
{
	unsigned char back[256];
	struct ctl_chan a, b, spy;
	size_t nb;
	int sv[2];

	keyed_pair(&a, &b, N64);
	assert_memory_equal(a.key_out, b.key_in, CTL_KEY_BYTES);
	assert_memory_not_equal(b.key_out, b.key_in, CTL_KEY_BYTES);
	spy = b;
	spy.coordinator = as_coordinator;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	spy.fd = sv[0];
	nb = sealed_bytes(&spy, sv[1], back, sizeof(back));
	unsealed_refused(&b, a.fd, back, nb, "fails its MAC");
	close(sv[0]);
	close(sv[1]);
	close(a.fd);
	close(b.fd);
}

/*
 * Sealed frames: they pass in order both ways; a byte changed, a frame
 * replayed or reordered, one of the other direction or of another
 * session, and a plain frame in a sealed session are each refused.
 */
static void test_sealed(void **state)
{
	unsigned char f0[256], f1[256], other[256], back[256];
	struct ctl_chan a, b, a2, b2;
	size_t n0, n1, no, nb;
	json_t *r;

	(void)state;
	keyed_pair(&a, &b, N64);
	n0 = sealed_bytes(&a, b.fd, f0, sizeof(f0));
	n1 = sealed_bytes(&a, b.fd, f1, sizeof(f1));
	assert_int_equal(write(a.fd, f0, n0), (ssize_t)n0);
	assert_int_equal(write(a.fd, f1, n1), (ssize_t)n1);
	assert_int_equal(ctl_recv(&b, &r, 1000, err, sizeof(err)), 0);
	json_decref(r);
	assert_int_equal(ctl_recv(&b, &r, 1000, err, sizeof(err)), 0);
	json_decref(r);
	/* The agent's answers have their own numbers, from 0. */
	nb = sealed_bytes(&b, a.fd, back, sizeof(back));
	assert_int_equal(write(b.fd, back, nb), (ssize_t)nb);
	assert_int_equal(ctl_recv(&a, &r, 1000, err, sizeof(err)), 0);
	json_decref(r);
	/* Replayed: frame 1 again where 2 is due. */
	unsealed_refused(&b, a.fd, f1, n1, "frame 1 out of sequence (expected 2");
	close(a.fd);
	close(b.fd);

	/* Reordered: frame 1 before frame 0. */
	keyed_pair(&a, &b, N64);
	n0 = sealed_bytes(&a, b.fd, f0, sizeof(f0));
	n1 = sealed_bytes(&a, b.fd, f1, sizeof(f1));
	unsealed_refused(&b, a.fd, f1, n1, "frame 1 out of sequence (expected 0");
	close(a.fd);
	close(b.fd);

	/* Tampered: one byte of the body changed. */
	keyed_pair(&a, &b, N64);
	n0 = sealed_bytes(&a, b.fd, f0, sizeof(f0));
	f0[8 + CTL_SEQ_BYTES + 2] ^= 0x20;
	unsealed_refused(&b, a.fd, f0, n0, "fails its MAC");
	close(a.fd);
	close(b.fd);

	/* Reflected: the agent's own frame 0 sent back to it. */
	reflected_refused(false);
	/*
	 * Reflected under the coordinator's label: the agent's key does not
	 * make the coordinator's frames, whatever the label says.
	 */
	reflected_refused(true);

	/* Another session (another agent nonce): its frame 0 is not ours. */
	keyed_pair(&a, &b, N64);
	keyed_pair(&a2, &b2, "f123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	no = sealed_bytes(&a2, b2.fd, other, sizeof(other));
	unsealed_refused(&b, a.fd, other, no, "fails its MAC");
	close(a2.fd);
	close(b2.fd);
	close(a.fd);
	close(b.fd);

	/* A plain frame where a sealed one is due. */
	keyed_pair(&a, &b, N64);
	a.keyed = false;
	n0 = sealed_bytes(&a, b.fd, f0, sizeof(f0));
	unsealed_refused(&b, a.fd, f0, n0, "not sealed");
	close(a.fd);
	close(b.fd);
}

static void test_tokens(void **state)
{
	(void)state;
	assert_true(token_equal("0123456789abcdef", "0123456789abcdef"));
	assert_false(token_equal("0123456789abcdef", "0123456789abcdeF"));
	assert_false(token_equal("0123456789abcdef", "0123456789abcde"));
	assert_false(token_equal("", "x"));
	/* Nonces: fresh, of their length. */
	{
		char n1[CTL_NONCE_HEX + 1], n2[CTL_NONCE_HEX + 1];

		assert_int_equal(ctl_nonce(n1, NULL, 0), 0);
		assert_int_equal(ctl_nonce(n2, NULL, 0), 0);
		assert_int_equal(strlen(n1), CTL_NONCE_HEX);
		assert_string_not_equal(n1, n2);
	}
	assert_true(ctl_addr_is_loopback("127.0.0.1"));
	assert_true(ctl_addr_is_loopback("::1"));
	assert_true(ctl_addr_is_loopback("localhost"));
	assert_false(ctl_addr_is_loopback("198.18.0.1"));
	assert_false(ctl_addr_is_loopback(NULL));
}

/* A flow's settings cross the wire whole: packed, validated, unpacked. */
static void test_flow_spec(void **state)
{
	struct flow_spec a, b;
	json_t *setup, *flow;
	char *text;
	json_t *msg;

	(void)state;
	flow_spec_defaults(&a);
	a.sl = 3, a.tclass = 184, a.size_bytes = 4096, a.rate_bps = 8000000;
	a.threads = 2, a.qps = 4, a.on_ns = 10000000, a.off_ns = 40000000;
	setup = json_pack("{s:s, s:b, s:i, s:i, s:i, s:s, s:b, s:i, s:i, s:[]}", "type", "setup",
			  "sink", 0, "ib_port", 1, "gid_index", -1, "data_port", 18540, "clock",
			  "tsc", "yield", 0, "qp_timeout", 20, "retry", 7, "flows");
	flow = json_pack("{s:s, s:s, s:s, s:i}", "name", "a", "type", "bw", "dest", "h3",
			 "dest_port", 18540);
	ctl_flow_spec_pack(flow, &a);
	json_array_append_new(json_object_get(setup, "flows"), flow);
	text = json_dumps(setup, JSON_COMPACT);
	assert_int_equal(parse(text), 0);
	assert_int_equal(ctl_parse(text, strlen(text), &msg, err, sizeof(err)), 0);
	ctl_flow_spec_unpack(json_array_get(json_object_get(msg, "flows"), 0), &b);
	assert_memory_equal(&a, &b, sizeof(a));
	json_decref(msg);
	free(text);
	json_decref(setup);
}

/* Every control socket finds a vanished peer within 30 s, idle or not. */
static void test_keepalive(void **state)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), on = 0, idle_s = 0, intvl_s = 0, cnt = 0;
	unsigned int user_ms = 0;
	socklen_t n = sizeof(int);

	(void)state;
	assert_true(fd >= 0);
	ctl_keepalive(fd);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &n), 0);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, &n), 0);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl_s, &n), 0);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, &n), 0);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, &n), 0);
	assert_int_equal(on, 1);
	assert_true(idle_s > 0 && idle_s + intvl_s * cnt <= 30);
	assert_true(user_ms > 0 && user_ms <= 30000);
	close(fd);
}

/* --new-token's file: 0600, one line of 64 hex characters, never overwritten; read back. */
static void test_token_files(void **state)
{
	char dir[] = "/tmp/test_ctl.XXXXXX", path[64], tok[CTL_MAX_TOKEN_BYTES];
	struct stat sb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t", dir);
	assert_int_equal(ctl_token_new(path, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_int_equal(strlen(tok), 2 * CTL_NEW_TOKEN_BYTES);
	assert_int_equal(strspn(tok, "0123456789abcdef"), 2 * CTL_NEW_TOKEN_BYTES);
	assert_int_equal(ctl_token_new(path, err, sizeof(err)), -EEXIST);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "chmod 600"));
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), -EPERM);
	unlink(path);
	rmdir(dir);
}

/* @path made anew with @text as its one line, its mode @mode. */
static void token_file(const char *path, const char *text, mode_t mode)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fprintf(f, "%s\n", text) > 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/*
 * A token file is refused, the file named, when its token is easy to
 * guess (with the command that makes a good one), when another user owns
 * it (with the chown that fixes it), and when others may change it; 32
 * random hex characters (128 bits) in the owner's own file are taken.
 */
static void test_token_refused(void **state)
{
	char dir[] = "/tmp/test_ctl.XXXXXX", path[64], tok[CTL_MAX_TOKEN_BYTES];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t", dir);
	token_file(path, "rperf-demo-token-1234", 0600);
	assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "rperf agent --new-token"));
	token_file(path, "3f9a0c7be41d52e86a1f0b9c7d3e5a24", 0600);
	assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_string_equal(tok, "3f9a0c7be41d52e86a1f0b9c7d3e5a24");
	assert_int_equal(chmod(path, 0620), 0);
	assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, path));
	assert_int_equal(chmod(path, 0602), 0);
	assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, path));
	assert_int_equal(chmod(path, 0600), 0);
	/* Another owner: only root can give a file away, so only root tests it. */
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, (gid_t)-1), 0);
		assert_int_equal(token_read(path, tok, sizeof(tok), err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, path));
		assert_non_null(strstr(err, "owned by uid 65534"));
	}
	unlink(path);
	rmdir(dir);
}

/* A flow's data-connection secret: fresh each time, read back exactly; anything else is none. */
static void test_secrets(void **state)
{
	char a[CTL_SECRET_HEX + 1], b[CTL_SECRET_HEX + 1];
	unsigned char raw[CTL_SECRET_HEX / 2];
	json_t *m;

	(void)state;
	assert_int_equal(ctl_secret_new(a, NULL, 0), 0);
	assert_int_equal(ctl_secret_new(b, NULL, 0), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(ctl_secret_parse(a, raw), 0);
	snprintf(b, sizeof(b), "%02x", raw[0]);
	assert_memory_equal(a, b, 2);
	assert_int_equal(ctl_secret_parse("00112233", raw), -EINVAL);
	assert_int_equal(ctl_secret_parse("zz112233445566778899aabbccddeeff", raw), -EINVAL);
	assert_int_equal(raw[0], 0);
	assert_int_equal(ctl_secret_parse(NULL, raw), -EINVAL);
	/* A sink's setup lists the flows it admits; a malformed entry is refused whole. */
	m = json_pack("{s:s, s:b, s:i, s:i, s:i, s:s, s:b, s:i, s:i, s:[], s:[{s:s, s:s, s:i, s:i}]}",
		      "type", "setup", "sink", 1, "ib_port", 1, "gid_index", 0, "data_port", 18540,
		      "clock", "monotonic", "yield", 0, "qp_timeout", 14, "retry", 7, "flows",
		      "expect", "secret", a, "src", "198.18.0.1", "conns", 2, "size", 4096);
	assert_int_equal(ctl_validate(m, err, sizeof(err)), 0);
	json_object_set_new(json_array_get(json_object_get(m, "expect"), 0), "secret",
			    json_string("0011"));
	assert_int_not_equal(ctl_validate(m, err, sizeof(err)), 0);
	json_decref(m);
}

/*
 * Tokens easy to guess are told from those that are not: hand-made
 * phrases and short or repetitive ones under 128 bits, any 32 or 64
 * random hex characters (what --new-token makes) at or above it.
 */
static void test_token_bits(void **state)
{
	unsigned char b[32];
	char hex[65];
	int i, k;

	(void)state;
	assert_true(token_bits("a-token-of-some-length") < CTL_TOKEN_MIN_BITS);
	assert_true(token_bits("0123456789abcdef0123") < CTL_TOKEN_MIN_BITS);
	assert_true(token_bits("rperf-demo-token-1234") < CTL_TOKEN_MIN_BITS);
	assert_true(token_bits("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 0);
	assert_true(token_bits("") == 0);
	for (k = 0; k < 200; k++) {
		for (i = 0; i < 32; i++)
			b[i] = (unsigned char)rand();
		for (i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", b[i]);
		assert_true(token_bits(hex) >= 2 * CTL_TOKEN_MIN_BITS);
		hex[32] = '\0';
		assert_true(token_bits(hex) >= CTL_TOKEN_MIN_BITS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_stalled_reader),
		cmocka_unit_test(test_flow_spec),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_sealed),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_keepalive),
		cmocka_unit_test(test_token_files),
		cmocka_unit_test(test_token_refused),
		cmocka_unit_test(test_secrets),
		cmocka_unit_test(test_token_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
