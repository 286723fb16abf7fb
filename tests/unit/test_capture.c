/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * capture (bench/capture_rtt's reader): wire RTTs from the synthetic pcap
 * tests/data/roce-rc.pcap (written by gen-roce-rc-pcap.py there, which
 * lists each exchange and its RTT), per message and per packet, with and
 * without the source filter; pcap variants built in memory; bad input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"

#define FIXTURE TEST_DATA "/roce-rc.pcap"

static void parse(const struct cap_opts *o, struct cap_result *r)
{
	char err[256] = "";

	if (cap_parse_file(FIXTURE, o, r, err, sizeof(err)))
		fail_msg("%s", err);
}

/* The fixture as seen from 10.0.0.1 under @o: RTTs @want, in sending order. */
static void parse_client(struct cap_opts *o, struct cap_result *r, const uint64_t *want,
			 size_t n)
{
	size_t i;

	o->have_src = true;
	assert_int_equal(cap_addr_parse("10.0.0.1", o->src), 0);
	parse(o, r);
	assert_int_equal(r->n, n);
	for (i = 0; i < n; i++)
		assert_int_equal(r->rtt[i].rtt_ns, want[i]);
}

static void test_messages_from_client(void **state)
{
	static const uint64_t want[] = { 5000, 10000, 10000, 9000 };
	struct cap_opts o = { 0 };
	struct cap_result r;

	(void)state;
	parse_client(&o, &r, want, 4);
	assert_int_equal(r.rtt[1].bytes, 2560);	/* 1024 + 1024 + 512 over PSN wrap */
	assert_int_equal(r.packets, 18);
	assert_int_equal(r.roce, 16);		/* not the UD and the DNS packets */
	assert_int_equal(r.retransmitted, 1);
	assert_int_equal(r.acks_unmatched, 1);	/* the duplicate ACK */
	assert_int_equal(r.unacked, 0);
	assert_int_equal(cap_percentile(&r, 0, 50), 9000);
	assert_int_equal(cap_percentile(&r, 0, 99), 10000);
	assert_int_equal(cap_percentile(&r, 0, 0), 5000);
	assert_int_equal(cap_percentile(&r, 1, 50), 10000);	/* skip the first */
	assert_int_equal(cap_percentile(&r, 4, 50), 0);
	cap_result_free(&r);
}

static void test_every_direction(void **state)
{
	struct cap_opts o = { 0 };
	struct cap_result r;

	(void)state;
	parse(&o, &r);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.rtt[4].rtt_ns, 1000);	/* 10.0.0.2's SEND, sent at 32000 */
	cap_result_free(&r);
}

static void test_per_packet(void **state)
{
	static const uint64_t want[] = { 5000, 10000, 9500, 9000, 10000, 9000 };
	struct cap_opts o = { .per_packet = true };
	struct cap_result r;

	(void)state;
	parse_client(&o, &r, want, 6);
	cap_result_free(&r);
}

/* Big-endian, microsecond pcap over Linux cooked capture (SLL). */
static size_t build_be_sll(uint8_t *b)
{
	static const uint8_t v4_a[4] = { 192, 0, 2, 1 }, v4_b[4] = { 192, 0, 2, 2 };
	static const uint8_t hdr[24] = {
		0xa1, 0xb2, 0xc3, 0xd4, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0xff, 0xff, 0, 0, 0, 113,
	};
	size_t off = sizeof(hdr);
	int k;

	memcpy(b, hdr, sizeof(hdr));
	for (k = 0; k < 2; k++) {
		/* SLL 16 + IPv4 20 + UDP 8 + BTH 12 + (AETH 4 | 8 payload) + ICRC 4 */
		uint8_t *r = b + off, *f = r + 16, *ip = f + 16, *udp = ip + 20, *bth = udp + 8;
		uint32_t flen = 16 + 20 + 8 + 12 + 4 + 4, usec = k ? 250 : 100;

		memset(r, 0, 16 + flen);
		r[3] = 7;				/* ts_sec 7 */
		r[6] = (uint8_t)(usec >> 8);
		r[7] = (uint8_t)usec;
		r[11] = r[15] = (uint8_t)flen;
		f[14] = 0x08;				/* protocol IPv4 */
		ip[0] = 0x45;
		ip[9] = 17;
		memcpy(ip + 12, k ? v4_b : v4_a, 4);
		memcpy(ip + 16, k ? v4_a : v4_b, 4);
		udp[2] = 0x12;				/* port 4791 */
		udp[3] = 0xb7;
		udp[5] = 8 + 12 + 4 + 4;
		bth[0] = k ? 0x11 : 0x04;		/* SEND ONLY, then its ACK */
		bth[7] = k ? 0x21 : 0x42;
		bth[11] = 0x99;				/* PSN 0x99 */
		off += 16 + flen;
	}
	return off;
}

static void test_big_endian_usec_sll(void **state)
{
	struct cap_opts o = { 0 };
	struct cap_result r;
	uint8_t buf[256];
	char err[128];
	size_t len = build_be_sll(buf);

	(void)state;
	assert_int_equal(cap_parse(buf, len, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.rtt[0].rtt_ns, 150000);
	assert_int_equal(r.rtt[0].t_send_ns, 7000100000ull);
	assert_int_equal(r.rtt[0].bytes, 4);
	cap_result_free(&r);
	/* A record cut short is an error, not a silent stop. */
	assert_int_equal(cap_parse(buf, len - 3, &o, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "truncated"));
}

static void test_bad_input(void **state)
{
	static const uint8_t ng[28] = { 0x0a, 0x0d, 0x0d, 0x0a };
	struct cap_opts o = { 0 };
	struct cap_result r;
	uint8_t addr[16];
	char err[128];

	(void)state;
	assert_int_equal(cap_parse(ng, sizeof(ng), &o, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pcapng"));
	assert_int_equal(cap_parse(ng, 3, &o, &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(cap_parse_file(TEST_DATA "/no-such.pcap", &o, &r, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(cap_addr_parse("10.0.0.300", addr), -EINVAL);
	assert_int_equal(cap_addr_parse("fe80::1", addr), 0);
	assert_int_equal(addr[0], 0xfe);
}

/*
 * Two points of one path: each message the far point saw too gives its
 * RTT here minus there; one the far point lacks, or whose far RTT would
 * exceed the near one (not the same message), is counted, not joined.
 */
static void test_join(void **state)
{
	struct cap_rtt near_rtt[] = {
		{ .t_send_ns = 100, .rtt_ns = 500, .bytes = 64, .dqpn = 7, .psn_first = 10 },
		{ .t_send_ns = 200, .rtt_ns = 450, .bytes = 64, .dqpn = 7, .psn_first = 11 },
		{ .t_send_ns = 300, .rtt_ns = 400, .bytes = 64, .dqpn = 9, .psn_first = 11 },
		{ .t_send_ns = 400, .rtt_ns = 300, .bytes = 64, .dqpn = 7, .psn_first = 12 },
	};
	struct cap_rtt far_rtt[] = {	/* another order, another QP's PSN 10 */
		{ .t_send_ns = 330, .rtt_ns = 350, .dqpn = 9, .psn_first = 11 },
		{ .t_send_ns = 130, .rtt_ns = 420, .dqpn = 7, .psn_first = 10 },
		{ .t_send_ns = 999, .rtt_ns = 999, .dqpn = 9, .psn_first = 10 },
		{ .t_send_ns = 430, .rtt_ns = 301, .dqpn = 7, .psn_first = 12 },
	};
	struct cap_result near = { .rtt = near_rtt, .n = 4 }, far = { .rtt = far_rtt, .n = 4 };
	struct cap_result out;

	(void)state;
	assert_int_equal(cap_join(&near, &far, &out), 0);
	assert_int_equal(out.n, 2);
	assert_int_equal(out.rtt[0].t_send_ns, 100);
	assert_int_equal(out.rtt[0].rtt_ns, 80);
	assert_int_equal(out.rtt[0].bytes, 64);
	assert_int_equal(out.rtt[1].t_send_ns, 300);
	assert_int_equal(out.rtt[1].rtt_ns, 50);
	assert_int_equal(out.unacked, 2);	/* PSN 11 of QP 7 unseen; PSN 12 longer there */
	cap_result_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages_from_client),
		cmocka_unit_test(test_every_direction),
		cmocka_unit_test(test_per_packet),
		cmocka_unit_test(test_big_endian_usec_sll),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_join),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
