/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf analyze` options as plain data: parsed and validated once, by
 * analyze_opts.c, before any file or port is read.
 */
#ifndef RPERF_CLI_ANALYZE_H
#define RPERF_CLI_ANALYZE_H

#include <stddef.h>
#include <stdio.h>

#include "base/opts.h"
#include "qos/analyze.h"

#define ANALYZE_MAX_FILES	ARB_SOURCE_MAX_FILES

struct analyze_opts {
	struct analyze_req req;		/* what to analyze: qos/analyze.h */
	const char *json_path;		/* --json; "-": stdout */
	const char *csv_path;		/* --csv; "-": stdout */
};

/* What `rperf analyze --help` says (the usage, with -f's formats filled in). */
extern const struct opts_usage analyze_opts_usage;
void analyze_opts_help(FILE *out);

/* The command line into @p (a struct analyze_opts): 0, OPTS_HELP, or
 * -EINVAL with the reason. */
int analyze_opts_parse(int argc, char **argv, void *p, char *err, size_t errlen);

#endif
