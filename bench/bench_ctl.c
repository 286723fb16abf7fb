/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Cost of sealing control frames (ctl.h, "Sealed frames"): the time of
 * one message sent and received over a socket pair, plain and sealed
 * (HMAC-SHA256 under the session key, sequence numbers checked), in
 * alternating rounds, for a time message, a setup of 8 flows and a
 * result of 8 flows; the difference is what sealing adds per control
 * message. The last column times the two HMACs alone (one to seal, one to
 * check), which the end-to-end difference is noisier than. Not a test:
 * the numbers depend on the machine.
 *
 * usage: bench_ctl [messages per case, default 20000]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "wire/ctl.h"

#define N64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static json_t *flow(int i, bool result)
{
	json_t *f = json_object();
	char name[16];

	snprintf(name, sizeof(name), "bw%d", i);
	json_object_set_new(f, "name", json_string(name));
	json_object_set_new(f, "type", json_string("bw"));
	if (result) {
		json_object_set_new(f, "samples", json_integer(0));
		json_object_set_new(f, "msgs", json_integer(123456789));
		json_object_set_new(f, "bytes", json_integer(505678901234));
		json_object_set_new(f, "elapsed_ns", json_integer(10000000000));
		return f;
	}
	json_object_set_new(f, "sl", json_integer(i % 8));
	json_object_set_new(f, "tclass", json_integer(32));
	json_object_set_new(f, "size", json_integer(65536));
	json_object_set_new(f, "threads", json_integer(1));
	json_object_set_new(f, "qps", json_integer(2));
	json_object_set_new(f, "dest", json_string("host-3.example"));
	return f;
}

/* A time message, a setup or a result of eight flows. */
static json_t *message(int kind)
{
	json_t *m = ctl_msg(kind == 0 ? "time" : kind == 1 ? "setup" : "result");
	json_t *flows = json_array();
	int i;

	if (kind == 0)
		return json_decref(flows), m;
	for (i = 0; i < 8; i++)
		json_array_append_new(flows, flow(i, kind == 2));
	json_object_set_new(m, "flows", flows);
	if (kind == 2) {
		json_object_set_new(m, "sink", json_array());
		json_object_set_new(m, "window_ns", json_integer(10000000000));
		return m;
	}
	json_object_set_new(m, "sink", json_false());
	json_object_set_new(m, "ib_port", json_integer(1));
	json_object_set_new(m, "gid_index", json_integer(3));
	json_object_set_new(m, "data_port", json_integer(18540));
	json_object_set_new(m, "clock", json_string("tsc"));
	json_object_set_new(m, "yield", json_true());
	json_object_set_new(m, "qp_timeout", json_integer(14));
	json_object_set_new(m, "retry", json_integer(7));
	return m;
}

/* Two ends over a socket pair, keyed if @sealed. */
static void chan_pair(struct ctl_chan *a, struct ctl_chan *b, bool sealed)
{
	char err[256];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		exit(1);
	ctl_chan_init(a, sv[0], true);
	ctl_chan_init(b, sv[1], false);
	if (sealed && (ctl_chan_key(a, "bench-token-0123456789", N64, N64, err, sizeof(err)) ||
		       ctl_chan_key(b, "bench-token-0123456789", N64, N64, err, sizeof(err))))
		exit(1);
}

/* ns spent on @n messages sent on @a and received on @b. */
static uint64_t run_ns(struct ctl_chan *a, struct ctl_chan *b, const json_t *m, long n)
{
	uint64_t t0 = ctl_now_ns();
	char err[256];
	json_t *r;
	long i;

	for (i = 0; i < n; i++) {
		if (ctl_send(a, m, 1000, err, sizeof(err)) ||
		    ctl_recv(b, &r, 1000, err, sizeof(err))) {
			fprintf(stderr, "bench_ctl: %s\n", err);
			exit(1);
		}
		json_decref(r);
	}
	return ctl_now_ns() - t0;
}

/*
 * ns per message, plain in *@plain and sealed in *@sealed: the two run in
 * alternating rounds, so that the machine's other load falls on both alike.
 */
static void per_msg_ns(const json_t *m, long n, double *plain, double *sealed)
{
	struct ctl_chan pa, pb, sa, sb;
	uint64_t p_ns = 0, s_ns = 0;
	long done;

	chan_pair(&pa, &pb, false);
	chan_pair(&sa, &sb, true);
	run_ns(&sa, &sb, m, n / 10 + 1);	/* warm up */
	for (done = 0; done < n; done += 500) {
		p_ns += run_ns(&pa, &pb, m, 500);
		s_ns += run_ns(&sa, &sb, m, 500);
	}
	*plain = (double)p_ns / (double)done;
	*sealed = (double)s_ns / (double)done;
	close(pa.fd);
	close(pb.fd);
	close(sa.fd);
	close(sb.fd);
}

/* ns per HMAC-SHA256 over @len bytes: the work sealing adds, once each side. */
static double hmac_ns(size_t len, long n)
{
	unsigned char key[CTL_KEY_BYTES] = { 1 }, md[EVP_MAX_MD_SIZE], *buf = calloc(1, len);
	unsigned int mdlen;
	uint64_t t0 = ctl_now_ns();
	long i;

	for (i = 0; i < n; i++) {
		buf[0] = (unsigned char)i;
		HMAC(EVP_sha256(), key, sizeof(key), buf, len, md, &mdlen);
	}
	t0 = ctl_now_ns() - t0;
	free(buf);
	return (double)t0 / (double)n;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "time", "setup (8 flows)", "result (8 flows)" };
	long n = argc > 1 ? atol(argv[1]) : 20000;
	double plain, sealed, mac;
	json_t *m;
	char *s;
	int k;

	printf("| message | bytes | plain us | sealed us | difference us | 2 HMACs us |\n"
	       "|---|---:|---:|---:|---:|---:|\n");
	for (k = 0; k < 3; k++) {
		m = message(k);
		s = json_dumps(m, JSON_COMPACT);
		per_msg_ns(m, n, &plain, &sealed);
		/* The MAC covers label, header, number and body: 34 bytes more. */
		mac = 2 * hmac_ns(strlen(s) + 34, n);
		printf("| %s | %zu | %.2f | %.2f | %.2f | %.2f |\n", names[k], strlen(s),
		       plain / 1e3, sealed / 1e3, (sealed - plain) / 1e3, mac / 1e3);
		free(s);
		json_decref(m);
	}
	return 0;
}
