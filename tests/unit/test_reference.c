/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * lat --reference: the differences' arithmetic, their coverage against a
 * simulation, the reference document read from a lab run's output, and
 * the report's "reference" objects.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"
#include "report/reference.h"
#include "report/report_lat.h"

#define LAB_LAT TEST_DATA "/json/lat.json"

static const struct clock_cal clk_1ghz = {
	.source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1.0, .method = "test",
};

/* Both resolved: the value and [m.lo - r.hi, m.hi - r.lo]. */
static void test_diff_resolved(void **state)
{
	struct ref_pct m = { HIST_Q_RESOLVED, 100, true, true, 90, 120 };
	struct ref_pct r = { HIST_Q_RESOLVED, 30, true, true, 25, 40 };
	struct ref_diff d;

	(void)state;
	ref_diff(&m, &r, &d);
	assert_int_equal(d.state, HIST_Q_RESOLVED);
	assert_near(d.value_ns, 70, 0);
	assert_true(d.has_lo && d.has_hi);
	assert_near(d.lo_ns, 50, 0);
	assert_near(d.hi_ns, 95, 0);
	/* A path faster than its reference: a negative difference, kept. */
	ref_diff(&r, &m, &d);
	assert_near(d.value_ns, -70, 0);
	assert_near(d.lo_ns, -95, 0);
	assert_near(d.hi_ns, -50, 0);
}

/* An open side of either interval opens the side of the difference it feeds. */
static void test_diff_open_sides(void **state)
{
	struct ref_pct m = { HIST_Q_RESOLVED, 100, false, true, 0, 120 };
	struct ref_pct r = { HIST_Q_RESOLVED, 30, true, true, 25, 40 };
	struct ref_diff d;

	(void)state;
	ref_diff(&m, &r, &d);
	assert_false(d.has_lo);
	assert_true(d.has_hi);
	assert_near(d.hi_ns, 95, 0);
	m.has_lo = true;
	m.lo_ns = 90;
	r.has_lo = false;
	ref_diff(&m, &r, &d);
	assert_true(d.has_lo);
	assert_near(d.lo_ns, 50, 0);
	assert_false(d.has_hi);
}

/* Not a figure when either side is not: the measured side named first. */
static void test_diff_unresolved(void **state)
{
	struct ref_pct m = { HIST_Q_UNRESOLVED, 0, false, true, 0, 120 };
	struct ref_pct r = { HIST_Q_TOO_FEW, 0, true, true, 25, 40 };
	struct ref_diff d;

	(void)state;
	ref_diff(&m, &r, &d);
	assert_int_equal(d.state, HIST_Q_UNRESOLVED);
	assert_false(d.by_reference);
	assert_false(d.has_lo || d.has_hi);
	m.state = HIST_Q_RESOLVED;
	m.value_ns = 100;
	ref_diff(&m, &r, &d);
	assert_int_equal(d.state, HIST_Q_TOO_FEW);
	assert_true(d.by_reference);
	r.state = HIST_Q_EMPTY;
	ref_diff(&m, &r, &d);
	assert_int_equal(d.state, HIST_Q_EMPTY);
}

/* Percentile @pct of @h (nothing unresolved) as a document gives it. */
static void pct_of(const struct hist *h, double pct, struct ref_pct *p)
{
	struct hist_quantile q;

	hist_quantile(h, pct, 0, &q);
	p->state = q.state;
	p->value_ns = (double)q.value;
	p->has_lo = q.lo_rank > 0;
	p->lo_ns = (double)q.lo;
	p->has_hi = q.hi_rank <= hist_count(h);
	p->hi_ns = (double)q.hi;
}

/* A uniform draw in (0, 1) from a 64-bit LCG: the same runs every time. */
static double unif(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

/*
 * 1000 runs of two paths, 1000 samples each: the reference exponential
 * (mean 20 us) plus 10 us, the measured the same shifted by 50 us. The
 * median's and p90's differences are 50 us exactly; their intervals must
 * cover it in at least REF_CONFIDENCE of the runs, less three standard
 * errors of 1000 runs (about 0.028).
 */
static void test_diff_coverage(void **state)
{
	static const double pcts[] = { 50, 90 };
	struct hist *hm = hist_new(), *hr = hist_new();
	unsigned run, i, k, covered[2] = { 0, 0 };
	struct ref_pct m, r;
	struct ref_diff d;
	uint64_t seed = 28;

	(void)state;
	assert_non_null(hm);
	assert_non_null(hr);
	for (run = 0; run < 1000; run++) {
		hist_reset(hm);
		hist_reset(hr);
		for (i = 0; i < 1000; i++) {
			hist_record(hr, (uint64_t)(10000 - 20000 * log(unif(&seed))));
			hist_record(hm, (uint64_t)(60000 - 20000 * log(unif(&seed))));
		}
		for (k = 0; k < 2; k++) {
			pct_of(hm, pcts[k], &m);
			pct_of(hr, pcts[k], &r);
			ref_diff(&m, &r, &d);
			assert_int_equal(d.state, HIST_Q_RESOLVED);
			assert_true(d.has_lo && d.has_hi);
			covered[k] += d.lo_ns <= 50000 && 50000 <= d.hi_ns;
		}
	}
	for (k = 0; k < 2; k++)
		if (covered[k] < (unsigned)(1000 * (REF_CONFIDENCE - 0.028)))
			fail_msg("p%g: the difference covered in %u of 1000 runs", pcts[k], covered[k]);
	hist_free(hm);
	hist_free(hr);
}

/* The lab's lat output reads as a reference: its sizes and percentiles. */
static void test_load_lab_output(void **state)
{
	json_t *doc = json_load_file(LAB_LAT, 0, NULL), *p;
	struct ref_doc d;
	char err[256];
	size_t i, k;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(ref_doc_load(LAB_LAT, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, json_array_size(json_object_get(doc, "results")));
	assert_string_equal(d.clock, json_string_value(json_object_get(json_object_get(doc, "clock"),
									  "source")));
	for (i = 0; i < d.n; i++)
		for (k = 0; k < REF_N_PCTS; k++) {
			p = json_object_get(json_object_get(json_object_get(json_array_get(
				json_object_get(doc, "results"), i), "rtt_ns"), "percentiles"),
				ref_pct_keys[k]);
			assert_string_equal(report_state_word(d.sizes[i].pct[k].state),
					    json_string_value(json_object_get(p, "state")));
			if (d.sizes[i].pct[k].state == HIST_Q_RESOLVED)
				assert_near(d.sizes[i].pct[k].value_ns,
					    json_number_value(json_object_get(p, "value_ns")), 0);
		}
	json_decref(doc);
}

/* A document of another command is refused, naming the file. */
static void test_load_refused(void **state)
{
	struct ref_doc d;
	char err[256];

	(void)state;
	assert_int_equal(ref_doc_load(TEST_DATA "/json/bw.json", &d, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "bw.json': not an rperf lat document (command 'bw')"));
	assert_true(ref_doc_load(TEST_DATA "/json/no-such.json", &d, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "no-such.json"));
}

/* Another clock, no size in common: refused; a size missing: listed. */
static void test_check(void **state)
{
	static const size_t both[] = { 64, 128, 256 }, none[] = { 128 };
	struct ref_doc d;
	char err[256], missing[64];

	(void)state;
	assert_int_equal(ref_doc_load(LAB_LAT, &d, err, sizeof(err)), 0);
	assert_int_equal(ref_doc_check(&d, "tsc", both, 3, missing, sizeof(missing), err,
				       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "lat.json': measured with clock 'monotonic', this run with 'tsc'"));
	assert_int_equal(ref_doc_check(&d, "monotonic", none, 1, missing, sizeof(missing), err,
				       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "none of this run's sizes"));
	assert_int_equal(ref_doc_check(&d, "monotonic", both, 3, missing, sizeof(missing), err,
				       sizeof(err)), 0);
	assert_string_equal(missing, "128, 256");
}

/*
 * The table's block: the reference named, one row a size, each cell the
 * difference and its interval in us (this run's p50 minus the
 * reference's), a size the reference lacks said so.
 */
static void test_table(const struct lat_report_info *info, const struct flow_result *r)
{
	static char buf[16384];
	char want[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	const struct ref_pct *p50 = &info->ref->sizes[0].pct[0];
	struct hist_quantile q;

	assert_non_null(f);
	report_lat_table(f, info, r, 2);
	fclose(f);
	assert_non_null(strstr(buf, "\nadded to the reference '" LAB_LAT "' (this RTT's percentile "
				    "minus the reference's), us, 90 % intervals\n"));
	hist_quantile(r[0].rtt, 50, 0, &q);
	snprintf(want, sizeof(want), "%.3f [", ((double)q.value - p50->value_ns) / 1e3);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "\n      128            not in the reference\n"));
	assert_non_null(strstr(buf, "a difference of percentiles, not a percentile of differences"));
}

/*
 * The report against the lab's output: per size, this run's percentile
 * minus the reference's, inside its interval; a size the reference lacks
 * is null; the head names the file.
 */
static void test_report_reference(void **state)
{
	struct lat_report_info info = {
		.server = "h2", .device = "rxe0", .port = 1, .gid_index = 1, .roce = true,
		.mtu = "1024", .clk = &clk_1ghz, .threads = 1, .iterations = 1000,
	};
	struct flow_result r[2];
	struct ref_doc ref;
	json_t *doc, *x, *mine, *res;
	char err[256];
	uint64_t i;
	size_t k;

	(void)state;
	assert_int_equal(ref_doc_load(LAB_LAT, &ref, err, sizeof(err)), 0);
	info.ref = &ref;
	assert_int_equal(flow_result_init(&r[0], 64), 0);
	assert_int_equal(flow_result_init(&r[1], 128), 0);
	for (i = 0; i < 1000; i++) {
		hist_record(r[0].rtt, 20000000 + i * 20000);
		hist_record(r[1].rtt, 1000 + i);
	}
	r[0].samples = r[1].samples = 1000;
	doc = report_lat_json(&info, r, 2, NULL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "reference"),
							      "file")), LAB_LAT);
	res = json_array_get(json_object_get(doc, "results"), 0);
	for (k = 0; k < REF_N_PCTS; k++) {
		x = json_object_get(json_object_get(res, "reference"), ref_pct_keys[k]);
		mine = json_object_get(json_object_get(json_object_get(res, "rtt_ns"), "percentiles"),
				       ref_pct_keys[k]);
		assert_string_equal(json_string_value(json_object_get(x, "state")), "resolved");
		assert_near(json_number_value(json_object_get(x, "value_ns")),
			    json_number_value(json_object_get(mine, "value_ns")) -
			    json_number_value(json_object_get(x, "reference_ns")), 0.11);
		assert_near(json_number_value(json_object_get(x, "reference_ns")),
			    ref.sizes[0].pct[k].value_ns, 0.05);
		assert_true(json_number_value(json_object_get(x, "ci_low_ns")) <=
			    json_number_value(json_object_get(x, "value_ns")));
		assert_true(json_number_value(json_object_get(x, "ci_high_ns")) >=
			    json_number_value(json_object_get(x, "value_ns")));
	}
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "results"), 1),
						 "reference")));
	json_decref(doc);
	test_table(&info, r);
	flow_result_release(&r[0]);
	flow_result_release(&r[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_resolved),
		cmocka_unit_test(test_diff_open_sides),
		cmocka_unit_test(test_diff_unresolved),
		cmocka_unit_test(test_diff_coverage),
		cmocka_unit_test(test_load_lab_output),
		cmocka_unit_test(test_load_refused),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_report_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
