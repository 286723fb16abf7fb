/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The switch's side of a converge step (coord_switch.c): each class's
 * share of what the switch counted over the window, beside the share the
 * destination received. InfiniBand: PortXmitDataSL (per SL) and
 * PortVLOpData (per VL, through the port's SL2VL); a class that shares
 * its VL with another measured class gets no switch-side share.
 *
 * The PerfMgt replies are laid out by libibmad's own field table
 * (mad_set_field), the encoder perfquery's decoder is the inverse of: no
 * PMA that implements PortXmitDataSL was at hand to record one from
 * (ibsim's does not; tests/ib/counters.sh reads its PortVLOpData).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "coord/coord.h"
#include "unit.h"

static struct coord c;
static struct converge_step st;

static void test_decode(void **state)
{
	uint8_t data[IB_PC_DATA_SZ] = { 0 };
	uint64_t out[MAD_PMA_COUNTERS];
	int i;

	(void)state;
	for (i = 0; i < 16; i++)
		mad_set_field(data, 0, (enum MAD_FIELDS)(IB_PC_XMT_DATA_SL0_F + i),
			      1000u * (unsigned)i + 7u);
	mad_pma_decode(MAD_PMA_XMIT_DATA_SL, data, out);
	for (i = 0; i < 16; i++)
		assert_int_equal(out[i], 1000u * (unsigned)i + 7u);
	memset(data, 0, sizeof(data));
	mad_set_field(data, 0, IB_PC_PORT_VL_OP_DATA15_F, 0xffffffffu);
	mad_set_field(data, 0, IB_PC_PORT_VL_OP_DATA0_F, 5);
	mad_pma_decode(MAD_PMA_RCV_DATA_VL, data, out);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[15], MAD_PMA_SATURATED);
	assert_int_equal(out[1], 0);
}

/* A step whose classes (SL, share the destination saw) are @sl, @pct. */
static void step(int n, const int *sl, const double *pct)
{
	int i;

	memset(&st, 0, sizeof(st));
	st.n_classes = (size_t)n;
	for (i = 0; i < n; i++) {
		st.classes[i].key = sl[i];
		st.classes[i].share_pct = pct[i];
	}
}

static void counted(enum mad_pma_counter which, const uint64_t *before, const uint64_t *after)
{
	memset(&c, 0, sizeof(c));
	snprintf(c.sc.switch_counters, sizeof(c.sc.switch_counters), "pma:3:1");
	c.sc.switch_pma = true;
	c.sc.switch_pma_counter = which;
	c.have_cfg = true;
	c.cfg.kind = ARB_KIND_VLARB;
	c.sw_read[0] = c.sw_read[1] = true;
	c.sw_bands = MAD_PMA_COUNTERS;
	memcpy(c.sw_bytes[0], before, sizeof(c.sw_bytes[0]));
	memcpy(c.sw_bytes[1], after, sizeof(c.sw_bytes[1]));
}

static void test_per_sl(void **state)
{
	uint64_t before[16] = { 100, 50 }, after[16] = { 400, 150, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
							  0, 0 };
	int sl[] = { 0, 1 };
	double pct[] = { 70, 30 };

	(void)state;
	counted(MAD_PMA_XMIT_DATA_SL, before, after);
	step(2, sl, pct);
	coord_switch_results(&c, &st);
	assert_true(st.switch_read);
	assert_true(st.classes[0].has_switch && st.classes[1].has_switch);
	assert_near(st.classes[0].switch_share_pct, 75, 1e-9);
	assert_near(st.classes[1].switch_share_pct, 25, 1e-9);
	assert_near(st.classes[0].switch_diff_pp, 5, 1e-9);
	assert_near(st.classes[1].switch_diff_pp, -5, 1e-9);
}

static void test_per_vl(void **state)
{
	uint64_t before[16] = { 0 }, after[16] = { 600, 300, 100 };
	int sl[] = { 0, 1, 2 };
	double pct[] = { 60, 25, 15 };

	(void)state;
	counted(MAD_PMA_RCV_DATA_VL, before, after);
	/* SL0 -> VL2 alone; SL1 and SL2 share VL0. */
	c.cfg.sl2vl[0] = 2;
	c.cfg.sl2vl[1] = 0;
	c.cfg.sl2vl[2] = 0;
	step(3, sl, pct);
	coord_switch_results(&c, &st);
	assert_true(st.switch_read);
	assert_true(st.classes[0].has_switch);
	assert_near(st.classes[0].switch_share_pct, 10, 1e-9);
	assert_near(st.classes[0].switch_diff_pp, -50, 1e-9);
	assert_false(st.classes[1].has_switch);
	assert_false(st.classes[2].has_switch);
}

static void test_refused(void **state)
{
	uint64_t z[16] = { 0 }, after[16] = { 1 };
	int sl[] = { 0 };
	double pct[] = { 100 };

	(void)state;
	/* Per VL without an arbitration: no SL2VL to map the classes with. */
	counted(MAD_PMA_RCV_DATA_VL, z, after);
	c.have_cfg = false;
	step(1, sl, pct);
	coord_switch_results(&c, &st);
	assert_false(st.switch_read);
	assert_non_null(strstr(st.switch_error, "need the port's SL2VL"));
	/* tc's per-band counters beside InfiniBand classes. */
	counted(MAD_PMA_XMIT_DATA_SL, z, after);
	c.sc.switch_pma = false;
	step(1, sl, pct);
	coord_switch_results(&c, &st);
	assert_false(st.switch_read);
	assert_non_null(strstr(st.switch_error, "per ETS band"));
	/* A read that failed is the reason given. */
	counted(MAD_PMA_XMIT_DATA_SL, z, after);
	snprintf(c.sw_error, sizeof(c.sw_error), "switch_counters: PortXmitDataSL query failed");
	step(1, sl, pct);
	coord_switch_results(&c, &st);
	assert_false(st.switch_read);
	assert_false(st.classes[0].has_switch);
	assert_string_equal(st.switch_error, "switch_counters: PortXmitDataSL query failed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_per_sl),
		cmocka_unit_test(test_per_vl),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
