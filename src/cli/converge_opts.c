/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf converge` command line -> struct converge_opts (coord/coord.h): one table
 * (base/opts.h), converge's own options then the agents' options shared
 * with mesh. Kept apart from cmd_converge.c, which runs the scenario and
 * writes the outputs.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/converge.h"
#include "base/errbuf.h"
#include "base/opts.h"
#include "coord/coord.h"

/* --fit configured|best */
static int coord_opts_fit(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	if (strcmp(value, "best") && strcmp(value, "configured"))
		return opts_bad_value(err, errlen, name, value, "configured or best");
	*(bool *)dst = !strcmp(value, "best");
	return 0;
}

/* --baseline[=lat|all|no] */
static int coord_opts_baseline(void *dst, const char *name, const char *value, char *err,
			       size_t errlen)
{
	struct converge_opts *o = dst;

	o->baseline_set = true;
	if (scenario_baseline_parse(value ? value : "lat", &o->baseline))
		return opts_bad_value(err, errlen, name, value, "lat, all or no");
	return 0;
}

static const struct opts_entry coord_opts_table[] = {
	{ .kind = OPTS_NUMBER, .short_name = 't', .long_name = "tolerance", .arg = "PP",
	  .help = "allowed gap between measured and analyzed share, in\n"
		  "percentage points (default 2)",
	  .off = offsetof(struct converge_opts, tolerance_pp), .max = 100,
	  .expect = "0 to 100 points" },
	OPT_FLAG(0, "sweep", "activate the bw flows one at a time, 0 .. N", struct converge_opts,
		 sweep),
	{ .kind = OPTS_CALLBACK, .long_name = "baseline", .arg = "WHICH",
	  .help = "first run each lat flow alone (lat, the default\nvalue), or each flow (all): "
		  "impact factors", .cb = coord_opts_baseline, .optional_value = true },
	OPT_STRING('j', "json", "FILE", "write the results as JSON ('-': stdout)",
		   struct converge_opts, json_path),
	OPT_CALLBACK(0, "fit", "WHICH", "exit 3 against the configured reading of the\n"
		     "arbitration (default), or the best-fitting one", struct converge_opts,
		     fit_best, coord_opts_fit),
	OPT_STRING(0, "json-stream", "FILE", "write each step as it ends, one JSON object a\n"
		   "line ('-': stdout)", struct converge_opts, json_stream_path),
	OPT_STRING(0, "csv", "FILE", "write one row per step and class ('-': stdout)",
		   struct converge_opts, csv_path),
	OPT_STRING(0, "arbitration", "SPEC", "compare with this configuration, not the\nscenario's: "
		   "files, or port:LID:PORT (read live)",
		   struct converge_opts, arbitration),
	OPT_INCLUDE_HERE(cmd_agents_opts_table),
	OPT_END(),
};

const struct opts_usage converge_opts_usage = {
	.cmd = "converge",
	.args = "SCENARIO",
	.about = "Run a scenario's lat and bw flows together through 'rperf agent' on every\n"
		 "host; compare per-class bandwidth shares with the arbitration's analysis.",
	.table = coord_opts_table,
	.more = "SCENARIO is described in rperf-scenario(5).",
	.tolerance = true,
	.exit3 = "shares out of tolerance or a criterion failed",
	.exit4 = "inconclusive: no share out, but one whose interval straddles the\n"
		 "tolerance's edge (run longer)",
};

int converge_opts_parse(int argc, char **argv, void *p, char *err, size_t errlen)
{
	struct converge_opts *o = p;
	int n, ret;

	*o = (struct converge_opts){ .tolerance_pp = 2, .timeout_s = 10, .agent_cmd = "rperf" };
	ret = opts_parse(coord_opts_table, o, argc, argv, &o->scenario, 1, &n, err, errlen);
	if (ret)
		return ret;
	if (n != 1)
		return errbuf_set(err, errlen, -EINVAL, n ? "one scenario file, please" :
				  "the scenario file is missing");
	if (o->launch && !o->token_file)
		return errbuf_set(err, errlen, -EINVAL,
				  "--launch needs --token-file: the agents listen beyond the loopback");
	return 0;
}

