/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * qosconf: every reader on the fixtures in tests/data, the three
 * spellings of Configuration A giving the same analysis, and bad inputs
 * failing with the file and line in the message.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "qos/arb.h"
#include "qos/qosconf.h"
#include "qos/qosconf_tc.h"
#include "qos/qosconf_lex.h"
#include "unit.h"

static char err[256];

/* Parse fixture files (NULL-terminated names) with @opts. */
static int parse_files(const char *const *names, const struct qosconf_opts *opts,
		       struct arb_config *cfg, enum qosconf_format *format)
{
	struct qosconf_source src[4] = { { 0 } };
	char *texts[4], path[512];
	int n, rc;

	for (n = 0; names[n]; n++) {
		snprintf(path, sizeof(path), "%s/%s", TEST_DATA, names[n]);
		assert_int_equal(qosconf_read_file(path, &texts[n], err, sizeof(err)), 0);
		src[n].name = names[n];
		src[n].text = texts[n];
	}
	rc = qosconf_parse(src, n, opts, cfg, format, err, sizeof(err));
	while (n--)
		free(texts[n]);
	return rc;
}

static int parse_one(const char *name, struct arb_config *cfg,
		     enum qosconf_format *format)
{
	const char *names[] = { name, NULL };
	struct qosconf_opts opts;

	qosconf_opts_init(&opts);
	return parse_files(names, &opts, cfg, format);
}

static int parse_text(const char *text, enum qosconf_format format_in,
		      struct arb_config *cfg)
{
	struct qosconf_source src = { "inline.txt", text };
	struct qosconf_opts opts;
	enum qosconf_format format;

	qosconf_opts_init(&opts);
	opts.format = format_in;
	return qosconf_parse(&src, 1, &opts, cfg, &format, err, sizeof(err));
}

static void analyze(const struct arb_config *cfg, struct arb_result *res)
{
	struct arb_params params;

	arb_params_init(&params);
	assert_int_equal(arb_analyze(cfg, &params, res), 0);
}

static void assert_same_analysis(const struct arb_result *a,
				 const struct arb_result *b)
{
	int i;

	for (i = 0; i < ARB_NUM_SLS; i++) {
		assert_int_equal(a->sls[i].vl, b->sls[i].vl);
		assert_near(a->sls[i].share_pct, b->sls[i].share_pct, 0);
		assert_near(a->sls[i].mean_distance, b->sls[i].mean_distance, 0);
		assert_near(a->sls[i].max_distance, b->sls[i].max_distance, 0);
		assert_near(a->vls[i].share_pct, b->vls[i].share_pct, 0);
		assert_int_equal(a->vls[i].high_weight, b->vls[i].high_weight);
		assert_int_equal(a->vls[i].low_weight, b->vls[i].low_weight);
	}
}

/*
 * opensm.conf, smpquery text and a table: one port, one analysis. The
 * smpquery text is the real capture of the port OpenSM programmed from
 * that opensm.conf under ibsim (tests/data/ib/README): its VLArb caps are
 * 8 (ibsim's), so it is compared with the opensm.conf read for that
 * port (its portinfo capture), and ibsim does not store VLHighLimit, so
 * the limit is given as --limit would.
 */
static void test_config_a_three_ways(void **state)
{
	static struct arb_result r_conf, r_smp, r_table, r_port;
	const char *smp[] = { "ib/config-a.1-1.txt", NULL };
	const char *conf_port[] = { "config-a.opensm.conf", "ib/config-a.1-1.portinfo.txt", NULL };
	struct qosconf_opts opts;
	struct arb_config cfg;
	enum qosconf_format format;

	(void)state;
	assert_int_equal(parse_one("config-a.opensm.conf", &cfg, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_OPENSM);
	assert_int_equal(cfg.high.n_entries, 64);
	assert_int_equal(cfg.limit, 1);
	analyze(&cfg, &r_conf);

	qosconf_opts_init(&opts);
	assert_int_equal(parse_files(smp, &opts, &cfg, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_SMPQUERY);
	assert_int_equal(cfg.high.cap, 8);
	assert_int_equal(cfg.high.n_entries, 8);
	assert_int_equal(cfg.low.n_entries, 8);
	assert_int_equal(cfg.oper_vls, 8);
	assert_true(cfg.limit_known);
	assert_int_equal(cfg.limit, 0);		/* ibsim: VLHighLimit reads 0 */
	cfg.limit = 1;
	analyze(&cfg, &r_smp);

	qosconf_opts_init(&opts);
	assert_int_equal(parse_files(conf_port, &opts, &cfg, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_OPENSM);
	assert_int_equal(cfg.high.n_entries, 8);
	analyze(&cfg, &r_port);

	assert_int_equal(parse_one("config-a.table", &cfg, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_TABLE);
	assert_false(cfg.limit_known);
	cfg.limit = 1;			/* what --limit 1 does */
	cfg.limit_known = true;
	analyze(&cfg, &r_table);

	assert_same_analysis(&r_port, &r_smp);
	assert_same_analysis(&r_conf, &r_table);
	assert_near(r_conf.sls[3].share_pct, 8.5714, 1e-4);
	assert_near(r_conf.sls[0].share_pct, 45.7143, 1e-4);
}

/* A node type's keys override the generic ones; absent ones fall back. */
static void test_opensm_node_types(void **state)
{
	const char *names[] = { "config-a.opensm.conf", NULL };
	struct qosconf_opts opts;
	struct arb_config cfg;
	enum qosconf_format format;

	(void)state;
	qosconf_opts_init(&opts);
	opts.node_type = QOSCONF_NODE_SW0;
	assert_int_equal(parse_files(names, &opts, &cfg, &format), 0);
	assert_int_equal(cfg.limit, 255);
	assert_int_equal(cfg.high.n_entries, 2);
	assert_int_equal(cfg.low.n_entries, 1);		/* generic 3:6 */
	opts.node_type = QOSCONF_NODE_CA;		/* all (null): generic */
	assert_int_equal(parse_files(names, &opts, &cfg, &format), 0);
	assert_int_equal(cfg.limit, 1);
	assert_int_equal(cfg.high.n_entries, 64);
}

/* No qos_ key at all: OpenSM's built-in defaults. */
static void test_opensm_defaults(void **state)
{
	struct arb_config cfg;

	(void)state;
	assert_int_equal(parse_text("qos TRUE\nsweep_interval 10\n",
				    QOSCONF_FORMAT_AUTO, &cfg), 0);
	assert_int_equal(cfg.limit, 0);
	assert_int_equal(cfg.oper_vls, 15);
	assert_int_equal(cfg.high.n_entries, 15);
	assert_int_equal(cfg.high.entries[0].weight, 4);
	assert_int_equal(cfg.high.entries[1].weight, 0);
	assert_int_equal(cfg.low.entries[1].weight, 4);
	assert_int_equal(cfg.sl2vl[15], 7);
	assert_int_equal(parse_text("qos TRUE\nqos_vlarb_high 0x0:0x40\nqos_swe_high_limit 3\n",
				    QOSCONF_FORMAT_OPENSM, &cfg), 0);
	assert_int_equal(cfg.high.n_entries, 1);
	assert_int_equal(cfg.high.entries[0].weight, 64);
	assert_int_equal(cfg.limit, 3);
}

static void test_smpquery_in_port(void **state)
{
	const char *text =
		"# SL2VL table: Lid 5\n"
		"#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n"
		"ports: in  1, out  3: | 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|\n"
		"ports: in  2, out  3: | 1| 1| 1| 1| 1| 1| 1| 1| 1| 1| 1| 1| 1| 1| 1| 1|\n"
		"# VLArbitration tables: Lid 5 port 3 LowCap 2 HighCap 0\n"
		"# Low priority VL Arbitration Table:\n"
		"VL    : |0x0 |0x1 |\n"
		"WEIGHT: |0x20|0xff|\n";
	struct qosconf_source src = { "x.txt", text };
	struct qosconf_opts opts;
	struct arb_config cfg;
	enum qosconf_format format;

	(void)state;
	qosconf_opts_init(&opts);
	assert_int_equal(qosconf_parse(&src, 1, &opts, &cfg, &format, err, sizeof(err)), 0);
	assert_int_equal(cfg.sl2vl[8], 0);
	assert_int_equal(cfg.low.entries[1].weight, 255);
	opts.in_port = 2;
	assert_int_equal(qosconf_parse(&src, 1, &opts, &cfg, &format, err, sizeof(err)), 0);
	assert_int_equal(cfg.sl2vl[0], 1);
}

static void test_ets(void **state)
{
	struct arb_config cfg;
	enum qosconf_format format;

	(void)state;
	assert_int_equal(parse_one("ets-roce.txt", &cfg, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_ETS);
	assert_int_equal(cfg.kind, ARB_KIND_ETS);
	assert_int_equal(cfg.n_bands, 3);
	assert_true(cfg.bands[0].strict);
	assert_int_equal(cfg.bands[1].quantum_bytes, 4500);
	assert_int_equal(arb_ets_dscp_band(&cfg, 46), 0);
	assert_int_equal(arb_ets_dscp_band(&cfg, 8), 1);
	assert_int_equal(arb_ets_dscp_band(&cfg, 0), 2);
	assert_int_equal(arb_ets_prio_band(&cfg, 3), 1);
	assert_int_equal(arb_ets_prio_band(&cfg, 0), 2);
}

static void test_detect(void **state)
{
	(void)state;
	assert_int_equal(qosconf_detect("# c\nhigh, 0, 4\n"), QOSCONF_FORMAT_TABLE);
	assert_int_equal(qosconf_detect("# c\nband 0 strict\n"), QOSCONF_FORMAT_ETS);
	assert_int_equal(qosconf_detect("qos_max_vls 8\n"), QOSCONF_FORMAT_OPENSM);
	assert_int_equal(qosconf_detect("VLHighLimit:.......1\n"),
			 QOSCONF_FORMAT_SMPQUERY);
	assert_int_equal(qosconf_detect("# only a comment\n"), QOSCONF_FORMAT_AUTO);
	assert_int_equal(qosconf_detect("!!!\n"), QOSCONF_FORMAT_AUTO);
	assert_int_equal(qosconf_detect("[{\"kind\":\"ets\"}]\n"), QOSCONF_FORMAT_TC);
	assert_int_equal(qosconf_detect(" {\"tc_tsa\":[]}\n"), QOSCONF_FORMAT_DCB);
}

/* examples/ets-strict-2to1.txt, which the lab applied to the captured port. */
static const char ets_strict_2to1[] =
	"band 0 strict\nband 1 drr 3000\nband 2 drr 1500\n"
	"dscp 46 0\ndscp 10 1\ndscp 18 2\ndefault 2\n";

/* Band shares for 2 Mbit/s in band 0 and the others saturating a 10 Mbit/s port. */
static void analyze_bands(const struct arb_config *cfg, struct arb_result *res)
{
	struct arb_params params;
	int b;

	arb_params_init(&params);
	params.model = ARB_MODEL_ETS;
	params.link_gbps = 0.01;
	for (b = 0; b < ARB_NUM_PRIOS; b++)
		params.load_gbps[b] = 0;
	for (b = 0; b < cfg->n_bands; b++) {
		params.band_load_set[b] = true;
		params.band_load_gbps[b] = b ? -1 : 0.002;
	}
	assert_int_equal(arb_analyze(cfg, &params, res), 0);
}

/* Same bands, same DSCP map, same shares. */
static void assert_same_ets(const struct arb_config *a, const struct arb_config *b)
{
	struct arb_result ra, rb;
	int d;

	assert_int_equal(a->n_bands, b->n_bands);
	for (d = 0; d < ARB_NUM_DSCPS; d++)
		assert_int_equal(arb_ets_dscp_band(a, d), arb_ets_dscp_band(b, d));
	for (d = 0; d < a->n_bands; d++)
		assert_int_equal(a->bands[d].strict, b->bands[d].strict);
	analyze_bands(a, &ra);
	analyze_bands(b, &rb);
	for (d = 0; d < a->n_bands; d++)
		assert_near(ra.vls[d].share_pct, rb.vls[d].share_pct, 1e-9);
	assert_near(ra.vls[1].share_pct, 2 * ra.vls[2].share_pct, 1e-9);
}

/* tc -j output captured on the lab switch: the ETS file it was set from. */
static void test_tc(void **state)
{
	const char *strict[] = { "tc-ets-strict-2to1.qdisc.json",
				 "tc-ets-strict-2to1.filter.json", NULL };
	static const char *const drr[] = { "tc-ets-3to1.filter.json",
					   "tc-ets-3to1.qdisc.json", NULL };
	struct arb_config tc, ets;
	struct qosconf_opts opts;
	enum qosconf_format format;
	int d;

	(void)state;
	qosconf_opts_init(&opts);
	assert_int_equal(parse_files(strict, &opts, &tc, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_TC);
	assert_int_equal(parse_text(ets_strict_2to1, QOSCONF_FORMAT_ETS, &ets), 0);
	assert_same_ets(&tc, &ets);
	assert_int_equal(tc.bands[1].quantum_bytes, 3000);
	assert_int_equal(tc.bands[2].quantum_bytes, 1500);
	/* tc -s qdisc show ... invisible: statistics and the bands' qdiscs too. */
	strict[0] = "tc-ets-strict-2to1.stats.json";
	assert_int_equal(parse_files(strict, &opts, &tc, &format), 0);
	assert_same_ets(&tc, &ets);
	/* Filters before the qdisc, and two DRR bands alone. */
	assert_int_equal(parse_files(drr, &opts, &tc, &format), 0);
	assert_int_equal(tc.n_bands, 2);
	assert_false(tc.bands[0].strict);
	assert_int_equal(tc.bands[0].quantum_bytes, 4500);
	for (d = 0; d < ARB_NUM_DSCPS; d++)
		assert_int_equal(arb_ets_dscp_band(&tc, d), d == 8 ? 0 : 1);
}

/* Per-band counters of tc -s -j qdisc show ... invisible (the lab switch). */
static void test_tc_band_bytes(void **state)
{
	char path[512], *text;
	uint64_t bytes[ARB_MAX_BANDS];
	int n;

	(void)state;
	snprintf(path, sizeof(path), "%s/tc-ets-strict-2to1.stats.json", TEST_DATA);
	assert_int_equal(qosconf_read_file(path, &text, err, sizeof(err)), 0);
	assert_int_equal(qosconf_tc_band_bytes(text, bytes, &n, err, sizeof(err)), 0);
	free(text);
	assert_int_equal(n, 3);
	assert_int_equal(bytes[0], 0);
	assert_int_equal(bytes[2], 110);
	/* Without "invisible" the bands' qdiscs are not listed. */
	snprintf(path, sizeof(path), "%s/tc-ets-strict-2to1.qdisc.json", TEST_DATA);
	assert_int_equal(qosconf_read_file(path, &text, err, sizeof(err)), 0);
	assert_int_equal(qosconf_tc_band_bytes(text, bytes, &n, err, sizeof(err)), -EINVAL);
	free(text);
	assert_non_null(strstr(err, "counters of 0 of the 3 bands"));
}

/* skbedit priorities through the priomap; a classid; a mask of 0xff. */
static void test_tc_skbedit(void **state)
{
	struct arb_config cfg;
	enum qosconf_format format;

	(void)state;
	assert_int_equal(parse_one("tc-ets-skbedit.json", &cfg, &format), 0);
	assert_int_equal(arb_ets_dscp_band(&cfg, 46), 0);	/* priority 5, priomap 0 */
	assert_int_equal(arb_ets_dscp_band(&cfg, 10), 1);	/* priority 3, priomap 1 */
	assert_int_equal(arb_ets_dscp_band(&cfg, 18), 2);	/* classid 10:3 */
	assert_int_equal(arb_ets_dscp_band(&cfg, 0), 2);	/* priomap of priority 0 */
	assert_int_equal(arb_ets_prio_band(&cfg, 5), 0);
	assert_int_equal(arb_ets_prio_band(&cfg, 3), 1);
}

/* dcb -j (iproute2's JSON shapes): the same port as ets-strict-2to1. */
static void test_dcb(void **state)
{
	static const char *const files[] = { "dcb-ets-strict-2to1.app.json",
					     "dcb-ets-strict-2to1.ets.json", NULL };
	struct arb_config dcb, ets;
	struct qosconf_opts opts;
	enum qosconf_format format;

	(void)state;
	qosconf_opts_init(&opts);
	assert_int_equal(parse_files(files, &opts, &dcb, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_DCB);
	assert_int_equal(parse_text(ets_strict_2to1, QOSCONF_FORMAT_ETS, &ets), 0);
	assert_same_ets(&dcb, &ets);
	assert_int_equal(dcb.bands[1].quantum_bytes, 60);	/* tc_bw of class 1 */
	assert_int_equal(arb_ets_prio_band(&dcb, 5), 0);
	assert_int_equal(arb_ets_prio_band(&dcb, 3), 1);
	assert_int_equal(arb_ets_prio_band(&dcb, 0), 2);
}

/* What the JSON readers refuse, with the file and line. */
static void test_json_bad(void **state)
{
	static const struct {
		enum qosconf_format format;
		const char *text, *what;
	} cases[] = {
		{ QOSCONF_FORMAT_TC, "[]\n[{\"kind\":\"ets\",", "inline.txt:2: bad JSON" },
		{ QOSCONF_FORMAT_TC, "[{\"kind\":\"htb\",\"handle\":\"1:\"}]",
		  "inline.txt:1: no ets qdisc" },
		{ QOSCONF_FORMAT_TC, "[{\"kind\":\"u32\",\"pref\":1,\"options\":{}}]",
		  "filter kind 'u32'" },
		{ QOSCONF_FORMAT_TC, "[{\"kind\":\"flower\",\"pref\":1,\"options\":"
		  "{\"keys\":{\"dst_ip\":\"1.2.3.4\"},\"classid\":\"10:1\"}}]",
		  "matches on 'dst_ip'" },
		{ QOSCONF_FORMAT_TC, "[{\"kind\":\"ets\",\"handle\":\"10:\",\"options\":"
		  "{\"bands\":2,\"quanta\":[1500]}}]", "2 bands, 0 strict, but 1 quanta" },
		{ QOSCONF_FORMAT_DCB, "{\"tc_tsa\":[\"vendor\"]}", "expected 8 values" },
		{ QOSCONF_FORMAT_DCB, "{\"dscp_prio\":[[64,1,\" \"]]}", "expected [DSCP 0-63" },
		{ QOSCONF_FORMAT_DCB, "{\"dscp_prio\":[]}", "no 'dcb -j ets show' output" },
	};
	struct arb_config cfg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_text(cases[i].text, cases[i].format, &cfg), -EINVAL);
		if (!strstr(err, cases[i].what))
			fail_msg("case %zu: got '%s', expected '%s'", i, err, cases[i].what);
	}
}

/* Every format's name, from the table of readers, reads back as itself. */
static void test_format_names(void **state)
{
	static const char *const names[] = { "auto", "opensm", "smpquery",
					     "table", "ets", "tc", "dcb" };
	enum qosconf_format f, back;

	(void)state;
	for (f = QOSCONF_FORMAT_AUTO; f < QOSCONF_FORMAT_COUNT; f++) {
		assert_string_equal(qosconf_format_name(f), names[f]);
		assert_int_equal(qosconf_format_parse(names[f], &back), 0);
		assert_int_equal(back, f);
	}
	assert_int_equal(qosconf_format_parse("tables", &back), -EINVAL);
}

static void test_parse_list(void **state)
{
	uint8_t v[16];
	int n;

	(void)state;
	assert_int_equal(qosconf_lex_list("0,1, 0x2", 0, 15, 16, v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[2], 2);
	assert_int_equal(qosconf_lex_list("0,16", 0, 15, 16, v, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "16 out of range"));
	assert_int_equal(qosconf_lex_list("0,x", 0, 15, 16, v, &n, err, sizeof(err)), -EINVAL);
}

/* Each bad fixture fails and names the file, the line, and the value. */
static const struct {
	const char *name;
	int line;		/* 0: any */
	const char *what;
} bad_cases[] = {
	{ "bad-malformed.txt", 3, "malformed" },
	{ "bad-vl.txt", 2, "VL 16 out of range" },
	{ "bad-weight.txt", 2, "weight 300 out of range" },
	{ "bad-entries.txt", 66, "more than 64 entries" },
	{ "bad-table-key.txt", 2, "unknown table 'medium'" },
	{ "bad-key.txt", 4, "unknown key 'qos_vlarb_hi'" },
	{ "bad-empty.txt", 1, "empty" },
	{ "bad-truncated.txt", 6, "truncated" },
	{ "bad-truncated-row.txt", 4, "truncated" },
	{ "bad-ets-band.txt", 4, "band 3" },
	{ "bad-ets-nodefault.txt", 0, "default" },
	{ "bad-ets-order.txt", 2, "strict bands come first" },
};

static void test_bad_inputs(void **state)
{
	struct arb_config cfg;
	enum qosconf_format format;
	char where[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		if (bad_cases[i].line)
			snprintf(where, sizeof(where), "%s:%d: ", bad_cases[i].name,
				 bad_cases[i].line);
		else
			snprintf(where, sizeof(where), "%s:", bad_cases[i].name);
		assert_int_equal(parse_one(bad_cases[i].name, &cfg, &format), -EINVAL);
		if (strncmp(err, where, strlen(where)) ||
		    !strstr(err, bad_cases[i].what))
			fail_msg("got '%s', expected '%s...%s'", err, where,
				 bad_cases[i].what);
	}
}

static void test_bad_inline(void **state)
{
	struct arb_config cfg;

	(void)state;
	assert_int_equal(parse_text("qos FALSE\nqos_sl2vl 0,1,2\n",
				    QOSCONF_FORMAT_OPENSM, &cfg), -EINVAL);
	assert_non_null(strstr(err, "inline.txt:2: qos is 'FALSE', not TRUE: "
			       "OpenSM 3.3.23 programs no QoS"));
	assert_int_equal(parse_text("qos true\n", QOSCONF_FORMAT_OPENSM, &cfg),
			 -EINVAL);
	assert_non_null(strstr(err, "qos is 'true', not TRUE"));
	assert_int_equal(parse_text("qos_vlarb_high 0:1\n", QOSCONF_FORMAT_OPENSM,
				    &cfg), -EINVAL);
	assert_non_null(strstr(err, "no 'qos TRUE'"));
	assert_int_equal(parse_text("band 0 strict\nband 2 drr 10\ndefault 0\n",
				    QOSCONF_FORMAT_ETS, &cfg), -EINVAL);
	assert_non_null(strstr(err, "inline.txt:2: band 2 out of order"));
	assert_int_equal(parse_text("# nothing\n", QOSCONF_FORMAT_TABLE, &cfg),
			 -EINVAL);
	assert_non_null(strstr(err, "inline.txt:1: empty"));
	assert_int_equal(parse_text("WEIGHT: |0x4 |\n", QOSCONF_FORMAT_SMPQUERY,
				    &cfg), -EINVAL);
	assert_non_null(strstr(err, "inline.txt:1: WEIGHT row without"));
}

/* The warning list of @cfg has one containing @what. */
static bool has_warning(const struct arb_config *cfg, const char *what)
{
	int i;

	for (i = 0; i < cfg->n_warnings; i++)
		if (strstr(cfg->warnings[i], what))
			return true;
	return false;
}

/*
 * Input OpenSM 3.3.23 accepts with its own reading (osm_qos.c,
 * osm_subnet.c): the tables are what it programs, each change warned.
 */
static void test_opensm_reading(void **state)
{
	struct arb_config cfg;

	(void)state;
	assert_int_equal(parse_text("qos TRUE\nqos_vlarb_high 15:300,2:4\n"
				    "qos_sl2vl \"0,1,2\"\n", QOSCONF_FORMAT_OPENSM,
				    &cfg), 0);
	assert_int_equal(cfg.high.n_entries, 2);
	assert_int_equal(cfg.high.entries[0].vl, 0);		/* 15 % 15 */
	assert_int_equal(cfg.high.entries[0].weight, 44);	/* 300 & 0xff */
	assert_int_equal(cfg.sl2vl[2], 2);
	assert_int_equal(cfg.sl2vl[3], 0);			/* short list */
	assert_true(has_warning(&cfg, "VL 15 is programmed as VL0"));
	assert_true(has_warning(&cfg, "weight 300 is programmed as 44"));
	assert_true(has_warning(&cfg, "maps SL3-SL15 to VL0"));

	/* A blank before a comma: a number, then one character skipped. */
	assert_int_equal(parse_text("qos TRUE\nqos_vlarb_low 0:4 ,1:8\n",
				    QOSCONF_FORMAT_OPENSM, &cfg), 0);
	assert_int_equal(cfg.low.n_entries, 3);
	assert_int_equal(cfg.low.entries[1].vl, 0);
	assert_int_equal(cfg.low.entries[1].weight, 1);
	assert_int_equal(cfg.low.entries[2].vl, 8);
	assert_true(has_warning(&cfg, "OpenSM reads it as 0:4,0:1,8:0"));

	/* Blanks as separators read as the writer meant: no warning. */
	assert_int_equal(parse_text("qos TRUE\nqos_vlarb_low 0:4 1:8\n",
				    QOSCONF_FORMAT_OPENSM, &cfg), 0);
	assert_int_equal(cfg.low.n_entries, 2);
	assert_int_equal(cfg.low.entries[1].weight, 8);
	assert_false(has_warning(&cfg, "OpenSM reads it"));

	/* Out-of-range limit: the default; qos_max_vls unused; sw2sw: swe. */
	assert_int_equal(parse_text("qos TRUE\nqos_high_limit 300\nqos_max_vls 4\n"
				    "qos_sw2sw_vlarb_high 1:1\n",
				    QOSCONF_FORMAT_OPENSM, &cfg), 0);
	assert_int_equal(cfg.limit, 0);
	assert_int_equal(cfg.oper_vls, 15);
	assert_true(has_warning(&cfg, "qos_high_limit 300 is out of range"));
	assert_true(has_warning(&cfg, "qos_max_vls 4: OpenSM 3.3.23 does not use it"));
	assert_true(has_warning(&cfg, "has no sw2sw keys"));
	assert_int_equal(cfg.high.entries[0].weight, 4);	/* the default */
}

/* The port's caps and operational VLs, from options: cut and masked. */
static void test_opensm_port(void **state)
{
	struct qosconf_source src = { "inline.txt",
		"qos TRUE\nmax_op_vls 3\n"
		"qos_vlarb_high 0:1,1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1\n"
		"qos_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n" };
	struct qosconf_port port = { .known = true, .vl_cap = 8, .oper_vls = 4,
				     .high_cap = 8, .low_cap = 64 };
	struct qosconf_opts opts;
	enum qosconf_format format;
	struct arb_config cfg;
	char long_low[1024];
	int i, at = 0;

	(void)state;
	qosconf_opts_init(&opts);
	opts.port = &port;
	assert_int_equal(qosconf_parse(&src, 1, &opts, &cfg, &format, err,
				       sizeof(err)), 0);
	assert_int_equal(cfg.high.n_entries, 8);
	assert_int_equal(cfg.high.entries[5].vl, 1);		/* 5 & 3 */
	assert_int_equal(cfg.sl2vl[7], 3);
	assert_int_equal(cfg.sl2vl[15], 15);			/* VL15 kept */
	assert_int_equal(cfg.oper_vls, 4);
	assert_true(has_warning(&cfg, "lists 10 entries, the port holds 8"));
	assert_true(has_warning(&cfg, "entry 6 (VL5 as VL1)"));
	assert_true(has_warning(&cfg, "SL7 (VL7 as VL3)"));

	/* A 64-entry port: OpenSM 3.3.23 writes the second block as zeros. */
	at = snprintf(long_low, sizeof(long_low), "qos TRUE\nqos_vlarb_low ");
	for (i = 0; i < 40; i++)
		at += snprintf(long_low + at, sizeof(long_low) - at, "%s1:2",
			       i ? "," : "");
	snprintf(long_low + at, sizeof(long_low) - at, "\n");
	src.text = long_low;
	assert_int_equal(qosconf_parse(&src, 1, &opts, &cfg, &format, err,
				       sizeof(err)), 0);
	assert_int_equal(cfg.low.n_entries, 64);
	assert_int_equal(cfg.low.entries[31].weight, 2);
	assert_int_equal(cfg.low.entries[32].weight, 0);
	assert_true(has_warning(&cfg, "entries 33-64 are programmed as 0:0"));
}

/*
 * Captures from the real tools (tests/data/ib): every line smpquery
 * printed is accepted, and what cannot be one port's description is
 * refused with a message that says why.
 */
static void test_smpquery_captured(void **state)
{
	const char *ca[] = { "ib/config-a.2-1.txt", NULL };
	const char *two[] = { "ib/config-a.1-1.txt", "ib/config-a.2-1.portinfo.txt",
			      NULL };
	const char *base0[] = { "ib/config-a.3-0.txt", NULL };
	const char *conf_port[] = { "../ib/conf/02-config-a.conf",
				    "ib/config-a.1-1.portinfo.txt", NULL };
	struct qosconf_opts opts;
	struct arb_config cfg;
	enum qosconf_format format;

	(void)state;
	qosconf_opts_init(&opts);
	assert_int_equal(parse_files(ca, &opts, &cfg, &format), 0);
	assert_int_equal(cfg.high.n_entries, 8);
	assert_int_equal(cfg.high.cap, 8);
	assert_int_equal(cfg.low.cap, 8);
	assert_int_equal(cfg.oper_vls, 8);

	assert_int_equal(parse_files(two, &opts, &cfg, &format), -EINVAL);
	assert_non_null(strstr(err, "captures of different ports: lid 2 port 1 "
			       "here, lid 1 port 1 at ib/config-a.1-1.txt:1"));

	assert_int_equal(parse_files(base0, &opts, &cfg, &format), -EINVAL);
	assert_non_null(strstr(err, "ib/config-a.3-0.txt:1: the port has no VL "
			       "arbitration tables"));

	opts.in_port = 12;
	assert_int_equal(parse_files(ca + 0, &opts, &cfg, &format), -EINVAL);
	assert_non_null(strstr(err, "no SL2VL row for input port 12: the capture "
			       "has input ports up to 0"));

	/* An opensm.conf with the port's portinfo: its caps and OperVLs. */
	qosconf_opts_init(&opts);
	assert_int_equal(parse_files(conf_port, &opts, &cfg, &format), 0);
	assert_int_equal(format, QOSCONF_FORMAT_OPENSM);
	assert_int_equal(cfg.high.n_entries, 8);
	assert_int_equal(cfg.oper_vls, 8);
	assert_true(has_warning(&cfg, "lists 64 entries, the port holds 8"));
}

/*
 * Inputs the fuzzer found (tests/fuzz/regressions): each is refused with
 * a message, never read past its end.
 */
static void test_fuzz_findings(void **state)
{
	static const char *const smp_ports[] = {
		"ports:",		/* read past the line, then NULL + 1 */
		"ports:  i",
		"ports: in 0, out 1 | 0| 1|",
		"ports: out 1: | 0|",
	};
	struct arb_config cfg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(smp_ports) / sizeof(smp_ports[0]); i++) {
		assert_int_equal(parse_text(smp_ports[i], QOSCONF_FORMAT_SMPQUERY,
					    &cfg), -EINVAL);
		assert_non_null(strstr(err, "inline.txt:1: malformed SL2VL line"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_a_three_ways),
		cmocka_unit_test(test_opensm_node_types),
		cmocka_unit_test(test_opensm_defaults),
		cmocka_unit_test(test_opensm_reading),
		cmocka_unit_test(test_opensm_port),
		cmocka_unit_test(test_smpquery_captured),
		cmocka_unit_test(test_smpquery_in_port),
		cmocka_unit_test(test_ets),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_tc),
		cmocka_unit_test(test_tc_skbedit),
		cmocka_unit_test(test_tc_band_bytes),
		cmocka_unit_test(test_dcb),
		cmocka_unit_test(test_json_bad),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_parse_list),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_bad_inline),
		cmocka_unit_test(test_fuzz_findings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
