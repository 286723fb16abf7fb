/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf converge` command line -> struct converge_opts (coord/coord.h), in
 * converge_opts.c, as lat, bw, analyze and mesh keep theirs; cmd_converge.c
 * runs the scenario and writes the outputs.
 */
#ifndef RPERF_CLI_CONVERGE_H
#define RPERF_CLI_CONVERGE_H

#include <stddef.h>

#include "base/opts.h"

extern const struct opts_usage converge_opts_usage;

/* The command line into @p (a struct converge_opts): 0, OPTS_HELP, or
 * -EINVAL with the reason in @err. */
int converge_opts_parse(int argc, char **argv, void *p, char *err, size_t errlen);

#endif
