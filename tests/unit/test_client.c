/* The client's arithmetic: when RC gives up, how long a worker waits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"
#include <string.h>

#include "engine/client.h"
#include "engine/sink.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_give_up_ns),
		cmocka_unit_test(test_completion_timeout),
		cmocka_unit_test(test_ring_default),
		cmocka_unit_test(test_counters_rx),
		cmocka_unit_test(test_dev_is_soft),
		cmocka_unit_test(test_lane_data_rates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
