/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Shared body of the qosconf fuzz targets: the input becomes the text of
 * one source in the format the target names, and a configuration that
 * parses is analyzed too, so the fuzzer also reaches the models with
 * every table the readers accept. A reader must return 0 or -EINVAL with
 * a message; anything else (a crash, a sanitizer report, a success
 * without a sane configuration) is a finding.
 */
#ifndef RPERF_FUZZ_QOSCONF_H
#define RPERF_FUZZ_QOSCONF_H

#include <errno.h>

#include "qos/arb.h"
#include "fuzz.h"
#include "qos/qosconf.h"

static int fuzz_qosconf(const uint8_t *data, size_t size,
			enum qosconf_format format)
{
	struct qosconf_source src = { "fuzz", NULL };
	enum qosconf_format used;
	struct qosconf_opts opts;
	char err[256];
	struct arb_config cfg;
	struct arb_params params;
	static struct arb_result res;
	char *text;
	int rc;

	text = fuzz_text(data, size);
	if (!text)
		return 0;
	src.text = text;
	qosconf_opts_init(&opts);
	opts.format = format;
	err[0] = '\0';
	rc = qosconf_parse(&src, 1, &opts, &cfg, &used, err, sizeof(err));
	if (rc && (rc != -EINVAL || !err[0]))
		abort();	/* every refusal says why, as -EINVAL */
	if (!rc) {
		arb_params_init(&params);
		params.runs = 2;	/* the tables, not the run length */
		if (cfg.kind == ARB_KIND_ETS)
			params.model = ARB_MODEL_ETS;
		arb_analyze(&cfg, &params, &res);
	}
	free(text);
	return 0;
}

#endif
