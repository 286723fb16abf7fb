/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* lat and server reports: the JSON shape the man pages document. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"
#include "base/jsonfile.h"
#include "engine/probe.h"
#include "report/reference.h"
#include "report/report_lat.h"
#include "report/report_lat_int.h"
#include "report/report_bw.h"
#include "report/report_bw_int.h"
#include "report/report_server.h"
#include "report/report_analyze.h"
#include "engine/sink.h"

static const struct clock_cal clk_2ghz = {
	.source = CLOCK_SRC_TSC, .ticks_per_ns = 2.0, .uncertainty_ppm = 1.5, .method = "test",
};

static const struct lat_report_info info = {
	.server = "h2", .device = "rxe0", .port = 1, .gid_index = 1, .roce = true, .mtu = "1024",
	.path = { .sl = 3, .tclass = 32, .timeout = 20, .retry = 7 },
	.clk = &clk_2ghz, .threads = 1, .iterations = 4, .warmup = 1,
};

/* 4 samples at 64 B: RTT 1000..4000 ticks (0.5..2 us), one loopback late. */
static void fill(struct flow_result *r)
{
	uint64_t v;

	assert_int_equal(flow_result_init(r, 64), 0);
	for (v = 1000; v <= 3000; v += 1000) {
		hist_record(r->rtt, v);
		hist_record(r->wire, v + 400);
		hist_record(r->loop, 400);
	}
	hist_record(r->rtt, 0);
	hist_record(r->rtt_neg, 200);
	hist_record(r->wire, 300);
	hist_record(r->loop, 500);
	r->loop_after_wire = 1;
	r->samples = 4;
}

static void test_lat_json_shape(void **state)
{
	static const char *const stats[] = { "count", "min", "max", "mean", "stdev", "p50",
					     "p90", "p99", "p99_9", "p99_99" };
	static const char *const hists[] = { "rtt_ns", "wire_ns", "loopback_ns",
					     "negative_rtt_ns" };
	struct flow_result r;
	json_t *doc, *res, *h;
	size_t i, j;

	(void)state;
	fill(&r);
	doc = report_lat_json(&info, &r, 1, NULL);
	assert_string_equal(json_string_value(json_object_get(doc, "command")), "lat");
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), 2);
	assert_true(json_is_true(json_object_get(doc, "complete")));
	assert_true(json_is_null(json_object_get(doc, "error")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "config"), "sl")), 3);
	assert_near(json_real_value(json_object_get(json_object_get(doc, "clock"), "ticks_per_ns")),
		    2.0, 0);
	assert_int_equal(json_array_size(json_object_get(doc, "results")), 1);
	res = json_array_get(json_object_get(doc, "results"), 0);
	assert_int_equal(json_integer_value(json_object_get(res, "size_bytes")), 64);
	assert_int_equal(json_integer_value(json_object_get(res, "samples")), 4);
	assert_int_equal(json_integer_value(json_object_get(res, "loopback_after_wire")), 1);
	for (i = 0; i < 4; i++) {
		h = json_object_get(res, hists[i]);
		assert_non_null(h);
		for (j = 0; j < 10; j++)
			if (!json_object_get(h, stats[j]))
				fail_msg("%s lacks %s", hists[i], stats[j]);
	}
	/* Ticks became ns: 3000 ticks at 2 GHz is 1500 ns. */
	h = json_object_get(res, "rtt_ns");
	assert_near(json_real_value(json_object_get(h, "max")), 1500, 1.5);
	/* One RTT unresolved: no min, mean or stdev; 4 samples support no percentile. */
	assert_true(json_is_null(json_object_get(h, "min")));
	assert_true(json_is_null(json_object_get(h, "mean")));
	assert_int_equal(json_integer_value(json_object_get(h, "unresolved")), 1);
	assert_true(json_is_null(json_object_get(h, "p50")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(h,
			    "percentiles"), "p50"), "state")), "too_few_samples");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(h,
			 "percentiles"), "p50"), "samples_needed")), 20);
	assert_int_equal(json_integer_value(json_object_get(h, "count")), 4);
	/* The wire has no unresolved samples: its min is a figure. */
	assert_near(json_real_value(json_object_get(json_object_get(res, "wire_ns"), "min")), 150,
		    0.1);
	assert_near(json_real_value(json_object_get(json_object_get(res, "negative_rtt_ns"), "max")),
		    100, 0.1);
	json_decref(doc);
	flow_result_release(&r);
}

/*
 * --clock both: 100 host RTTs of 1000 ticks (500 ns at 2 GHz) and 100 NIC
 * RTTs of 240 ticks of a 500 MHz clock (480 ns): the document has the
 * NIC's clock, its RTT in ns and NIC minus host (-20 ns at p50; p99 is
 * too few samples at 100, so no figure); the table has
 * both blocks and the difference; the receiver fell behind and says so.
 */
static void test_lat_nic_clock_both(void **state)
{
	static const struct clock_cal nic = { .source = CLOCK_SRC_NIC, .ticks_per_ns = 0.5,
					      .method = "hca_core_clock" };
	struct lat_report_info in = info;
	struct flow_result r;
	char *buf = NULL;
	size_t len = 0;
	json_t *doc, *res;
	FILE *f;
	int i;

	(void)state;
	in.rtt_clock = FLOW_RTT_BOTH;
	in.nic_clk = &nic;
	assert_int_equal(flow_result_init(&r, 64), 0);
	assert_int_equal(flow_result_init_nic(&r), 0);
	for (i = 0; i < 100; i++) {
		hist_record(r.rtt, 1000);
		hist_record(r.rtt_nic, 240);
	}
	r.samples = 100;
	r.rx_rnr_naks_sent = 3;
	doc = report_lat_json(&in, &r, 1, NULL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "nic_clock"),
							      "source")), "nic");
	/* Its resolution, as the host clock's: 2 ns a tick at 500 MHz. */
	assert_near(json_real_value(json_object_get(json_object_get(doc, "nic_clock"),
						    "ns_per_tick")), 2.0, 1e-9);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "config"),
							      "rtt_clock")), "both");
	res = json_array_get(json_object_get(doc, "results"), 0);
	assert_near(json_real_value(json_object_get(json_object_get(res, "rtt_nic_ns"), "p50")),
		    480, 0.5);
	assert_near(json_real_value(json_object_get(json_object_get(res, "nic_minus_host_ns"),
						    "p50")), -20, 0.5);
	assert_true(json_is_true(json_object_get(json_object_get(res, "receiver"), "fell_behind")));
	json_decref(doc);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_lat_table(f, &in, &r, 1);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "RTT = (T_W - T_PW) - (T_L - T_PL), us"));
	assert_non_null(strstr(buf, "RTT by the NIC's completion timestamps, us"));
	assert_non_null(strstr(buf, "size 64: NIC minus host, p50 -0.020 us, p99 no figure"));
	assert_non_null(strstr(buf, "size 64: the receiver fell behind (its port: 3 RNR NAKs"));
	free(buf);
	flow_result_release(&r);
}

/* 1000 RTTs, 600 of them unresolved (0), the rest 1..400 us at 2 GHz. */
static void fill_unresolved(struct flow_result *r)
{
	uint64_t i;

	assert_int_equal(flow_result_init(r, 64), 0);
	for (i = 0; i < 1000; i++) {
		hist_record(r->rtt, i < 600 ? 0 : (i - 599) * 2000);
		hist_record(r->wire, 1000000 + i);
		hist_record(r->loop, 500);
	}
	r->loop_after_wire = 600;
	r->samples = 1000;
}

/* A percentile at or below the unresolved fraction is null with its reason;
 * above, a figure (a lower bound: the 600 placeholders could lie above it,
 * so its interval has no high end); p99.9 of 1000 is too few. */
static void test_lat_unresolved_json(void **state)
{
	struct flow_result r;
	json_t *doc, *h, *p;

	(void)state;
	fill_unresolved(&r);
	doc = report_lat_json(&info, &r, 1, NULL);
	h = json_object_get(json_array_get(json_object_get(doc, "results"), 0), "rtt_ns");
	assert_int_equal(json_integer_value(json_object_get(h, "unresolved")), 600);
	assert_true(json_is_null(json_object_get(h, "p50")));
	assert_true(json_is_null(json_object_get(h, "min")));
	p = json_object_get(json_object_get(h, "percentiles"), "p50");
	assert_string_equal(json_string_value(json_object_get(p, "state")), "unresolved");
	assert_non_null(strstr(json_string_value(json_object_get(p, "reason")), "loopback"));
	/* p90: rank 900, the sample i = 899: (899 - 599) * 2000 ticks = 300 us, in its interval. */
	assert_near(json_real_value(json_object_get(h, "p90")), 300000, 300000 * HIST_REL_ERROR);
	p = json_object_get(json_object_get(h, "percentiles"), "p90");
	assert_true(json_real_value(json_object_get(p, "ci_low_ns")) <= 300000);
	assert_true(json_is_true(json_object_get(p, "lower_bound")));
	assert_true(json_is_null(json_object_get(p, "ci_high_ns")));
	p = json_object_get(json_object_get(h, "percentiles"), "p99_9");
	assert_string_equal(json_string_value(json_object_get(p, "state")), "too_few_samples");
	assert_int_equal(json_integer_value(json_object_get(p, "samples_needed")), 10000);
	assert_true(json_is_null(json_object_get(h, "p99_9")));
	json_decref(doc);
	flow_result_release(&r);
}

/* The table prints words, not 0.000, and says how many and why. */
static void test_lat_unresolved_table(void **state)
{
	struct lat_report_info ci_info = info;
	struct flow_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	fill_unresolved(&r);
	ci_info.ci = true;
	f = open_memstream(&buf, &len);
	report_lat_table(f, &ci_info, &r, 1);
	fclose(f);
	assert_non_null(strstr(buf, "unresolved"));
	assert_non_null(strstr(buf, "too few"));
	assert_non_null(strstr(buf, "size 64: 600 of 1000 samples (60.0 %) unresolved"));
	assert_non_null(strstr(buf, "size 64: p99_9 needs 10000 samples (1000 measured)"));
	assert_non_null(strstr(buf, "95 % confidence intervals"));
	assert_null(strstr(buf, " 0.000 "));
	free(buf);
	flow_result_release(&r);
}

/*
 * A criterion on an unresolved percentile fails as not judged; so does a
 * maximum on a lower bound whose interval has no high end (p99 above 600
 * unresolved of 1000). With 5 unresolved of 1000 (1 .. 995 us), p50 is
 * about 495 us, a lower bound, and max_p50 judges its interval's high end
 * (rank 532 + 5, about 532 us): 520 us fails, 600 passes.
 */
static void test_lat_criterion_unresolved(void **state)
{
	struct criteria cs = { 0 };
	struct flow_result r;
	char line[256];
	uint64_t i;

	(void)state;
	fill_unresolved(&r);
	criterion_judge_rtt(criteria_add(&cs, "max_p50", CRITERION_MAX, "us", 1e9, "size 64"),
			 r.rtt, 50, &clk_2ghz);
	criterion_judge_rtt(criteria_add(&cs, "max_p99", CRITERION_MAX, "us", 1e9, "size 64"),
			 r.rtt, 99, &clk_2ghz);
	assert_false(cs.c[0].passed);
	assert_false(cs.c[0].measured);
	report_criterion_line(&cs.c[0], line, sizeof(line));
	assert_non_null(strstr(line, "cannot be judged, p50 is unresolved"));
	assert_false(cs.c[1].passed);
	assert_false(cs.c[1].measured);
	report_criterion_line(&cs.c[1], line, sizeof(line));
	assert_non_null(strstr(line, "p99 is a lower bound"));
	flow_result_release(&r);
	assert_int_equal(flow_result_init(&r, 64), 0);
	for (i = 0; i < 1000; i++)
		hist_record(r.rtt, i < 5 ? 0 : (i - 4) * 2000);
	cs.n = 0;
	criterion_judge_rtt(criteria_add(&cs, "max_p50", CRITERION_MAX, "us", 520, "size 64"),
			 r.rtt, 50, &clk_2ghz);
	criterion_judge_rtt(criteria_add(&cs, "max_p50", CRITERION_MAX, "us", 600, "size 64"),
			 r.rtt, 50, &clk_2ghz);
	criterion_judge_rtt(criteria_add(&cs, "min_p50", CRITERION_MIN, "us", 490, "size 64"),
			 r.rtt, 50, &clk_2ghz);
	assert_true(cs.c[0].measured);
	assert_true(cs.c[0].value > 520 && cs.c[0].value < 540);
	assert_false(cs.c[0].passed);
	assert_true(cs.c[1].passed);
	/* A minimum judges the value itself: its lower bound is conservative. */
	assert_true(cs.c[2].value > 490 && cs.c[2].value < 500);
	assert_true(cs.c[2].passed);
	flow_result_release(&r);
}

/* Property names of @schema's $defs/@def, as a JSON object (borrowed). */
static json_t *schema_props(json_t *schema, const char *def)
{
	return json_object_get(json_object_get(json_object_get(schema, "$defs"), def),
			       "properties");
}

/*
 * The summary's description (report_hist_fields) and the schema's hist_ns
 * name the same figures: every field is a property, every percentile has
 * its entry in "percentiles", and every property of hist_ns is a field or
 * one of the four the summary adds.
 */
static void test_hist_fields_match_schema(void **state)
{
	static const char *const extra[] = { "unresolved", "percentiles", "confidence",
					     "resolution" };
	const struct report_field *f;
	json_t *schema, *props, *pcts, *v;
	const char *key;
	size_t n, i, found;

	(void)state;
	schema = unit_schema_load("common.schema.json");
	props = schema_props(schema, "hist_ns");
	pcts = json_object_get(json_object_get(props, "percentiles"), "properties");
	f = report_hist_fields(&n);
	for (i = 0; i < n; i++) {
		if (!json_object_get(props, f[i].key))
			fail_msg("field %s is not in schema hist_ns", f[i].key);
		if (f[i].stat == RF_PCT && !json_object_get(pcts, f[i].key))
			fail_msg("percentile %s is not in schema hist_ns.percentiles", f[i].key);
	}
	json_object_foreach(props, key, v) {
		for (found = 0, i = 0; i < n; i++)
			found += !strcmp(f[i].key, key);
		for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
			found += !strcmp(extra[i], key);
		if (found != 1)
			fail_msg("schema hist_ns property %s is not described once", key);
	}
	assert_int_equal(json_object_size(pcts), 5);
	json_decref(schema);
	/* A figure is found by its key; a key the summary has not, is not. */
	for (i = 0; i < n; i++)
		assert_ptr_equal(report_hist_field(f[i].key), &f[i]);
	assert_null(report_hist_field("p98"));
}

/* The description's list @l carries @key in all of @kinds (@want) or in none. */
static void analyze_key_kinds(int l, const char *key, unsigned kinds, bool want, const char *why)
{
	const struct report_field *f;
	size_t n, i;
	bool seen = false;

	f = report_analyze_fields(l, &n);
	for (i = 0; i < n; i++) {
		if (!f[i].key || strcmp(f[i].key, key))
			continue;
		seen = true;
		if (want ? (f[i].kinds & kinds) != kinds : (f[i].kinds & kinds) != 0)
			fail_msg("field %s: kinds 0x%x, but the schema %s it for 0x%x", key,
				 f[i].kinds, why, kinds);
	}
	if (want && !seen)
		fail_msg("field %s: not described, but the schema %s it", key, why);
}

/* @items (a list's "items" in analyze.schema.json): its "required" keys,
 * and those its "not" refuses, against what list @l carries for @kinds. */
static void analyze_items_kinds(json_t *items, int l, unsigned kinds)
{
	json_t *not = json_object_get(items, "not"), *any, *k, *alt;
	size_t i, j;

	json_array_foreach(json_object_get(items, "required"), i, k)
		analyze_key_kinds(l, json_string_value(k), kinds, true, "requires");
	json_array_foreach(json_object_get(not, "required"), i, k)
		analyze_key_kinds(l, json_string_value(k), kinds, false, "refuses");
	any = json_object_get(not, "anyOf");
	json_array_foreach(any, j, alt)
		json_array_foreach(json_object_get(alt, "required"), i, k)
			analyze_key_kinds(l, json_string_value(k), kinds, false, "refuses");
}

/* The "properties" of @node's "sls" or "vls" items, down @path of
 * if/then/else ("else", "then", ...; NULL-terminated). */
static json_t *analyze_branch_items(json_t *node, const char *const *path, const char *list)
{
	for (; *path; path++)
		node = json_object_get(node, *path);
	return json_object_get(json_object_get(json_object_get(node, "properties"), list),
			       "items");
}

/*
 * What each kind's JSON carries, against the schema's branches: ETS
 * (else/then), InfiniBand (else/else), DTable (else/else/then), VLArb
 * (else/else/else); and every list's required keys in every kind that has
 * the list.
 */
static void analyze_kinds_match_schema(json_t *schema)
{
	static const char *const ets[] = { "else", "then", NULL };
	static const char *const ib[] = { "else", "else", NULL };
	static const char *const dt[] = { "else", "else", "then", NULL };
	static const char *const vlarb[] = { "else", "else", "else", NULL };
	json_t *defs = json_object_get(schema, "$defs");
	json_t *items;

	analyze_items_kinds(json_object_get(defs, "sl"), RA_SLS, RA_ALL);
	analyze_items_kinds(json_object_get(defs, "vl"), RA_VLS, RA_ALL);
	analyze_items_kinds(json_object_get(defs, "band"), RA_BANDS, 1u << RA_ETS);
	assert_non_null(items = analyze_branch_items(schema, ets, "sls"));
	analyze_items_kinds(items, RA_SLS, 1u << RA_ETS);
	assert_non_null(items = analyze_branch_items(schema, ets, "vls"));
	analyze_items_kinds(items, RA_VLS, 1u << RA_ETS);
	assert_non_null(items = analyze_branch_items(schema, ib, "sls"));
	analyze_items_kinds(items, RA_SLS, (1u << RA_VLARB) | (1u << RA_DTABLE));
	assert_non_null(items = analyze_branch_items(schema, dt, "vls"));
	analyze_items_kinds(items, RA_VLS, 1u << RA_DTABLE);
	assert_non_null(items = analyze_branch_items(schema, vlarb, "vls"));
	analyze_items_kinds(items, RA_VLS, 1u << RA_VLARB);
}

/*
 * analyze's rows (table, JSON and CSV from one list per row) and
 * analyze.schema.json's sl, vl and band: every key a kind carries is a
 * property, every property is carried by one field, every column of the
 * table reads a field that has a key, and each kind carries what the
 * schema's branch for it requires and none of what it refuses.
 */
static void test_analyze_fields_match_schema(void **state)
{
	static const char *const defs[RA_N_LISTS] = { "sl", "vl", "band" };
	const struct report_field *f;
	const char *key;
	json_t *schema, *props, *v;
	size_t n, i, found;
	int l, kind;

	(void)state;
	schema = unit_schema_load("analyze.schema.json");
	for (l = 0; l < RA_N_LISTS; l++) {
		props = schema_props(schema, defs[l]);
		assert_non_null(props);
		f = report_analyze_fields(l, &n);
		for (i = 0; i < n; i++) {
			if (f[i].key && !json_object_get(props, f[i].key))
				fail_msg("%s field %s is not in analyze.schema.json's %s",
					 defs[l], f[i].key, defs[l]);
			for (kind = 0; kind < RA_N_KINDS; kind++)
				if (f[i].head[kind] && (!report_field_reads(&f[i]) || !f[i].width))
					fail_msg("%s column %s reads no field", defs[l], f[i].head[kind]);
		}
		json_object_foreach(props, key, v) {
			for (found = 0, i = 0; i < n; i++)
				found += f[i].key && !strcmp(f[i].key, key);
			if (found != 1)
				fail_msg("analyze.schema.json's %s property %s is not described once",
					 defs[l], key);
		}
	}
	analyze_kinds_match_schema(schema);
	json_decref(schema);
}

/* bw's rate figures (JSON, CSV and table from one list) are the schema's rate. */
static void test_bw_rate_fields_match_schema(void **state)
{
	const char *key;
	json_t *schema, *props;
	size_t i;

	(void)state;
	schema = unit_schema_load("bw.schema.json");
	props = schema_props(schema, "rate");
	for (i = 0; (key = report_bw_rate_key(i)); i++)
		if (!json_object_get(props, key))
			fail_msg("rate field %s is not in bw.schema.json's rate", key);
	assert_int_equal(i, json_object_size(props));
	json_decref(schema);
}

/*
 * The fields @f[0..n) (@what) and the schema's properties @props name the
 * same keys: each field is a property, and each property is a field or
 * one of @extra (NULL-ended: what another part of the document adds).
 */
static void fields_match_props(const struct report_field *f, size_t n, json_t *props,
			       const char *const *extra, const char *what)
{
	const char *key;
	json_t *v;
	size_t i, found;

	assert_non_null(props);
	for (i = 0; i < n; i++)
		if (!json_object_get(props, f[i].key))
			fail_msg("%s field %s is not in the schema", what, f[i].key);
	json_object_foreach(props, key, v) {
		for (found = 0, i = 0; i < n; i++)
			found += !strcmp(f[i].key, key);
		for (i = 0; extra && extra[i]; i++)
			found += !strcmp(extra[i], key);
		if (found != 1)
			fail_msg("%s: the schema's property %s is not described once", what, key);
	}
}

/* The schema's property @name of object @o's properties. */
static json_t *props_of(json_t *o, const char *name)
{
	return json_object_get(json_object_get(json_object_get(o, "properties"), name),
			       "properties");
}

/*
 * lat's and bw's config and results are described once (report_lat_fields,
 * report_bw_fields), each list held against its schema: the flow's config
 * (common flow_config), what lat's and bw's configs add, a lat size's
 * result (but for the NIC's and the reference's keys, which the size's
 * JSON adds), and bw's total.
 */
static void test_doc_fields_match_schema(void **state)
{
	static const char *const result_extra[] = { "rtt_nic_ns", "nic_minus_host_ns", "reference",
						    NULL };
	const struct report_field *f;
	json_t *common, *lat, *bw;
	size_t n;

	(void)state;
	common = unit_schema_load("common.schema.json");
	lat = unit_schema_load("lat.schema.json");
	bw = unit_schema_load("bw.schema.json");
	f = report_lat_fields(RL_FLOW_CONFIG, &n);
	fields_match_props(f, n, schema_props(common, "flow_config"), NULL, "flow config");
	f = report_lat_fields(RL_LAT_CONFIG, &n);
	fields_match_props(f, n, props_of(lat, "config"), NULL, "lat config");
	f = report_lat_fields(RL_RESULT, &n);
	fields_match_props(f, n, schema_props(lat, "result"), result_extra, "lat result");
	f = report_bw_fields(RB_CONFIG, &n);
	fields_match_props(f, n, props_of(bw, "config"), NULL, "bw config");
	f = report_bw_fields(RB_TOTAL, &n);
	fields_match_props(f, n, props_of(bw, "total"), NULL, "bw total");
	json_decref(common);
	json_decref(lat);
	json_decref(bw);
}

static void test_lat_json_partial(void **state)
{
	struct flow_result r;
	json_t *doc, *res;

	(void)state;
	fill(&r);
	r.status = -ECONNRESET;
	doc = report_lat_json(&info, &r, 1, "server 'h2' went away");
	assert_true(json_is_false(json_object_get(doc, "complete")));
	assert_string_equal(json_string_value(json_object_get(doc, "error")), "server 'h2' went away");
	res = json_array_get(json_object_get(doc, "results"), 0);
	assert_true(json_is_false(json_object_get(res, "complete")));
	json_decref(doc);
	flow_result_release(&r);
}

static void test_json_write_atomic(void **state)
{
	char dir[] = "/tmp/rperf-test-XXXXXX", path[64], err[128];
	json_t *doc = json_pack("{s:i}", "a", 1), *back;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(jsonfile_write(doc, path, err, sizeof(err)), 0);
	back = json_load_file(path, 0, NULL);
	assert_non_null(back);
	assert_true(json_equal(doc, back));
	snprintf(path, sizeof(path), "%s/missing/out.json", dir);
	assert_int_not_equal(jsonfile_write(doc, path, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "missing"));
	json_decref(back);
	json_decref(doc);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * A write that fails half way (here the file size limit, as a full disk
 * would) says why, leaves the previous file whole and no temporary file.
 */
static void test_json_write_fails_whole(void **state)
{
	char dir[] = "/tmp/rperf-test-XXXXXX", path[64], err[128];
	json_t *small = json_pack("{s:i}", "a", 1), *big = json_object(), *back;
	struct rlimit old, lim;
	struct dirent *de;
	int i, n = 0;
	DIR *d;

	(void)state;
	for (i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "key%d", i);
		json_object_set_new(big, path, json_string("0123456789abcdef"));
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(jsonfile_write(small, path, err, sizeof(err)), 0);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(jsonfile_write(big, path, err, sizeof(err)), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_non_null(strstr(err, "out.json"));
	assert_non_null(strstr(err, strerror(EFBIG)));
	back = json_load_file(path, 0, NULL);
	assert_non_null(back);
	assert_true(json_equal(small, back));
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 1);
	json_decref(back);
	json_decref(big);
	json_decref(small);
	unlink(path);
	rmdir(dir);
}

/* The check before a run: a missing directory is found, nothing is left. */
static void test_json_check(void **state)
{
	char dir[] = "/tmp/rperf-test-XXXXXX", path[64], err[128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(jsonfile_check(path, err, sizeof(err)), 0);
	assert_int_equal(rmdir(dir), 0);	/* empty: no temporary file left */
	assert_int_equal(jsonfile_check(path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "out.json"));
	assert_int_equal(jsonfile_check("-", err, sizeof(err)), 0);
}

/*
 * lat --csv: the header, then one row per sample numbered from the end of
 * the warmup, ticks as they are and intervals in ns at 0.1 ns, each SEND's
 * from its own post; a loopback completing after the wire gives a negative RTT.
 */
static void test_lat_csv_shape(void **state)
{
	const struct probe_sample early = { .index = 5, .t_p = 1000, .t_pw = 1000, .t_pl = 1040,
					    .t_l = 1440, .t_w = 3401 };
	const struct probe_sample late = { .index = 6, .t_p = 1000, .t_pw = 1060, .t_pl = 1000,
					   .t_l = 3400, .t_w = 1460 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_lat_csv_header(f);
	report_lat_csv_row(f, 0, 64, 1, &early, &clk_2ghz);
	report_lat_csv_row(f, 3, 4096, 1, &late, &clk_2ghz);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf,
			    "thread,size_bytes,sample,t_pw_ticks,t_l_ticks,t_w_ticks,wire_ns,"
			    "loopback_ns,rtt_ns,t_pl_ticks\n"
			    "0,64,4,1000,1440,3401,1200.5,200.0,1000.5,1040\n"
			    "3,4096,5,1060,3400,1460,200.0,1200.0,-1000.0,1000\n");
	free(buf);
}

/* @ev's @key equals @doc's @key (the same words in a stream and a document). */
static void assert_same(json_t *ev, const char *ekey, json_t *doc, const char *dkey)
{
	if (!json_equal(json_object_get(ev, ekey), json_object_get(doc, dkey)))
		fail_msg("event's %s is not the document's %s", ekey, dkey);
}

/*
 * lat --json-stream: "start" carries the document's head, config and
 * clock; "size" a result as the document has it; "end" how it ended.
 * Every event names its command (scripts/validate-json picks the
 * schema by it).
 */
static void test_lat_stream_events(void **state)
{
	struct flow_result r;
	json_t *doc, *ev;

	(void)state;
	fill(&r);
	doc = report_lat_json(&info, &r, 1, "server gone");
	ev = report_lat_event_start(&info);
	assert_string_equal(json_string_value(json_object_get(ev, "event")), "start");
	assert_same(ev, "command", doc, "command");
	assert_same(ev, "version", doc, "version");
	assert_same(ev, "schema_version", doc, "schema_version");
	assert_same(ev, "config", doc, "config");
	assert_same(ev, "clock", doc, "clock");
	assert_null(json_object_get(ev, "results"));
	json_decref(ev);
	ev = report_lat_event_size(&info, 3, &r);
	assert_string_equal(json_string_value(json_object_get(ev, "command")), "lat");
	assert_int_equal(json_integer_value(json_object_get(ev, "index")), 3);
	if (!json_equal(json_object_get(ev, "result"),
			json_array_get(json_object_get(doc, "results"), 0)))
		fail_msg("a size event's result is not the document's");
	json_decref(ev);
	ev = report_lat_event_end(&info, 1, "server gone");
	assert_string_equal(json_string_value(json_object_get(ev, "event")), "end");
	assert_int_equal(json_integer_value(json_object_get(ev, "sizes")), 1);
	assert_same(ev, "complete", doc, "complete");
	assert_same(ev, "error", doc, "error");
	assert_same(ev, "criteria", doc, "criteria");
	json_decref(ev);
	json_decref(doc);
	flow_result_release(&r);
}

/* lat's progress line: the size's place, its samples (so far, during the
 * size), p50 and p99 as figures in us or as what they are instead. */
static void test_lat_progress_line(void **state)
{
	struct flow_result r;
	char *buf = NULL;
	size_t len = 0;
	uint64_t v;
	FILE *f;

	(void)state;
	assert_int_equal(flow_result_init(&r, 4096), 0);
	for (v = 1; v <= 1000; v++)
		hist_record(r.rtt, 2000);	/* 1 us at 2 GHz */
	r.samples = 1000;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_lat_progress_sofar(f, 1, 3, &r, &clk_2ghz);
	for (v = 1; v <= 1000; v++)
		hist_record(r.rtt, 6000);	/* 3 us */
	r.samples = 2000;
	report_lat_progress_sofar(f, 1, 3, &r, &clk_2ghz);
	report_lat_progress(f, 1, 3, &r, &clk_2ghz);
	flow_result_release(&r);
	fill(&r);
	report_lat_progress(f, 2, 3, &r, &clk_2ghz);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf,
			    "size 2/3, 4096 bytes: 1000 samples so far  p50 1.000 us  p99 1.000 us\n"
			    "size 2/3, 4096 bytes: 2000 samples so far  p50 1.000 us  p99 3.000 us\n"
			    "size 2/3, 4096 bytes: 2000 samples  p50 1.000 us  p99 3.000 us\n"
			    "size 3/3, 64 bytes: 4 samples  p50 too_few_samples  "
			    "p99 too_few_samples\n");
	free(buf);
	flow_result_release(&r);
}

static void test_server_json_per_sl(void **state)
{
	struct sink_flow f[3] = {
		{ .id = 1, .peer = "a", .path = { .sl = 0 }, .msgs = 10, .bytes = 640 },
		{ .id = 2, .peer = "b", .path = { .sl = 0 }, .msgs = 5, .bytes = 320 },
		{ .id = 3, .peer = "c", .path = { .sl = 7 }, .msgs = 1, .bytes = 4096 },
	};
	struct sink_flow *fl[3] = { &f[0], &f[1], &f[2] };
	struct verbs_dev dev = { .name = "rxe0" };
	struct sink s = { .dev = &dev, .flows = fl, .n_flows = 3 };
	json_t *doc, *sls;

	(void)state;
	doc = report_server_json(&s, 1.0);
	assert_int_equal(json_array_size(json_object_get(doc, "flows")), 3);
	sls = json_object_get(doc, "sls");
	assert_int_equal(json_array_size(sls), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sls, 0), "msgs")), 15);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sls, 0), "flows")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sls, 1), "sl")), 7);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sls, 1), "bytes")), 4096);
	json_decref(doc);
}

/*
 * The server's rows (JSON and table from one list per row) are the
 * schema's: every field a property of its item, every property one field.
 */
static void test_server_fields_match_schema(void **state)
{
	static const char *const items[] = { "flows", "sls" };
	const struct report_field *f;
	const char *key;
	json_t *schema, *props, *v;
	size_t n, i, found;
	int l;

	(void)state;
	schema = unit_schema_load("server.schema.json");
	for (l = RS_FLOWS; l <= RS_SLS; l++) {
		props = json_object_get(json_object_get(json_object_get(json_object_get(
			schema, "properties"), items[l]), "items"), "properties");
		assert_non_null(props);
		f = report_server_fields(l, &n);
		for (i = 0; i < n; i++)
			if (!json_object_get(props, f[i].key) || !f[i].head[0] || !report_field_reads(&f[i]))
				fail_msg("server %s field %s is not in the schema or has no column",
					 items[l], f[i].key);
		json_object_foreach(props, key, v) {
			for (found = 0, i = 0; i < n; i++)
				found += !strcmp(f[i].key, key);
			if (found != 1)
				fail_msg("server.schema.json's %s property %s is not described once",
					 items[l], key);
		}
	}
	json_decref(schema);
}

/* The table says what the JSON says: a closed flow, its GID, per SL totals. */
static void test_server_table_as_json(void **state)
{
	struct sink_flow f[2] = {
		{ .id = 1, .peer = "198.18.0.1:40112", .path = { .sl = 3, .tclass = 96 },
		  .gid_index = 1, .msgs = 10, .bytes = 640, .errors = 2, .active = true },
		{ .id = 2, .peer = "198.18.0.2:40114", .path = { .sl = 3 }, .gid_index = -1,
		  .msgs = 5, .bytes = 320 },
	};
	struct sink_flow *fl[2] = { &f[0], &f[1] };
	struct verbs_dev dev = { .name = "rxe0" };
	struct sink s = { .dev = &dev, .flows = fl, .n_flows = 2 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	report_server_table(out, &s, 2.0);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(buf,
			    "rperf server on rxe0: 2 flows in 2.0 s\n\n"
			    " flow peer                      sl tclass  gid         msgs"
			    "          bytes  errors active\n"
			    "    1 198.18.0.1:40112           3     96    1           10"
			    "            640       2    yes\n"
			    "    2 198.18.0.2:40114           3      0    -            5"
			    "            320       0     no\n"
			    "\n sl  flows         msgs          bytes\n"
			    "  3      2           15            960\n");
	free(buf);
}

/* A row for the emitters' test: a name, a count, a share that may be missing. */
struct emit_row {
	const char *name;
	int n;
	bool has_share;
	double share;
};

static void emit_get(const void *row, const char *arg, struct report_value *v)
{
	const struct emit_row *w = row;

	if (!strcmp(arg, "name"))
		rv_str(v, w->name);
	else if (!strcmp(arg, "n"))
		rv_int(v, w->n);
	else if (w->has_share)
		rv_real(v, w->share);
}

/*
 * One set of emitters for every list: a field a row lacks is left out of
 * its JSON (and empty in its CSV), one of another kind is in none of its
 * formats, and the table's widths, heads per kind and units are the
 * field's.
 */
static void test_field_emitters(void **state)
{
	static const struct report_field f[] = {
		{ .key = "name", .csv = "name", .head = { "who", "host" }, .width = -6,
		  .arg = "name", .get = emit_get },
		{ .key = "n", .csv = "count", .kinds = 1u << 1, .head = REPORT_HEADS("n"), .width = 3,
		  .arg = "n", .get = emit_get },
		{ .key = "share", .csv = "share", .csv_prec = 2, .head = REPORT_HEADS("%"),
		  .width = 7, .wide = 9, .num = { .scale = 100, .prec = 1 }, .arg = "share",
		  .get = emit_get },
	};
	const struct emit_row full = { "a", 3, true, 0.25 }, bare = { "bb", 4, false, 0 };
	char *buf = NULL, *js;
	size_t len = 0;
	FILE *out;
	json_t *o;

	(void)state;
	o = report_fields_json(f, 3, &full, 0);
	js = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(js, "{\"name\":\"a\",\"share\":0.25}");
	free(js);
	json_decref(o);
	o = report_fields_json(f, 3, &bare, 1);
	js = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(js, "{\"name\":\"bb\",\"n\":4}");
	free(js);
	json_decref(o);
	assert_non_null(out = open_memstream(&buf, &len));
	report_fields_table(out, f, 3, NULL, 0, false);
	report_fields_table(out, f, 3, &full, 0, false);
	report_fields_table(out, f, 3, NULL, 1, true);
	report_fields_table(out, f, 3, &bare, 1, true);
	report_fields_csv(out, f, 3, NULL, 1);
	report_fields_csv(out, f, 3, &full, 1);
	report_fields_csv(out, f, 3, &bare, 1);
	fclose(out);
	assert_string_equal(buf, "who          %\n"
				 "a         25.0\n"
				 "host     n         %\n"
				 "bb       4         -\n"
				 "name,count,share\n"
				 "a,3,0.25\n"
				 "bb,4,\n");
	free(buf);
	assert_ptr_equal(report_field_by_csv(f, 3, "count", 1), &f[1]);
	assert_null(report_field_by_csv(f, 3, "count", 0));
}

/* A row whose figures are members of a struct it points to. */
struct member_rec {
	const char *name;
	unsigned long bytes;
	bool has_share;
	double share;
	long retrans;			/* -1: not known */
	double wait_s;			/* 0: none */
};

static const void *member_rec_of(const void *row)
{
	return *(const struct member_rec *const *)row;
}

#define REC(m)		REPORT_MEMBER(member_rec_of, struct member_rec, m)

/*
 * A field that names a member reads it as its type says, null where its
 * gate says there is none: a boolean beside it, a value not above 0, one
 * below 0; a NULL string is null too.
 */
static void test_field_members(void **state)
{
	static const struct report_field f[] = {
		{ .key = "name", REC(name) },
		{ .key = "bytes", REC(bytes) },
		{ .key = "share", REPORT_MEMBER_IF(member_rec_of, struct member_rec, share,
						   has_share) },
		{ .key = "retrans", REPORT_MEMBER_GATED(member_rec_of, struct member_rec, retrans,
							RG_NON_NEGATIVE) },
		{ .key = "wait_s", REPORT_MEMBER_GATED(member_rec_of, struct member_rec, wait_s,
						       RG_POSITIVE) },
	};
	static const struct member_rec rows[2] = {
		{ "a", 5000000000ul, true, 0.5, 0, 1.5 },
		{ NULL, 0, false, 0.5, -1, 0 },
	};
	static const char *const want[2] = {
		"{\"name\":\"a\",\"bytes\":5000000000,\"share\":0.5,\"retrans\":0,\"wait_s\":1.5}",
		"{\"name\":null,\"bytes\":0,\"share\":null,\"retrans\":null,\"wait_s\":null}",
	};
	const struct member_rec *row;
	char *js;
	json_t *o;
	int i;

	(void)state;
	assert_true(report_field_reads(&f[0]));
	for (i = 0; i < 2; i++) {
		row = &rows[i];
		o = report_fields_json(f, 5, &row, 0);
		js = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		assert_string_equal(js, want[i]);
		free(js);
		json_decref(o);
	}
}

#undef REC

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lat_json_shape),
		cmocka_unit_test(test_lat_json_partial),
		cmocka_unit_test(test_lat_unresolved_json),
		cmocka_unit_test(test_lat_nic_clock_both),
		cmocka_unit_test(test_lat_unresolved_table),
		cmocka_unit_test(test_lat_criterion_unresolved),
		cmocka_unit_test(test_hist_fields_match_schema),
		cmocka_unit_test(test_analyze_fields_match_schema),
		cmocka_unit_test(test_bw_rate_fields_match_schema),
		cmocka_unit_test(test_doc_fields_match_schema),
		cmocka_unit_test(test_json_write_atomic),
		cmocka_unit_test(test_json_write_fails_whole),
		cmocka_unit_test(test_json_check),
		cmocka_unit_test(test_lat_csv_shape),
		cmocka_unit_test(test_lat_stream_events),
		cmocka_unit_test(test_lat_progress_line),
		cmocka_unit_test(test_server_json_per_sl),
		cmocka_unit_test(test_server_fields_match_schema),
		cmocka_unit_test(test_server_table_as_json),
		cmocka_unit_test(test_field_emitters),
		cmocka_unit_test(test_field_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
