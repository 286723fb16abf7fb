/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What a flow is, said once. struct flow_spec holds a flow's settings
 * (SL, traffic class, message size, rate, threads, QPs per thread, on/off
 * bursts), and flow_spec_fields[] lists each with its scenario key, its
 * control-message field, its kind, unit, limits, default and offset:
 * rperf-scenario(5)'s flow keys, the setup message's flow fields, their
 * packing and unpacking all come from that table, so a flow setting is
 * added in one line. A rate is the flow's whole: split evenly over its
 * threads and QPs (flow_spec_qp_rate_bps), whether the flow came from a
 * scenario or from `rperf bw --rate`.
 *
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

/* A flow's limits, for the table and the command-line options alike. */
#define FLOW_MAX_SL		15
#define FLOW_MAX_TCLASS		255
#define FLOW_MAX_THREADS	64
#define FLOW_MAX_QPS		64	/* per thread */
#define FLOW_MAX_RATE_BPS	10000000000000ull	/* 10 Tb/s */
#define FLOW_MAX_BURST_NS	(3600ull * 1000000000ull)	/* on, off: an hour */
/* Messages: 1 byte .. 4 GiB on the command line, up to 1 GiB in a scenario. */
#define FLOW_MAX_MSG_BYTES	(1ull << 32)
#define FLOW_SPEC_MAX_MSG_BYTES	(1ull << 30)

/* A flow's settings; flow_spec_fields[] describes each. */
struct flow_spec {
	uint8_t sl;
	uint8_t tclass;
	size_t size_bytes;		/* 0 until set: flow_spec_size_default() */
	uint64_t rate_bps;		/* bw, the flow's whole; 0: as fast as it can */
	unsigned threads;
	unsigned qps;			/* per thread */
	/* bw, bursty: sends for on_ns, then nothing for off_ns, from the
	 * start on (a rate paces the on-time); 0: always on. */
	uint64_t on_ns, off_ns;
};

/* How a setting's value reads in a scenario (base/units.h). */
enum flow_spec_kind {
	FLOW_SPEC_INT,			/* a plain integer */
	FLOW_SPEC_BYTES,		/* 64, 4k, 1m */
	FLOW_SPEC_BPS,			/* 5mbit, 2.5g (bare: Gb/s) */
	FLOW_SPEC_NS,			/* 10ms, 1s (bare: seconds) */
};

/* One setting of struct flow_spec. */
struct flow_spec_field {
	const char *key;		/* in a scenario's flow section */
	const char *wire;		/* in a setup message's flow */
	enum flow_spec_kind kind;
	const char *unit;		/* of the stored value: "", "bytes", "bit/s", "ns" */
	size_t off, width;		/* in struct flow_spec: an unsigned of width bytes */
	uint64_t min, max;		/* inclusive, in the unit */
	uint64_t def;			/* flow_spec_defaults() */
	bool wire_required;		/* a setup's flow must carry it */
	const char *expect;		/* "expected ..." when a value is refused */
};

extern const struct flow_spec_field flow_spec_fields[];
extern const size_t flow_spec_n_fields;

/* Every setting at its default. */
void flow_spec_defaults(struct flow_spec *s);
/* @f's value in @s, and its setting. */
uint64_t flow_spec_get(const struct flow_spec *s, const struct flow_spec_field *f);
void flow_spec_put(struct flow_spec *s, const struct flow_spec_field *f, uint64_t v);

/*
 * Read scenario key @key = @value into @s. 0; -ENOENT when @key is no
 * flow setting (@err untouched); -EINVAL with "KEY 'VALUE': expected ..."
 * in @err when the value does not read or is out of its limits.
 */
int flow_spec_set(struct flow_spec *s, const char *key, const char *value, char *err,
		  size_t errlen);

/*
 * The rules between settings, for a @bw flow or a lat one: a lat flow
 * has no rate, one QP per thread and no bursts; on and off come
 * together; a rate gives each QP at least 1 bit/s. 0 or -EINVAL with the
 * reason in @err.
 */
int flow_spec_check(const struct flow_spec *s, bool bw, char *err, size_t errlen);

/* The size a flow sends when none was given: 4096 bytes (bw), 64 (lat). */
size_t flow_spec_size_default(bool bw);

/* What each QP of @s is paced at: the flow's rate over its threads and
 * QPs (0: unpaced). */
uint64_t flow_spec_qp_rate_bps(const struct flow_spec *s);

/*
 * RC's reliability knobs when none is given, for every flow (lat, bw and
 * a scenario's): local ACK timeout 4.096 us * 2^14 = 67 ms, retry 7.
 */
#define FLOW_QP_TIMEOUT_DEFAULT 14
#define FLOW_RETRY_DEFAULT 7

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
