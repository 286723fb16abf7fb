/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What a flow is, said once. struct flow_spec holds a flow's settings
 * (SL, traffic class, message size, rate, threads, QPs per thread, on/off
 * bursts), and flow_spec_fields[] lists each with its scenario key, its
 * control-message field, its command-line flag, its kind, unit, limits,
 * default and offset: rperf-scenario(5)'s flow keys, the setup message's
 * flow fields, their packing and unpacking, and lat's and bw's flags for
 * them all come from that table, so a flow setting is added in one line.
 * A rate is the flow's whole: split evenly over its threads and QPs
 * (flow_spec_qp_rate_bps), whether the flow came from a scenario or from
 * `rperf bw --rate`. Pure: no I/O, no device access.
 */
#ifndef RPERF_FLOW_SPEC_H
#define RPERF_FLOW_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/units.h"

/* A flow's limits. */
#define FLOW_MAX_SL		15
#define FLOW_MAX_TCLASS		255
#define FLOW_MAX_THREADS	64
#define FLOW_MAX_QPS		64	/* per thread */
#define FLOW_MAX_RATE_BPS	10000000000000ull	/* 10 Tb/s */
#define FLOW_MAX_BURST_NS	(3600ull * 1000000000ull)	/* on, off: an hour */
/* Messages: 1 byte .. 1 GiB, in a scenario and on the command line (a
 * work request's length is 32 bits, and a flow holds one per QP). */
#define FLOW_MAX_MSG_BYTES	(1ull << 30)

/*
 * The size a flow sends when none is given: lat 64 bytes, the smallest
 * round trip; a scenario's bw flow 4096, one MTU-sized message, so that
 * flows sharing a link under QoS interleave finely. `rperf bw` alone
 * sends 65536 on purpose: it measures a path's peak, where a large
 * message makes the per-message costs vanish (as perftest's default).
 */
#define FLOW_SIZE_DEFAULT_LAT		64
#define FLOW_SIZE_DEFAULT_BW		4096
#define FLOW_SIZE_DEFAULT_BW_CLI	65536

/*
 * The table, one line a setting, as X(FIELD, KEY, WIRE, KIND, UNIT, MIN,
 * MAX, DEF, REQUIRED, EXPECT, FLAG, ARG, HELP): FIELD of struct
 * flow_spec; KEY in a scenario's flow section; WIRE in a setup message's
 * flow; KIND how its value reads; UNIT of the stored value; MIN and MAX
 * inclusive; DEF the default (a bare number: --help says it); REQUIRED in
 * a setup's flow; EXPECT what a refused value is told (an INT's: the
 * noun before "from MIN to MAX", NULL: "an integer"); FLAG lat's and bw's --FLAG for it (NULL: a scenario
 * key only), ARG its value's name and HELP its --help text, to which
 * the default is added. flow_spec_fields[] and the commands' flags
 * (engine/flow_opts.h) are both made from these lines.
 */
#define FLOW_SPEC_SL(X) X(sl, "sl", "sl", FLOW_SPEC_INT, "", 0, FLOW_MAX_SL, 0, true, \
	"a service level", \
	"sl", "N", "service level (with --rdma-cm: the path record's\nunless given)")
#define FLOW_SPEC_TCLASS(X) X(tclass, "tclass", "tclass", FLOW_SPEC_INT, "", 0, \
	FLOW_MAX_TCLASS, 0, true, "a traffic class", "tclass", "N", "traffic class (RoCE: IP TOS byte; with --rdma-cm:\n" \
	"the path record's unless given)")
/* DEF 0: flow_spec_size_default(), by the flow's type; lat's and bw's -s
 * take theirs by hand (FLOW_SIZE_DEFAULT_*). */
#define FLOW_SPEC_SIZE(X) X(size_bytes, "size", "size", FLOW_SPEC_BYTES, "bytes", 1, \
	FLOW_MAX_MSG_BYTES, 0, true, "1 to 1g bytes (64, 4k)", "size", "BYTES", "message size")
#define FLOW_SPEC_RATE(X) X(rate_bps, "rate", "rate_bps", FLOW_SPEC_BPS, "bit/s", 0, \
	FLOW_MAX_RATE_BPS, 0, false, "a rate such as " \
	UNITS_BPS_SPELLINGS " up to 10t, or 0", "rate", "RATE", \
	"pace the whole run at RATE (e.g. 500m, 2.5g) in\nsoftware, split evenly over its " \
	"threads and QPs;\n0: unpaced")
#define FLOW_SPEC_THREADS(X) X(threads, "threads", "threads", FLOW_SPEC_INT, "", 1, \
	FLOW_MAX_THREADS, 1, true, NULL, "threads", "N", \
	"N workers, each with its own QPs and core")
#define FLOW_SPEC_QPS(X) X(qps, "qps", "qps", FLOW_SPEC_INT, "", 1, FLOW_MAX_QPS, 1, true, NULL, \
	"qps", "N", "QPs (server flows) per thread")
#define FLOW_SPEC_ON(X) X(on_ns, "on", "on_ns", FLOW_SPEC_NS, "ns", 0, FLOW_MAX_BURST_NS, 0, \
	false, "a time (10ms, 1s) of at most an hour", NULL, NULL, NULL)
#define FLOW_SPEC_OFF(X) X(off_ns, "off", "off_ns", FLOW_SPEC_NS, "ns", 0, FLOW_MAX_BURST_NS, 0, \
	false, "a time (10ms, 1s) of at most an hour", NULL, NULL, NULL)
#define FLOW_SPEC_TABLE(X) FLOW_SPEC_SL(X) FLOW_SPEC_TCLASS(X) FLOW_SPEC_SIZE(X) \
	FLOW_SPEC_RATE(X) FLOW_SPEC_THREADS(X) FLOW_SPEC_QPS(X) FLOW_SPEC_ON(X) FLOW_SPEC_OFF(X)

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
	const char *expect;		/* "expected ..." when a value is refused; an
					 * INT's: the noun before "from MIN to MAX" */
	const char *flag;		/* lat's and bw's --flag; NULL: none */
	const char *help;		/* its --help text, without the default */
};

extern const struct flow_spec_field flow_spec_fields[];
extern const size_t flow_spec_n_fields;

/* Every setting at its default. */
void flow_spec_defaults(struct flow_spec *s);
/* @f's value in @s, and its setting. */
uint64_t flow_spec_get(const struct flow_spec *s, const struct flow_spec_field *f);
void flow_spec_put(struct flow_spec *s, const struct flow_spec_field *f, uint64_t v);

/* The setting of scenario key @key; NULL when there is none. */
const struct flow_spec_field *flow_spec_field_find(const char *key);

/*
 * @value as @f reads it into *@v: 0, or -EINVAL with "NAME 'VALUE':
 * expected ..." in @err (@name: the key, or a command's --flag).
 */
int flow_spec_read_field(const struct flow_spec_field *f, const char *name, const char *value,
			 uint64_t *v, char *err, size_t errlen);

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

/* The size a flow sends when none was given: FLOW_SIZE_DEFAULT_BW or _LAT. */
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

#endif
