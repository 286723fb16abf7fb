/* Scenario files: every key of a good file, and bad files with file:line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "converge/scenario.h"
#include "unit.h"

static struct scenario sc;
static char err[512];

static int load(const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", TEST_DATA, name);
	err[0] = '\0';
	return scenario_load(path, &sc, err, sizeof(err));
}

static void test_good(void **state)
{
	(void)state;
	assert_int_equal(load("scenario-good.ini"), 0);
	assert_string_equal(sc.dest, "h3");
	assert_near(sc.duration_s, 0.5, 1e-9);
	assert_near(sc.warmup_s, 2, 1e-9);
	assert_near(sc.link_gbps, 0.01, 1e-12);
	assert_int_equal(sc.n_arb_files, 1);
	assert_non_null(strstr(sc.arb_files[0], "/ets-roce.txt"));
	assert_string_equal(sc.device, "rxe0");
	assert_int_equal(sc.gid_index, 1);
	assert_int_equal(sc.agent_port, 18600);
	assert_int_equal(sc.data_port, 18601);
	assert_int_equal(sc.clock, CLOCK_SRC_MONOTONIC);
	assert_true(sc.yield);
	assert_int_equal(sc.qp_timeout, 18);
	assert_int_equal(sc.retry, 6);
	assert_int_equal(sc.n_flows, 2);
	assert_string_equal(sc.flows[0].name, "lat1");
	assert_int_equal(sc.flows[0].type, SCEN_FLOW_LAT);
	assert_int_equal(sc.flows[0].sl, 1);
	assert_int_equal(sc.flows[0].tclass, 184);
	assert_int_equal(sc.flows[0].size_bytes, 64);
	assert_int_equal(sc.flows[0].line, 18);
	assert_string_equal(sc.flows[1].name, "bw.0");
	assert_int_equal(sc.flows[1].type, SCEN_FLOW_BW);
	assert_int_equal(sc.flows[1].size_bytes, 65536);
	assert_near(sc.flows[1].rate_gbps, 0.005, 1e-12);
	assert_int_equal(sc.flows[1].threads, 2);
	assert_int_equal(sc.flows[1].qps, 4);
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=bw\n",
					NULL, &sc, err, sizeof(err)), 0);
	assert_near(sc.duration_s, 10, 1e-9);
	assert_near(sc.warmup_s, 1, 1e-9);
	assert_int_equal(sc.n_arb_files, 0);
	assert_int_equal(sc.gid_index, -1);
	assert_int_equal(sc.clock, CLOCK_SRC_TSC);
	assert_int_equal(sc.flows[0].size_bytes, 4096);
	assert_int_equal(sc.flows[0].threads, 1);
	assert_int_equal(sc.flows[0].qps, 1);
	assert_string_equal(sc.switch_counters, "");
	/* The switch's counters: a command, kept whole. */
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters = ssh sw "
					"tc -s -j qdisc show dev p3 invisible\n[f]\nhost=a\n"
					"type=bw\n", NULL, &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.switch_counters, "ssh sw tc -s -j qdisc show dev p3 invisible");
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters =\n"
					"[f]\nhost=a\ntype=bw\n", NULL, &sc, err, sizeof(err)),
			 -EINVAL);
}

/* Each bad file fails with "path:line: ..." naming what is wrong. */
static void test_bad(void **state)
{
	static const struct { const char *file; const char *where; const char *what; } bad[] = {
		{ "scenario-bad-size.ini", ".ini:7: ", "size '12q'" },
		{ "scenario-bad-key.ini", ".ini:3: ", "unknown key 'bogus'" },
		{ "scenario-bad-notype.ini", ".ini:4: ", "'type' is missing" },
		{ "scenario-bad-nodest.ini", ".ini:1: ", "'destination' is missing" },
		{ "scenario-bad-sl.ini", ".ini:7: ", "sl '16'" },
		{ "scenario-bad-self.ini", ".ini:4: ", "starts on the destination" },
		{ "scenario-bad-syntax.ini", ".ini:3: ", "not an INI line" },
		{ "scenario-bad-latqps.ini", ".ini:4: ", "one QP per thread" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load(bad[i].file), -EINVAL);
		if (!strstr(err, bad[i].where) || !strstr(err, bad[i].what))
			fail_msg("%s: '%s'", bad[i].file, err);
	}
	assert_int_equal(load("no-such-scenario.ini"), -ENOENT);
}

static void test_values(void **state)
{
	double v;

	(void)state;
	assert_int_equal(scenario_parse_rate("10mbit", &v), 0);
	assert_near(v, 0.01, 1e-12);
	assert_int_equal(scenario_parse_rate("100G", &v), 0);
	assert_near(v, 100, 1e-9);
	assert_int_equal(scenario_parse_rate("1.5", &v), 0);
	assert_near(v, 1.5, 1e-9);
	assert_int_equal(scenario_parse_rate("-1g", &v), -EINVAL);
	assert_int_equal(scenario_parse_rate("10 furlongs", &v), -EINVAL);
	assert_int_equal(scenario_parse_seconds("250ms", &v), 0);
	assert_near(v, 0.25, 1e-12);
	assert_int_equal(scenario_parse_seconds("3s", &v), 0);
	assert_near(v, 3, 1e-12);
	assert_int_equal(scenario_parse_seconds("3h", &v), -EINVAL);
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f g]\nhost=a\ntype=bw\n",
					NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s:4: [f g]"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n", NULL, &sc, err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no flow sections"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
