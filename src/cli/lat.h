/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf lat` options as plain data: parsed and validated once, by a pure
 * function the unit tests call directly, before any device is touched.
 */
#ifndef RPERF_LAT_H
#define RPERF_LAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/flow_opts.h"
#include "engine/run.h"

#define LAT_MAX_SIZES RUN_MAX_SIZES

struct lat_opts {
	struct flow_opts flow;		/* device, path, workers, output */
	uint64_t iterations;		/* -n; 0 when -D is given */
	double duration_s;		/* -D */
	uint64_t warmup;		/* --warmup */
	size_t sizes[LAT_MAX_SIZES];	/* -s */
	size_t n_sizes;
	bool all_sizes;			/* -a: filled in once the port is known */
	bool ci;			/* --ci: each percentile's interval in the table */
	const char *reference_path;	/* --reference: NULL when not given */
	bool iters_given;		/* -n was on the command line */
	bool sizes_given;		/* -s was */
	bool help;
	/* Pass/fail: the RTT's percentile at most this, per size; 0: none. */
	double max_p50_s;		/* --max-p50 */
	double max_p99_s;		/* --max-p99 */
	double max_p99_9_s;		/* --max-p99.9 */
};

/* What `rperf lat --help` says, options included. */
extern const struct opts_usage lat_opts_usage;

/*
 * Fill @o from the command line (argv[0] is "lat"). 0 on success, -EINVAL
 * with a message in @err on bad usage. Pure: no I/O, no device access.
 */
int lat_opts_parse(int argc, char **argv, struct lat_opts *o, char *err, size_t errlen);

/* The run engine's settings for the options @o (its callbacks unset). */
void lat_opts_run_cfg(const struct lat_opts *o, struct run_lat_cfg *cfg);

#endif
