/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The control protocol's roles: the keys are HKDF-SHA256 (RFC 5869's
 * vectors), each role's proof is its own, and a coordinator refuses a
 * peer that answers its hello with a coordinator's proof (what a peer
 * reflecting the coordinator's own proof would hold) while a peer that
 * proves itself an agent is let in. The agent's side of the same, against
 * a running agent, is test_agent_peers's test_roles.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "wire/ctl.h"

#define TOKEN	"3f6c0d1a9be24e7781c5a0f2d4b6e8a1"
#define N_A	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define N_C	"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

static char err[512];

/* @n bytes of @b as hex, in a static buffer. */
static const char *hex(const unsigned char *b, size_t n)
{
	static char out[2 * 64 + 1];
	size_t i;

	for (i = 0; i < n && i < 64; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return out;
}

/* RFC 5869, A.1 and A.3: with a salt and info, and with neither. */
static void test_hkdf_vectors(void **state)
{
	const unsigned char salt[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	unsigned char ikm[22], okm[42];

	(void)state;
	memset(ikm, 0x0b, sizeof(ikm));
	assert_int_equal(token_hkdf(ikm, sizeof(ikm), salt, sizeof(salt),
				  "\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9", okm, sizeof(okm)), 0);
	assert_string_equal(hex(okm, sizeof(okm)), "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a"
			    "5a4c5db02d56ecc4c5bf34007208d5b887185865");
	assert_int_equal(token_hkdf(ikm, sizeof(ikm), NULL, 0, "", okm, sizeof(okm)), 0);
	assert_string_equal(hex(okm, sizeof(okm)), "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1"
			    "879ec3454e5f3c738d2d9d201395faa4b61a96c8");
}

/* Each role and direction has its own key, and every key's label names the version. */
static void test_keys_apart(void **state)
{
	const char *what[] = { "proof by agent", "proof by coordinator",
			       "seal coordinator->agent", "seal agent->coordinator" };
	unsigned char k[4][CTL_KEY_BYTES], again[CTL_KEY_BYTES];
	char want[64];
	int i, j;

	(void)state;
	snprintf(want, sizeof(want), "rperf control v%d", CTL_VERSION);
	assert_string_equal(CTL_KDF_LABEL, want);
	for (i = 0; i < 4; i++)
		assert_int_equal(ctl_derive(TOKEN, N_C N_A, what[i], k[i]), 0);
	for (i = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++)
			assert_memory_not_equal(k[i], k[j], CTL_KEY_BYTES);
	assert_int_equal(ctl_derive(TOKEN, N_C N_A, what[0], again), 0);
	assert_memory_equal(k[0], again, CTL_KEY_BYTES);
	assert_int_equal(ctl_derive(TOKEN "x", N_C N_A, what[0], again), 0);
	assert_memory_not_equal(k[0], again, CTL_KEY_BYTES);
}

/* A coordinator's proof is not an agent's, nor an agent's a coordinator's. */
static void test_proofs_by_role(void **state)
{
	char coord[CTL_MAC_HEX + 1], agent[CTL_MAC_HEX + 1];

	(void)state;
	assert_int_equal(ctl_auth_mac(TOKEN, "coordinator", N_C, N_A, coord), 0);
	assert_int_equal(ctl_auth_mac(TOKEN, "agent", N_A, N_C, agent), 0);
	assert_int_equal(strlen(coord), CTL_MAC_HEX);
	assert_true(ctl_auth_check(TOKEN, "coordinator", N_C, N_A, coord));
	assert_true(ctl_auth_check(TOKEN, "agent", N_A, N_C, agent));
	/* The other role, with the nonces in either order. */
	assert_false(ctl_auth_check(TOKEN, "agent", N_C, N_A, coord));
	assert_false(ctl_auth_check(TOKEN, "agent", N_A, N_C, coord));
	assert_false(ctl_auth_check(TOKEN, "coordinator", N_A, N_C, agent));
	assert_false(ctl_auth_check(TOKEN, "coordinator", N_C, N_A, agent));
	/* Another token, or none. */
	assert_false(ctl_auth_check(TOKEN "x", "coordinator", N_C, N_A, coord));
	assert_false(ctl_auth_check(TOKEN, "coordinator", N_C, N_A, NULL));
	assert_false(ctl_auth_check(TOKEN, "coordinator", N_C, N_A, ""));
}

/*
 * A peer on @fd answering a coordinator's hello as an agent would, but
 * with @role's proof in its challenge. Its exit status: 0 when it took a
 * coordinator's proof and sent its sealed hello, 2 when no auth came, 3
 * when the auth was not a coordinator's proof, 1 for anything else.
 */
static int fake_agent(int fd, const char *role)
{
	char an[CTL_NONCE_HEX + 1], cn[CTL_NONCE_HEX + 1], mac[CTL_MAC_HEX + 1];
	const char *got;
	struct ctl_chan ch;
	json_t *m;
	bool ok;

	ctl_chan_init(&ch, fd, false);
	if (ctl_recv(&ch, &m, 5000, err, sizeof(err)) || strcmp(ctl_type(m), "hello"))
		return 1;
	snprintf(cn, sizeof(cn), "%s", json_string_value(json_object_get(m, "nonce")));
	json_decref(m);
	if (ctl_nonce(an, err, sizeof(err)) || ctl_auth_mac(TOKEN, role, an, cn, mac))
		return 1;
	m = ctl_msg("challenge");
	json_object_set_new(m, "nonce", json_string(an));
	json_object_set_new(m, "mac", json_string(mac));
	if (ctl_send(&ch, m, 5000, err, sizeof(err)))
		return 1;
	json_decref(m);
	if (ctl_recv(&ch, &m, 5000, err, sizeof(err)))
		return 2;
	got = json_string_value(json_object_get(m, "mac"));
	ok = ctl_auth_check(TOKEN, "coordinator", cn, an, got) &&
	     !ctl_auth_check(TOKEN, "agent", cn, an, got);
	json_decref(m);
	if (!ok)
		return 3;
	if (ctl_chan_key(&ch, TOKEN, cn, an, err, sizeof(err)))
		return 1;
	m = ctl_msg("hello");
	json_object_set_new(m, "version", json_integer(CTL_VERSION));
	json_object_set_new(m, "host", json_string("fake"));
	json_object_set_new(m, "now_ns", json_integer(1));
	return ctl_send(&ch, m, 5000, err, sizeof(err)) ? 1 : 0;
}

/* ctl_hello_client against fake_agent(@role): its return; *@status the fake's exit status. */
static int hello_fake(const char *role, json_t **reply, int *status)
{
	struct ctl_chan c;
	int sv[2], ret;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(sv[0]);
		_exit(fake_agent(sv[1], role));
	}
	close(sv[1]);
	ctl_chan_init(&c, sv[0], true);
	err[0] = '\0';
	ret = ctl_hello_client(&c, TOKEN, reply, 5000, err, sizeof(err));
	ctl_chan_forget(&c);
	close(sv[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
	assert_true(WIFEXITED(*status));
	*status = WEXITSTATUS(*status);
	return ret;
}

/*
 * The coordinator takes an agent's proof and answers with a coordinator's
 * (the fake checks it), and refuses a coordinator's proof before it sends
 * its own.
 */
static void test_coordinator_wants_an_agent(void **state)
{
	json_t *r = NULL;
	int status;

	(void)state;
	assert_int_equal(hello_fake("agent", &r, &status), 0);
	assert_int_equal(status, 0);
	assert_string_equal(ctl_type(r), "hello");
	json_decref(r);
	r = NULL;
	assert_int_equal(hello_fake("coordinator", &r, &status), -EACCES);
	assert_null(r);
	if (!strstr(err, "its proof is not an agent's"))
		fail_msg("'%s'", err);
	assert_int_equal(status, 2);	/* no auth came */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hkdf_vectors),
		cmocka_unit_test(test_keys_apart),
		cmocka_unit_test(test_proofs_by_role),
		cmocka_unit_test(test_coordinator_wants_an_agent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
