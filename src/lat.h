/*
 * `rperf lat` options as plain data: parsed and validated once, by a pure
 * function the unit tests call directly, before any device is touched.
 */
#ifndef RPERF_LAT_H
#define RPERF_LAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

#define LAT_MAX_SIZES 32
#define LAT_MAX_THREADS 64
#define LAT_SWEEP_MAX_BYTES (1u << 23)	/* -a: 2 .. 2^23, as perftest */

struct lat_opts {
	const char *host;		/* the server */
	const char *device;		/* -d; NULL: the first device */
	int ib_port;			/* -i */
	int gid_index;			/* -x; -1: RoCE v2 IPv4-mapped GID */
	uint16_t tcp_port;		/* -p */
	uint8_t sl;			/* --sl */
	uint8_t tclass;			/* --tclass */
	uint8_t qp_timeout;		/* --qp-timeout */
	uint8_t retry;			/* --retry */
	uint64_t iterations;		/* -n; 0 when -D is given */
	double duration_s;		/* -D */
	uint64_t warmup;		/* --warmup */
	size_t sizes[LAT_MAX_SIZES];	/* -s */
	size_t n_sizes;
	bool all_sizes;			/* -a: filled in once the port is known */
	unsigned threads;		/* --threads */
	int cpus[LAT_MAX_THREADS];	/* --cpu; n_cpus == 0: NIC-local cores */
	unsigned n_cpus;
	enum clock_source clock;	/* --clock */
	const char *json_path;		/* --json; "-" is stdout */
	const char *csv_path;		/* --csv */
	bool rdma_cm;			/* --rdma-cm */
	bool hugepages;			/* --hugepages */
	bool yield;			/* --yield */
	double timeout_s;		/* --timeout: connection setup */
	bool help;
};

/*
 * Fill @o from the command line (argv[0] is "lat"). 0 on success, -EINVAL
 * with a message in @err on bad usage. Pure: no I/O, no device access.
 */
int lat_opts_parse(int argc, char **argv, struct lat_opts *o, char *err, size_t errlen);

/* "64", "4k", "1m" (binary suffixes); 0 or -EINVAL. */
int lat_parse_size(const char *s, size_t *out);

/* The -a sweep: powers of two from 2 up to min(@max_bytes, 2^23). */
size_t lat_sweep_sizes(size_t max_bytes, size_t *sizes, size_t cap);

#endif
