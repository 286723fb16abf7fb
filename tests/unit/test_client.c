/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The client's arithmetic: when RC gives up, how long a worker waits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <unistd.h>
#include <sys/socket.h>

#include "engine/client.h"
#include "engine/sink.h"
#include "rdma/conn.h"
#include "rdma/verbs.h"

/* retry + 1 attempts of 4.096 us * 2^timeout. */
static void test_give_up_ns(void **state)
{
	struct verbs_path p = { .timeout = 0, .retry = 0 };

	(void)state;
	assert_near(verbs_path_give_up_ns(&p), 4096.0, 0);
	p.retry = 7;
	assert_near(verbs_path_give_up_ns(&p), 8 * 4096.0, 0);
	/* The default path: about 34.4 s. */
	p.timeout = 20;
	assert_near(verbs_path_give_up_ns(&p), 34359738368.0, 0);
	/* The largest timeout the verbs take: no overflow on the way. */
	p.timeout = 31;
	assert_near(verbs_path_give_up_ns(&p), 8 * 4096.0 * 2147483648.0, 0);
}

/* Twice RC's give-up time plus 5 s, in ticks of the clock. */
static void test_completion_timeout(void **state)
{
	static const struct clock_cal clk = { .ticks_per_ns = 2.0 };
	struct verbs_path p = { .timeout = 0, .retry = 0 };

	(void)state;
	assert_int_equal(client_completion_timeout_ticks(&clk, &p),
			 (uint64_t)(2 * 4096 + 5000000000ull) * 2);
	p.timeout = 20;
	p.retry = 7;
	assert_int_equal(client_completion_timeout_ticks(&clk, &p),
			 (2 * 34359738368ull + 5000000000ull) * 2);
}

/* The receiver's default ring: 50 us of 64-byte messages at the port's rate. */
static void test_ring_default(void **state)
{
	(void)state;
	/* 100 Gb/s / (122 bytes * 8) = 102.5 Mpps; x 50 us = 5122. */
	assert_int_equal(sink_ring_default(100, 0), 5122);
	assert_int_equal(sink_ring_default(200, 0), 10245);
	/* Slow or unknown ports: the floor. */
	assert_int_equal(sink_ring_default(10, 0), SINK_RING_MIN);
	assert_int_equal(sink_ring_default(0, 0), SINK_RING_MIN);
	/* The device's limit wins. */
	assert_int_equal(sink_ring_default(400, 8192), 8192);
}

static void counter_set(struct verbs_counters *c, const char *name, uint64_t v)
{
	strcpy(c->name[c->n], name);
	c->value[c->n++] = v;
}

/* RNR NAKs sent (rxe) and out-of-buffer drops (mlx5), -1 where absent. */
static void test_counters_rx(void **state)
{
	struct verbs_counters a = { 0 }, b = { 0 };
	struct verbs_rx_trouble t;

	(void)state;
	counter_set(&a, "send_rnr_err", 10);
	counter_set(&a, "rcvd_rnr_err", 3);
	counter_set(&b, "rcvd_rnr_err", 9);
	counter_set(&b, "send_rnr_err", 17);
	verbs_counters_rx(&a, &b, &t);
	assert_int_equal(t.rnr_naks_sent, 7);
	assert_int_equal(t.out_of_buffer, -1);
	counter_set(&a, "out_of_buffer", 100);
	counter_set(&b, "out_of_buffer", 100);
	verbs_counters_rx(&a, &b, &t);
	assert_int_equal(t.out_of_buffer, 0);
	a.n = 0;
	verbs_counters_rx(&a, &b, &t);
	assert_int_equal(t.rnr_naks_sent, -1);
	assert_int_equal(t.out_of_buffer, -1);
}

/* Software NICs by vendor id: rxe, siw; a ConnectX is hardware. */
static void test_dev_is_soft(void **state)
{
	struct verbs_dev d = { 0 };

	(void)state;
	d.dev_attr.vendor_id = 0xffffff;
	assert_true(verbs_dev_is_soft(&d));
	d.dev_attr.vendor_id = 0x626d74;
	assert_true(verbs_dev_is_soft(&d));
	d.dev_attr.vendor_id = 0x02c9;	/* Mellanox */
	assert_false(verbs_dev_is_soft(&d));
}

/* Port rates are data rates: EDR 4x is 100, not 103; XDR is known. */
static void test_lane_data_rates(void **state)
{
	(void)state;
	assert_near(4 * verbs_lane_data_gbps(32, false), 100, 0);	/* EDR */
	assert_near(4 * verbs_lane_data_gbps(64, false), 200, 0);	/* HDR */
	assert_near(4 * verbs_lane_data_gbps(128, false), 400, 0);	/* NDR */
	assert_near(4 * verbs_lane_data_gbps(256, false), 800, 0);	/* XDR */
	assert_near(4 * verbs_lane_data_gbps(4, false), 32, 0);	/* QDR, 8b/10b */
	assert_near(4 * verbs_lane_data_gbps(16, false), 54.545, 0.001);	/* FDR */
	/* Ethernet speeds on the same codes: 10GbE, 40GbE, 100GbE. */
	assert_near(verbs_lane_data_gbps(4, true), 10, 0);
	assert_near(4 * verbs_lane_data_gbps(8, true), 40, 0);
	assert_near(4 * verbs_lane_data_gbps(32, true), 100, 0);
	assert_near(verbs_lane_data_gbps(3, false), 0, 0);
	assert_int_equal(verbs_speed_from_rate_str("800 Gb/sec (4X XDR)\n"), 256);
	assert_int_equal(verbs_speed_from_rate_str("56 Gb/sec (4X FDR)"), 16);
	assert_int_equal(verbs_speed_from_rate_str("40 Gb/sec (4X FDR10)"), 8);
	assert_int_equal(verbs_speed_from_rate_str("10 Gb/sec"), 0);
	assert_int_equal(verbs_speed_from_rate_str("(4X YDR)"), 0);
}

/* A GID table entry: RoCE v2 unless @v1, with @raw16 as the GID. */
static struct ibv_gid_entry gid_entry(const char *hex16, uint32_t ifindex, bool v1)
{
	struct ibv_gid_entry e = { .ndev_ifindex = ifindex,
				   .gid_type = v1 ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_ROCE_V2 };
	unsigned i, b;

	for (i = 0; i < 16; i++) {
		sscanf(hex16 + 2 * i, "%2x", &b);
		e.gid.raw[i] = (uint8_t)b;
	}
	return e;
}

/* The GID is chosen as perftest does: v2, the family and VLAN of the
 * address used, global scope. */
static void test_gid_score(void **state)
{
	struct ibv_gid_entry ll = gid_entry("fe800000000000005054fffe5e0001ff", 2, false);
	struct ibv_gid_entry v4 = gid_entry("00000000000000000000ffffc6120001", 2, false);
	struct ibv_gid_entry v4_v1 = gid_entry("00000000000000000000ffffc6120001", 2, true);
	struct ibv_gid_entry vlan = gid_entry("00000000000000000000ffffc6130001", 5, false);
	struct ibv_gid_entry v6 = gid_entry("20010db8000000000000000000000001", 2, false);
	struct verbs_gid_want any = { 0 }, w = { .family = AF_INET, .has_gid = true,
						 .gid = vlan.gid, .ifindex = 5 };

	(void)state;
	assert_int_equal(verbs_gid_score(&v4_v1, &any), -1);
	/* No address: IPv4, global, over IPv6 and link-local. */
	assert_true(verbs_gid_score(&v4, &any) > verbs_gid_score(&v6, &any));
	assert_true(verbs_gid_score(&v6, &any) > verbs_gid_score(&ll, &any));
	/* The address used is on the VLAN netdev 5: that entry, not eth0's. */
	assert_true(verbs_gid_score(&vlan, &w) > verbs_gid_score(&v4, &w));
	assert_int_equal(verbs_gid_score(&v6, &w), -1);
	assert_int_equal(verbs_gid_score(&ll, &w), -1);
	/* Same VLAN, another address of it: still above another netdev's. */
	w.gid = v4.gid;
	w.ifindex = 2;
	assert_true(verbs_gid_score(&v4, &w) > verbs_gid_score(&vlan, &w));
	/* IPv6 asked: the global IPv6 GID, above the link-local. */
	w = (struct verbs_gid_want){ .family = AF_INET6 };
	assert_int_equal(verbs_gid_score(&v4, &w), -1);
	assert_true(verbs_gid_score(&v6, &w) > verbs_gid_score(&ll, &w));
}

/* A port-1 entry of the table at @idx. */
static struct ibv_gid_entry gid_at(const char *hex16, uint32_t idx, uint32_t ifindex, bool v1)
{
	struct ibv_gid_entry e = gid_entry(hex16, ifindex, v1);

	e.gid_index = idx;
	e.port_num = 1;
	return e;
}

/* The table's index chosen for a connection whose local address is @a. */
static ssize_t chosen_for(const struct ibv_gid_entry *t, size_t n, const struct sockaddr *a,
			  uint32_t ifindex)
{
	struct verbs_gid_want w;
	ssize_t i;

	verbs_gid_want_from_addr(a, ifindex, &w);
	i = verbs_gid_choose(t, n, 1, &w);
	return i < 0 ? -1 : (ssize_t)t[i].gid_index;
}

/*
 * A server with two addresses, one on eth0 (ifindex 2) and one on its
 * VLAN netdev (ifindex 5): each flow takes the GID of the address its
 * client connected to, not the lowest-index IPv4 GID for all.
 */
static void test_gid_choose_local_addr(void **state)
{
	const struct ibv_gid_entry t[] = {
		gid_at("fe800000000000005054fffe5e0001ff", 0, 2, false),
		gid_at("00000000000000000000ffffc6120001", 1, 2, true),
		gid_at("00000000000000000000ffffc6120001", 2, 2, false),
		gid_at("00000000000000000000ffffc6130001", 3, 5, true),
		gid_at("00000000000000000000ffffc6130001", 4, 5, false),
		gid_at("20010db8000000000000000000000001", 5, 2, false),
		gid_at("00000000000000000000ffffc6140001", 6, 7, false),
	};
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
	struct ibv_gid_entry other_port[2] = { t[2], t[4] };
	struct verbs_gid_want none = { 0 };
	size_t n = sizeof(t) / sizeof(t[0]);

	(void)state;
	inet_pton(AF_INET, "198.18.0.1", &v4.sin_addr);
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v4, 2), 2);
	inet_pton(AF_INET, "198.19.0.1", &v4.sin_addr);
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v4, 5), 4);
	/* The netdev unknown: the address alone decides. */
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v4, 0), 4);
	inet_pton(AF_INET, "198.20.0.1", &v4.sin_addr);
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v4, 7), 6);
	/* An address with no GID: its netdev's, else the first IPv4 v2 one. */
	inet_pton(AF_INET, "198.21.0.1", &v4.sin_addr);
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v4, 5), 4);
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v4, 0), 2);
	inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr);
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v6, 2), 5);
	/* The server's dual-stack listener sees an IPv4 client as ::ffff:a.b.c.d. */
	inet_pton(AF_INET6, "::ffff:198.19.0.1", &v6.sin6_addr);
	assert_int_equal(chosen_for(t, n, (struct sockaddr *)&v6, 5), 4);
	/* Nothing asked: the lowest-index IPv4 v2 GID, as before. */
	assert_int_equal(t[verbs_gid_choose(t, n, 1, &none)].gid_index, 2);
	/* Another port's entries never serve. */
	other_port[0].port_num = other_port[1].port_num = 2;
	assert_int_equal(verbs_gid_choose(other_port, 2, 1, &none), -1);
}

/* @w wants the IPv4 GID of 127.0.0.1, on lo. */
static void want_is_loopback_v4(const struct verbs_gid_want *w)
{
	assert_int_equal(w->family, AF_INET);
	assert_true(w->has_gid);
	assert_int_equal(w->gid.raw[11], 0xff);
	assert_int_equal(w->gid.raw[12], 127);
	assert_int_equal(w->gid.raw[15], 1);
	assert_int_equal(w->ifindex, if_nametoindex("lo"));
}

/* The local address that reaches 127.0.0.1 is 127.0.0.1, on lo. */
static void test_gid_want(void **state)
{
	struct verbs_gid_want w;

	(void)state;
	assert_int_equal(client_gid_want("127.0.0.1", &w), 0);
	want_is_loopback_v4(&w);
}

/* What RoCE ignores of --sl and --tclass is said, naming the class used. */
static void test_path_warnings(void **state)
{
	struct verbs_path p = { .sl = 3, .tclass = 104, .sl_source = VERBS_FROM_OPTION,
				.tclass_source = VERBS_FROM_OPTION };
	char w[3][CLIENT_WARNING_BYTES];

	(void)state;
	/* --sl untagged: the DSCP decides, and the warning names it. */
	assert_int_equal(client_path_warnings(&p, true, 0, w, 3), 1);
	assert_non_null(strstr(w[0], "--sl 3 does nothing on RoCE without a VLAN"));
	assert_non_null(strstr(w[0], "DSCP 26 (--tclass 104)"));
	/* On a VLAN the SL is the PCP; a netdev unknown, nothing is claimed. */
	assert_int_equal(client_path_warnings(&p, true, 1, w, 3), 0);
	assert_int_equal(client_path_warnings(&p, true, -1, w, 3), 0);
	/* InfiniBand: the SL is the SL. */
	assert_int_equal(client_path_warnings(&p, false, 0, w, 3), 0);
	/* --tclass 0 given: DSCP 0, said; untagged with --sl too: both. */
	p.tclass = 0;
	assert_int_equal(client_path_warnings(&p, true, 0, w, 3), 2);
	assert_non_null(strstr(w[0], "DSCP 0 (--tclass 0)"));
	assert_non_null(strstr(w[1], "--tclass 0 on RoCE: packets go in DSCP 0"));
	assert_int_equal(client_path_warnings(&p, true, 0, w, 1), 1);
	/* Nobody chose: no warning (the default is not the user's claim). */
	p.sl_source = p.tclass_source = VERBS_FROM_DEFAULT;
	assert_int_equal(client_path_warnings(&p, true, 0, w, 3), 0);
	/* The path record's 0 is rdma_cm's choice, not an option. */
	p.tclass_source = VERBS_FROM_PATH_RECORD;
	assert_int_equal(client_path_warnings(&p, true, 0, w, 3), 0);
}

/*
 * The server's side: an IPv4 client accepted on the dual-stack listener
 * wants the IPv4 GID of the address it connected to (127.0.0.1, on lo),
 * not an IPv6 one.
 */
static void test_gid_want_accepted(void **state)
{
	struct sockaddr_in6 la;
	struct sockaddr_in to = { .sin_family = AF_INET };
	socklen_t len = sizeof(la);
	struct verbs_gid_want w;
	char err[256];
	int lfd, c, a;

	(void)state;
	lfd = conn_listen(NULL, 0, err, sizeof(err));
	assert_true(lfd >= 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&la, &len), 0);
	to.sin_port = la.sin6_port;
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	c = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&to, sizeof(to)), 0);
	a = accept(lfd, NULL, NULL);
	assert_true(a >= 0);
	assert_int_equal(verbs_gid_want_from_sock(a, &w), 0);
	want_is_loopback_v4(&w);
	close(a);
	close(c);
	close(lfd);
}

/* rdma_cm's path record gives the SL and traffic class the user did not. */
static void test_path_from_record(void **state)
{
	struct flow_opts o = { .spec.sl = 0, .spec.tclass = 96, .tclass_given = true };
	struct ibv_sa_path_rec rec = { .sl = 5, .traffic_class = 32 };
	struct verbs_path p = client_path(&o);

	(void)state;
	assert_int_equal(p.sl_source, VERBS_FROM_DEFAULT);
	client_path_from_record(&p, &rec);
	assert_int_equal(p.sl, 5);
	assert_string_equal(verbs_path_source_name(p.sl_source), "path_record");
	assert_int_equal(p.tclass, 96);
	assert_string_equal(verbs_path_source_name(p.tclass_source), "option");
	/* --sl wins over the record; no record changes nothing. */
	o.spec.sl = 2;
	o.sl_given = true;
	p = client_path(&o);
	client_path_from_record(&p, &rec);
	assert_int_equal(p.sl, 2);
	assert_int_equal(p.sl_source, VERBS_FROM_OPTION);
	client_path_from_record(&p, NULL);
	assert_int_equal(p.sl, 2);
}

/* --hw-rate on InfiniBand: the fastest static rate at or below it. */
static void test_static_rate(void **state)
{
	(void)state;
	assert_int_equal(verbs_static_rate_for_kbps(100000000), IBV_RATE_100_GBPS);
	assert_int_equal(verbs_static_rate_for_kbps(99999999), IBV_RATE_80_GBPS);
	assert_int_equal(verbs_static_rate_for_kbps(26000000), IBV_RATE_25_GBPS);
	assert_int_equal(verbs_static_rate_for_kbps(2500000), IBV_RATE_2_5_GBPS);
	assert_int_equal(verbs_static_rate_for_kbps(2000000), IBV_RATE_MAX);
	assert_int_equal(verbs_static_rate_for_kbps(5000000000ull), IBV_RATE_1200_GBPS);
}

/*
 * What a static rate read back reports: its nominal data rate, so that a
 * device that rounds 40 Gb/s down to 25 shows 25 in the JSON; the port's
 * own rate (no limit kept) reads as 0, which the client refuses.
 */
static void test_static_rate_readback(void **state)
{
	static const uint64_t asked_bps[] = { 2500000000ull, 26000000000ull, 100000000000ull,
					      103125000000ull, 400000000000ull, 1200000000000ull };
	size_t i;

	(void)state;
	/* Every rate asked maps to a rate at or below it, which reads back as itself. */
	for (i = 0; i < sizeof(asked_bps) / sizeof(asked_bps[0]); i++) {
		enum ibv_rate r = verbs_static_rate_for_kbps(asked_bps[i] / 1000);
		uint64_t bps = verbs_static_rate_bps(r);

		assert_true(bps > 0 && bps <= asked_bps[i]);
		assert_int_equal(verbs_static_rate_for_kbps(bps / 1000), r);
	}
	assert_int_equal(verbs_static_rate_bps(IBV_RATE_25_GBPS), 25000000000ull);
	assert_int_equal(verbs_static_rate_bps(IBV_RATE_2_5_GBPS), 2500000000ull);
	/* The enum's order is not the rates': 14 Gb/s is code 11, 56 Gb/s 12. */
	assert_int_equal(verbs_static_rate_bps(IBV_RATE_14_GBPS), 14000000000ull);
	assert_int_equal(verbs_static_rate_bps(IBV_RATE_56_GBPS), 56000000000ull);
	assert_int_equal(verbs_static_rate_bps(IBV_RATE_MAX), 0);
	assert_int_equal(verbs_static_rate_bps((enum ibv_rate)200), 0);
}

/* The GRH: always on RoCE; on IB with -x or toward another subnet. */
static void test_needs_grh(void **state)
{
	union ibv_gid a = { .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1 } };
	union ibv_gid b = { .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2 } };
	union ibv_gid other = { .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 7, 2 } };
	union ibv_gid none = { 0 };

	(void)state;
	assert_true(verbs_needs_grh(true, false, &a, &b));
	assert_false(verbs_needs_grh(false, false, &a, &b));	/* one subnet: LIDs */
	assert_true(verbs_needs_grh(false, true, &a, &b));	/* -x */
	assert_true(verbs_needs_grh(false, false, &a, &other));	/* behind a router */
	assert_false(verbs_needs_grh(false, false, &a, &none));	/* peer's GID unknown */
}

/* Over the TCP exchange, a peer behind a router is refused, pointing at
 * --rdma-cm; a peer of the same subnet, or of unknown GID, and RoCE pass. */
static void test_check_routed(void **state)
{
	union ibv_gid a = { .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1 } };
	union ibv_gid b = { .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2 } };
	union ibv_gid other = { .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 7, 2 } };
	union ibv_gid none = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(verbs_check_routed(false, &a, &other, err, sizeof(err)), -EHOSTUNREACH);
	assert_non_null(strstr(err, "another subnet (GID prefix fe80:0000:0000:0007, "
				    "ours fe80:0000:0000:0000)"));
	assert_non_null(strstr(err, "use --rdma-cm"));
	assert_int_equal(verbs_check_routed(false, &a, &b, err, sizeof(err)), 0);
	assert_int_equal(verbs_check_routed(false, &a, &none, err, sizeof(err)), 0);
	assert_int_equal(verbs_check_routed(true, &a, &other, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_give_up_ns),
		cmocka_unit_test(test_completion_timeout),
		cmocka_unit_test(test_ring_default),
		cmocka_unit_test(test_counters_rx),
		cmocka_unit_test(test_dev_is_soft),
		cmocka_unit_test(test_lane_data_rates),
		cmocka_unit_test(test_gid_score),
		cmocka_unit_test(test_gid_want),
		cmocka_unit_test(test_gid_choose_local_addr),
		cmocka_unit_test(test_path_warnings),
		cmocka_unit_test(test_check_routed),
		cmocka_unit_test(test_gid_want_accepted),
		cmocka_unit_test(test_path_from_record),
		cmocka_unit_test(test_static_rate),
		cmocka_unit_test(test_static_rate_readback),
		cmocka_unit_test(test_needs_grh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
