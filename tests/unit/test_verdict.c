/*
 * The verdict behind `rperf converge`'s exit status 3: after a step,
 * conv_step_results() compares each class's measured share of what the
 * destination received with the share the arbitration's analysis gives,
 * and the step is within tolerance unless a class it could analyze
 * differs by more than --tolerance percentage points. Only steps where
 * something saturates the port are compared at all.
 *
 * The port: VL0 (SL0) weight 3, VL1 (SL1) weight 1 in the high table,
 * so two saturating classes share 75 % / 25 %; other SLs get nothing.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "converge/conv_int.h"
#include "unit.h"

/* What one class carried in a step: its SL, saturating or not, bytes
 * the destination received in the one-second window. */
struct verdict_class {
	int sl;
	bool saturating;
	uint64_t bytes;
};

static struct converge_opts opts;
static struct conv conv;
static struct converge_step step;

/* A step over @n classes on the port above (with @cfg; without one
 * nothing is analyzed), judged with @tol_pp: conv_step_results()'s return. */
static int verdict_run(const struct verdict_class *cls, size_t n, double tol_pp, bool cfg)
{
	json_t *conns[CONV_MAX_HOSTS] = { NULL };
	json_t *sink = json_array();
	size_t i;
	int rc;

	memset(&conv, 0, sizeof(conv));
	memset(&step, 0, sizeof(step));
	opts.tolerance_pp = tol_pp;
	conv.o = &opts;
	conv.have_cfg = cfg;
	arb_config_init(&conv.cfg, ARB_KIND_VLARB);
	conv.cfg.high.entries[0] = (struct arb_entry){ .vl = 0, .weight = 3 };
	conv.cfg.high.entries[1] = (struct arb_entry){ .vl = 1, .weight = 1 };
	conv.cfg.high.n_entries = 2;
	conv.n_agents = 1;
	conv.agents[0].rate = 1;
	for (i = 0; i < n; i++) {
		step.classes[i] = (struct converge_class){ .key = cls[i].sl, .n_bw = 1,
			.saturating = cls[i].saturating };
		json_array_append_new(sink, json_pack("{s:i, s:i, s:I, s:s}", "sl", cls[i].sl,
				"tclass", 0, "bytes", (json_int_t)cls[i].bytes, "peer", "-"));
	}
	step.n_classes = n;
	conv.agents[0].result = json_pack("{s:I, s:o}", "window_ns", (json_int_t)1000000000,
					  "sink", sink);
	rc = conv_step_results(&conv, &step, conns);
	json_decref(conv.agents[0].result);
	return rc;
}

/* Measured 80 / 20 against 75 / 25: off by 5 pp each way. */
static const struct verdict_class off_by_5[] = {
	{ 0, true, 800000000 }, { 1, true, 200000000 },
};

static void test_analyzed_shares(void **state)
{
	(void)state;
	assert_int_equal(verdict_run(off_by_5, 2, 10, true), 0);
	assert_true(step.compared);
	assert_near(step.classes[0].share_pct, 80, 1e-9);
	assert_near(step.classes[1].share_pct, 20, 1e-9);
	assert_true(step.classes[0].has_analyzed && step.classes[1].has_analyzed);
	assert_near(step.classes[0].analyzed_pct, 75, 1e-6);
	assert_near(step.classes[1].analyzed_pct, 25, 1e-6);
	assert_near(step.classes[0].diff_pp, 5, 1e-6);
	assert_near(step.classes[1].diff_pp, -5, 1e-6);
	assert_true(step.within);
}

/* A difference of exactly the tolerance is within it; a hair more is not. */
static void test_boundary(void **state)
{
	double diff_pp;

	(void)state;
	verdict_run(off_by_5, 2, 10, true);
	diff_pp = fabs(step.classes[0].diff_pp);
	verdict_run(off_by_5, 2, diff_pp, true);
	assert_true(step.classes[0].within);
	assert_true(step.within);
	verdict_run(off_by_5, 2, diff_pp * (1 - 1e-9), true);
	assert_false(step.classes[0].within);
	assert_false(step.classes[1].within);
	assert_false(step.within);
}

/* One class out is enough to put the step out: here SL5, which has no
 * VL and so is analyzed at 0 %, yet carried 5.7 % (tolerance 5 pp). */
static void test_one_class_out(void **state)
{
	const struct verdict_class cls[] = {
		{ 0, true, 750000000 }, { 1, true, 250000000 }, { 5, false, 60000000 },
	};

	(void)state;
	assert_int_equal(verdict_run(cls, 3, 5, true), 0);
	assert_true(step.classes[0].within);
	assert_true(step.classes[1].within);
	assert_near(step.classes[2].analyzed_pct, 0, 1e-9);
	assert_false(step.classes[2].within);
	assert_false(step.within);
}

/* A class the arbitration starves and that received nothing is within. */
static void test_zero_analyzed_share(void **state)
{
	const struct verdict_class cls[] = {
		{ 0, true, 750000000 }, { 1, true, 250000000 }, { 5, true, 0 },
	};

	(void)state;
	assert_int_equal(verdict_run(cls, 3, 0.5, true), 0);
	assert_near(step.classes[2].share_pct, 0, 0);
	assert_near(step.classes[2].analyzed_pct, 0, 1e-9);
	assert_true(step.classes[2].within);
	assert_true(step.within);
}

/* Traffic the destination received on a class no flow announced still
 * counts: it takes a share, and is judged like the others. */
static void test_class_only_at_sink(void **state)
{
	json_t *conns[CONV_MAX_HOSTS] = { NULL };

	(void)state;
	verdict_run(off_by_5, 2, 10, true);
	assert_int_equal(step.n_classes, 2);
	memset(&step, 0, sizeof(step));
	step.classes[0] = (struct converge_class){ .key = 0, .n_bw = 1, .saturating = true };
	step.n_classes = 1;
	conv.agents[0].result = json_pack("{s:I, s:[{s:i, s:i, s:I, s:s}, {s:i, s:i, s:I, s:s}]}",
		"window_ns", (json_int_t)1000000000,
		"sink", "sl", 0, "tclass", 0, "bytes", (json_int_t)900000000, "peer", "-",
		"sl", 1, "tclass", 0, "bytes", (json_int_t)100000000, "peer", "-");
	assert_int_equal(conv_step_results(&conv, &step, conns), 0);
	json_decref(conv.agents[0].result);
	assert_int_equal(step.n_classes, 2);
	assert_int_equal(step.classes[1].key, 1);
	assert_false(step.classes[1].saturating);
	assert_near(step.classes[1].share_pct, 10, 1e-9);
	assert_true(step.classes[1].has_analyzed);
	assert_true(step.compared);
}

/* Nothing saturates: shares are computed but the step is not judged. */
static void test_not_compared(void **state)
{
	const struct verdict_class cls[] = {
		{ 0, false, 500000000 }, { 1, false, 500000000 }, { 5, false, 500000000 },
	};

	(void)state;
	assert_int_equal(verdict_run(cls, 3, 0.1, true), 0);
	assert_false(step.compared);
	assert_false(step.classes[2].within);
	assert_true(step.within);
}

/* Without an arbitration to compare with, every step is within. */
static void test_no_arbitration(void **state)
{
	(void)state;
	assert_int_equal(verdict_run(off_by_5, 2, 0.1, false), 0);
	assert_false(step.compared);
	assert_false(step.classes[0].has_analyzed);
	assert_true(step.within);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyzed_shares),
		cmocka_unit_test(test_boundary),
		cmocka_unit_test(test_one_class_out),
		cmocka_unit_test(test_zero_analyzed_share),
		cmocka_unit_test(test_class_only_at_sink),
		cmocka_unit_test(test_not_compared),
		cmocka_unit_test(test_no_arbitration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
