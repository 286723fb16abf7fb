/*
 * `rperf lat` command line -> struct lat_opts. Kept apart from cmd_lat.c
 * so the unit tests exercise every rule without a device.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "errbuf.h"
#include "lat.h"

enum {
	OPT_SL = 256,
	OPT_TCLASS,
	OPT_QP_TIMEOUT,
	OPT_RETRY,
	OPT_WARMUP,
	OPT_THREADS,
	OPT_CPU,
	OPT_CLOCK,
	OPT_JSON,
	OPT_CSV,
	OPT_RDMA_CM,
	OPT_HUGEPAGES,
	OPT_TIMEOUT,
	OPT_YIELD,
};

static const struct option lat_long_opts[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "port", required_argument, NULL, 'p' },
	{ "sl", required_argument, NULL, OPT_SL },
	{ "tclass", required_argument, NULL, OPT_TCLASS },
	{ "qp-timeout", required_argument, NULL, OPT_QP_TIMEOUT },
	{ "retry", required_argument, NULL, OPT_RETRY },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "rdma-cm", no_argument, NULL, OPT_RDMA_CM },
	{ "hugepages", no_argument, NULL, OPT_HUGEPAGES },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "yield", no_argument, NULL, OPT_YIELD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A whole-string unsigned integer in [min, max]. */
static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_num(const char *opt, const char *s, uint64_t min, uint64_t max,
		     uint64_t *out, char *err, size_t errlen)
{
	if (parse_u64(s, min, max, out))
		return errbuf_set(err, errlen, -EINVAL,
				  "%s '%s': expected an integer from %llu to %llu", opt, s,
				  (unsigned long long)min, (unsigned long long)max);
	return 0;
}

int lat_parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift)
		end++;
	if (*end || !v || v > (1ull << 32) >> shift)
		return -EINVAL;
	*out = (size_t)(v << shift);
	return 0;
}

static int parse_sizes(const char *arg, struct lat_opts *o, char *err, size_t errlen)
{
	char buf[512], *tok, *save;

	if (strlen(arg) >= sizeof(buf))
		return errbuf_set(err, errlen, -EINVAL, "--size list too long");
	strcpy(buf, arg);
	o->n_sizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_sizes == LAT_MAX_SIZES)
			return errbuf_set(err, errlen, -EINVAL, "--size: at most %d sizes",
					  LAT_MAX_SIZES);
		if (lat_parse_size(tok, &o->sizes[o->n_sizes]))
			return errbuf_set(err, errlen, -EINVAL,
					  "--size '%s': expected bytes from 1 to 4g (k, m, g suffixes)",
					  tok);
		o->n_sizes++;
	}
	if (!o->n_sizes)
		return errbuf_set(err, errlen, -EINVAL, "--size '%s': no size given", arg);
	return 0;
}

static int parse_cpus(const char *arg, struct lat_opts *o, char *err, size_t errlen)
{
	char buf[512], *tok, *save;
	uint64_t v;

	if (strlen(arg) >= sizeof(buf))
		return errbuf_set(err, errlen, -EINVAL, "--cpu list too long");
	strcpy(buf, arg);
	o->n_cpus = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_cpus == LAT_MAX_THREADS)
			return errbuf_set(err, errlen, -EINVAL, "--cpu: at most %d CPUs",
					  LAT_MAX_THREADS);
		if (parse_num("--cpu", tok, 0, 4095, &v, err, errlen))
			return -EINVAL;
		o->cpus[o->n_cpus++] = (int)v;
	}
	if (!o->n_cpus)
		return errbuf_set(err, errlen, -EINVAL, "--cpu '%s': no CPU given", arg);
	return 0;
}

static int parse_seconds(const char *opt, const char *s, double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e6)
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected seconds above 0", opt, s);
	*out = v;
	return 0;
}

static void lat_opts_defaults(struct lat_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->tcp_port = CONN_DEFAULT_PORT;
	o->qp_timeout = 20;
	o->retry = 7;
	o->iterations = 1000;
	o->warmup = 100;
	o->sizes[0] = 64;
	o->n_sizes = 1;
	o->threads = 1;
	o->clock = CLOCK_SRC_TSC;
	o->timeout_s = 10;
}

/* One option; 0 or -EINVAL with the message in err. */
static int lat_opt_one(int c, const char *arg, struct lat_opts *o, bool *n_given,
		       char *err, size_t errlen)
{
	uint64_t v;
	int ret = 0;

	switch (c) {
	case 'd':
		o->device = arg;
		break;
	case 'i':
		ret = parse_num("--ib-port", arg, 1, 255, &v, err, errlen);
		o->ib_port = (int)v;
		break;
	case 'x':
		ret = parse_num("--gid-index", arg, 0, 255, &v, err, errlen);
		o->gid_index = (int)v;
		break;
	case 'p':
		ret = parse_num("--port", arg, 1, 65535, &v, err, errlen);
		o->tcp_port = (uint16_t)v;
		break;
	case OPT_SL:
		if (parse_u64(arg, 0, 15, &v))
			return errbuf_set(err, errlen, -EINVAL,
					  "--sl '%s': a service level is 0 to 15", arg);
		o->sl = (uint8_t)v;
		break;
	case OPT_TCLASS:
		ret = parse_num("--tclass", arg, 0, 255, &v, err, errlen);
		o->tclass = (uint8_t)v;
		break;
	case OPT_QP_TIMEOUT:
		ret = parse_num("--qp-timeout", arg, 0, 31, &v, err, errlen);
		o->qp_timeout = (uint8_t)v;
		break;
	case OPT_RETRY:
		ret = parse_num("--retry", arg, 0, 7, &v, err, errlen);
		o->retry = (uint8_t)v;
		break;
	case 'n':
		ret = parse_num("--iters", arg, 1, UINT64_MAX / 2, &o->iterations, err, errlen);
		*n_given = true;
		break;
	case 'D':
		ret = parse_seconds("--duration", arg, &o->duration_s, err, errlen);
		break;
	case OPT_WARMUP:
		ret = parse_num("--warmup", arg, 0, UINT64_MAX / 2, &o->warmup, err, errlen);
		break;
	case 's':
		ret = parse_sizes(arg, o, err, errlen);
		break;
	case 'a':
		o->all_sizes = true;
		break;
	case OPT_THREADS:
		ret = parse_num("--threads", arg, 1, LAT_MAX_THREADS, &v, err, errlen);
		o->threads = (unsigned)v;
		break;
	case OPT_CPU:
		ret = parse_cpus(arg, o, err, errlen);
		break;
	case OPT_CLOCK:
		if (clock_source_parse(arg, &o->clock))
			return errbuf_set(err, errlen, -EINVAL,
					  "--clock '%s': expected tsc or monotonic", arg);
		break;
	case OPT_JSON:
		o->json_path = arg;
		break;
	case OPT_CSV:
		o->csv_path = arg;
		break;
	case OPT_RDMA_CM:
		o->rdma_cm = true;
		break;
	case OPT_HUGEPAGES:
		o->hugepages = true;
		break;
	case OPT_YIELD:
		o->yield = true;
		break;
	case OPT_TIMEOUT:
		ret = parse_seconds("--timeout", arg, &o->timeout_s, err, errlen);
		break;
	default:
		return -EINVAL;
	}
	return ret;
}

/* Rules between options, once all are known. */
static int lat_opts_check(struct lat_opts *o, bool n_given, char *err, size_t errlen)
{
	if (o->duration_s > 0 && n_given)
		return errbuf_set(err, errlen, -EINVAL, "give -n or -D, not both");
	if (o->duration_s > 0)
		o->iterations = 0;
	if (o->n_cpus && o->n_cpus != o->threads)
		return errbuf_set(err, errlen, -EINVAL, "--cpu lists %u CPUs for %u thread%s",
				  o->n_cpus, o->threads, o->threads == 1 ? "" : "s");
	if (o->json_path && o->csv_path && !strcmp(o->json_path, "-") &&
	    !strcmp(o->csv_path, "-"))
		return errbuf_set(err, errlen, -EINVAL, "--json and --csv cannot both be stdout");
	return 0;
}

int lat_opts_parse(int argc, char **argv, struct lat_opts *o, char *err, size_t errlen)
{
	bool n_given = false, s_given = false;
	int c;

	lat_opts_defaults(o);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:x:p:n:D:s:ah", lat_long_opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return 0;
		}
		if (c == '?')
			return errbuf_set(err, errlen, -EINVAL, "unknown option '%s'",
					  argv[optind - 1]);
		if (c == ':')
			return errbuf_set(err, errlen, -EINVAL, "option '%s' needs a value",
					  argv[optind - 1]);
		s_given = s_given || c == 's';
		if (lat_opt_one(c, optarg, o, &n_given, err, errlen))
			return -EINVAL;
	}
	if (o->all_sizes && s_given)
		return errbuf_set(err, errlen, -EINVAL, "give -s or -a, not both");
	if (optind != argc - 1)
		return errbuf_set(err, errlen, -EINVAL, optind >= argc ? "no server given" :
				  "more than one server given");
	o->host = argv[optind];
	if (o->all_sizes)
		o->n_sizes = 0;
	return lat_opts_check(o, n_given, err, errlen);
}

size_t lat_sweep_sizes(size_t max_bytes, size_t *sizes, size_t cap)
{
	size_t n = 0, s;

	for (s = 2; s <= LAT_SWEEP_MAX_BYTES && s <= max_bytes && n < cap; s <<= 1)
		sizes[n++] = s;
	return n;
}
