/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Writes the seed corpora of fuzz_gate and fuzz_coord (tests/fuzz/corpus/
 * gate and coord) with the control protocol's own framer and messages,
 * so the seeds follow the protocol wherever it goes:
 *
 *   make fuzz-corpus-ctl
 *
 * A gate seed is a flags byte (bit 0: the agent asks for a token), then
 * what a coordinator sends; a coord seed is what an agent answers to a
 * coordinator's hello, time exchanges and a step's setup.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/env.h"
#include "wire/ctl.h"

#define CTL_CORPUS_MAX		8192
#define CTL_CORPUS_TOKEN	"0123456789abcdef0123456789abcdef"
#define CTL_CORPUS_NONCE	"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define CTL_CORPUS_TIMES	5	/* the coordinator's time exchanges in a sync */

/* One seed being written: its bytes, and the channel its frames go out on. */
struct ctl_corpus {
	uint8_t buf[CTL_CORPUS_MAX];
	size_t len;
	struct ctl_chan ch;
	int peer;		/* where the frames arrive */
};

static void ctl_corpus_open(struct ctl_corpus *s, uint8_t flags, bool with_flags)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		exit(1);
	ctl_chan_init(&s->ch, sv[0], false);
	s->peer = sv[1];
	s->len = 0;
	if (with_flags)
		s->buf[s->len++] = flags;
}

/* @m (consumed) framed as the channel sends it, onto the seed. */
static void ctl_corpus_add(struct ctl_corpus *s, json_t *m)
{
	char err[256];
	ssize_t n;

	if (ctl_send(&s->ch, m, 1000, err, sizeof(err))) {
		fprintf(stderr, "ctl_corpus: %s\n", err);
		exit(1);
	}
	json_decref(m);
	n = recv(s->peer, s->buf + s->len, sizeof(s->buf) - s->len, MSG_DONTWAIT);
	if (n <= 0)
		exit(1);
	s->len += (size_t)n;
}

/* The seed into @dir/@name; the channel closed. */
static void ctl_corpus_write(struct ctl_corpus *s, const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	close(s->ch.fd);
	close(s->peer);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->buf, 1, s->len, f) != s->len || fclose(f)) {
		fprintf(stderr, "ctl_corpus: cannot write '%s'\n", path);
		exit(1);
	}
}

/* A hello of @version, with a nonce (a coordinator's) or a host and clock (an agent's). */
static json_t *ctl_corpus_hello(int version, bool coordinator)
{
	json_t *m = ctl_msg("hello");

	json_object_set_new(m, "version", json_integer(version));
	if (coordinator) {
		json_object_set_new(m, "nonce", json_string(CTL_CORPUS_NONCE));
	} else {
		json_object_set_new(m, "host", json_string("h1"));
		json_object_set_new(m, "now_ns", json_integer(1000000000));
	}
	return m;
}

/* An auth or a challenge: a proof by @who over the seeds' nonces. */
static json_t *ctl_corpus_proof(const char *type, const char *who)
{
	char mac[CTL_MAC_HEX + 1];
	json_t *m = ctl_msg(type);

	if (ctl_auth_mac(CTL_CORPUS_TOKEN, who, CTL_CORPUS_NONCE, CTL_CORPUS_NONCE, mac))
		exit(1);
	if (!strcmp(type, "challenge"))
		json_object_set_new(m, "nonce", json_string(CTL_CORPUS_NONCE));
	json_object_set_new(m, "mac", json_string(mac));
	return m;
}

static json_t *ctl_corpus_error(const char *why)
{
	json_t *m = ctl_msg("error");

	json_object_set_new(m, "error", json_string(why));
	return m;
}

static void ctl_corpus_gate(const char *dir)
{
	struct ctl_corpus s;

	ctl_corpus_open(&s, 0, true);
	ctl_corpus_add(&s, ctl_corpus_hello(CTL_VERSION, true));
	ctl_corpus_write(&s, dir, "hello.bin");
	ctl_corpus_open(&s, 1, true);
	ctl_corpus_add(&s, ctl_corpus_hello(CTL_VERSION, true));
	ctl_corpus_write(&s, dir, "hello-token.bin");
	ctl_corpus_open(&s, 1, true);
	ctl_corpus_add(&s, ctl_corpus_hello(CTL_VERSION, true));
	ctl_corpus_add(&s, ctl_corpus_proof("auth", "coordinator"));
	ctl_corpus_write(&s, dir, "hello-auth.bin");
	ctl_corpus_open(&s, 0, true);
	ctl_corpus_add(&s, ctl_corpus_hello(CTL_VERSION - 1, true));
	ctl_corpus_write(&s, dir, "old-version.bin");
	ctl_corpus_open(&s, 0, true);
	ctl_corpus_add(&s, ctl_msg("time"));
	ctl_corpus_write(&s, dir, "not-hello.bin");
}

/* An agent's environment, as run_env_json() writes it, of fixed facts. */
static json_t *ctl_corpus_env(void)
{
	struct run_env e = { .kernel = "Linux 6.1.0 #1 SMP x86_64", .rdma_core = "50.0",
			     .governor = "performance", .cmdline = "rperf agent",
			     .device = "mlx5_0", .fw_ver = "28.39.1002",
			     .link_layer = "Ethernet", .port_gbps = 100, .device_numa = 0,
			     .n_workers = 1 };

	return run_env_json(&e);
}

/* An agent's answers up to the setup: its hello and CTL_CORPUS_TIMES times. */
static void ctl_corpus_synced(struct ctl_corpus *s)
{
	json_t *m;
	int i;

	ctl_corpus_add(s, ctl_corpus_hello(CTL_VERSION, false));
	for (i = 0; i < CTL_CORPUS_TIMES; i++) {
		m = ctl_msg("time");
		json_object_set_new(m, "now_ns", json_integer(1000000000 + i * 1000));
		ctl_corpus_add(s, m);
	}
}

static void ctl_corpus_coord(const char *dir)
{
	struct ctl_corpus s;
	json_t *m;

	ctl_corpus_open(&s, 0, false);
	ctl_corpus_synced(&s);
	m = ctl_msg("ready");
	json_object_set_new(m, "conns", json_array());
	json_object_set_new(m, "environment", ctl_corpus_env());
	ctl_corpus_add(&s, m);
	ctl_corpus_write(&s, dir, "session.bin");
	ctl_corpus_open(&s, 0, false);
	ctl_corpus_synced(&s);
	m = ctl_corpus_error("cannot open device 'mlx5_9'");
	json_object_set_new(m, "flow", json_string("lat"));
	ctl_corpus_add(&s, m);
	ctl_corpus_write(&s, dir, "setup-refused.bin");
	ctl_corpus_open(&s, 0, false);
	ctl_corpus_add(&s, ctl_corpus_error("wrong token"));
	ctl_corpus_write(&s, dir, "refused.bin");
	ctl_corpus_open(&s, 0, false);
	ctl_corpus_add(&s, ctl_corpus_hello(CTL_VERSION - 1, false));
	ctl_corpus_write(&s, dir, "old-version.bin");
	ctl_corpus_open(&s, 0, false);
	ctl_corpus_add(&s, ctl_corpus_proof("challenge", "agent"));
	ctl_corpus_write(&s, dir, "challenge.bin");
}

int main(int argc, char **argv)
{
	char gate[4096], coord[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR (the corpus directory)\n", argv[0]);
		return 2;
	}
	snprintf(gate, sizeof(gate), "%s/gate", argv[1]);
	snprintf(coord, sizeof(coord), "%s/coord", argv[1]);
	ctl_corpus_gate(gate);
	ctl_corpus_coord(coord);
	return 0;
}
