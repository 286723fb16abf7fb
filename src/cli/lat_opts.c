/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf lat` command line -> struct lat_opts. Kept apart from cmd_lat.c
 * so the unit tests exercise every rule without a device. The options are
 * one table (base/opts.h): the shared flow options, then lat's own.
 */
#include <errno.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/units.h"
#include "cli/lat.h"

/* One size of -s's list. */
static int lat_opts_size(void *dst, size_t i, const char *item, char *err, size_t errlen)
{
	struct lat_opts *o = dst;
	uint64_t v;

	if (flow_spec_read_field(flow_spec_field_find("size"), "--size", item, &v, err, errlen))
		return -EINVAL;
	o->sizes[i] = (size_t)v;
	return 0;
}

/* -s LIST. */
static int lat_opts_sizes(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	struct lat_opts *o = dst;

	o->sizes_given = true;
	return opts_list(name, value, LAT_MAX_SIZES, lat_opts_size, o, &o->n_sizes, err, errlen);
}

/* -n N: remembered, since -D excludes it. */
static int lat_opts_iters(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	struct lat_opts *o = dst;

	o->iters_given = true;
	if (units_parse_u64(value, 1, UINT64_MAX / 2, &o->iterations))
		return opts_bad_value(err, errlen, name, value, "an integer from 1 up");
	return 0;
}

static const struct opts_entry lat_opts_table[] = {
	OPT_INCLUDE(struct lat_opts, flow, flow_opts_table),
	OPT_CALLBACK_ALL('n', "iters", "N", "samples per size (default 1000)", lat_opts_iters),
	OPT_VALUE(OPTS_SECONDS, 'D', "duration", "TIME",
		  "run each size this long instead of -n (bare: seconds)", struct lat_opts,
		  duration_s, 0, 1000000ull * 1000000000ull),
	OPT_UINT(0, "warmup", "N", "samples discarded first (default 100)", struct lat_opts,
		 warmup, 0, UINT64_MAX / 2),
	OPT_CALLBACK_ALL('s', "size", "LIST", "message sizes, e.g. 64,4k (default "
			 OPTS_STR(FLOW_SIZE_DEFAULT_LAT) ")",
			 lat_opts_sizes),
	OPT_FLAG('a', "all", "sweep 2 .. 8 MiB in powers of two, within the\nport's limit",
		 struct lat_opts, all_sizes),
	OPT_FLAG(0, "ci", "give each RTT percentile's 95 % confidence interval\n"
		 "in the table (the JSON always has it)", struct lat_opts, ci),
	OPT_STRING(0, "reference", "FILE", "an earlier lat --json over a reference path\n"
		   "(e.g. back to back): report what this path adds\n"
		   "to its p50, p90, p99, with 90 % intervals", struct lat_opts, reference_path),
	OPT_STRING(0, "csv", "FILE", "write every sample's timestamps ('-': stdout)",
		   struct lat_opts, flow.csv_path),
	OPT_VALUE(OPTS_SECONDS, 0, "max-p50", "TIME", "fail (exit 3) when a size's median RTT is\n"
		  "above TIME (bare: seconds; e.g. 5us)", struct lat_opts, max_p50_s, 0,
		  3600ull * 1000000000ull),
	OPT_VALUE(OPTS_SECONDS, 0, "max-p99", "TIME", "the same for the 99th percentile",
		  struct lat_opts, max_p99_s, 0, 3600ull * 1000000000ull),
	OPT_VALUE(OPTS_SECONDS, 0, "max-p99.9", "TIME", "the same for the 99.9th percentile",
		  struct lat_opts, max_p99_9_s, 0, 3600ull * 1000000000ull),
	OPT_END(),
};

const struct opts_usage lat_opts_usage = {
	.cmd = "lat",
	.args = "HOST",
	.about = "Measure the round trip through the fabric to an 'rperf server' on HOST:\n"
		 "RTT = T_W - T_L, the wire SEND's completion minus a loopback SEND's.",
	.table = lat_opts_table,
	.more = "Sizes take k, m, g (binary); times ns, us, ms, s, m or min (bare:\n"
		"seconds).",
	.tolerance = true,
	.exit3 = "a --max-* criterion failed",
};

static void lat_opts_defaults(struct lat_opts *o)
{
	memset(o, 0, sizeof(*o));
	flow_opts_defaults(&o->flow);
	o->iterations = 1000;
	o->warmup = 100;
	o->sizes[0] = FLOW_SIZE_DEFAULT_LAT;
	o->n_sizes = 1;
}

int lat_opts_parse(int argc, char **argv, struct lat_opts *o, char *err, size_t errlen)
{
	const char *args[2];
	int n_args, ret;

	lat_opts_defaults(o);
	ret = opts_parse(lat_opts_table, o, argc, argv, args, 2, &n_args, err, errlen);
	if (ret == OPTS_HELP) {
		o->help = true;
		return 0;
	}
	if (ret)
		return ret;
	if (o->all_sizes && o->sizes_given)
		return errbuf_set(err, errlen, -EINVAL, "give -s or -a, not both");
	if (flow_opts_finish(n_args, args, &o->flow, err, errlen))
		return -EINVAL;
	if (o->all_sizes)
		o->n_sizes = 0;
	if (o->duration_s > 0 && o->iters_given)
		return errbuf_set(err, errlen, -EINVAL, "give -n or -D, not both");
	if (o->duration_s > 0)
		o->iterations = 0;
	return 0;
}

void lat_opts_run_cfg(const struct lat_opts *o, struct run_lat_cfg *cfg)
{
	*cfg = (struct run_lat_cfg){
		.flow = &o->flow, .iterations = o->iterations, .duration_s = o->duration_s,
		.warmup = o->warmup, .sizes = o->sizes, .n_sizes = o->n_sizes,
		.all_sizes = o->all_sizes, .max_p50_s = o->max_p50_s, .max_p99_s = o->max_p99_s,
		.max_p99_9_s = o->max_p99_9_s,
	};
}
