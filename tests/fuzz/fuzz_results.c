/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the coordinator's handling of an agent's results
 * (coord/coord_results.c over ctl.c's schema). The input's first byte
 * is the agent's clock against the coordinator's; the rest is a result
 * message body as the coordinator's channel delivers it (ctl_parse()).
 * Each lat flow's histogram is unpacked into a real histogram and merged,
 * scaled to ns, into its class's, through coord_flow_rtt() as the
 * coordinator does; then the figures a report reads are taken.
 *
 * A flow's histogram must hold what its message said (count, min, max)
 * and pack back to a histogram with the same figures; the class's must
 * hold no more samples than its flows, and its percentiles must lie
 * within its own min and max.
 */
#include <errno.h>
#include <math.h>

#include "base/hist.h"
#include "coord/coord.h"
#include "wire/ctl.h"
#include "fuzz.h"

/* @h holds the count, min and max of wire object @o. */
static void fuzz_results_same(const struct hist *h, const json_t *o)
{
	if ((json_int_t)hist_count(h) != json_integer_value(json_object_get(o, "count")))
		abort();
	if (hist_count(h) && ((json_int_t)hist_min(h) != json_integer_value(json_object_get(o, "min")) ||
			      (json_int_t)hist_max(h) != json_integer_value(json_object_get(o, "max"))))
		abort();
}

/* Pack @h and unpack it again: the same figures. */
static void fuzz_results_repack(const struct hist *h)
{
	json_t *o = hist_wire_pack(h);
	struct hist *back = hist_new();
	char err[256];

	if (!o || !back || hist_wire_unpack(o, back, err, sizeof(err)))
		abort();
	if (hist_count(back) != hist_count(h) || hist_min(back) != hist_min(h) ||
	    hist_max(back) != hist_max(h) || hist_percentile(back, 99) != hist_percentile(h, 99))
		abort();
	json_decref(o);
	hist_free(back);
}

/* The figures of class histogram @k, holding at most @n samples. */
static void fuzz_results_class(const struct hist *k, uint64_t n)
{
	static const double pcts[] = { 0, 50, 99, 99.9, 100 };
	uint64_t p;
	size_t i;

	if (hist_count(k) > n)
		abort();
	if (!hist_count(k))
		return;
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		p = hist_percentile(k, pcts[i]);
		if (p < hist_min(k) || p > hist_max(k))
			abort();
	}
	if (isnan(hist_mean(k)) || isnan(hist_stdev(k)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct converge_flow cf[CTL_MAX_FLOWS];
	struct converge_class k;
	const json_t *r;
	double rate;
	uint64_t n = 0;
	char err[256];
	json_t *m;
	size_t i;

	if (size < 1 || ctl_parse((const char *)data + 1, size - 1, &m, err, sizeof(err)))
		return 0;
	rate = 0.25 + data[0] / 32.0;	/* 0.25 to 8.2 */
	memset(cf, 0, sizeof(cf));
	memset(&k, 0, sizeof(k));
	json_array_foreach(json_object_get(m, "flows"), i, r) {
		if (strcmp(ctl_type(m), "result") || i >= CTL_MAX_FLOWS)
			break;
		if (!json_object_get(r, "rtt") || !json_object_get(r, "ticks_per_ns"))
			continue;
		coord_flow_rtt(&cf[i], &k, r, rate);
		if (!cf[i].rtt)
			abort();	/* ctl_parse checked the histogram: it must unpack */
		fuzz_results_same(cf[i].rtt, json_object_get(r, "rtt"));
		fuzz_results_repack(cf[i].rtt);
		n += hist_count(cf[i].rtt);
	}
	if (k.lat_ns)
		fuzz_results_class(k.lat_ns, n);
	for (i = 0; i < CTL_MAX_FLOWS; i++)
		hist_free(cf[i].rtt);
	hist_free(k.lat_ns);
	json_decref(m);
	return 0;
}
