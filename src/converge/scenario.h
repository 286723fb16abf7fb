/*
 * Scenario files for `rperf converge`, INI in the style of fio: a
 * [global] section (destination, timing, link rate, the arbitration
 * configuration to compare with, device and transport knobs), then one
 * section per flow (host, type lat or bw, sl, tclass, size, rate,
 * threads, qps). rperf-scenario(5) documents every key.
 *
 * Parsed with inih into plain data and validated whole; every error is
 * "file:line: what". Pure apart from reading the file.
 */
#ifndef RPERF_SCENARIO_H
#define RPERF_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qos/arb.h"
#include "base/clock.h"

#define SCEN_MAX_FLOWS		64
#define SCEN_MAX_ARB_FILES	8
#define SCEN_NAME_MAX		64
#define SCEN_HOST_MAX		256
#define SCEN_PATH_MAX		1024
#define SCEN_MAX_FILE_BYTES	(1 << 20)

enum scen_flow_type {
	SCEN_FLOW_LAT,
	SCEN_FLOW_BW,
};

struct scen_flow {
	char name[SCEN_NAME_MAX];	/* the section's name */
	char host[SCEN_HOST_MAX];	/* where it starts (its agent) */
	enum scen_flow_type type;
	uint8_t sl;
	uint8_t tclass;
	size_t size_bytes;
	double rate_gbps;		/* bw: 0 sends as fast as it can */
	unsigned threads;
	unsigned qps;			/* per thread */
	int line;			/* of its [section] */
	bool has_type;
};

struct scenario {
	char name[SCEN_PATH_MAX];	/* for messages */
	char dest[SCEN_HOST_MAX];
	double duration_s;
	double warmup_s;
	double link_gbps;		/* 0: not given */
	char arb_files[SCEN_MAX_ARB_FILES][SCEN_PATH_MAX];
	int n_arb_files;		/* 0: nothing to compare with */
	bool model_set;
	enum arb_model model;
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
	 * counters (tc -s -j qdisc show dev PORT invisible); "": none. */
	char switch_counters[SCEN_PATH_MAX];
	struct scen_flow flows[SCEN_MAX_FLOWS];
	size_t n_flows;
};

/*
 * Parse scenario @text, named @name in messages; relative arbitration
 * paths are taken from @dir (NULL: as given). 0, or -EINVAL with
 * "name:line: reason" in @err.
 */
int scenario_parse(const char *name, const char *text, const char *dir, struct scenario *sc,
		   char *err, size_t errlen);
/* Read and parse the file @path. 0, -EINVAL (bad file) or -errno (I/O). */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);

/* "10mbit", "25g", "100gbit", "1.5" (Gb/s) -> Gb/s; 0 or -EINVAL. */
int scenario_parse_rate(const char *s, double *gbps);
/* "10", "10s", "500ms" -> seconds; 0 or -EINVAL. */
int scenario_parse_seconds(const char *s, double *out);

const char *scenario_flow_type_name(enum scen_flow_type t);

#endif
