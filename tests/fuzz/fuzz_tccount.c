/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the tc counter reader (qos/qosconf_tc.c), as a
 * converge step reads a switch's per-band counters from the output of
 * `tc -s -j qdisc show dev PORT invisible` (coord/coord_switch.c).
 * The command's output is hostile: it comes from whatever the scenario's
 * switch_counters runs.
 *
 * The reader must return 0 with 1 to ARB_MAX_BANDS bands, or -EINVAL with
 * a message; given the same text twice, the same counters; and when the
 * tc reader also takes the text as an ETS configuration, the counters
 * must be of as many bands as that configuration has.
 */
#include <errno.h>

#include "fuzz.h"
#include "qos/arb.h"
#include "qos/qosconf.h"
#include "qos/qosconf_tc.h"

/* The bands the tc reader finds in @text as a configuration; -1: none. */
static int fuzz_tccount_bands(char *text)
{
	struct qosconf_source src = { "fuzz", text };
	enum qosconf_format used;
	struct qosconf_opts opts;
	struct arb_config cfg;
	char err[256];

	qosconf_opts_init(&opts);
	opts.format = QOSCONF_FORMAT_TC;
	if (qosconf_parse(&src, 1, &opts, &cfg, &used, err, sizeof(err)))
		return -1;
	return cfg.n_bands;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t bytes[ARB_MAX_BANDS], again[ARB_MAX_BANDS];
	char err[256] = "";
	int n, n2, rc, bands;
	char *text;

	text = fuzz_text(data, size);
	if (!text)
		return 0;
	rc = qosconf_tc_band_bytes(text, bytes, &n, err, sizeof(err));
	if (rc && (rc != -EINVAL || !err[0]))
		abort();
	if (!rc) {
		if (n < 1 || n > ARB_MAX_BANDS)
			abort();
		if (qosconf_tc_band_bytes(text, again, &n2, err, sizeof(err)) || n2 != n ||
		    memcmp(bytes, again, (size_t)n * sizeof(bytes[0])))
			abort();
		bands = fuzz_tccount_bands(text);
		if (bands >= 0 && bands != n)
			abort();
	}
	free(text);
	return 0;
}
