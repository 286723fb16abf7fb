/*
 * The options lat, bw and the server share, declared once: see
 * flow_opts.h.
 */
#include <errno.h>
#include <string.h>

#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/units.h"
#include "engine/flow_opts.h"

#define FLOW_STR_(x) #x
#define FLOW_STR(x) FLOW_STR_(x)

/* One CPU of --cpu's list. */
static int flow_opts_cpu(void *dst, size_t i, const char *item, char *err, size_t errlen)
{
	struct flow_opts *o = dst;
	uint64_t v;

	if (units_parse_u64(item, 0, 4095, &v))
		return opts_bad_value(err, errlen, "--cpu", item, "an integer from 0 to 4095");
	o->cpus[i] = (int)v;
	return 0;
}

/* --cpu LIST: the CPUs of the workers, in order. */
static int flow_opts_cpus(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	struct flow_opts *o = dst;

	return opts_list(name, value, FLOW_MAX_THREADS, flow_opts_cpu, o, &o->n_cpus, err,
			 errlen);
}

/* --clock SOURCE. */
static int flow_opts_clock(void *dst, const char *name, const char *value, char *err,
			   size_t errlen)
{
	if (clock_source_parse(value, dst))
		return opts_bad_value(err, errlen, name, value, "tsc or monotonic");
	return 0;
}

#define FLOW_DEVICE_OPTS \
	OPT_STRING('d', "device", "NAME", "RDMA device (default: the first one)", \
		   struct flow_opts, device), \
	OPT_UINT('i', "ib-port", "N", "device port (default 1)", struct flow_opts, ib_port, \
		 1, 255), \
	OPT_UINT('x', "gid-index", "N", "RoCE GID index (default: the RoCE v2 IPv4 GID)", \
		 struct flow_opts, gid_index, 0, 255), \
	OPT_UINT('p', "port", "N", \
		 "the server's TCP / rdma_cm port (default " FLOW_STR(CONN_DEFAULT_PORT) ")", \
		 struct flow_opts, tcp_port, 1, 65535)

#define FLOW_COMMON_OPTS \
	OPT_FLAG(0, "rdma-cm", "connect through librdmacm instead of TCP", struct flow_opts, \
		 rdma_cm), \
	OPT_FLAG(0, "hugepages", "put the buffers on huge pages", struct flow_opts, hugepages), \
	OPT_STRING('j', "json", "FILE", "write the results as JSON ('-': stdout)", \
		   struct flow_opts, json_path)

const struct opts_entry flow_opts_listen_table[] = {
	FLOW_DEVICE_OPTS,
	FLOW_COMMON_OPTS,
	OPT_END(),
};

const struct opts_entry flow_opts_table[] = {
	OPT_INCLUDE_HERE(flow_opts_listen_table),
	{ .kind = OPTS_UINT, .long_name = "sl", .arg = "N", .help = "service level 0-15 (default 0)",
	  .off = offsetof(struct flow_opts, sl), .width = 1, .max = 15,
	  .expect = "a service level from 0 to 15" },
	OPT_UINT(0, "tclass", "N", "traffic class (RoCE: IP TOS byte; default 0)",
		 struct flow_opts, tclass, 0, 255),
	OPT_UINT(0, "qp-timeout", "N", "RC local ACK timeout, 4.096 us * 2^N (default 20)",
		 struct flow_opts, qp_timeout, 0, 31),
	OPT_UINT(0, "retry", "N", "RC retry count 0-7 (default 7)", struct flow_opts, retry, 0, 7),
	OPT_VALUE(OPTS_SECONDS, 0, "timeout", "TIME",
		  "connection setup timeout (default 10; bare: seconds)", struct flow_opts,
		  timeout_s, 0, 1000000ull * 1000000000ull),
	OPT_UINT(0, "threads", "N", "N workers, each with its own QPs and core (default 1)",
		 struct flow_opts, threads, 1, FLOW_MAX_THREADS),
	OPT_CALLBACK_ALL(0, "cpu", "LIST", "pin the workers to these CPUs (default: NIC-local cores)",
			 flow_opts_cpus),
	OPT_CALLBACK(0, "clock", "SOURCE", "tsc (default; needs an invariant TSC) or monotonic",
		     struct flow_opts, clock, flow_opts_clock),
	OPT_FLAG(0, "yield", "yield the CPU between polls (software NICs such as\n"
		 "Soft-RoCE need it when they share the core)", struct flow_opts, yield),
	OPT_END(),
};

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

int flow_opts_finish(int n_args, const char **args, struct flow_opts *o, char *err,
		     size_t errlen)
{
	if (n_args != 1)
		return errbuf_set(err, errlen, -EINVAL, n_args ? "more than one server given" :
				  "no server given");
	o->host = args[0];
	if (o->n_cpus && o->n_cpus != o->threads)
		return errbuf_set(err, errlen, -EINVAL, "--cpu lists %zu CPUs for %u thread%s",
				  o->n_cpus, o->threads, o->threads == 1 ? "" : "s");
	if (o->json_path && o->csv_path && !strcmp(o->json_path, "-") &&
	    !strcmp(o->csv_path, "-"))
		return errbuf_set(err, errlen, -EINVAL, "--json and --csv cannot both be stdout");
	return 0;
}
