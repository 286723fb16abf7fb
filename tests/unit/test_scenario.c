/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Scenario files: every key of a good file, and bad files with file:line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "coord/scenario.h"
#include "unit.h"
#include "cli/bw.h"

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
	assert_int_equal(sc.flows[0].type, SCENARIO_FLOW_LAT);
	assert_int_equal(sc.flows[0].spec.sl, 1);
	assert_int_equal(sc.flows[0].spec.tclass, 184);
	assert_int_equal(sc.flows[0].spec.size_bytes, 64);
	assert_int_equal(sc.flows[0].line, 18);
	assert_string_equal(sc.flows[1].name, "bw.0");
	assert_int_equal(sc.flows[1].type, SCENARIO_FLOW_BW);
	assert_int_equal(sc.flows[1].spec.size_bytes, 65536);
	assert_int_equal(sc.flows[1].spec.rate_bps, 5000000);
	assert_int_equal(sc.flows[1].spec.threads, 2);
	assert_int_equal(sc.flows[1].spec.qps, 4);
}

static void test_defaults(void **state)
{
	struct flow_opts fo;

	(void)state;
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=bw\n",
					NULL, &sc, err, sizeof(err)), 0);
	assert_near(sc.duration_s, 10, 1e-9);
	assert_near(sc.warmup_s, 1, 1e-9);
	assert_int_equal(sc.n_arb_files, 0);
	assert_int_equal(sc.gid_index, -1);
	assert_int_equal(sc.clock, CLOCK_SRC_TSC);
	assert_int_equal(sc.flows[0].spec.size_bytes, 4096);
	assert_int_equal(sc.flows[0].spec.threads, 1);
	assert_int_equal(sc.flows[0].spec.qps, 1);
	/* RC's knobs: lat's and bw's defaults, the one flow description's. */
	flow_opts_defaults(&fo);
	assert_int_equal(sc.qp_timeout, fo.qp_timeout);
	assert_int_equal(sc.retry, fo.retry);
	assert_string_equal(sc.switch_counters, "");
	/* The switch's counters: a command, kept whole. */
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters = ssh sw "
					"tc -s -j qdisc show dev p3 invisible\n[f]\nhost=a\n"
					"type=bw\n", NULL, &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.switch_counters, "ssh sw tc -s -j qdisc show dev p3 invisible");
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters =\n"
					"[f]\nhost=a\ntype=bw\n", NULL, &sc, err, sizeof(err)),
			 -EINVAL);
	assert_false(sc.switch_pma);
	/* Or an InfiniBand port's PerfMgt agent, per SL or per VL. */
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters = "
					"pma:3:1\n[f]\nhost=a\ntype=bw\n", NULL, &sc, err,
					sizeof(err)), 0);
	assert_true(sc.switch_pma);
	assert_int_equal(sc.switch_pma_counter, MAD_PMA_XMIT_DATA_SL);
	assert_int_equal(sc.switch_pma_lid, 3);
	assert_int_equal(sc.switch_pma_port, 1);
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters = "
					"pma-vl:49151:0\n[f]\nhost=a\ntype=bw\n", NULL, &sc, err,
					sizeof(err)), 0);
	assert_int_equal(sc.switch_pma_counter, MAD_PMA_RCV_DATA_VL);
	assert_int_equal(sc.switch_pma_lid, 49151);
	assert_int_equal(sc.switch_pma_port, 0);
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters = "
					"pma:0,1:1\n[f]\nhost=a\ntype=bw\n", NULL, &sc, err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "switch_counters 'pma:0,1:1': expected a unicast LID"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nswitch_counters = "
					"pma-vl:4\n[f]\nhost=a\ntype=bw\n", NULL, &sc, err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "expected pma:LID:PORT or pma-vl:LID:PORT"));
}

/* arbitration: files, a live port (a route has commas), or both. */
static void test_arbitration(void **state)
{
	(void)state;
	assert_int_equal(scenario_set_arbitration(&sc, "port:0,1,3:2, opensm.conf", "/d", err,
						  sizeof(err)), 0);
	assert_string_equal(sc.arb_port, "0,1,3:2");
	assert_int_equal(sc.n_arb_files, 1);
	assert_string_equal(sc.arb_files[0], "/d/opensm.conf");
	assert_int_equal(scenario_set_arbitration(&sc, "a.txt,b.txt port:1:3", NULL, err,
						  sizeof(err)), 0);
	assert_string_equal(sc.arb_port, "1:3");
	assert_int_equal(sc.n_arb_files, 2);
	assert_string_equal(sc.arb_files[1], "b.txt");
	assert_int_equal(scenario_set_arbitration(&sc, "a.txt", NULL, err, sizeof(err)), 0);
	assert_string_equal(sc.arb_port, "");
	assert_int_equal(scenario_set_arbitration(&sc, "port:1:3 port:2:1", NULL, err,
						  sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "one live port at most ('1:3' and '2:1')"));
	assert_int_equal(scenario_set_arbitration(&sc, "port:", NULL, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "'port:'"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\narbitration = port:1:3\n"
					"arbitration_ca = mlx5_0:1\n[f]\nhost=a\ntype=bw\n", NULL,
					&sc, err, sizeof(err)), 0);
	assert_string_equal(sc.arb_port, "1:3");
	assert_string_equal(sc.arb_ca, "mlx5_0:1");
	assert_int_equal(sc.n_arb_files, 0);
}

/* Pass/fail criteria of a flow, in their units; bad ones named. */
static void test_criteria_keys(void **state)
{
	(void)state;
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=lat\n"
					"max_p99 = 50us\nmax_p99_9 = 1ms\nmin_gbps = 500m\n"
					"min_share = 20\nmax_share_diff = 2.5\n", NULL, &sc, err,
					sizeof(err)), 0);
	assert_near(sc.flows[0].max_p99_us, 50, 1e-9);
	assert_near(sc.flows[0].max_p99_9_us, 1000, 1e-9);
	assert_near(sc.flows[0].min_gbps, 0.5, 1e-12);
	assert_near(sc.flows[0].min_share_pct, 20, 1e-12);
	assert_near(sc.flows[0].max_share_diff_pp, 2.5, 1e-12);
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=lat\n"
					"max_p99 = fast\n", NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s:6: [f] max_p99 'fast'"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=lat\n"
					"min_share = 101\n", NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "min_share '101'"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=lat\n"
					"max_jitter = 1\n", NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown key 'max_jitter'"));
	/* The baseline a scenario asks for. */
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nbaseline = all\n[f]\n"
					"host=a\ntype=lat\nmax_impact_p99 = 1.5\n", NULL, &sc, err,
					sizeof(err)), 0);
	assert_int_equal(sc.baseline, SCENARIO_BASELINE_ALL);
	assert_near(sc.flows[0].max_impact_p99, 1.5, 1e-12);
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nbaseline = some\n[f]\n"
					"host=a\ntype=lat\n", NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "baseline 'some': expected no, lat or all"));
	/* The configured reading: the default, or the key's (others default). */
	assert_true(sc.semantics.carry);
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nsemantics = low=packet\n"
					"[f]\nhost=a\ntype=lat\n", NULL, &sc, err, sizeof(err)), 0);
	assert_true(sc.semantics_set && sc.semantics.carry);
	assert_int_equal(sc.semantics.low_turn, ARB_LOW_PACKET);
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\nsemantics = carry=perhaps\n"
					"[f]\nhost=a\ntype=lat\n", NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "semantics 'carry=perhaps'"));
}

/* Each bad file fails with "path:line: ..." naming what is wrong. */
static void test_bad(void **state)
{
	static const struct { const char *file; const char *where; const char *what; } bad[] = {
		{ "scenario-bad-size.ini", ".ini:7: ", "size '12q'" },
		{ "scenario-bad-key.ini", ".ini:3: ", "unknown key 'bogus'" },
		{ "scenario-bad-notype.ini", ".ini:4: ", "'type' is missing" },
		{ "scenario-bad-nodest.ini", ".ini:4: ", "no destination: give the flow a 'dest'" },
		{ "scenario-bad-sl.ini", ".ini:7: ", "sl '16'" },
		{ "scenario-bad-self.ini", ".ini:4: ", "starts on its destination 'h3'" },
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

/* A scenario of one bw flow with @global and @flow keys added, into @out;
 * 0 or -EINVAL. */
static int parse_with(const char *global, const char *flow, struct scenario *out)
{
	char text[512];

	snprintf(text, sizeof(text), "[global]\ndestination=d\n%s\n[f]\nhost=a\ntype=bw\n%s\n",
		 global, flow);
	err[0] = '\0';
	return scenario_parse("s", text, NULL, out, err, sizeof(err));
}

/* The rate rperf bw --rate VALUE paces the whole run at, in bit/s. */
static uint64_t cli_rate_bps(const char *value)
{
	char *args[] = { "bw", "--rate", (char *)value, "h2", NULL };
	struct bw_opts o;
	char cli_err[256];

	assert_int_equal(bw_opts_parse(4, args, &o, cli_err, sizeof(cli_err)), 0);
	return o.flow.spec.rate_bps;
}

static void test_values(void **state)
{
	(void)state;
	assert_int_equal(parse_with("", "rate = 10mbit", &sc), 0);
	assert_int_equal(sc.flows[0].spec.rate_bps, 10000000);
	assert_int_equal(parse_with("link_rate = 100G", "", &sc), 0);
	assert_near(sc.link_gbps, 100, 1e-9);
	assert_int_equal(parse_with("", "rate = 1.5", &sc), 0);
	assert_int_equal(sc.flows[0].spec.rate_bps, 1500000000);
	/* A bare rate means what rperf bw --rate makes of it: Gb/s. */
	assert_int_equal(parse_with("", "rate = 5", &sc), 0);
	assert_int_equal(sc.flows[0].spec.rate_bps, cli_rate_bps("5"));
	assert_int_equal(sc.flows[0].spec.rate_bps, 5000000000ull);
	assert_int_equal(parse_with("", "rate = -1g", &sc), -EINVAL);
	assert_non_null(strstr(err, "rate '-1g'"));
	assert_int_equal(parse_with("", "rate = 10 furlongs", &sc), -EINVAL);
	assert_int_equal(parse_with("duration = 250ms", "", &sc), 0);
	assert_near(sc.duration_s, 0.25, 1e-12);
	assert_int_equal(parse_with("duration = 3s", "", &sc), 0);
	assert_near(sc.duration_s, 3, 1e-12);
	assert_int_equal(parse_with("duration = 3h", "", &sc), -EINVAL);
	assert_non_null(strstr(err, "duration '3h'"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f g]\nhost=a\ntype=bw\n",
					NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s:4: [f g]"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n", NULL, &sc, err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no flow sections"));
}

/* Flow @i of sc: its name, source and destination. */
static void assert_flow(size_t i, const char *name, const char *host, const char *dest)
{
	assert_true(i < sc.n_flows);
	assert_string_equal(sc.flows[i].name, name);
	assert_string_equal(sc.flows[i].host, host);
	assert_string_equal(sc.flows[i].dest, dest);
}

static int parse_pattern(const char *keys)
{
	char text[1024];

	snprintf(text, sizeof(text), "[global]\nduration = 2\n[lat]\nhost = h9\ndest = h1\n"
		 "type = lat\n[p]\ntype = bw\nsl = 3\n%s\n", keys);
	err[0] = '\0';
	return scenario_parse("s", text, NULL, &sc, err, sizeof(err));
}

/* Pattern sections expand in place into flows over their hosts, with their keys. */
/* Pattern sections that are refused: keys, and what the error says. */
static const char *const refused[][2] = {
	{ "pattern = star\nhosts = a b", "pattern 'star': expected incast, all-to-all" },
	{ "pattern = all-to-all\nhosts = node[1-4]", "scontrol show hostnames" },
	{ "pattern = all-to-all\nhosts = a b a", "'a' twice" },
	{ "pattern = all-to-all\nhosts = a", "needs 2 or more hosts" },
	{ "pattern = all-to-all\nhost = a\nhosts = a b", "not 'host'" },
	{ "pattern = ring\ndest = a\nhosts = a b", "'dest' is for incast" },
	{ "pattern = incast\nhosts = a b", "s:7: [p]: no destination" },
	{ "hosts = a b", "'hosts' without a 'pattern'" },
	{ "pattern = all-to-all\nhosts = a b c d e f g h i", "more than 64 flows" },
};

static void test_patterns(void **state)
{
	static const char *const src[] = { "a", "b", "c", "d" };
	size_t i, j, k, seen[4];

	(void)state;
	assert_int_equal(parse_pattern("pattern = all-to-all\nhosts = h1, h2 h3"), 0);
	assert_int_equal(sc.n_flows, 7);
	assert_flow(0, "lat", "h9", "h1");
	assert_flow(1, "p.h1-h2", "h1", "h2");
	assert_flow(2, "p.h1-h3", "h1", "h3");
	assert_flow(6, "p.h3-h2", "h3", "h2");
	for (i = 1; i < sc.n_flows; i++) {
		assert_int_equal(sc.flows[i].spec.sl, 3);
		assert_int_equal(sc.flows[i].type, SCENARIO_FLOW_BW);
		assert_int_equal(sc.flows[i].line, 7);
		assert_string_equal(sc.flows[i].section, "p");
	}
	/* Incast: every host but the destination to it. */
	assert_int_equal(parse_pattern("pattern = incast\ndest = h2\nhosts = h1,h2,h3"), 0);
	assert_int_equal(sc.n_flows, 3);
	assert_flow(1, "p.h1-h2", "h1", "h2");
	assert_flow(2, "p.h3-h2", "h3", "h2");
	/* A ring: each host to both neighbours; of two hosts, one each way. */
	assert_int_equal(parse_pattern("pattern = ring\nhosts = a b c d"), 0);
	assert_int_equal(sc.n_flows, 9);
	assert_flow(1, "p.a-b", "a", "b");
	assert_flow(2, "p.a-d", "a", "d");
	assert_flow(8, "p.d-c", "d", "c");
	assert_int_equal(parse_pattern("pattern = ring\nhosts = a b"), 0);
	assert_int_equal(sc.n_flows, 3);
	/* Flood pairs: in order, both ways; an odd count is refused. */
	assert_int_equal(parse_pattern("pattern = flood-pairs\nhosts = a b c d"), 0);
	assert_int_equal(sc.n_flows, 5);
	assert_flow(3, "p.c-d", "c", "d");
	assert_flow(4, "p.d-c", "d", "c");
	assert_int_equal(parse_pattern("pattern = flood-pairs\nhosts = a b c"), -EINVAL);
	assert_non_null(strstr(err, "s:7: [p]: the flood-pairs pattern needs an even number"));
	/* Random pairs: a permutation without a fixed point, the same for a seed. */
	for (k = 1; k < 40; k++) {
		char keys[128];

		snprintf(keys, sizeof(keys), "pattern = random-pairs\nhosts = a b c d\nseed = %zu",
			 k);
		assert_int_equal(parse_pattern(keys), 0);
		assert_int_equal(sc.n_flows, 5);
		memset(seen, 0, sizeof(seen));
		for (i = 1; i < 5; i++) {
			assert_string_equal(sc.flows[i].host, src[i - 1]);
			assert_string_not_equal(sc.flows[i].host, sc.flows[i].dest);
			j = (size_t)(sc.flows[i].dest[0] - 'a');
			assert_true(j < 4);
			seen[j]++;
		}
		for (j = 0; j < 4; j++)
			assert_int_equal(seen[j], 1);
	}
	assert_int_equal(parse_pattern("pattern = random-pairs\nhosts = a b c d\nseed = 7"), 0);
	{
		char first[4][SCENARIO_HOST_MAX];

		for (i = 0; i < 4; i++)
			snprintf(first[i], sizeof(first[i]), "%s", sc.flows[i + 1].dest);
		assert_int_equal(parse_pattern("pattern = random-pairs\nhosts = a b c d\nseed = 7"),
				 0);
		for (i = 0; i < 4; i++)
			assert_string_equal(first[i], sc.flows[i + 1].dest);
	}
	/* What a pattern refuses, by name; 9 hosts all-to-all make 72 flows. */
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(parse_pattern(refused[i][0]), -EINVAL);
		assert_non_null(strstr(err, refused[i][1]));
	}
}

/* Bursty bw flows: on and off together; not for lat flows. */
/* Agents by address: HOST, HOST:PORT, [IPV6]:PORT; several to a host. */
static void test_agent_addresses(void **state)
{
	static const struct { const char *addr, *host; int port; } good[] = {
		{ "h1", "h1", 0 }, { "h1:18531", "h1", 18531 }, { "10.0.0.1:9", "10.0.0.1", 9 },
		{ "fe80::1", "fe80::1", 0 }, { "[fe80::1]:18532", "fe80::1", 18532 },
		{ "[::1]", "::1", 0 },
	};
	static const char *const bad[] = { "", ":1", "h1:", "h1:0", "h1:65536", "h1:x",
					   "h1:-5", "[]:1", "[::1", "[::1]x" };
	char host[SCENARIO_HOST_MAX];
	uint16_t port;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(scenario_agent_addr(good[i].addr, host, sizeof(host), &port), 0);
		assert_string_equal(host, good[i].host);
		assert_int_equal(port, good[i].port);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (scenario_agent_addr(bad[i], host, sizeof(host), &port) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	/* Two agents on h1, one on h3 at the agent port: named h3. */
	assert_int_equal(scenario_parse("s", "[global]\ndestination = h3:18530\n"
					"[a]\nhost = h1:18531\ntype = bw\n"
					"[b]\nhost = h1:18532\ntype = lat\n", NULL, &sc, err,
					sizeof(err)), 0);
	assert_flow(0, "a", "h1:18531", "h3");
	assert_flow(1, "b", "h1:18532", "h3");
	/* A pattern's flows are named after their agents, ':' as '_'. */
	assert_int_equal(parse_pattern("pattern = incast\ndest = h2\nhosts = h1:7 h1:8 h2"), 0);
	assert_flow(1, "p.h1_7-h2", "h1:7", "h2");
	assert_flow(2, "p.h1_8-h2", "h1:8", "h2");
	/* A bad address is named, with what is expected. */
	assert_int_equal(scenario_parse("s", "[global]\ndestination = h3\n[a]\nhost = h1:0\n"
					"type = bw\n", NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s:3: [a]: host 'h1:0': expected HOST, HOST:PORT"));
}

static void test_bursty(void **state)
{
	(void)state;
	assert_int_equal(parse_with("", "on = 10ms\noff = 40ms\nrate = 4m", &sc), 0);
	assert_int_equal(sc.flows[0].spec.on_ns, 10000000);
	assert_int_equal(sc.flows[0].spec.off_ns, 40000000);
	assert_int_equal(parse_with("", "on = 10ms", &sc), -EINVAL);
	assert_non_null(strstr(err, "needs both 'on' and 'off'"));
	assert_int_equal(parse_with("", "off = soon", &sc), -EINVAL);
	assert_non_null(strstr(err, "[f] off 'soon'"));
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=lat\n"
					"on = 1s\noff = 1s\n", NULL, &sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "on and off are for bw flows"));
	/* A flow's own destination, beside [global]'s. */
	assert_int_equal(scenario_parse("s", "[global]\ndestination=d\n[f]\nhost=a\ntype=bw\n"
					"[g]\nhost=d\ndest=a\ntype=bw\n", NULL, &sc, err,
					sizeof(err)), 0);
	assert_flow(0, "f", "a", "d");
	assert_flow(1, "g", "d", "a");
}

/*
 * A rate is the flow's whole, in a scenario and on rperf bw's command line
 * alike: the same settings pace each QP at the same rate, and a rate
 * below 1 bit/s a QP is refused by both.
 */
static void test_rate_is_whole(void **state)
{
	char *args[] = { "bw", "--threads", "2", "--qps", "2", "--rate", "8m", "h2", NULL };
	char *tiny[] = { "bw", "--threads", "2", "--qps", "2", "--rate", "0.000000003", "h2",
			 NULL };
	struct bw_opts o;
	char cli_err[256];

	(void)state;
	assert_int_equal(parse_with("", "threads = 2\nqps = 2\nrate = 8m", &sc), 0);
	assert_int_equal(bw_opts_parse(8, args, &o, cli_err, sizeof(cli_err)), 0);
	assert_int_equal(o.flow.spec.rate_bps, sc.flows[0].spec.rate_bps);
	assert_int_equal(flow_spec_qp_rate_bps(&sc.flows[0].spec), 2000000);
	assert_int_equal(flow_spec_qp_rate_bps(&o.flow.spec), 2000000);
	/* 3 bit/s over 4 QPs: refused, not paced at 0 (which is unpaced). */
	assert_int_equal(parse_with("", "threads = 2\nqps = 2\nrate = 0.000000003", &sc), -EINVAL);
	assert_non_null(strstr(err, "below 1 bit/s for each of its 4 QPs"));
	assert_int_equal(bw_opts_parse(8, tiny, &o, cli_err, sizeof(cli_err)), -EINVAL);
	assert_non_null(strstr(cli_err, "--rate 3: below 1 bit/s for each of the 4 QPs"));
	assert_int_equal(parse_with("", "rate = 11t", &sc), -EINVAL);
	assert_non_null(strstr(err, "[f] rate '11t': expected"));
	assert_int_equal(parse_with("", "qps = 65", &sc), -EINVAL);
	assert_non_null(strstr(err, "[f] qps '65': expected an integer from 1 to 64"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_rate_is_whole),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_bursty),
		cmocka_unit_test(test_agent_addresses),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_arbitration),
		cmocka_unit_test(test_criteria_keys),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
