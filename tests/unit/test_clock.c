/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * clock: unit conversion, CPUID leaf 0x15 / 0x16 decoding and the
 * calibration fit on synthetic register values and points, source names,
 * and a live smoke test of both sources.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/clock.h"
#include "unit.h"

static void test_conversion(void **state)
{
	struct clock_cal cal = { .source = CLOCK_SRC_TSC, .ticks_per_ns = 2.5 };
	struct clock_cal mono = { .source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1.0 };

	(void)state;
	assert_near(clock_ticks_to_ns(&cal, 2500), 1000.0, 0.0);
	assert_near(clock_ticks_to_ns(&cal, 0), 0.0, 0.0);
	assert_int_equal(clock_ns_to_ticks(&cal, 1000.0), 2500);
	assert_int_equal(clock_ns_to_ticks(&cal, 0.3), 1);	/* 0.75 rounds to 1 */
	assert_int_equal(clock_ns_to_ticks(&cal, 0.1), 0);
	assert_int_equal(clock_ns_to_ticks(&cal, -5.0), 0);
	assert_int_equal(clock_ns_to_ticks(&cal, NAN), 0);
	assert_int_equal(clock_ns_to_ticks(&cal, 1e30), UINT64_MAX);
	assert_int_equal(clock_ns_to_ticks(&mono, 123456789.0), 123456789);
	assert_near(clock_ticks_to_ns(&mono, 987654321), 987654321.0, 0.0);
	/* A round trip over a day of ticks stays within one tick. */
	assert_true(llabs((long long)clock_ns_to_ticks(&cal, clock_ticks_to_ns(&cal,
			216000000000000ull)) - 216000000000000ll) <= 1);
}

static void test_source_parse(void **state)
{
	enum clock_source s = CLOCK_SRC_MONOTONIC;

	(void)state;
	assert_int_equal(clock_source_parse("tsc", &s), 0);
	assert_int_equal(s, CLOCK_SRC_TSC);
	assert_int_equal(clock_source_parse("monotonic", &s), 0);
	assert_int_equal(s, CLOCK_SRC_MONOTONIC);
	assert_int_equal(clock_source_parse("TSC", &s), -EINVAL);
	assert_int_equal(clock_source_parse("", &s), -EINVAL);
	assert_int_equal(clock_source_parse("monotonic_raw", &s), -EINVAL);
	assert_int_equal(clock_source_parse(NULL, &s), -EINVAL);
	assert_string_equal(clock_source_name(CLOCK_SRC_TSC), "tsc");
	assert_string_equal(clock_source_name(CLOCK_SRC_MONOTONIC), "monotonic");
}

static void test_family_model(void **state)
{
	uint32_t family, model;

	(void)state;
	clock_cpuid_family_model(0x000506c9, &family, &model);	/* Goldmont */
	assert_int_equal(family, 6);
	assert_int_equal(model, 0x5c);
	clock_cpuid_family_model(0x000906ea, &family, &model);	/* Coffee Lake */
	assert_int_equal(family, 6);
	assert_int_equal(model, 0x9e);
	clock_cpuid_family_model(0x00a00f11, &family, &model);	/* AMD Zen 3 */
	assert_int_equal(family, 0x19);
	assert_int_equal(model, 0x01);
	clock_cpuid_family_model(0x00000543, &family, &model);	/* no extended fields */
	assert_int_equal(family, 5);
	assert_int_equal(model, 4);
}

static void test_invariant_tsc(void **state)
{
	struct clock_cpuid c = { .max_ext_leaf = 0x80000008, .ext7_edx = 1u << 8 };

	(void)state;
	assert_true(clock_cpuid_invariant_tsc(&c));
	c.ext7_edx = 0xfffffeff;
	assert_false(clock_cpuid_invariant_tsc(&c));
	/* The bit means nothing if the leaf is not enumerated. */
	c.ext7_edx = 1u << 8;
	c.max_ext_leaf = 0x80000004;
	assert_false(clock_cpuid_invariant_tsc(&c));
}

/* Synthetic CPUID registers and the frequency they must decode to. */
static const struct cpuid_case {
	const char *what;
	struct clock_cpuid c;
	int ret;
	double hz, ppm;
	const char *method;
} cpuid_cases[] = {
	{ "crystal in ECX: 25 MHz * 0x54 / 2",
	  { .intel = true, .max_leaf = 0x1b, .leaf1_eax = 0x606a6, .leaf15_eax = 2,
	    .leaf15_ebx = 0x54, .leaf15_ecx = 25000000 }, 0, 1.05e9, 0.0, "cpuid-0x15" },
	{ "crystal in ECX: 38.4 MHz * 125 / 2",
	  { .intel = true, .max_leaf = 0x1b, .leaf1_eax = 0x906a3, .leaf15_eax = 2,
	    .leaf15_ebx = 125, .leaf15_ecx = 38400000 }, 0, 2.4e9, 0.0, "cpuid-0x15" },
	{ "Goldmont: ECX 0, SDM crystal 19.2 MHz",
	  { .intel = true, .max_leaf = 0x15, .leaf1_eax = 0x506c9, .leaf15_eax = 3,
	    .leaf15_ebx = 0x3e }, 0, 19.2e6 * 0x3e / 3, 0.0, "cpuid-0x15" },
	{ "Goldmont registers from another vendor: crystal unknown",
	  { .max_leaf = 0x15, .leaf1_eax = 0x506c9, .leaf15_eax = 3, .leaf15_ebx = 0x3e },
	  -ENOENT, 0, 0, NULL },
	{ "Kaby Lake: ECX 0, base 2000 MHz from leaf 0x16, half a MHz of rounding",
	  { .intel = true, .max_leaf = 0x16, .leaf1_eax = 0x806e9, .leaf15_eax = 2,
	    .leaf15_ebx = 0xb0, .leaf16_eax = 2000 }, 0, 2e9, 250.0, "cpuid-0x16" },
	{ "leaf 0x16 beyond the maximum leaf is not read",
	  { .intel = true, .max_leaf = 0x15, .leaf1_eax = 0x806e9, .leaf15_eax = 2,
	    .leaf15_ebx = 0xb0, .leaf16_eax = 2000 }, -ENOENT, 0, 0, NULL },
	{ "QEMU TCG / AMD: leaf 0x15 beyond the maximum",
	  { .max_leaf = 0x10, .leaf15_eax = 2, .leaf15_ebx = 100, .leaf15_ecx = 24000000 },
	  -ENOENT, 0, 0, NULL },
	{ "leaf 0x15 present but zero",
	  { .intel = true, .max_leaf = 0x16, .leaf16_eax = 3000 }, -ENOENT, 0, 0, NULL },
	{ "numerator without denominator",
	  { .intel = true, .max_leaf = 0x16, .leaf15_ebx = 100, .leaf15_ecx = 24000000 },
	  -ENOENT, 0, 0, NULL },
};

static void test_cpuid_tsc_hz(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cpuid_cases) / sizeof(cpuid_cases[0]); i++) {
		const struct cpuid_case *k = &cpuid_cases[i];
		const char *method = NULL;
		double hz = 0, ppm = -1;

		print_message("%s\n", k->what);
		assert_int_equal(clock_cpuid_tsc_hz(&k->c, &hz, &ppm, &method), k->ret);
		if (k->ret)
			continue;
		assert_near(hz, k->hz, 1e-3);
		assert_near(ppm, k->ppm, 1e-9);
		assert_string_equal(method, k->method);
	}
}

/* n points of windows of window_ns at rate, window i's ticks offset by jitter[i]. */
static void make_points(struct clock_point *p, size_t n, double rate, uint64_t window_ns,
			const int64_t *jitter, uint64_t bracket)
{
	size_t i;

	p[0].ticks = 1000000007;
	p[0].ns = 5000000000ull;
	p[0].bracket_ticks = bracket;
	for (i = 1; i < n; i++) {
		p[i].ns = p[i - 1].ns + window_ns;
		p[i].ticks = p[i - 1].ticks + (uint64_t)llround(rate * (double)window_ns) +
			     (uint64_t)(jitter ? jitter[i - 1] : 0);
		p[i].bracket_ticks = bracket;
	}
}

/* Eight 20 ms windows at rate; the fit must give rate back and want_ppm. */
static void check_fit(double rate, const int64_t *jitter, uint64_t bracket, double want_ppm)
{
	struct clock_point p[9];
	double got_rate, ppm;

	make_points(p, 9, rate, 20000000, jitter, bracket);
	assert_int_equal(clock_calib_fit(p, 9, &got_rate, &ppm), 0);
	assert_near(got_rate, rate, rate * 1e-12);
	assert_near(ppm, want_ppm, 1e-6);
}

static void test_calib_fit(void **state)
{
	static const int64_t alternate[8] = { 1000, -1000, 1000, -1000, 1000, -1000, 1000, -1000 };
	const double resolution_ppm = 1e6 / 160e6;	/* 1 ns over 160 ms */

	(void)state;
	/* Perfect points: only the clock resolution remains. */
	check_fit(2.5, NULL, 0, resolution_ppm);
	check_fit(3.0000003, NULL, 0, resolution_ppm);
	/*
	 * Windows alternating +-20 ppm: sample stdev 20 * sqrt(8/7), so the
	 * mean's standard error is 20 / sqrt(7); resolution adds in quadrature.
	 */
	check_fit(2.5, alternate, 0, sqrt(400.0 / 7.0 + resolution_ppm * resolution_ppm));
	/* 2000-tick brackets: each end off by up to 1000 ticks of 4e8 = 5 ppm. */
	check_fit(2.5, NULL, 2000, 5.0 + resolution_ppm);
}

static void test_calib_invalid(void **state)
{
	struct clock_point p[9];
	double rate = 0, ppm = 0;

	(void)state;
	make_points(p, 9, 2.5, 20000000, NULL, 0);
	assert_int_equal(clock_calib_fit(p, 2, &rate, &ppm), -EINVAL);
	assert_int_equal(clock_calib_fit(p, 0, &rate, &ppm), -EINVAL);
	p[4].ns = p[3].ns;	/* empty window */
	assert_int_equal(clock_calib_fit(p, 9, &rate, &ppm), -EINVAL);
	make_points(p, 9, 2.5, 20000000, NULL, 0);
	p[6].ticks = p[5].ticks - 1;	/* counter went backwards */
	assert_int_equal(clock_calib_fit(p, 9, &rate, &ppm), -EINVAL);
	assert_near(rate, 0.0, 0.0);
}

static void check_reads_non_decreasing(const struct clock_cal *cal)
{
	uint64_t prev = clock_read(cal), now;
	int i;

	for (i = 0; i < 100000; i++) {
		now = clock_read(cal);
		assert_true(now >= prev);
		prev = now;
	}
}

static void test_live_monotonic(void **state)
{
	struct clock_cal cal;
	char err[256] = "stale";
	uint64_t t0, t1;
	struct timespec ms = { 0, 2000000 };

	(void)state;
	assert_int_equal(clock_init(CLOCK_SRC_MONOTONIC, &cal, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(cal.source, CLOCK_SRC_MONOTONIC);
	assert_near(cal.ticks_per_ns, 1.0, 0.0);
	assert_string_equal(cal.method, "monotonic");
	check_reads_non_decreasing(&cal);
	t0 = clock_read(&cal);
	nanosleep(&ms, NULL);
	t1 = clock_read(&cal);
	assert_true(clock_ticks_to_ns(&cal, t1 - t0) >= 2e6);
	/* Its resolution: at least a ns, and not coarser than a millisecond. */
	assert_true(cal.ns_per_tick >= 1.0 && cal.ns_per_tick <= 1e6);
}

/*
 * A tick is too coarse when it is more than a tenth of the median: a
 * 25 MHz generic timer (40 ns) times a 300 ns median, not a 2 us one.
 */
static void test_tick_coarse(void **state)
{
	struct clock_cal gt = { .source = CLOCK_SRC_TSC, .ticks_per_ns = 0.025,
				.ns_per_tick = 40 };
	struct clock_cal tsc = { .source = CLOCK_SRC_TSC, .ticks_per_ns = 3.0 };

	(void)state;
	assert_near(clock_ns_per_tick(&gt), 40, 0);
	assert_true(clock_tick_coarse(&gt, 300));
	assert_true(clock_tick_coarse(&gt, 399));
	assert_false(clock_tick_coarse(&gt, 400));
	assert_false(clock_tick_coarse(&gt, 2000));
	/* Unset: from the rate. No median: nothing to say. */
	assert_near(clock_ns_per_tick(&tsc), 1.0 / 3, 1e-12);
	assert_false(clock_tick_coarse(&tsc, 3.4));
	assert_true(clock_tick_coarse(&tsc, 3.3));
	assert_false(clock_tick_coarse(&gt, 0));
}

/* The TSC either works with a plausible rate, or says why and what to use instead. */
static void test_live_tsc(void **state)
{
	struct clock_cal cal;
	char err[256];
	int ret;

	(void)state;
	ret = clock_init(CLOCK_SRC_TSC, &cal, err, sizeof(err));
	if (ret) {
		assert_int_equal(ret, -ENOTSUP);
		assert_non_null(strstr(err, "--clock=monotonic"));
		return;
	}
	assert_true(cal.ticks_per_ns > 0.01 && cal.ticks_per_ns < 100.0);
	assert_near(cal.ns_per_tick, 1.0 / cal.ticks_per_ns, 1e-12);
	assert_true(cal.uncertainty_ppm >= 0.0 && cal.uncertainty_ppm < 10000.0);
	assert_non_null(cal.method);
	check_reads_non_decreasing(&cal);
	print_message("tsc: %.6f ticks/ns, %.3f ppm, %s\n", cal.ticks_per_ns,
		      cal.uncertainty_ppm, cal.method);
}

/* tsc without a cycle counter (ppc64le ...) falls back, saying why. */
static void test_source_resolve(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(clock_source_resolve(CLOCK_SRC_TSC, false, &why), CLOCK_SRC_MONOTONIC);
	assert_non_null(why);
	assert_non_null(strstr(why, "no cycle counter"));
	assert_int_equal(clock_source_resolve(CLOCK_SRC_TSC, true, &why), CLOCK_SRC_TSC);
	assert_null(why);
	assert_int_equal(clock_source_resolve(CLOCK_SRC_MONOTONIC, false, &why),
			 CLOCK_SRC_MONOTONIC);
	assert_null(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conversion),
		cmocka_unit_test(test_source_parse),
		cmocka_unit_test(test_family_model),
		cmocka_unit_test(test_invariant_tsc),
		cmocka_unit_test(test_cpuid_tsc_hz),
		cmocka_unit_test(test_calib_fit),
		cmocka_unit_test(test_calib_invalid),
		cmocka_unit_test(test_live_monotonic),
		cmocka_unit_test(test_live_tsc),
		cmocka_unit_test(test_tick_coarse),
		cmocka_unit_test(test_source_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
