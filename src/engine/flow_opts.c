/*
 * The options lat and bw share: see flow_opts.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/conn.h"
#include "base/errbuf.h"
#include "engine/flow_opts.h"

const char flow_opts_usage_path[] =
	"  -d, --device NAME     RDMA device (default: the first one)\n"
	"  -i, --ib-port N       device port (default 1)\n"
	"  -x, --gid-index N     RoCE GID index (default: the RoCE v2 IPv4 GID)\n"
	"  -p, --port N          server's TCP / rdma_cm port (default 18520)\n"
	"      --sl N            service level 0-15 (default 0)\n"
	"      --tclass N        traffic class (RoCE: IP TOS byte; default 0)\n"
	"      --qp-timeout N    RC local ACK timeout, 4.096 us * 2^N (default 20)\n"
	"      --retry N         RC retry count 0-7 (default 7)\n"
	"      --rdma-cm         connect through librdmacm instead of TCP\n"
	"      --timeout SECS    connection setup timeout (default 10)\n";

const char flow_opts_usage_run[] =
	"      --threads N       N workers, each with its own QPs and core (default 1)\n"
	"      --cpu LIST        pin the workers to these CPUs (default: NIC-local cores)\n"
	"      --clock SOURCE    tsc (default; needs an invariant TSC) or monotonic\n"
	"      --hugepages       put the buffers on huge pages\n"
	"      --yield           yield the CPU between polls (software NICs such as\n"
	"                        Soft-RoCE need it when they share the core)\n"
	"      --json FILE       write the results as JSON ('-': stdout)\n";

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

int flow_parse_num(const char *opt, const char *s, uint64_t min, uint64_t max,
		   uint64_t *out, char *err, size_t errlen)
{
	if (parse_u64(s, min, max, out))
		return errbuf_set(err, errlen, -EINVAL,
				  "%s '%s': expected an integer from %llu to %llu", opt, s,
				  (unsigned long long)min, (unsigned long long)max);
	return 0;
}

int flow_parse_seconds(const char *opt, const char *s, double *out, char *err, size_t errlen)
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

int flow_parse_size(const char *s, size_t *out)
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

static int parse_cpus(const char *arg, struct flow_opts *o, char *err, size_t errlen)
{
	char buf[512], *tok, *save;
	uint64_t v;

	if (strlen(arg) >= sizeof(buf))
		return errbuf_set(err, errlen, -EINVAL, "--cpu list too long");
	strcpy(buf, arg);
	o->n_cpus = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_cpus == FLOW_MAX_THREADS)
			return errbuf_set(err, errlen, -EINVAL, "--cpu: at most %d CPUs",
					  FLOW_MAX_THREADS);
		if (flow_parse_num("--cpu", tok, 0, 4095, &v, err, errlen))
			return -EINVAL;
		o->cpus[o->n_cpus++] = (int)v;
	}
	if (!o->n_cpus)
		return errbuf_set(err, errlen, -EINVAL, "--cpu '%s': no CPU given", arg);
	return 0;
}

void flow_opts_defaults(struct flow_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->tcp_port = CONN_DEFAULT_PORT;
	o->qp_timeout = 20;
	o->retry = 7;
	o->threads = 1;
	o->clock = CLOCK_SRC_TSC;
	o->timeout_s = 10;
}

/* The options that set how packets travel. */
static int path_opt_one(int c, const char *arg, struct flow_opts *o, char *err, size_t errlen)
{
	uint64_t v = 0;
	int ret = 1;

	switch (c) {
	case FLOW_OPT_SL:
		if (parse_u64(arg, 0, 15, &v))
			return errbuf_set(err, errlen, -EINVAL,
					  "--sl '%s': a service level is 0 to 15", arg);
		o->sl = (uint8_t)v;
		return 0;
	case FLOW_OPT_TCLASS:
		ret = flow_parse_num("--tclass", arg, 0, 255, &v, err, errlen);
		o->tclass = (uint8_t)v;
		break;
	case FLOW_OPT_QP_TIMEOUT:
		ret = flow_parse_num("--qp-timeout", arg, 0, 31, &v, err, errlen);
		o->qp_timeout = (uint8_t)v;
		break;
	case FLOW_OPT_RETRY:
		ret = flow_parse_num("--retry", arg, 0, 7, &v, err, errlen);
		o->retry = (uint8_t)v;
		break;
	}
	return ret;
}

int flow_opt_one(int c, const char *arg, struct flow_opts *o, char *err, size_t errlen)
{
	uint64_t v = 0;
	int ret = 0;

	switch (c) {
	case 'd': o->device = arg; break;
	case FLOW_OPT_JSON: o->json_path = arg; break;
	case FLOW_OPT_CSV: o->csv_path = arg; break;
	case FLOW_OPT_RDMA_CM: o->rdma_cm = true; break;
	case FLOW_OPT_HUGEPAGES: o->hugepages = true; break;
	case FLOW_OPT_YIELD: o->yield = true; break;
	case FLOW_OPT_CPU: return parse_cpus(arg, o, err, errlen);
	case 'i':
		ret = flow_parse_num("--ib-port", arg, 1, 255, &v, err, errlen);
		o->ib_port = (int)v;
		break;
	case 'x':
		ret = flow_parse_num("--gid-index", arg, 0, 255, &v, err, errlen);
		o->gid_index = (int)v;
		break;
	case 'p':
		ret = flow_parse_num("--port", arg, 1, 65535, &v, err, errlen);
		o->tcp_port = (uint16_t)v;
		break;
	case FLOW_OPT_THREADS:
		ret = flow_parse_num("--threads", arg, 1, FLOW_MAX_THREADS, &v, err, errlen);
		o->threads = (unsigned)v;
		break;
	case FLOW_OPT_CLOCK:
		if (clock_source_parse(arg, &o->clock))
			return errbuf_set(err, errlen, -EINVAL,
					  "--clock '%s': expected tsc or monotonic", arg);
		break;
	case FLOW_OPT_TIMEOUT:
		return flow_parse_seconds("--timeout", arg, &o->timeout_s, err, errlen);
	default:
		return path_opt_one(c, arg, o, err, errlen);
	}
	return ret;
}

int flow_opt_bad(int c, char **argv, char *err, size_t errlen)
{
	if (c == '?')
		return errbuf_set(err, errlen, -EINVAL, "unknown option '%s'", argv[optind - 1]);
	if (c == ':')
		return errbuf_set(err, errlen, -EINVAL, "option '%s' needs a value",
				  argv[optind - 1]);
	return 1;
}

int flow_opts_finish(int argc, char **argv, struct flow_opts *o, char *err, size_t errlen)
{
	if (optind != argc - 1)
		return errbuf_set(err, errlen, -EINVAL, optind >= argc ? "no server given" :
				  "more than one server given");
	o->host = argv[optind];
	if (o->n_cpus && o->n_cpus != o->threads)
		return errbuf_set(err, errlen, -EINVAL, "--cpu lists %u CPUs for %u thread%s",
				  o->n_cpus, o->threads, o->threads == 1 ? "" : "s");
	if (o->json_path && o->csv_path && !strcmp(o->json_path, "-") &&
	    !strcmp(o->csv_path, "-"))
		return errbuf_set(err, errlen, -EINVAL, "--json and --csv cannot both be stdout");
	return 0;
}
