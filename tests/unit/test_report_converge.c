/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The converge report: JSON shape, the table's verdicts, CSV rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/doc_keys.h"
#include "report/report_converge.h"
#include "report/report_converge_rows.h"
#include "unit.h"

static struct converge_step step;
static const struct converge_report_info info = {
	.scenario = "s.ini", .destination = "h3", .arbitration = "ets.txt", .model = "ets",
	.ets = true, .link_gbps = 0.01, .duration_s = 10, .warmup_s = 1, .tolerance_pp = 2,
};

static void fill(void)
{
	struct converge_class *k;
	int i;

	memset(&step, 0, sizeof(step));
	step.active_bw = 2;
	step.window_s = 10;
	step.total_gbps = 0.01;
	step.compared = true;
	step.within = true;
	step.n_ports = 1;
	step.ports[0] = (struct converge_port){ .host = "h3", .window_s = 10, .total_gbps = 0.01,
		.compared = true, .within = true };
	step.n_classes = 2;
	k = &step.classes[0];
	*k = (struct converge_class){ .dest = "h3", .key = 0, .dscp = 8, .n_bw = 1, .saturating = true,
		.bytes = 9375000, .gbps = 0.0075, .share_pct = 75.5, .has_analyzed = true,
		.analyzed_pct = 75, .diff_pp = 0.5, .within = true };
	k = &step.classes[1];
	*k = (struct converge_class){ .dest = "h3", .key = 1, .dscp = 16, .n_lat = 1, .n_bw = 1,
		.saturating = true, .bytes = 3125000, .gbps = 0.0025, .share_pct = 24.5,
		.has_analyzed = true, .analyzed_pct = 25, .diff_pp = -0.5, .within = true };
	k->lat_ns = hist_new();
	/* 1000 samples (100 values, ten each): enough for a p99. */
	for (i = 1; i <= 1000; i++)
		hist_record(k->lat_ns, (uint64_t)((i + 9) / 10) * 1000);
	step.n_flows = 1;
	step.flows[0] = (struct converge_flow){ .name = "bw1", .host = "h1", .dest = "h3",
		.type = "bw", .duty_cycle = 1,
		.tclass = 32, .dscp = 8, .class_key = 0, .bytes = 9375000, .gbps = 0.0075,
		.ran = true };
}

/* The document's first step. */
static json_t *first_step(json_t *doc)
{
	return json_array_get(json_object_get(doc, "steps"), 0);
}

/* Entry @i of the first step's list @list ("classes", "flows"). */
static json_t *first_step_row(json_t *doc, const char *list, size_t i)
{
	return json_array_get(json_object_get(first_step(doc), list), i);
}

static void test_json(void **state)
{
	json_t *doc, *c0, *c1;

	(void)state;
	fill();
	doc = report_converge_json(&info, &step, 1, NULL);
	assert_string_equal(json_string_value(json_object_get(doc, "command")), "converge");
	assert_true(json_is_true(json_object_get(doc, "within_tolerance")));
	assert_true(json_is_true(json_object_get(doc, "complete")));
	assert_true(json_is_null(json_object_get(doc, "error")));
	c0 = first_step_row(doc, "classes", 0);
	c1 = first_step_row(doc, "classes", 1);
	assert_int_equal(json_integer_value(json_object_get(c0, "band")), 0);
	assert_true(json_is_null(json_object_get(c0, "rtt_ns")));
	assert_near(json_real_value(json_object_get(c0, "analyzed_pct")), 75, 1e-9);
	assert_near(json_real_value(json_object_get(c1, "diff_pp")), -0.5, 1e-9);
	/* The class's latency: percentiles in ns and the CDF's buckets. */
	assert_near(json_real_value(json_object_get(json_object_get(c1, "rtt_ns"), "p99")),
		    99000, 99000 * HIST_REL_ERROR);
	assert_int_equal(json_array_size(json_object_get(c1, "rtt_cdf")), 100);
	json_decref(doc);
	doc = report_converge_json(&info, &step, 1, "agent 'h2' (bw) is gone");
	assert_true(json_is_false(json_object_get(doc, "complete")));
	assert_true(json_is_false(json_object_get(first_step(doc), "cut_short")));
	json_decref(doc);
	step.cut_short = true;
	doc = report_converge_json(&info, &step, 1, "interrupted");
	assert_true(json_is_true(json_object_get(first_step(doc), "cut_short")));
	json_decref(doc);
	hist_free(step.classes[1].lat_ns);
}

/* The document and every --json-stream event carry the layout's version. */
static void test_schema_version(void **state)
{
	json_t *ev[4];
	size_t i;

	(void)state;
	fill();
	ev[0] = report_converge_json(&info, &step, 1, NULL);
	ev[1] = report_converge_event_start(&info);
	ev[2] = report_converge_event_step(&info, &step, 0);
	ev[3] = report_converge_event_end(&info, &step, 1, NULL);
	for (i = 0; i < 4; i++) {
		assert_int_equal(json_integer_value(json_object_get(ev[i], "schema_version")),
				 REPORT_SCHEMA_VERSION);
		json_decref(ev[i]);
	}
	assert_int_equal(REPORT_SCHEMA_VERSION, 2);
	hist_free(step.classes[1].lat_ns);
}

/* Whether list @l describes JSON key @key exactly once. */
static bool described_once(const struct report_field *f, size_t n, const char *key)
{
	size_t i, found = 0;

	for (i = 0; i < n; i++)
		found += f[i].key && !strcmp(f[i].key, key);
	return found == 1;
}

/*
 * The rows' descriptions (report_converge_fields) and converge.schema.json
 * name the same keys: each JSON key of a list is a property of its $defs
 * entry (class, flow) and each property is described once; each table
 * and CSV column reads a figure; no CSV column is named twice.
 */
static void test_fields_match_schema(void **state)
{
	static const char *const defs[3] = { "class", "flow", "port" };
	const char *key;
	const struct report_field *f;
	json_t *schema, *props, *v;
	size_t n, i, j;
	int l;

	(void)state;
	schema = unit_schema_load("converge.schema.json");
	for (l = RC_CLASSES; l <= RC_PORTS; l++) {
		props = json_object_get(json_object_get(json_object_get(schema, "$defs"),
							defs[l]), "properties");
		assert_non_null(props);
		f = report_converge_fields(l, &n);
		for (i = 0; i < n; i++) {
			if (f[i].key && !json_object_get(props, f[i].key))
				fail_msg("%s field %s is not in converge.schema.json's %s", defs[l],
					 f[i].key, defs[l]);
			if ((f[i].head[0] || f[i].csv || f[i].key) && !report_field_reads(&f[i]))
				fail_msg("%s field %s reads no figure", defs[l],
					 f[i].key ? f[i].key : f[i].csv ? f[i].csv : f[i].head[0]);
			/* An RTT percentile's column (its CSV name the key's _ns)
			 * reads a figure the summary has. */
			if (f[i].arg && f[i].csv && !strncmp(f[i].csv, f[i].arg, strlen(f[i].arg)) &&
			    !strcmp(f[i].csv + strlen(f[i].arg), "_ns") && !report_hist_field(f[i].arg))
				fail_msg("%s column %s reads percentile %s, which the summary has not",
					 defs[l], f[i].csv, f[i].arg);
			for (j = 0; f[i].csv && j < i; j++)
				if (f[j].csv && !strcmp(f[i].csv, f[j].csv) &&
				    (!f[i].kinds || !f[j].kinds || (f[i].kinds & f[j].kinds)))
					fail_msg("CSV column %s is named twice", f[i].csv);
		}
		json_object_foreach(props, key, v)
			if (!described_once(f, n, key))
				fail_msg("converge.schema.json's %s property %s is not described once",
					 defs[l], key);
	}
	/* A step: its figures and the rows' lists. */
	props = json_object_get(json_object_get(json_object_get(schema, "$defs"), "step"),
				"properties");
	assert_non_null(props);
	f = report_converge_step_fields(&n);
	for (i = 0; i < n; i++)
		if (!json_object_get(props, f[i].key))
			fail_msg("step field %s is not in converge.schema.json's step", f[i].key);
	json_object_foreach(props, key, v)
		if (!described_once(f, n, key))
			fail_msg("converge.schema.json's step property %s is not described once", key);
	json_decref(schema);
}

static char *capture(void (*fn)(FILE *, const struct converge_report_info *,
				const struct converge_step *, size_t))
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	fn(f, &info, &step, 1);
	fclose(f);
	return buf;
}

static void test_table_csv(void **state)
{
	json_t *doc, *k;
	char *out;

	(void)state;
	fill();
	step.classes[1].diff_pp = -3;
	step.classes[1].within = false;
	step.classes[1].verdict = CONVERGE_OUT;
	out = capture(report_converge_table);
	assert_non_null(strstr(out, "classes are ETS bands"));
	assert_non_null(strstr(out, "OUT"));
	assert_non_null(strstr(out, " ok"));
	/* A share whose interval straddles the tolerance's edge, with its interval. */
	step.classes[1].verdict = CONVERGE_INCONCLUSIVE;
	step.classes[1].has_ci = true;
	step.classes[1].ci_low_pct = 21.25;
	step.classes[1].ci_high_pct = 30.5;
	out = capture(report_converge_table);
	assert_non_null(strstr(out, "    21.2-30.5    -3.0 inconclusive\n"));
	assert_null(strstr(out, "OUT"));
	doc = report_converge_json(&info, &step, 1, NULL);
	k = first_step_row(doc, "classes", 1);
	assert_string_equal(json_string_value(json_object_get(k, "verdict")), "inconclusive");
	assert_near(json_real_value(json_array_get(json_object_get(k, "share_ci_pct"), 0)), 21.25, 0);
	assert_near(json_real_value(json_array_get(json_object_get(k, "share_ci_pct"), 1)), 30.5, 0);
	assert_true(json_is_null(json_object_get(first_step_row(doc, "classes", 0),
						 "share_ci_pct")));
	json_decref(doc);
	assert_null(strstr(out, "(cut short)"));
	step.cut_short = true;
	out = capture(report_converge_table);
	assert_non_null(strstr(out, " s (cut short)\n"));
	out = capture(report_converge_csv);
	assert_non_null(strstr(out, "step,active_bw,band,"));
	assert_non_null(strstr(out, "\n0,2,1,1,1,"));
	assert_non_null(strstr(out, ",within,window_s,cut_short,baseline_flow,impact_p50,impact_p99,"
				    "impact_p99_9,destination,verdict,share_ci_low_pct,share_ci_high_pct\n"));
	assert_non_null(strstr(out, ",24.50,25.00,-3.00,0,10.000,1,,,,,h3,inconclusive,21.25,30.50\n"));
	/* A step that ended before its window began has no table. */
	step.window_s = 0;
	step.flows[0].error[0] = 'x';
	out = capture(report_converge_table);
	assert_non_null(strstr(out, "not measured: the step ended before its window began\n"
				    "flow bw1 on h1: x\n"));
	assert_null(strstr(out, "p50_us"));
	hist_free(step.classes[1].lat_ns);
}

/* A class taken as saturating that fell short: the table says why, and the JSON. */
static void test_not_backlogged(void **state)
{
	struct converge_class *k;
	json_t *doc, *c0, *c1;
	char *out;

	(void)state;
	fill();
	k = &step.classes[0];
	k->share_pct = 84.6;
	k->analyzed_pct = 100;
	k->diff_pp = -15.4;
	k->within = false;
	k->not_backlogged = true;
	k->sent_gbps = 0.00846;
	k->retrans = 37;
	k->has_retrans = true;
	out = capture(report_converge_table);
	assert_non_null(strstr(out, "band 0: taken as saturating, it was not kept backlogged: "
				    "84.6 % against 100.0 % analyzed (-15.4 points); its flows "
				    "sent 8.460 Mb/s over their run and it received 7.500 Mb/s, "
				    "with 37 retransmissions on their hosts' ports"));
	assert_null(strstr(out, "band 1: taken"));
	doc = report_converge_json(&info, &step, 1, NULL);
	c0 = first_step_row(doc, "classes", 0);
	c1 = first_step_row(doc, "classes", 1);
	assert_true(json_is_false(json_object_get(c0, "backlogged")));
	assert_int_equal(json_integer_value(json_object_get(c0, "retransmissions")), 37);
	assert_true(json_is_true(json_object_get(c1, "backlogged")));
	assert_true(json_is_null(json_object_get(c1, "retransmissions")));
	json_decref(doc);
	hist_free(step.classes[1].lat_ns);
}

/* The switch's counters beside the destination's shares. */
static void test_switch_counters(void **state)
{
	json_t *doc, *c0;
	char *out;

	(void)state;
	fill();
	out = capture(report_converge_table);
	assert_null(strstr(out, "switch port counters"));
	step.switch_read = true;
	step.classes[0].has_switch = true;
	step.classes[0].switch_share_pct = 75.2;
	step.classes[0].switch_diff_pp = -0.3;
	out = capture(report_converge_table);
	assert_non_null(strstr(out, "switch port counters, share% (destination's, difference): "
				    "band 0 75.2 (75.5, -0.3)\n"));
	doc = report_converge_json(&info, &step, 1, NULL);
	c0 = first_step_row(doc, "classes", 0);
	assert_near(json_real_value(json_object_get(c0, "switch_diff_pp")), -0.3, 1e-9);
	json_decref(doc);
	step.switch_read = false;
	snprintf(step.switch_error, sizeof(step.switch_error), "switch_counters: exit 1");
	out = capture(report_converge_table);
	assert_non_null(strstr(out, "\nswitch_counters: exit 1\n"));
	hist_free(step.classes[1].lat_ns);
}

/*
 * Two destinations: each port's classes under its own heading with its
 * own total and verdict; the JSON's ports, and each class's and flow's
 * destination; a bursty paced flow's duty cycle, measured against set.
 */
static void test_ports(void **state)
{
	json_t *doc, *st, *p1, *f0;
	char *out;

	(void)state;
	fill();
	step.n_ports = 2;
	step.ports[0].total_gbps = 0.0075;
	step.ports[1] = (struct converge_port){ .host = "h1", .window_s = 9.5,
		.total_gbps = 0.0025, .compared = true, .within = false,
		.verdict = CONVERGE_OUT };
	step.classes[1].port = 1;
	step.classes[1].dest = "h1";
	step.flows[0].rate_bps = 4000000;
	step.flows[0].duty_cycle = 0.5;
	step.flows[0].gbps = 0.00196;
	out = capture(report_converge_table);
	assert_non_null(strstr(out, "into h3:\n band lat "));
	assert_non_null(strstr(out, "into h3 7.500 Mb/s in 10.00 s; within\n\ninto h1:\n"));
	assert_non_null(strstr(out, "into h1 2.500 Mb/s in 9.50 s; OUT\n"));
	assert_non_null(strstr(out, "flow bw1: duty cycle 0.490 measured (1.960 Mb/s at "
				    "4.000 Mb/s paced), 0.500 configured\n"));
	doc = report_converge_json(&info, &step, 1, NULL);
	st = first_step(doc);
	assert_int_equal(json_array_size(json_object_get(st, "ports")), 2);
	p1 = json_array_get(json_object_get(st, "ports"), 1);
	assert_string_equal(json_string_value(json_object_get(p1, "destination")), "h1");
	assert_true(json_is_false(json_object_get(p1, "within")));
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(st, "classes"), 1), "destination")), "h1");
	f0 = json_array_get(json_object_get(st, "flows"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "destination")), "h3");
	assert_near(json_real_value(json_object_get(f0, "rate_gbps")), 0.004, 1e-12);
	assert_near(json_real_value(json_object_get(f0, "duty_cycle")), 0.5, 1e-12);
	assert_near(json_real_value(json_object_get(f0, "measured_duty_cycle")), 0.49, 1e-9);
	json_decref(doc);
	/* One destination: no headings; an unpaced flow has no measured duty cycle. */
	hist_free(step.classes[1].lat_ns);
	fill();
	out = capture(report_converge_table);
	assert_null(strstr(out, "into h3"));
	assert_null(strstr(out, "duty cycle"));
	doc = report_converge_json(&info, &step, 1, NULL);
	f0 = first_step_row(doc, "flows", 0);
	assert_true(json_is_null(json_object_get(f0, "measured_duty_cycle")));
	assert_true(json_is_null(json_object_get(f0, "rate_gbps")));
	json_decref(doc);
	hist_free(step.classes[1].lat_ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_schema_version),
		cmocka_unit_test(test_fields_match_schema),
		cmocka_unit_test(test_table_csv),
		cmocka_unit_test(test_not_backlogged),
		cmocka_unit_test(test_switch_counters),
		cmocka_unit_test(test_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
