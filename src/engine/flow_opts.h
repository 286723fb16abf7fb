/*
 * The options every traffic command shares (lat, bw, and what runs their
 * engines): device and port, the path knobs (SL, traffic class, RC timeout
 * and retries), connection, workers and where they run, output files.
 * Each command keeps its own option table and struct, embeds a struct
 * flow_opts, lists FLOW_LONG_OPTS in its table and hands every option it
 * does not own to flow_opt_one(), so the shared flags parse and validate
 * the same way everywhere. Pure: no I/O, no device access.
 */
#ifndef RPERF_FLOW_OPTS_H
#define RPERF_FLOW_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"

#define FLOW_MAX_THREADS 64

struct flow_opts {
	const char *host;		/* the server */
	const char *device;		/* -d; NULL: the first device */
	int ib_port;			/* -i */
	int gid_index;			/* -x; -1: RoCE v2 IPv4-mapped GID */
	uint16_t tcp_port;		/* -p */
	uint8_t sl;			/* --sl */
	uint8_t tclass;			/* --tclass */
	uint8_t qp_timeout;		/* --qp-timeout */
	uint8_t retry;			/* --retry */
	unsigned threads;		/* --threads */
	int cpus[FLOW_MAX_THREADS];	/* --cpu; n_cpus == 0: NIC-local cores */
	unsigned n_cpus;
	enum clock_source clock;	/* --clock */
	const char *json_path;		/* --json; "-" is stdout */
	const char *csv_path;		/* --csv */
	bool rdma_cm;			/* --rdma-cm */
	bool hugepages;			/* --hugepages */
	bool yield;			/* --yield */
	double timeout_s;		/* --timeout: connection setup */
};

/* getopt_long() values of the shared long-only options; a command numbers
 * its own from FLOW_OPT_END. */
enum {
	FLOW_OPT_SL = 256,
	FLOW_OPT_TCLASS,
	FLOW_OPT_QP_TIMEOUT,
	FLOW_OPT_RETRY,
	FLOW_OPT_THREADS,
	FLOW_OPT_CPU,
	FLOW_OPT_CLOCK,
	FLOW_OPT_JSON,
	FLOW_OPT_CSV,
	FLOW_OPT_RDMA_CM,
	FLOW_OPT_HUGEPAGES,
	FLOW_OPT_TIMEOUT,
	FLOW_OPT_YIELD,
	FLOW_OPT_END,
};

/* The shared entries of a struct option table. */
#define FLOW_LONG_OPTS \
	{ "device", required_argument, NULL, 'd' }, \
	{ "ib-port", required_argument, NULL, 'i' }, \
	{ "gid-index", required_argument, NULL, 'x' }, \
	{ "port", required_argument, NULL, 'p' }, \
	{ "sl", required_argument, NULL, FLOW_OPT_SL }, \
	{ "tclass", required_argument, NULL, FLOW_OPT_TCLASS }, \
	{ "qp-timeout", required_argument, NULL, FLOW_OPT_QP_TIMEOUT }, \
	{ "retry", required_argument, NULL, FLOW_OPT_RETRY }, \
	{ "threads", required_argument, NULL, FLOW_OPT_THREADS }, \
	{ "cpu", required_argument, NULL, FLOW_OPT_CPU }, \
	{ "clock", required_argument, NULL, FLOW_OPT_CLOCK }, \
	{ "json", required_argument, NULL, FLOW_OPT_JSON }, \
	{ "csv", required_argument, NULL, FLOW_OPT_CSV }, \
	{ "rdma-cm", no_argument, NULL, FLOW_OPT_RDMA_CM }, \
	{ "hugepages", no_argument, NULL, FLOW_OPT_HUGEPAGES }, \
	{ "timeout", required_argument, NULL, FLOW_OPT_TIMEOUT }, \
	{ "yield", no_argument, NULL, FLOW_OPT_YIELD }

/* The short options among them, for getopt_long()'s optstring. */
#define FLOW_SHORT_OPTS "d:i:x:p:"

/* The help lines of the shared options, for a command's usage text. */
extern const char flow_opts_usage_path[];
extern const char flow_opts_usage_run[];

void flow_opts_defaults(struct flow_opts *o);

/*
 * One option @c of getopt_long() with argument @arg: 0 when it was a
 * shared option and valid, -EINVAL with a message in @err when invalid,
 * 1 when it is not a shared option (the command's own).
 */
int flow_opt_one(int c, const char *arg, struct flow_opts *o, char *err, size_t errlen);

/*
 * The end of getopt_long()'s loop: @c was '?' or ':' (an unknown option or
 * a missing value) -> -EINVAL with the message. 1 for any other value.
 */
int flow_opt_bad(int c, char **argv, char *err, size_t errlen);

/*
 * After the loop: the one remaining argument is the server; then the rules
 * between shared options. 0 or -EINVAL.
 */
int flow_opts_finish(int argc, char **argv, struct flow_opts *o, char *err, size_t errlen);

/* Helpers for a command's own options. */
/* A whole-string integer in [min, max]; -EINVAL with "OPT 'S': ..." if not. */
int flow_parse_num(const char *opt, const char *s, uint64_t min, uint64_t max,
		   uint64_t *out, char *err, size_t errlen);
/* Seconds above 0 (and at most 1e6). */
int flow_parse_seconds(const char *opt, const char *s, double *out, char *err, size_t errlen);
/* "64", "4k", "1m", "1g" (binary suffixes), 1 .. 4 GiB; 0 or -EINVAL. */
int flow_parse_size(const char *s, size_t *out);

#endif
