/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The options every traffic command shares (lat, bw, and what runs their
 * engines): device and port, the path knobs (SL, traffic class, RC timeout
 * and retries), connection, workers and where they run, output files.
 * Declared once, as option tables (base/opts.h) over a struct flow_opts:
 * a command embeds the struct and includes the table in its own, so the
 * shared flags parse, validate and read the same everywhere. The server
 * takes the listening subset. Pure: no I/O, no device access.
 */
#ifndef RPERF_FLOW_OPTS_H
#define RPERF_FLOW_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/opts.h"
#include "base/token.h"
#include "flow/flow_spec.h"

struct flow_opts {
	const char *host;		/* the server */
	const char *device;		/* -d; NULL: the first device */
	int ib_port;			/* -i */
	int gid_index;			/* -x; -1: RoCE v2 IPv4-mapped GID */
	uint16_t pkey_index;		/* --pkey-index: the QPs' P_Key table entry */
	uint16_t tcp_port;		/* -p */
	/* --sl, --tclass, --threads; bw: -s, --rate, --qps */
	struct flow_spec spec;
	bool sl_given, tclass_given;	/* on the command line (else rdma_cm's path wins) */
	uint8_t qp_timeout;		/* --qp-timeout */
	uint8_t retry;			/* --retry */
	int cpus[FLOW_MAX_THREADS];	/* --cpu; n_cpus == 0: NIC-local cores */
	size_t n_cpus;
	enum clock_source clock;	/* --clock */
	/* --clock hw|both: lat's RTT by the NIC's completion timestamps
	 * (the host clock is then the TSC, or monotonic where it is not
	 * invariant) */
	enum flow_rtt_clock { FLOW_RTT_HOST, FLOW_RTT_NIC, FLOW_RTT_BOTH } rtt_clock;
	const char *json_path;		/* --json; "-" is stdout */
	const char *csv_path;		/* --csv */
	const char *json_stream_path;	/* --json-stream: one event a line */
	bool rdma_cm;			/* --rdma-cm */
	bool hugepages;			/* --hugepages */
	bool yield;			/* --yield */
	double timeout_s;		/* --timeout: connection setup */
	const char *token_file;		/* --token-file; NULL: no token */
	char token[TOKEN_MAX_BYTES];	/* its token (flow_opts_token()) */
};

/* Every shared option of a client (lat, bw), over a struct flow_opts. */
extern const struct opts_entry flow_opts_table[];
/* What a server shares with its clients: -d -i -x -p --json --rdma-cm
 * --hugepages, over a struct flow_opts. */
extern const struct opts_entry flow_opts_listen_table[];

/* bw's flow settings besides the shared ones: -s, --qps, --rate, over a
 * struct flow_opts (from the flow table, as --sl, --tclass, --threads). */
extern const struct opts_entry flow_opts_bw_table[];

void flow_opts_defaults(struct flow_opts *o);
/*
 * --token-file read into @o->token (base/token.h's checks), and refused
 * with --rdma-cm, whose request cannot carry the proofs. 0 (also without
 * --token-file) or -errno with the reason.
 */
int flow_opts_token(struct flow_opts *o, char *err, size_t errlen);
/* @o's token, or NULL without --token-file. */
const char *flow_opts_token_of(const struct flow_opts *o);

/* --clock SOURCE into the enum clock_source at @dst (an opts callback). */
int flow_opts_clock(void *dst, const char *name, const char *value, char *err, size_t errlen);

/*
 * After opts_parse(): @n_args operands, the first in @args, must be one,
 * the server; then the rules between shared options (--rdma-cm: one
 * thread, one QP). 0 or -EINVAL with the reason.
 */
int flow_opts_finish(int n_args, const char **args, struct flow_opts *o, char *err,
		     size_t errlen);

#endif
