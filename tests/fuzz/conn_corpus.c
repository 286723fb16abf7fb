/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Writes the seed corpus of fuzz_conn (tests/fuzz/corpus/conn) with the
 * real packers, so the seeds follow the wire format wherever it goes:
 *
 *   make fuzz-corpus-conn
 *
 * Each seed is a session as a server reads it: a hello, then messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/conn.h"

#define CONN_CORPUS_MAX_MSGS 3

struct conn_corpus_seed {
	const char *name;
	struct conn_hello hello;
	int n_msgs;
	struct conn_msg msgs[CONN_CORPUS_MAX_MSGS];
	int corrupt_at;			/* a byte to flip after packing, or -1 */
};

static const struct conn_corpus_seed conn_corpus_seeds[] = {
	{ "client-query", { .kind = CONN_HELLO_CLIENT,
	  .ep = { .qpn = 0x000123, .psn = 0xabcdef, .lid = 7, .mtu = 3,
		  .gid.raw = { 0xfe, 0x80, [15] = 1 }, .pkey = 0x8001, .pkey_index = 1 },
	  .path = { .sl = 3, .tclass = 96, .timeout = 14, .retry = 7 },
	  .max_msg_bytes = 65536 }, 2,
	  { { .kind = CONN_MSG_QUERY }, { .kind = CONN_MSG_MR } }, -1 },
	{ "server-stats", { .kind = CONN_HELLO_SERVER, .flow_id = 42,
	  .ep = { .qpn = 0xffffff, .psn = 1, .lid = 0xffff, .mtu = 5, .pkey = 0xffff } }, 3,
	  { { .kind = CONN_MSG_STATS, .flow_id = 42,
	      .v = { 1000000, 4096000000ull, 0, 123456789012345ull } },
	    { .kind = CONN_MSG_MR, .flow_id = 42,
	      .v = { 0x7f0000001000ull, 0x1234, 1 << 20, 0 } },
	    { .kind = CONN_MSG_STATS, .flow_id = 42, .v = { ~0ull, ~0ull, 3, 1 } } }, -1 },
	{ "server-refused", { .kind = CONN_HELLO_SERVER, .status = -EBUSY }, 0, { { 0 } }, -1 },
	{ "attach", { .kind = CONN_HELLO_ATTACH, .flow_id = 7,
		      .secret = { 0x5e, 0xc2, 0xe7, [15] = 0x01 } }, 1,
	  { { .kind = CONN_MSG_QUERY, .flow_id = 7 } }, -1 },
	{ "bad-magic", { .kind = CONN_HELLO_CLIENT }, 0, { { 0 } }, 0 },
	{ "bad-version", { .kind = CONN_HELLO_CLIENT }, 0, { { 0 } }, 5 },
	{ "bad-msg-kind", { .kind = CONN_HELLO_CLIENT }, 1,
	  { { .kind = CONN_MSG_QUERY } }, CONN_HELLO_BYTES + 7 },
};

/* Pack @s into @out; the number of bytes. */
static size_t conn_corpus_pack(const struct conn_corpus_seed *s, uint8_t *out)
{
	size_t n = CONN_HELLO_BYTES;
	int i;

	conn_hello_pack(&s->hello, out);
	for (i = 0; i < s->n_msgs; i++, n += CONN_MSG_BYTES)
		conn_msg_pack(&s->msgs[i], out + n);
	if (s->corrupt_at >= 0)
		out[s->corrupt_at] ^= 0x40;
	return n;
}

int main(int argc, char **argv)
{
	uint8_t buf[CONN_HELLO_BYTES + CONN_CORPUS_MAX_MSGS * CONN_MSG_BYTES];
	char path[4096];
	size_t i, n;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(conn_corpus_seeds) / sizeof(conn_corpus_seeds[0]); i++) {
		n = conn_corpus_pack(&conn_corpus_seeds[i], buf);
		snprintf(path, sizeof(path), "%s/%s.bin", argv[1], conn_corpus_seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
			fprintf(stderr, "%s: cannot write '%s'\n", argv[0], path);
			return 1;
		}
	}
	return 0;
}
