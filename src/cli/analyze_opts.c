/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf analyze` command line -> struct analyze_opts (cli/analyze.h).
 * Kept apart from cmd_analyze.c, which runs the analysis and writes its
 * outputs. The option values are read by qos/analyze.c's callbacks; here
 * the table, the usage, the old short spellings and the rules between
 * options.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/analyze.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "qos/arb.h"

/*
 * -n, -s and -p: analyze's short spellings of --node-type, --sl2vl and
 * --packet-size, where every other command reads iterations, a size and
 * the TCP port. Still read, with a warning naming the spelling to use.
 */
static void analyze_old_warn(char c, const char *opt, const char *elsewhere)
{
	log_warn("-%c is deprecated in analyze (-%c is %s in lat and bw): use --%s", c, c,
		 elsewhere, opt);
}

static int analyze_old_n(void *dst, const char *name, const char *value, char *err,
			 size_t errlen)
{
	analyze_old_warn('n', "node-type", "the iteration count");
	return analyze_opt_node_type(dst, name, value, err, errlen);
}

static int analyze_old_s(void *dst, const char *name, const char *value, char *err,
			 size_t errlen)
{
	struct analyze_req *r = dst;

	(void)name, (void)err, (void)errlen;
	analyze_old_warn('s', "sl2vl", "the message size");
	r->sl2vl = value;
	return 0;
}

static int analyze_old_p(void *dst, const char *name, const char *value, char *err,
			 size_t errlen)
{
	analyze_old_warn('p', "packet-size", "the TCP port");
	return analyze_opt_packet_size(dst, name, value, err, errlen);
}

/* -f's help: the formats of the readers' table, filled by the usage. */
static char analyze_format_help[128];

#define ANALYZE_STR_(x) #x
#define ANALYZE_STR(x) ANALYZE_STR_(x)

static const struct opts_entry analyze_opts_table[] = {
	OPT_CALLBACK('f', "format", "FMT", analyze_format_help, struct analyze_opts, req,
		     analyze_opt_format),
	OPT_CALLBACK(0, "node-type", "TYPE", "opensm key set: ca, swe (default), sw0,\n"
		     "sw2sw or rtr (default with --port: the port's)", struct analyze_opts, req,
		     analyze_opt_node_type),
	OPT_CALLBACK('P', "port", "LID:PORT", "read the port's tables live over SMP MADs\n"
		     "(or PATH:PORT, a directed route such as\n0,1,3:2); with an opensm.conf: its caps\n"
		     "and operational VLs", struct analyze_opts, req, analyze_opt_port),
	OPT_STRING(0, "ca", "NAME[:PORT]", "with --port: the local device the MADs\nleave from "
		   "(default: the first)", struct analyze_opts, req.src.ca),
	OPT_UINT(0, "in-port", "N", "smpquery sl2vl: the input port's row\n(default: the first)",
		 struct analyze_opts, req.conf.in_port, 0, 254),
	OPT_CALLBACK('m', "model", "MODEL",
		     "ib-packet (default for VLArb), ib-fluid,\ndtable, or ets (default for ETS)",
		     struct analyze_opts, req, analyze_opt_model),
	OPT_CALLBACK(0, "semantics", "SEM", "ib-packet's reading (default carry=yes,\n"
		     "low=entry,limit0=alternate,deficit=vl);\nsee rperf-analyze(1)",
		     struct analyze_opts, req, analyze_opt_semantics),
	{ .kind = OPTS_NUMBER, .long_name = "range-pct", .arg = "PP",
	  .help = "readings disagreeing by more: shown as a range\n(default 1 point)",
	  .off = offsetof(struct analyze_opts, req.params.range_pct), .max = 100,
	  .expect = "0 to 100 points" },
	OPT_UINT('r', "runs", "N", "accepted and reported in the JSON; changes\n"
		 "nothing (periods are exact, windows fixed)",
		 struct analyze_opts, req.params.runs, 1, 1000000),
	OPT_UINT('l', "limit", "N", "LimitOfHighPriority 0-255 (overrides input)",
		 struct analyze_opts, req.limit, 0, ARB_MAX_LIMIT),
	OPT_STRING(0, "sl2vl", "LIST", "VL of SL0, SL1, ... (overrides input)",
		   struct analyze_opts, req.sl2vl),
	OPT_CALLBACK(0, "packet-size", "SPEC", "bytes, for every SL or per SL as\n"
		     "SL:BYTES,... (default " ANALYZE_STR(ARB_DEFAULT_PACKET_BYTES) ")",
		     struct analyze_opts, req, analyze_opt_packet_size),
	OPT_STRING('L', "load", "SPEC", "'saturate' (default) or SL:GBPS,...; GBPS\n"
		   "may be 'sat'; ETS: bN:GBPS for a band", struct analyze_opts, req.load),
	OPT_CALLBACK('g', "link-gbps", "G", "link rate, Gb/s (default 100)", struct analyze_opts,
		     req, analyze_opt_link),
	OPT_STRING('j', "json", "FILE", "write the results as JSON ('-': stdout)",
		   struct analyze_opts, json_path),
	OPT_STRING(0, "csv", "FILE", "write one row per SL, VL and band as CSV\n('-': stdout)",
		   struct analyze_opts, csv_path),
	/* Spellings that meant something else here than in lat and bw. */
	OPT_CALLBACK('n', NULL, "TYPE", NULL, struct analyze_opts, req, analyze_old_n),
	OPT_CALLBACK('s', NULL, "LIST", NULL, struct analyze_opts, req, analyze_old_s),
	OPT_CALLBACK('p', NULL, "SPEC", NULL, struct analyze_opts, req, analyze_old_p),
	OPT_END(),
};

const struct opts_usage analyze_opts_usage = {
	.cmd = "analyze",
	.args = "FILE... | --port LID:PORT [OPENSM.CONF]",
	.about = "Predict each SL's share of a port's bandwidth and its wait between\n"
		 "turns from the port's arbitration configuration.\n"
		 "\n"
		 "Inputs (format detected, all files of one format):\n"
		 "  opensm.conf qos_* keys; smpquery vlarb/sl2vl/portinfo text;\n"
		 "  a table of 'high,VL,WEIGHT' / 'low,VL,WEIGHT' lines; an ETS file;\n"
		 "  tc -j or dcb -j output; or a live InfiniBand port (--port: needs\n"
		 "  umad access, root or read/write on /dev/infiniband/umad*).",
	.table = analyze_opts_table,
	.more = "Rates (GBPS, G) take k, m, g, t (bit/s; bare: Gb/s), alone or with bit,\n"
		"bps, b/s or bit/s (25g, 25Gbps, 25Gb/s). Bad input is bad usage (2).\n"
		"See rperf-analyze(1).",
};

void analyze_opts_help(FILE *out)
{
	snprintf(analyze_format_help, sizeof(analyze_format_help), "%s", analyze_format_choices());
	opts_usage(out, &analyze_opts_usage);
}

int analyze_opts_parse(int argc, char **argv, void *p, char *err, size_t errlen)
{
	struct analyze_opts *o = p;
	struct arb_source *src = &o->req.src;
	int ret;

	analyze_req_init(&o->req);
	ret = opts_parse(analyze_opts_table, o, argc, argv, src->files, ANALYZE_MAX_FILES,
			 &src->n_files, err, errlen);
	if (ret)
		return ret;
	if (!src->n_files && !src->port)
		return errbuf_set(err, errlen, -EINVAL, "no input file (or --port)");
	if (src->ca && !src->port)
		return errbuf_set(err, errlen, -EINVAL, "--ca applies with --port (the local "
				  "device the MADs leave from): files are read as they are");
	if (src->n_files > ANALYZE_MAX_FILES)
		return errbuf_set(err, errlen, -EINVAL, "at most %d input files",
				  ANALYZE_MAX_FILES);
	return 0;
}

