/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Scenario files for `rperf converge`, INI in the style of fio: a
 * [global] section (destination, timing, link rate, the arbitration
 * configuration to compare with, device and transport knobs), then one
 * section per flow (host, type lat or bw, sl, tclass, size, rate,
 * threads, qps). rperf-scenario(5) documents every key.
 *
 * Parsed with inih into plain data and validated whole; every error is
 * "file:line: what". Sizes, times and rates read as on the command line
 * (base/units.h): a bare rate is Gb/s, a bare time seconds. Pure apart
 * from reading the file.
 */
#ifndef RPERF_SCENARIO_H
#define RPERF_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qos/arb.h"
#include "rdma/mad.h"
#include "base/clock.h"
#include "flow/flow_spec.h"
#include "coord/scenario_pattern.h"

#define SCENARIO_MAX_FLOWS		64
#define SCENARIO_MAX_ARB_FILES	8
#define SCENARIO_NAME_MAX		64
#define SCENARIO_HOST_MAX		256
#define SCENARIO_PATH_MAX		1024
#define SCENARIO_MAX_FILE_BYTES	(1 << 20)
#define SCENARIO_HOSTS_MAX		2048	/* a pattern's host list */
#define SCENARIO_ALLOCATION		"@allocation"	/* hosts: the Slurm allocation's */

enum scenario_flow_type {
	SCENARIO_FLOW_LAT,
	SCENARIO_FLOW_BW,
};

struct scenario_flow {
	char name[SCENARIO_NAME_MAX];	/* the section's name */
	char host[SCENARIO_HOST_MAX];	/* where it starts (its agent) */
	char dest[SCENARIO_HOST_MAX];	/* where it goes (its agent's sink) */
	enum scenario_flow_type type;
	struct flow_spec spec;		/* sl, tclass, size, rate, threads, qps, on/off */
	int line;			/* of its [section] */
	bool has_type;
	char section[SCENARIO_NAME_MAX];	/* the section it came from */
	/* Pass/fail criteria, judged in every step the flow runs in; 0: none. */
	double max_p99_us;		/* its class's RTT p99 */
	double max_p99_9_us;		/* its class's RTT p99.9 */
	double min_gbps;		/* what the destination received of the flow */
	double min_share_pct;		/* its class's share of what was received */
	double max_share_diff_pp;	/* |measured - analyzed| share of its class */
	double max_impact_p99;		/* its class's p99 loaded over alone (--baseline) */
};

/* Which flows run alone, before the loaded steps, as their baseline. */
enum scenario_baseline {
	SCENARIO_BASELINE_NONE,
	SCENARIO_BASELINE_LAT,		/* each lat flow alone */
	SCENARIO_BASELINE_ALL,		/* each lat and each bw flow alone */
};

/* A pattern section as read, before it expands into flows. */
struct scenario_pattern_sec {
	enum scenario_pattern kind;
	struct scenario_flow tmpl;	/* its flow keys; host and dest from the pattern */
	char hosts[SCENARIO_HOSTS_MAX];	/* "h1, h2 h3": commas or white space,
					 * or SCENARIO_ALLOCATION */
	uint64_t seed;			/* random-pairs */
};

/* "no", "lat" or "all" -> @b; 0 or -EINVAL. */
int scenario_baseline_parse(const char *s, enum scenario_baseline *b);

struct scenario {
	enum scenario_baseline baseline;
	char name[SCENARIO_PATH_MAX];	/* for messages */
	char dest[SCENARIO_HOST_MAX];	/* [global]'s: of flows without their own; may be "" */
	double duration_s;
	double warmup_s;
	double link_gbps;		/* 0: not given */
	char arb_files[SCENARIO_MAX_ARB_FILES][SCENARIO_PATH_MAX];
	int n_arb_files;
	/* A live InfiniBand port whose tables are read over MADs (LID:PORT
	 * or PATH:PORT), "": none; the files are then an opensm.conf read
	 * for it. No files and no port: nothing to compare with. */
	char arb_port[96];
	char arb_ca[64];		/* the local device MADs leave from; "": the first */
	bool model_set;
	enum arb_model model;
	bool semantics_set;
	struct arb_semantics semantics;	/* ib-packet's configured reading */
	char device[64];		/* "": the first device */
	int ib_port;
	int gid_index;			/* -1: RoCE v2 IPv4-mapped */
	uint16_t agent_port;
	uint16_t data_port;
	enum clock_source clock;
	bool yield;
	uint8_t qp_timeout;
	uint8_t retry;
	/* A shell command that prints the destination port's per-band
	 * counters (tc -s -j qdisc show dev PORT invisible); "": none. Or,
	 * "pma:LID:PORT" / "pma-vl:LID:PORT" (switch_pma): the PerfMgt
	 * counters of that InfiniBand port, per SL / per VL. */
	char switch_counters[SCENARIO_PATH_MAX];
	bool switch_pma;
	enum mad_pma_counter switch_pma_counter;
	int switch_pma_lid, switch_pma_port;
	struct scenario_flow flows[SCENARIO_MAX_FLOWS];
	size_t n_flows;
};

/*
 * Parse scenario @text, named @name in messages; relative arbitration
 * paths are taken from @dir (NULL: as given). 0, or -EINVAL with
 * "name:line: reason" in @err.
 */
int scenario_parse(const char *name, const char *text, const char *dir, struct scenario *sc,
		   char *err, size_t errlen);
/* @sc with every [global] setting at its default, no flow, named @name. */
void scenario_defaults(struct scenario *sc, const char *name);
/* Read and parse the file @path. 0, -EINVAL (bad file) or -errno (I/O). */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);

const char *scenario_flow_type_name(enum scenario_flow_type t);

/* The distinct destinations of @sc's flows, in order of first use, into
 * @out (at most @cap); returns how many. */
/*
 * An agent's address, as flows name it: HOST, HOST:PORT or [IPV6]:PORT
 * (PORT its control port; several agents may share a host). Into @host
 * (@len bytes) and *@port (0: none given). 0 or -EINVAL.
 */
int scenario_agent_addr(const char *addr, char *host, size_t len, uint16_t *port);

size_t scenario_dests(const struct scenario *sc, const char **out, size_t cap);

/*
 * The arbitration key's value @v ("a.conf, b.txt", "port:LID:PORT
 * [opensm.conf]") into @sc; relative paths from @dir (NULL: as given).
 * 0, or -EINVAL with the reason in @err.
 */
int scenario_set_arbitration(struct scenario *sc, const char *v, const char *dir, char *err,
			     size_t errlen);

#endif
