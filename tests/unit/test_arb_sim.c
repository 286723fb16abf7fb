/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * arb_sim: the packet arbiter (arb_ib_sim.c) against the reference
 * stepper it replaced (arb_sim_slow.c, one packet per step, every visit
 * opened and closed), on random configurations in every regime: weights
 * far below, near and far above a packet, weight-0 and VL15 entries,
 * limits 0-255, one or two tables, VLs in both tables, every semantics,
 * DTable's deficit round, with and without distances, and step budgets
 * small enough that no period is found. Every field of the result must
 * be identical: the fast path is the same arbiter, only quicker.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "qos/arb_ib_sim.h"
#include "qos/arb_ib_load.h"
#include "arb_sim_slow.h"
#include "unit.h"

#define CASES 400

/* A small deterministic generator (xorshift64*), so failures replay. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * 2685821657736338717ull) >> 33) % n;
}

static void random_table(struct arb_table *t, int n_vls, int first_vl,
			 int wmax)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->n_entries = (int)rnd(3) ? 1 + (int)rnd(ARB_MAX_ENTRIES) : 0;
	for (i = 0; i < t->n_entries; i++) {
		t->entries[i].vl = rnd(30) ? first_vl + (int)rnd(n_vls) : ARB_VL15;
		t->entries[i].weight = rnd(12) ? 1 + rnd(wmax) : 0;
	}
}

static void random_spec(struct arb_sim_spec *spec, struct arb_table *high,
			struct arb_table *low)
{
	static const uint32_t sizes[] = { 64, 100, 256, 512, 777, 1024,
					  1500, 2048, 4096 };
	static const int wmaxes[] = { 2, 8, 32, 64, 128, 255 };
	static const int limits[] = { 0, 1, 2, 4, 10, 255 };
	int q, n_vls = 1 + (int)rnd(8);

	memset(spec, 0, sizeof(*spec));
	random_table(high, n_vls, 0, wmaxes[rnd(6)]);
	random_table(low, n_vls, (int)rnd(n_vls), wmaxes[rnd(6)]);
	spec->high = rnd(8) ? high : NULL;
	spec->low = rnd(8) ? low : NULL;
	spec->limit = rnd(4) ? limits[rnd(6)] : (int)rnd(256);
	spec->sem.carry = rnd(2);
	spec->sem.low_turn = rnd(2) ? ARB_LOW_PACKET : ARB_LOW_ENTRY;
	spec->sem.limit0 = rnd(2) ? ARB_LIMIT0_BYTES : ARB_LIMIT0_ALTERNATE;
	spec->deficit_round = !rnd(5);
	if (spec->deficit_round)	/* without carry a light entry never sends */
		spec->sem.carry = true;
	spec->backlogged = (uint16_t)(rnd(4) ? 0x7fff : rnd(1u << 16));
	for (q = 0; q < ARB_NUM_VLS; q++)
		spec->packet_bytes[q] = rnd(3) ? sizes[rnd(9)] : 4096;
	spec->max_steps = rnd(3) ? 200000 : 1 + rnd(20000);
	spec->want_gaps = rnd(2);
}

static void assert_same(const struct arb_sim_out *a, const struct arb_sim_out *b)
{
	int q;

	assert_int_equal(a->exact, b->exact);
	assert_int_equal(a->packets_total, b->packets_total);
	for (q = 0; q < ARB_NUM_VLS; q++) {
		assert_int_equal(a->bytes[q], b->bytes[q]);
		assert_int_equal(a->packets[q], b->packets[q]);
		assert_int_equal(a->gap_sum[q], b->gap_sum[q]);
		assert_int_equal(a->gap_max[q], b->gap_max[q]);
	}
	assert_memory_equal(&a->bound, &b->bound, sizeof(a->bound));
}

static void test_fast_matches_reference(void **state)
{
	struct arb_table high, low;
	struct arb_sim_spec spec;
	struct arb_sim_out fast, slow;
	int i, exact = 0, inexact = 0, rc;

	(void)state;
	for (i = 0; i < CASES; i++) {
		random_spec(&spec, &high, &low);
		rc = arb_sim_run(&spec, &fast);
		assert_int_equal(rc, arb_sim_run_slow(&spec, &slow));
		if (rc)
			continue;
		assert_same(&fast, &slow);
		exact += fast.exact;
		inexact += !fast.exact;
	}
	/* the cases reach both ends: exact periods and windows */
	assert_true(exact > CASES / 2);
	assert_true(inexact > 10);
}

/*
 * The loaded arbiter (arb_ib_load.c) with every queue saturated is the
 * backlogged one: over its window its shares are those of the exact
 * period, within the bound it states.
 */
static void test_loaded_saturated_is_backlogged(void **state)
{
	struct arb_table high, low;
	struct arb_sim_spec spec;
	struct arb_load_spec ld;
	struct arb_sim_out ex;
	struct arb_load_out out;
	double total, share;
	int i, q, checked = 0;

	(void)state;
	for (i = 0; i < CASES / 2; i++) {
		random_spec(&spec, &high, &low);
		spec.max_steps = 200000;
		spec.want_gaps = false;
		spec.sem.deficit_per_table = rnd(2);
		if (arb_sim_run(&spec, &ex) || !ex.exact)
			continue;
		memset(&ld, 0, sizeof(ld));
		ld.high = spec.high;
		ld.low = spec.low;
		ld.limit = spec.limit;
		ld.sem = spec.sem;
		ld.deficit_round = spec.deficit_round;
		ld.link_gbps = 100;
		ld.packets = 1u << 15;
		for (q = 0; q < ARB_NUM_SLS; q++) {
			ld.queue[q] = q < ARB_VL15 ? q : -1;
			ld.load_gbps[q] = (spec.backlogged & (1u << q)) ? -1 : 0;
			ld.packet_bytes[q] = spec.packet_bytes[q];
		}
		assert_int_equal(arb_load_run(&ld, &out), 0);
		total = 0;
		for (q = 0; q < ARB_NUM_VLS; q++)
			total += (double)ex.bytes[q];
		for (q = 0; q < ARB_NUM_VLS; q++) {
			share = (double)ex.bytes[q] / total;
			assert_true(fabs(out.gbps[q] / 100 - share) <= out.bound + 1e-9);
		}
		checked++;
	}
	assert_true(checked > CASES / 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_matches_reference),
		cmocka_unit_test(test_loaded_saturated_is_backlogged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
