/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf bw` options as plain data: parsed and validated once, by a pure
 * function the unit tests call directly, before any device is touched.
 */
#ifndef RPERF_BW_H
#define RPERF_BW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/flow_opts.h"

struct bw_opts {
	/* device, path, workers, output; -s, --qps and --rate in flow.spec */
	struct flow_opts flow;
	double duration_s;		/* -D */
	double interval_s;		/* --interval */
	uint32_t tx_depth;		/* --tx-depth: outstanding per QP */
	uint32_t batch;			/* --batch: requests per post list */
	uint32_t cq_mod;		/* --cq-mod: a completion every N requests */
	uint64_t hw_rate_bps;		/* --hw-rate: per QP, the NIC's limiter; 0: none */
	bool write;			/* --write: RDMA WRITE with immediate */
	bool event;			/* --event: wait for completion events */
	bool help;
	uint64_t min_bps;		/* --min-gbps: pass/fail on the total; 0: none */
};

/*
 * Fill @o from the command line (argv[0] is "bw"). 0 on success, -EINVAL
 * with a message in @err on bad usage. Pure: no I/O, no device access.
 */
int bw_opts_parse(int argc, char **argv, struct bw_opts *o, char *err, size_t errlen);

/* What `rperf bw --help` says, options included. */
extern const struct opts_usage bw_opts_usage;

#endif
