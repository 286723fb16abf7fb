/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Rates and times from text (base/units): every spelling accepted, what
 * each is worth, what is refused, and the option parser's message naming
 * the refused value.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/opts.h"
#include "base/units.h"

struct spelling {
	const char *s;
	uint64_t want;
};

static void check_bps(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int ret = units_parse_bps(s, &v);

	if (ret || v != want)
		fail_msg("rate '%s': ret %d, %llu bit/s, want %llu", s, ret,
			 (unsigned long long)v, (unsigned long long)want);
}

static void check_ns(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int ret = units_parse_ns(s, &v);

	if (ret || v != want)
		fail_msg("time '%s': ret %d, %llu ns, want %llu", s, ret, (unsigned long long)v,
			 (unsigned long long)want);
}

/* Every multiple alone, with bit, bps, b/s and bit/s. */
static void test_rate_spellings(void **state)
{
	static const struct { const char *prefix; uint64_t mult; } m[] = {
		{ "", 1 }, { "k", 1000 }, { "m", 1000000 }, { "g", 1000000000 },
		{ "t", 1000000000000ull },
	};
	static const char *const units[] = { "bit", "bps", "b/s", "bit/s" };
	char buf[32];
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (*m[i].prefix) {
			snprintf(buf, sizeof(buf), "10%s", m[i].prefix);
			check_bps(buf, 10 * m[i].mult);
		}
		for (j = 0; j < sizeof(units) / sizeof(units[0]); j++) {
			snprintf(buf, sizeof(buf), "10%s%s", m[i].prefix, units[j]);
			check_bps(buf, 10 * m[i].mult);
		}
	}
}

/* As users write them: the multiple in capitals, fractions, bare Gb/s. */
static void test_rate_as_written(void **state)
{
	static const struct spelling ok[] = {
		{ "10Gbps", 10000000000ull }, { "10Gb/s", 10000000000ull },
		{ "10Gbit/s", 10000000000ull }, { "10GBIT", 10000000000ull },
		{ "10G", 10000000000ull }, { "10", 10000000000ull },
		{ "2.5Gbps", 2500000000ull }, { "100Mb/s", 100000000 },
		{ "800kbps", 800000 }, { "800Kb/s", 800000 }, { "1Tbps", 1000000000000ull },
		{ "1000bps", 1000 }, { "1000b/s", 1000 }, { ".5gbps", 500000000 },
		{ "0", 0 }, { "0Gbps", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		check_bps(ok[i].s, ok[i].want);
}

static void test_rate_refused(void **state)
{
	static const char *const bad[] = {
		"10Gbpsx", "Gbps", "", "-1Gbps", "+1g", " 10Gbps", "10 Gbps", "10Gbps ",
		"10g/s", "10gbits", "10Gps", "10Gbit/sec", "inf", "nan", "10s", "1min",
		/* bytes a second: refused, not read as bits */
		"10GB/s", "10GBps", "10GBPS", "100MB/s", "1Bps",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (units_parse_bps(bad[i], &v) != -EINVAL)
			fail_msg("rate '%s' accepted or not -EINVAL", bad[i]);
	/* A rate below 1 bit/s does not fit. */
	assert_int_equal(units_parse_bps("0.4bps", &v), -ERANGE);
}

/* Every time suffix, "min" among them, in any case. */
static void test_time_spellings(void **state)
{
	static const struct spelling ok[] = {
		{ "10", 10000000000ull }, { "10s", 10000000000ull }, { "500ms", 500000000 },
		{ "250us", 250000 }, { "100ns", 100 }, { "2m", 120000000000ull },
		{ "1min", 60000000000ull }, { "1MIN", 60000000000ull }, { "1.5min", 90000000000ull },
		{ "500MS", 500000000 }, { "0.5s", 500000000 }, { ".25ms", 250000 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		check_ns(ok[i].s, ok[i].want);
}

static void test_time_refused(void **state)
{
	static const char *const bad[] = {
		"ms", "s", "min", "", "-1s", "-1", "+1s", " 1s", "1 s", "1s ", "1mins", "1minute",
		"500msx", "10sec", "1h", "1Gbps", "inf", "nan",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (units_parse_ns(bad[i], &v) != -EINVAL)
			fail_msg("time '%s' accepted or not -EINVAL", bad[i]);
}

/* Through the option parser: new spellings taken, a refused one named. */
struct rate_time_opts {
	uint64_t rate_bps;
	double duration_s;
};

static const struct opts_entry rate_time_table[] = {
	OPT_VALUE(OPTS_BPS, 0, "rate", "RATE", "a rate", struct rate_time_opts, rate_bps, 0,
		  UINT64_MAX),
	OPT_VALUE(OPTS_SECONDS, 'D', "duration", "TIME", "a time", struct rate_time_opts,
		  duration_s, 0, 3600ull * 1000000000ull),
	OPT_END(),
};

static int parse2(const char *opt, const char *value, struct rate_time_opts *o, char *err,
		  size_t errlen)
{
	char *argv[] = { "cmd", (char *)opt, (char *)value, NULL };
	int n;

	memset(o, 0, sizeof(*o));
	return opts_parse(rate_time_table, o, 3, argv, NULL, 0, &n, err, errlen);
}

static void test_options(void **state)
{
	struct rate_time_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse2("--rate", "10Gbps", &o, err, sizeof(err)), 0);
	assert_true(o.rate_bps == 10000000000ull);
	assert_int_equal(parse2("--rate", "10Gb/s", &o, err, sizeof(err)), 0);
	assert_true(o.rate_bps == 10000000000ull);
	assert_int_equal(parse2("-D", "1min", &o, err, sizeof(err)), 0);
	assert_true(o.duration_s == 60.0);
	assert_int_equal(parse2("-D", "500ms", &o, err, sizeof(err)), 0);
	assert_true(o.duration_s == 0.5);
	assert_int_equal(parse2("--rate", "10Gbpsx", &o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--rate '10Gbpsx': expected a rate such as 10g, 10Gbps, "
				 "10Gb/s or 500m (bare: Gb/s)");
	assert_int_equal(parse2("--rate", "10GB/s", &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--rate '10GB/s': expected "));
	assert_int_equal(parse2("--duration", "ms", &o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--duration 'ms': expected a time above 0 (10, 10s, 500ms, "
				 "1min; bare: seconds)");
	assert_int_equal(parse2("-D", "-1s", &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--duration '-1s': expected "));
	/* Within range only: an hour at most here. */
	assert_int_equal(parse2("-D", "61min", &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--duration '61min': expected "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_spellings),
		cmocka_unit_test(test_rate_as_written),
		cmocka_unit_test(test_rate_refused),
		cmocka_unit_test(test_time_spellings),
		cmocka_unit_test(test_time_refused),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
