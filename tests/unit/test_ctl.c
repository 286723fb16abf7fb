/* Control messages: the schema's checks, framing over a socket pair, tokens. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "converge/ctl.h"

static char err[512];

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
			       "\"errors\":0}]}"), 0);
	assert_int_equal(parse(RESULT_LAT("{\"count\":2,\"min\":5,\"max\":6,\"sum\":\"b\","
					  "\"sumsq\":\"3d\",\"buckets\":[[5,1],[6,1]]}")), 0);
}

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
			"\"threads\":1,\"qps\":1,\"dest\":\"h3\"}"), "'sl' out of range" },
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

static void test_frames(void **state)
{
	static const unsigned char junk[8] = { 'H', 'T', 'T', 'P', 0, 0, 0, 1 };
	static const unsigned char huge[8] = { 0x52, 0x50, 0x43, 0x54, 0x7f, 0, 0, 0 };
	json_t *m = ctl_msg("time"), *r;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(ctl_send(sv[0], m, 1000, err, sizeof(err)), 0);
	assert_int_equal(ctl_recv(sv[1], &r, 1000, err, sizeof(err)), 0);
	assert_string_equal(ctl_type(r), "time");
	json_decref(r);
	/* Nothing sent: the wait ends. */
	assert_int_equal(ctl_recv(sv[1], &r, 50, err, sizeof(err)), -ETIMEDOUT);
	assert_int_equal(write(sv[0], junk, sizeof(junk)), 8);
	assert_int_equal(ctl_recv(sv[1], &r, 1000, err, sizeof(err)), -EPROTO);
	assert_int_equal(write(sv[0], huge, sizeof(huge)), 8);
	assert_int_equal(ctl_recv(sv[1], &r, 1000, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "exceeds"));
	/* A message that breaks the schema never leaves. */
	json_object_set_new(m, "bogus", json_true());
	assert_int_equal(ctl_send(sv[0], m, 1000, err, sizeof(err)), -EPROTO);
	close(sv[0]);
	assert_int_equal(ctl_recv(sv[1], &r, 1000, err, sizeof(err)), -ECONNRESET);
	close(sv[1]);
	json_decref(m);
}

static void test_tokens(void **state)
{
	(void)state;
	assert_true(ctl_token_equal("0123456789abcdef", "0123456789abcdef"));
	assert_false(ctl_token_equal("0123456789abcdef", "0123456789abcdeF"));
	assert_false(ctl_token_equal("0123456789abcdef", "0123456789abcde"));
	assert_false(ctl_token_equal("", "x"));
	/* The proofs are HMAC-SHA256 over "WHO MINE THEIRS": RFC 4231's test
	 * case 2 (key "Jefe", "what do ya want for nothing?"). */
	{
		char mac[CTL_MAC_HEX + 1], n1[CTL_NONCE_HEX + 1], n2[CTL_NONCE_HEX + 1];

		ctl_auth_mac("Jefe", "what", "do", "ya want for nothing?", mac);
		assert_string_equal(mac, "5bdcc146bf60754e6a042426089575c7"
				    "5a003f089d2739839dec58b964ec3843");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_tokens),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
