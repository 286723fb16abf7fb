/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The options lat, bw and the server share, declared once: see
 * flow_opts.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/units.h"
#include "engine/flow_opts.h"

/*
 * A flow setting's option, from its line of the table (flow/flow_spec.h)
 * over the struct flow_spec in struct flow_opts: its flag, kind, limits
 * and help, the help closed by CLI_DEF, the default the command starts
 * from. Each FLOW_OPTS_SPEC_* is an X for one of those lines.
 */
#define FLOW_OPTS_KIND_FLOW_SPEC_INT	OPTS_UINT
#define FLOW_OPTS_KIND_FLOW_SPEC_BYTES	OPTS_BYTES
#define FLOW_OPTS_KIND_FLOW_SPEC_BPS	OPTS_BPS
/* An INT's EXPECT is a noun, not the phrase: base/opts says the range. */
#define FLOW_OPTS_EXPECT_FLOW_SPEC_INT(E)	NULL
#define FLOW_OPTS_EXPECT_FLOW_SPEC_BYTES(E)	(E)
#define FLOW_OPTS_EXPECT_FLOW_SPEC_BPS(E)	(E)
#define FLOW_OPTS_SPEC_AT(S, CLI_DEF, F, KIND, MIN, MAX, EXPECT, FLAG, ARG, HELP) \
	{ .kind = FLOW_OPTS_KIND_##KIND, .short_name = (S), .long_name = (FLAG), .arg = (ARG), \
	  .help = HELP " (default " OPTS_STR(CLI_DEF) ")", \
	  .off = offsetof(struct flow_opts, spec.F), \
	  .width = OPTS_FIELD_WIDTH(struct flow_opts, spec.F), .min = (MIN), .max = (MAX), \
	  .expect = FLOW_OPTS_EXPECT_##KIND(EXPECT) },
/* The table's default. */
#define FLOW_OPTS_SPEC(F, KEY, WIRE, KIND, UNIT, MIN, MAX, DEF, REQ, EXPECT, FLAG, ARG, HELP) \
	FLOW_OPTS_SPEC_AT(0, DEF, F, KIND, MIN, MAX, EXPECT, FLAG, ARG, HELP)
/* --sl, --tclass: also that the user chose it (flow_opts_spec_given). */
#define FLOW_OPTS_SPEC_GIVEN(F, KEY, WIRE, KIND, UNIT, MIN, MAX, DEF, REQ, EXPECT, FLAG, ARG, \
			     HELP) \
	OPT_CALLBACK_ALL(0, FLAG, ARG, HELP " (default " OPTS_STR(DEF) ")", flow_opts_spec_given),
/* bw's -s: its own default, FLOW_SIZE_DEFAULT_BW_CLI (why: flow/flow_spec.h). */
#define FLOW_OPTS_SPEC_BW_SIZE(F, KEY, WIRE, KIND, UNIT, MIN, MAX, DEF, REQ, EXPECT, FLAG, ARG, \
			       HELP) \
	FLOW_OPTS_SPEC_AT('s', FLOW_SIZE_DEFAULT_BW_CLI, F, KIND, MIN, MAX, EXPECT, FLAG, ARG, HELP)

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

/* --sl N and --tclass N (each flag its scenario key), read as the table
 * says; with --rdma-cm, a choice the path record does not override. */
static int flow_opts_spec_given(void *dst, const char *name, const char *value, char *err,
				size_t errlen)
{
	const struct flow_spec_field *f = flow_spec_field_find(name + 2);
	struct flow_opts *o = dst;
	uint64_t v;

	if (flow_spec_read_field(f, name, value, &v, err, errlen))
		return -EINVAL;
	flow_spec_put(&o->spec, f, v);
	if (f->off == offsetof(struct flow_spec, sl))
		o->sl_given = true;
	else
		o->tclass_given = true;
	return 0;
}

int flow_opts_clock(void *dst, const char *name, const char *value, char *err,
			   size_t errlen)
{
	if (clock_source_parse(value, dst))
		return opts_bad_value(err, errlen, name, value, "tsc or monotonic");
	return 0;
}

/* --clock: a host clock (tsc, monotonic), or lat's NIC timestamps with the TSC. */
static int flow_opts_clock_any(void *dst, const char *name, const char *value, char *err,
			       size_t errlen)
{
	struct flow_opts *o = dst;

	o->rtt_clock = !strcmp(value, "hw") ? FLOW_RTT_NIC : !strcmp(value, "both") ?
		       FLOW_RTT_BOTH : FLOW_RTT_HOST;
	if (o->rtt_clock != FLOW_RTT_HOST) {
		o->clock = CLOCK_SRC_TSC;
		return 0;
	}
	if (clock_source_parse(value, &o->clock))
		return opts_bad_value(err, errlen, name, value, "tsc, monotonic, hw or both");
	return 0;
}

#define FLOW_DEVICE_OPTS \
	OPT_STRING('d', "device", "NAME", "RDMA device (default: the first one)", \
		   struct flow_opts, device), \
	OPT_UINT('i', "ib-port", "N", "device port (default 1)", struct flow_opts, ib_port, \
		 1, 255), \
	OPT_UINT('x', "gid-index", "N", "RoCE GID index (default: the RoCE v2 IPv4 GID)", \
		 struct flow_opts, gid_index, 0, 255), \
	OPT_UINT(0, "pkey-index", "N", "P_Key table index of the QPs (default 0)", \
		 struct flow_opts, pkey_index, 0, 65535), \
	OPT_UINT('p', "port", "N", \
		 "the server's TCP / rdma_cm port (default " OPTS_STR(CONN_DEFAULT_PORT) ")", \
		 struct flow_opts, tcp_port, 1, 65535)

#define FLOW_COMMON_OPTS \
	OPT_FLAG(0, "rdma-cm", "connect through librdmacm instead of TCP", struct flow_opts, \
		 rdma_cm), \
	OPT_FLAG(0, "hugepages", "put the buffers on huge pages", struct flow_opts, hugepages), \
	OPT_STRING('j', "json", "FILE", "write the results as JSON ('-': stdout)", \
		   struct flow_opts, json_path), \
	OPT_STRING(0, "token-file", "FILE", "the shared token: the server admits only\n" \
		   "clients that prove it, and proves it back\n(mode 0600; make one with " \
		   "'rperf agent --new-token')", struct flow_opts, token_file)

const struct opts_entry flow_opts_listen_table[] = {
	FLOW_DEVICE_OPTS,
	FLOW_COMMON_OPTS,
	OPT_END(),
};

const struct opts_entry flow_opts_table[] = {
	OPT_INCLUDE_HERE(flow_opts_listen_table),
	FLOW_SPEC_SL(FLOW_OPTS_SPEC_GIVEN)
	FLOW_SPEC_TCLASS(FLOW_OPTS_SPEC_GIVEN)
	OPT_UINT(0, "qp-timeout", "N", "RC local ACK timeout, 4.096 us * 2^N (default "
		 OPTS_STR(FLOW_QP_TIMEOUT_DEFAULT) ")",
		 struct flow_opts, qp_timeout, 0, 31),
	OPT_UINT(0, "retry", "N", "RC retry count 0-7 (default "
		 OPTS_STR(FLOW_RETRY_DEFAULT) ")", struct flow_opts, retry, 0, 7),
	OPT_VALUE(OPTS_SECONDS, 0, "timeout", "TIME",
		  "connection setup timeout (default 10; bare: seconds)", struct flow_opts,
		  timeout_s, 0, 1000000ull * 1000000000ull),
	FLOW_SPEC_THREADS(FLOW_OPTS_SPEC)
	OPT_CALLBACK_ALL(0, "cpu", "LIST", "pin the workers to these CPUs (default: NIC-local\n"
			 "cores)",
			 flow_opts_cpus),
	OPT_CALLBACK_ALL(0, "clock", "SOURCE", "tsc (default; needs an invariant TSC) or\n"
			 "monotonic; lat: hw (the NIC's completion\ntimestamps) or both",
			 flow_opts_clock_any),
	OPT_FLAG(0, "yield", "yield the CPU between polls (software NICs such as\n"
		 "Soft-RoCE need it when they share the core)", struct flow_opts, yield),
	OPT_STRING(0, "json-stream", "FILE", "write each result as it ends, one JSON object a\n"
		   "line ('-': stdout)", struct flow_opts, json_stream_path),
	OPT_END(),
};

const struct opts_entry flow_opts_bw_table[] = {
	FLOW_SPEC_SIZE(FLOW_OPTS_SPEC_BW_SIZE)
	FLOW_SPEC_QPS(FLOW_OPTS_SPEC)
	FLOW_SPEC_RATE(FLOW_OPTS_SPEC)
	OPT_END(),
};

void flow_opts_defaults(struct flow_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->tcp_port = CONN_DEFAULT_PORT;
	flow_spec_defaults(&o->spec);
	o->qp_timeout = FLOW_QP_TIMEOUT_DEFAULT;
	o->retry = FLOW_RETRY_DEFAULT;
	o->clock = CLOCK_SRC_TSC;
	o->timeout_s = 10;
}

int flow_opts_token(struct flow_opts *o, char *err, size_t errlen)
{
	o->token[0] = '\0';
	if (!o->token_file)
		return 0;
	if (o->rdma_cm)
		return errbuf_set(err, errlen, -EINVAL, "--token-file needs the TCP setup: an "
				  "rdma_cm request cannot carry the proofs (drop --rdma-cm)");
	return token_read(o->token_file, o->token, sizeof(o->token), err, errlen);
}

const char *flow_opts_token_of(const struct flow_opts *o)
{
	return o->token_file ? o->token : NULL;
}

int flow_opts_finish(int n_args, const char **args, struct flow_opts *o, char *err,
		     size_t errlen)
{
	if (n_args != 1)
		return errbuf_set(err, errlen, -EINVAL, n_args ? "more than one server given" :
				  "no server given");
	o->host = args[0];
	if (o->n_cpus && o->n_cpus != o->spec.threads)
		return errbuf_set(err, errlen, -EINVAL, "--cpu lists %zu CPUs for %u thread%s",
				  o->n_cpus, o->spec.threads, o->spec.threads == 1 ? "" : "s");
	if ((o->json_path && !strcmp(o->json_path, "-")) + (o->csv_path && !strcmp(o->csv_path, "-")) +
	    (o->json_stream_path && !strcmp(o->json_stream_path, "-")) > 1)
		return errbuf_set(err, errlen, -EINVAL,
				  "only one of --json, --csv and --json-stream can be stdout");
	/* The one place of the rule: rdma_cm connects one QP pair (lat, bw). */
	if (o->rdma_cm && o->spec.threads > 1)
		return errbuf_set(err, errlen, -EINVAL, "--rdma-cm runs one thread");
	if (o->rdma_cm && o->spec.qps > 1)
		return errbuf_set(err, errlen, -EINVAL, "--rdma-cm runs one QP");
	return flow_opts_token(o, err, errlen);
}
