/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The verdict behind `rperf converge`'s exit status 3: after a step,
 * coord_step_results() compares each class's measured share of what the
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
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "coord/coord.h"
#include "unit.h"

/* What one class carried in a step: its SL, saturating or not, bytes
 * the destination received in the one-second window. */
struct verdict_class {
	int sl;
	bool saturating;
	uint64_t bytes;
};

static struct converge_opts opts;
static struct coord conv;
static struct converge_step step;
/* The scenario's flows and the step's, installed by verdict_run (none
 * unless a test sets them). */
static struct scenario_flow verdict_sc_flows[2];
static struct converge_flow verdict_flows[2];
static size_t n_verdict_flows;
/* The scenario's semantics, when a test sets one (else the default). */
static struct arb_semantics verdict_semantics;
static bool verdict_semantics_set;
/* SL0's RTTs in the step (ns), and the steps before it; none unless set. */
static struct hist *verdict_lat_ns;
static struct converge_step *verdict_before;
static size_t n_verdict_before;

/*
 * Each class's bytes in each of the sink's CONVERGE_INTERVALS intervals,
 * when a test sets them (verdict_iv[class]); else its bytes evenly.
 */
static const uint64_t *verdict_iv[3];

/* Class @c's (the @i-th's) intervals as its sink reports them. */
static json_t *verdict_intervals(const struct verdict_class *c, size_t i)
{
	json_t *arr = json_array();
	unsigned k;

	for (k = 0; k < CONVERGE_INTERVALS; k++)
		json_array_append_new(arr, json_integer((json_int_t)(i < 3 && verdict_iv[i] ?
				      verdict_iv[i][k] : c->bytes / CONVERGE_INTERVALS)));
	return arr;
}

/* The one destination, agent 0, whose port every class and flow is at. */
#define VERDICT_DEST "h3"

static void verdict_port(struct converge_step *st)
{
	st->n_ports = 1;
	st->ports[0] = (struct converge_port){ .host = VERDICT_DEST };
}

/* The one agent of the steps below: the destination. */
static struct coord_agent verdict_agents[1];

/* A step over @n classes on the port above (with @cfg; without one
 * nothing is analyzed), judged with @tol_pp: coord_step_results()'s return. */
static int verdict_run(const struct verdict_class *cls, size_t n, double tol_pp, bool cfg)
{
	json_t *conns[1] = { NULL };
	json_t *sink = json_array();
	struct arb_params defaults;
	size_t i;
	int rc;

	memset(&conv, 0, sizeof(conv));
	memset(&step, 0, sizeof(step));
	opts.tolerance_pp = tol_pp;
	conv.o = &opts;
	arb_params_init(&defaults);
	conv.sc.semantics = verdict_semantics_set ? verdict_semantics : defaults.semantics;
	conv.have_cfg = cfg;
	arb_config_init(&conv.cfg, ARB_KIND_VLARB);
	conv.cfg.high.entries[0] = (struct arb_entry){ .vl = 0, .weight = 3 };
	conv.cfg.high.entries[1] = (struct arb_entry){ .vl = 1, .weight = 1 };
	conv.cfg.high.n_entries = 2;
	memset(verdict_agents, 0, sizeof(verdict_agents));
	conv.agents = verdict_agents;
	conv.n_agents = conv.max_agents = 1;
	conv.agents[0].rate = 1;
	conv.agents[0].addr = VERDICT_DEST;
	verdict_port(&step);
	for (i = 0; i < n; i++) {
		step.classes[i] = (struct converge_class){ .key = cls[i].sl, .n_bw = 1,
			.saturating = cls[i].saturating, .dest = VERDICT_DEST };
		json_array_append_new(sink, json_pack("{s:i, s:i, s:I, s:s, s:o}", "sl", cls[i].sl,
				"tclass", 0, "bytes", (json_int_t)cls[i].bytes, "peer", "-",
				"intervals", verdict_intervals(&cls[i], i)));
	}
	step.n_classes = n;
	step.classes[0].lat_ns = verdict_lat_ns;
	conv.steps = verdict_before;
	conv.n_steps = n_verdict_before;
	for (i = 0; i < 2; i++) {
		verdict_flows[i].dest = VERDICT_DEST;
		snprintf(verdict_sc_flows[i].dest, sizeof(verdict_sc_flows[i].dest), VERDICT_DEST);
	}
	step.n_flows = conv.sc.n_flows = n_verdict_flows;
	memcpy(step.flows, verdict_flows, sizeof(verdict_flows));
	memcpy(conv.sc.flows, verdict_sc_flows, sizeof(verdict_sc_flows));
	conv.agents[0].result = json_pack("{s:I, s:o}", "window_ns", (json_int_t)1000000000,
					  "sink", sink);
	rc = coord_step_results(&conv, &step, conns);
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

/*
 * Ten shares with no lag-1 correlation (alternating: r1 < 0, taken as 0):
 * the interval of an AR(1) series with rho = 0 + 1 / sqrt(10); none of
 * four; clamped at 0 (0 and 10 alternating: 5 +- 6.5).
 */
static void test_share_ci(void **state)
{
	const double pct[10] = { 70, 90, 70, 90, 70, 90, 70, 90, 70, 90 }, four[4] = { 1, 2, 3, 4 };
	const double edge[10] = { 0, 10, 0, 10, 0, 10, 0, 10, 0, 10 };
	double lo, hi, rho, r = 1 / sqrt(10), a = 0, rk = 1, inflate, half;
	int k;

	(void)state;
	for (k = 1; k < 10; k++)
		a += (1 - k / 10.0) * (rk *= r);
	inflate = (1 + 2 * a) / (1 - 2 * a / 9);
	/* n_eff = 10 (1 - r) / (1 + r) = 5.19: t(4) */
	half = 2.776 * sqrt(1000.0 / 9 * inflate / 10);
	assert_true(converge_share_ci(pct, 10, &lo, &hi, &rho));
	assert_near(rho, 0, 0);
	assert_near(lo, 80 - half, 1e-9);
	assert_near(hi, 80 + half, 1e-9);
	assert_false(converge_share_ci(four, 4, &lo, &hi, &rho));
	assert_true(converge_share_ci(edge, 10, &lo, &hi, &rho));
	assert_near(lo, 0, 0);
}

/* A steady climb (a slow start): refused, its lag-1 correlation near 1. */
static void test_share_ci_trend(void **state)
{
	const double pct[10] = { 60, 62, 64, 66, 68, 70, 72, 74, 76, 78 };
	double lo, hi, rho;

	(void)state;
	assert_false(converge_share_ci(pct, 10, &lo, &hi, &rho));
	assert_true(rho > 0.9);
}

/* A deterministic standard normal (64-bit LCG, Box-Muller). */
static double ar1_normal(uint64_t *s)
{
	double u1, u2;

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	u1 = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	u2 = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* @n shares from a stationary AR(1) series about 50 % with innovations of 3 points. */
static void ar1_shares(double *x, unsigned n, double phi, uint64_t *s)
{
	unsigned i;

	x[0] = ar1_normal(s) / sqrt(1 - phi * phi);
	for (i = 1; i < n; i++)
		x[i] = phi * x[i - 1] + ar1_normal(s);
	for (i = 0; i < n; i++)
		x[i] = 50 + 3 * x[i];
}

/*
 * The sink's CONVERGE_INTERVALS shares from a stationary AR(1) series
 * (phi 0.5 .. 0.8), 20000 seeds each: the interval, or its refusal (no
 * interval: inconclusive, never a wrong "within"), covers 50 at least
 * 95 % of the time, less three standard errors of that proportion
 * (0.0015). Student's t over the same shares covers about 75 % at phi 0.5
 * and 48 % at 0.8.
 */
static void test_share_ci_ar1_coverage(void **state)
{
	const double phis[] = { 0.5, 0.65, 0.8 };
	const int runs = 20000;
	double x[CONVERGE_INTERVALS], lo, hi, rho, se = sqrt(0.95 * 0.05 / runs);
	uint64_t s = 12345;
	int covered, r;
	size_t p;

	(void)state;
	for (p = 0; p < sizeof(phis) / sizeof(phis[0]); p++) {
		for (covered = 0, r = 0; r < runs; r++) {
			ar1_shares(x, CONVERGE_INTERVALS, phis[p], &s);
			if (!converge_share_ci(x, CONVERGE_INTERVALS, &lo, &hi, &rho) ||
			    (lo <= 50 && hi >= 50))
				covered++;
		}
		print_message("phi %.2f: coverage %.4f\n", phis[p], (double)covered / runs);
		assert_true((double)covered / runs >= 0.95 - 3 * se);
	}
}

/*
 * Independent shares (phi 0) are what a steady port gives: an interval
 * for all but 2 % of them at most, and it covers. Over 10 intervals the
 * raised correlation refused about 22 % of them (an estimate of 0.35 or
 * more leaves fewer than two effective intervals), so a steady port's
 * verdict was inconclusive one run in five.
 */
static void test_share_ci_independent(void **state)
{
	const int runs = 20000;
	double x[CONVERGE_INTERVALS], lo, hi, rho, se = sqrt(0.95 * 0.05 / runs);
	uint64_t s = 777;
	int given = 0, covered = 0, r;

	(void)state;
	for (r = 0; r < runs; r++) {
		ar1_shares(x, CONVERGE_INTERVALS, 0, &s);
		if (!converge_share_ci(x, CONVERGE_INTERVALS, &lo, &hi, &rho))
			continue;
		given++;
		covered += lo <= 50 && hi >= 50;
	}
	print_message("independent: an interval for %.4f, covering %.4f\n", (double)given / runs,
		      (double)covered / given);
	assert_true(given >= 0.98 * runs);
	assert_true((double)covered / given >= 0.95 - 3 * se);
}

/* Within only when the whole interval is; out only when all of it is beyond. */
static void test_judge(void **state)
{
	(void)state;
	assert_int_equal(converge_judge(true, 71, 79, 75, 4), CONVERGE_WITHIN);
	assert_int_equal(converge_judge(true, 71, 79.5, 75, 4), CONVERGE_INCONCLUSIVE);
	assert_int_equal(converge_judge(true, 70, 80, 75, 4), CONVERGE_INCONCLUSIVE);
	assert_int_equal(converge_judge(true, 79.5, 90, 75, 4), CONVERGE_OUT);
	assert_int_equal(converge_judge(true, 60, 70.9, 75, 4), CONVERGE_OUT);
	assert_int_equal(converge_judge(true, 60, 71, 75, 4), CONVERGE_INCONCLUSIVE);
	assert_int_equal(converge_judge(false, 75, 75, 75, 4), CONVERGE_INCONCLUSIVE);
	assert_int_equal(converge_worse(CONVERGE_WITHIN, CONVERGE_INCONCLUSIVE),
			 CONVERGE_INCONCLUSIVE);
	assert_int_equal(converge_worse(CONVERGE_OUT, CONVERGE_INCONCLUSIVE), CONVERGE_OUT);
	assert_string_equal(converge_verdict_name(CONVERGE_INCONCLUSIVE), "inconclusive");
}

/*
 * 80 / 20 over the window, but 70 / 30 and 90 / 10 in turn from interval
 * to interval: against 75 / 25 with 10 pp the point is within, the
 * interval (80 +- 6.4 over 20 intervals) reaches past 85: inconclusive, and so the step.
 * Steady intervals at the same 80 / 20 are within; with 2 pp, out.
 */
static void test_inconclusive(void **state)
{
	static const uint64_t a[CONVERGE_INTERVALS] = { 70, 90, 70, 90, 70, 90, 70, 90, 70, 90,
							70, 90, 70, 90, 70, 90, 70, 90, 70, 90 };
	static const uint64_t b[CONVERGE_INTERVALS] = { 30, 10, 30, 10, 30, 10, 30, 10, 30, 10,
							30, 10, 30, 10, 30, 10, 30, 10, 30, 10 };
	const struct verdict_class cls[] = { { 0, true, 800 }, { 1, true, 200 } };

	(void)state;
	verdict_iv[0] = a;
	verdict_iv[1] = b;
	assert_int_equal(verdict_run(cls, 2, 10, true), 0);
	verdict_iv[0] = verdict_iv[1] = NULL;
	assert_near(step.classes[0].share_pct, 80, 1e-9);
	assert_true(step.classes[0].has_ci);
	assert_true(step.classes[0].ci_low_pct < 75 && step.classes[0].ci_high_pct > 85);
	assert_int_equal(step.classes[0].verdict, CONVERGE_INCONCLUSIVE);
	assert_false(step.classes[0].within);
	assert_int_equal(step.ports[0].verdict, CONVERGE_INCONCLUSIVE);
	assert_int_equal(step.verdict, CONVERGE_INCONCLUSIVE);
	assert_false(step.within);
	assert_int_equal(verdict_run(cls, 2, 10, true), 0);
	assert_int_equal(step.verdict, CONVERGE_WITHIN);
	assert_int_equal(verdict_run(cls, 2, 2, true), 0);
	assert_int_equal(step.classes[0].verdict, CONVERGE_OUT);
	assert_int_equal(step.verdict, CONVERGE_OUT);
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
	json_t *conns[1] = { NULL };

	(void)state;
	verdict_run(off_by_5, 2, 10, true);
	assert_int_equal(step.n_classes, 2);
	memset(&step, 0, sizeof(step));
	verdict_port(&step);
	step.classes[0] = (struct converge_class){ .key = 0, .n_bw = 1, .saturating = true,
						   .dest = VERDICT_DEST };
	step.n_classes = 1;
	conv.agents[0].result = json_pack("{s:I, s:[{s:i, s:i, s:I, s:s}, {s:i, s:i, s:I, s:s}]}",
		"window_ns", (json_int_t)1000000000,
		"sink", "sl", 0, "tclass", 0, "bytes", (json_int_t)900000000, "peer", "-",
		"sl", 1, "tclass", 0, "bytes", (json_int_t)100000000, "peer", "-");
	assert_int_equal(coord_step_results(&conv, &step, conns), 0);
	json_decref(conv.agents[0].result);
	assert_int_equal(step.n_classes, 2);
	assert_int_equal(step.classes[1].key, 1);
	assert_false(step.classes[1].saturating);
	assert_near(step.classes[1].share_pct, 10, 1e-9);
	assert_true(step.classes[1].has_analyzed);
	assert_true(step.compared);
}

/*
 * A source's word on what it sent is bounded like a sink's: 8,000,000
 * Mb/s sent in a second on the scenario's 100g link is impossible, not
 * counted (the flow says why, so does the run, which fails); 99 Gb/s is
 * taken. The sent rate was once taken whatever it was.
 */
static int sent_run(uint64_t sent_bytes)
{
	json_t *conns[1] = { NULL };
	int rc;

	verdict_run(off_by_5, 2, 10, true);
	memset(&step, 0, sizeof(step));
	verdict_port(&step);
	step.classes[0] = (struct converge_class){ .key = 0, .n_bw = 1, .saturating = true,
						   .dest = VERDICT_DEST };
	step.n_classes = 1;
	step.flows[0] = (struct converge_flow){ .name = "a", .dest = VERDICT_DEST, .ran = true };
	step.n_flows = conv.sc.n_flows = 1;
	conv.sc.flows[0] = (struct scenario_flow){ .name = "a" };
	conv.sc.link_gbps = 100;
	conv.agents[0].result = json_pack("{s:I, s:[{s:i, s:i, s:I, s:s}], s:[{s:s, s:I, s:I}]}",
		"window_ns", (json_int_t)1000000000,
		"sink", "sl", 0, "tclass", 0, "bytes", (json_int_t)1000000000, "peer", "-",
		"flows", "name", "a", "bytes", (json_int_t)sent_bytes,
		"elapsed_ns", (json_int_t)1000000000);
	rc = coord_step_results(&conv, &step, conns);
	json_decref(conv.agents[0].result);
	return rc;
}

static void test_sent_impossible(void **state)
{
	(void)state;
	assert_int_equal(sent_run(1000000000000ull), -EPROTO);
	assert_non_null(strstr(step.flows[0].error, "sent: 8000000.000 Mb/s measured, above "
			       "the scenario's link_rate of 100000.000 Mb/s: impossible"));
	assert_non_null(strstr(conv.error, "flow 'a': sent:"));
	assert_true(step.flows[0].sent_gbps == 0);
	assert_int_equal(sent_run(12375000000ull), 0);
	assert_string_equal(step.flows[0].error, "");
	assert_near(step.flows[0].sent_gbps, 99, 1e-9);
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
	assert_false(step.judged);
	assert_string_equal(step.classes[0].unjudged_why, "nothing saturates its port");
}

/*
 * Judged only where the arbitration decides: SL0 and SL1 both saturate
 * (judged), SL5 offers its measured rate (not); SL0 alone saturating
 * gets what SL1 (at its own rate) leaves: nothing in that step is judged.
 */
static void test_judged(void **state)
{
	const struct verdict_class two[] = {
		{ 0, true, 700000000 }, { 1, true, 250000000 }, { 5, false, 50000000 },
	};
	const struct verdict_class one[] = { { 0, true, 900000000 }, { 1, false, 100000000 } };
	bool judged;

	(void)state;
	assert_int_equal(verdict_run(two, 3, 5, true), 0);
	assert_true(step.judged);
	assert_int_equal(step.n_ports, 1);
	assert_true(step.ports[0].judged);
	assert_true(step.classes[0].judged && step.classes[1].judged);
	assert_null(step.classes[0].unjudged_why);
	assert_false(step.classes[2].judged);
	assert_string_equal(step.classes[2].unjudged_why, "analyzed at its own measured rate");
	assert_int_equal(converge_run_verdict(&step, 1, true, &judged), CONVERGE_WITHIN);
	assert_true(judged);
	assert_int_equal(verdict_run(one, 2, 5, true), 0);
	assert_true(step.compared);
	assert_false(step.judged);
	assert_false(step.ports[0].judged);
	assert_string_equal(step.classes[0].unjudged_why,
			    "the only saturating class: it gets what the others leave");
	/* Within, yet nothing judged: the run is inconclusive (exit 4). */
	assert_int_equal(step.verdict, CONVERGE_WITHIN);
	assert_int_equal(converge_run_verdict(&step, 1, true, &judged), CONVERGE_INCONCLUSIVE);
	assert_false(judged);
	/* A criterion set is something judged. */
	step.criteria.n = 1;
	assert_int_equal(converge_run_verdict(&step, 1, true, &judged), CONVERGE_WITHIN);
	assert_true(judged);
	assert_int_equal(verdict_run(off_by_5, 2, 0.1, false), 0);
	assert_false(step.judged);
	assert_string_equal(step.classes[0].unjudged_why, "no analysis to compare with");
	/* Without an arbitration the run only measures: not inconclusive. */
	assert_int_equal(converge_run_verdict(&step, 1, false, &judged), CONVERGE_WITHIN);
}

/*
 * The window that resolves an inconclusive share: 66.8 in 61.2 .. 72.4
 * (half-width 5.6) against 66.7 +- 5 over 8 s needs the half-width at
 * 4.9: 8 (5.6 / 4.9)^2 = 10.4, 11 s; beyond the edge by 1 (centre 72.7)
 * it needs 1: 8 * 5.6^2 = 250.9, 251 s; on the edge, none.
 */
static void test_resolve(void **state)
{
	(void)state;
	assert_near(converge_resolve_s(61.2, 72.4, 66.7, 5, 8), 11, 0);
	assert_near(converge_resolve_s(67.1, 78.3, 66.7, 5, 8), 251, 0);
	assert_near(converge_resolve_s(66.1, 77.3, 66.7, 5, 8), 0, 0);
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

/*
 * The scenario's criteria, judged on the step's flows: flow a (SL0, 80 %)
 * asks at least 79 % (passes) and a p99 it has no latency flow for (not
 * measured: fails); flow b (SL1, 20 % for 25 % analyzed) allows 4 points
 * of difference (5: fails) and at least 0.1 Gb/s of its own (it has no
 * data connection here, so none reached the destination: fails).
 */
static void test_criteria(void **state)
{
	const struct criteria *cs = &step.criteria;

	(void)state;
	verdict_run(off_by_5, 2, 10, true);
	assert_int_equal(cs->n, 0);
	verdict_sc_flows[0] = (struct scenario_flow){ .name = "a", .min_share_pct = 79,
						      .max_p99_us = 10 };
	verdict_sc_flows[1] = (struct scenario_flow){ .name = "b", .spec.sl = 1,
						      .max_share_diff_pp = 4, .min_gbps = 0.1 };
	n_verdict_flows = 2;
	verdict_flows[0] = (struct converge_flow){ .name = "a", .ran = true, .class_key = 0 };
	verdict_flows[1] = (struct converge_flow){ .name = "b", .ran = true, .class_key = 1 };
	assert_int_equal(verdict_run(off_by_5, 2, 10, true), 0);
	n_verdict_flows = 0;
	assert_int_equal(cs->n, 4);
	assert_string_equal(cs->c[0].name, "max_p99");
	assert_false(cs->c[0].measured);
	assert_false(cs->c[0].passed);
	assert_string_equal(cs->c[0].scope, "flow a, SL 0");
	assert_string_equal(cs->c[1].name, "min_share");
	assert_near(cs->c[1].value, 80, 1e-9);
	assert_true(cs->c[1].passed);
	assert_string_equal(cs->c[2].name, "min_gbps");
	assert_near(cs->c[2].value, 0, 1e-12);
	assert_false(cs->c[2].passed);
	assert_string_equal(cs->c[3].name, "max_share_diff");
	assert_near(cs->c[3].value, 5, 1e-6);
	assert_false(cs->c[3].passed);
	assert_int_equal(criteria_failed(cs), 3);
}

/* n samples of @ns each into a new histogram. */
static struct hist *verdict_hist(uint64_t ns, int n)
{
	struct hist *h = hist_new();

	assert_non_null(h);
	while (n--)
		hist_record(h, ns);
	return h;
}

/*
 * --baseline: SL0's lat flow alone had RTTs of 100 us; loaded, 300 us
 * (and 900 us in its top 2 %): impact 3 at p50, 9 at p99; a
 * max_impact_p99 of 5 fails. A step with no baseline before has none.
 */
static void test_impact(void **state)
{
	struct converge_step *before = calloc(1, sizeof(*before));
	struct hist *loaded = verdict_hist(300000, 980);
	const struct criteria *cs = &step.criteria;
	int i;

	(void)state;
	assert_non_null(before);
	for (i = 0; i < 20; i++)
		hist_record(loaded, 900000);
	before->baseline = true;
	before->alone = 0;
	before->window_s = 1;
	before->n_classes = 1;
	verdict_port(before);
	before->classes[0] = (struct converge_class){ .key = 0, .n_lat = 1, .dest = VERDICT_DEST,
						      .lat_ns = verdict_hist(100000, 1000) };
	before->n_flows = 1;
	before->flows[0] = (struct converge_flow){ .name = "a", .ran = true, .gbps = 0.5 };
	verdict_lat_ns = loaded;
	verdict_before = before;
	n_verdict_before = 1;
	n_verdict_flows = 1;
	verdict_flows[0] = (struct converge_flow){ .name = "a", .ran = true, .class_key = 0 };
	verdict_sc_flows[0] = (struct scenario_flow){ .name = "a", .type = SCENARIO_FLOW_BW,
						      .max_impact_p99 = 5 };
	assert_int_equal(verdict_run(off_by_5, 2, 10, true), 0);
	assert_true(step.classes[0].has_impact);
	assert_near(step.classes[0].impact_p50, 3, 0.03);
	assert_near(step.classes[0].impact_p99, 9, 0.09);
	assert_false(step.classes[1].has_impact);
	assert_true(step.flows[0].has_isolated);
	assert_near(step.flows[0].isolated_gbps, 0.5, 1e-12);
	assert_int_equal(cs->n, 1);
	assert_string_equal(cs->c[0].name, "max_impact_p99");
	assert_false(cs->c[0].passed);
	n_verdict_before = 0;
	assert_int_equal(verdict_run(off_by_5, 2, 10, true), 0);
	assert_false(step.classes[0].has_impact);
	assert_false(cs->c[0].measured);
	verdict_lat_ns = NULL;
	verdict_before = NULL;
	n_verdict_flows = 0;
	memset(verdict_sc_flows, 0, sizeof(verdict_sc_flows));
	hist_free(loaded);
	hist_free(before->classes[0].lat_ns);
	free(before);
}

/*
 * Which reading fits: weights 3 and 1 (192 and 64 bytes) against 4 KiB
 * packets give 75 / 25 when a visit's overshoot is carried and 50 / 50
 * when it is not. Measured 50 / 50: the best fit is a carry=no reading,
 * exact; the configured (carry=yes) one is 25 points off. --fit best
 * judges the step by the best one.
 */
static const struct verdict_class half_half[] = {
	{ 0, true, 500000000 }, { 1, true, 500000000 },
};

static void test_semantics_fit(void **state)
{
	const struct converge_fit *fit = &step.fit;

	(void)state;
	assert_int_equal(verdict_run(half_half, 2, 2, true), 0);
	assert_true(fit->has);
	assert_true(fit->n >= 2);
	assert_int_equal(fit->configured, 0);
	assert_string_equal(fit->readings[0].name, "carry=yes,low=entry,limit0=alternate");
	assert_near(fit->readings[0].max_diff_pp, 25, 1e-6);
	assert_near(fit->readings[0].rms_diff_pp, 25, 1e-6);
	assert_non_null(strstr(fit->readings[fit->best].name, "carry=no"));
	assert_near(fit->readings[fit->best].max_diff_pp, 0, 1e-6);
	assert_false(step.within);
	opts.fit_best = true;
	assert_int_equal(verdict_run(half_half, 2, 2, true), 0);
	assert_true(step.within);
	assert_near(step.classes[0].analyzed_pct, 50, 1e-6);
	opts.fit_best = false;
	/* The scenario's semantics is the configured reading. */
	verdict_semantics_set = true;
	assert_int_equal(arb_semantics_parse("carry=no", &verdict_semantics), 0);
	verdict_semantics.low_turn = ARB_LOW_ENTRY;
	verdict_semantics.limit0 = ARB_LIMIT0_ALTERNATE;
	assert_int_equal(verdict_run(half_half, 2, 2, true), 0);
	assert_string_equal(fit->readings[0].name, "carry=no,low=entry,limit0=alternate");
	assert_int_equal(fit->best, 0);
	assert_true(step.within);
	verdict_semantics_set = false;
	/* Not compared: no fit. */
	assert_int_equal(verdict_run(half_half, 2, 2, false), 0);
	assert_false(fit->has);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analyzed_shares),
		cmocka_unit_test(test_share_ci),
		cmocka_unit_test(test_share_ci_trend),
		cmocka_unit_test(test_share_ci_ar1_coverage),
		cmocka_unit_test(test_share_ci_independent),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_inconclusive),
		cmocka_unit_test(test_boundary),
		cmocka_unit_test(test_one_class_out),
		cmocka_unit_test(test_criteria),
		cmocka_unit_test(test_impact),
		cmocka_unit_test(test_semantics_fit),
		cmocka_unit_test(test_zero_analyzed_share),
		cmocka_unit_test(test_class_only_at_sink),
		cmocka_unit_test(test_sent_impossible),
		cmocka_unit_test(test_not_compared),
		cmocka_unit_test(test_no_arbitration),
		cmocka_unit_test(test_judged),
		cmocka_unit_test(test_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
