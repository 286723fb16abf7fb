/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf mesh` command line -> struct mesh_cli (cli/mesh.h), and from it
 * the settings the run takes (struct mesh_opts). Kept apart from
 * cmd_mesh.c, which runs the passes and writes the outputs. The options
 * are one table (base/opts.h): the agents' options shared with converge,
 * then mesh's own.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/mesh.h"
#include "base/errbuf.h"

/* One SL or traffic class of a list, into the int array @dst. */
static int mesh_opt_class_item(void *dst, size_t i, const char *item, char *err, size_t errlen,
			       const char *name, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(item, &end, 10);
	if (errno || *end || end == item || v < 0 || v > max)
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected 0 to %ld", name, item,
				  max);
	((int *)dst)[i] = (int)v;
	return 0;
}

static int mesh_opt_sl_item(void *dst, size_t i, const char *item, char *err, size_t errlen)
{
	return mesh_opt_class_item(dst, i, item, err, errlen, "--sl", FLOW_MAX_SL);
}

static int mesh_opt_tc_item(void *dst, size_t i, const char *item, char *err, size_t errlen)
{
	return mesh_opt_class_item(dst, i, item, err, errlen, "--tclass", FLOW_MAX_TCLASS);
}

/* --sl LIST, --tclass LIST: the whole struct, for the count beside the array. */
static int mesh_opt_sl(void *dst, const char *name, const char *value, char *err, size_t errlen)
{
	struct mesh_cli *o = dst;

	return opts_list(name, value, MESH_MAX_CLASSES, mesh_opt_sl_item, o->sls, &o->n_sls, err,
			 errlen);
}

static int mesh_opt_tclass(void *dst, const char *name, const char *value, char *err,
			   size_t errlen)
{
	struct mesh_cli *o = dst;

	return opts_list(name, value, MESH_MAX_CLASSES, mesh_opt_tc_item, o->tclasses,
			 &o->n_tclasses, err, errlen);
}

/* --clock SOURCE, and that it was given. */
static int mesh_opt_clock(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	struct mesh_cli *o = dst;

	o->clock_set = true;
	return flow_opts_clock(&o->clock, name, value, err, errlen);
}

/* --topology FILE, again for each file. */
static int mesh_opt_topology(void *dst, const char *name, const char *value, char *err,
			     size_t errlen)
{
	struct mesh_cli *o = dst;

	if (o->n_topo == MESH_MAX_TOPO_FILES)
		return errbuf_set(err, errlen, -EINVAL, "%s: at most %d files", name,
				  MESH_MAX_TOPO_FILES);
	o->topo_paths[o->n_topo++] = value;
	return 0;
}

/* --topology-format ibnetdiscover|lldp|file */
static int mesh_opt_topo_format(void *dst, const char *name, const char *value, char *err,
				size_t errlen)
{
	if (strcmp(value, "ibnetdiscover") && strcmp(value, "lldp") && strcmp(value, "file"))
		return opts_bad_value(err, errlen, name, value, "ibnetdiscover, lldp or file");
	*(const char **)dst = value;
	return 0;
}

/* -x, --gid-index N */
static int mesh_opt_gid(void *dst, const char *name, const char *value, char *err,
			size_t errlen)
{
	return mesh_opt_class_item(dst, 0, value, err, errlen, name, 255);
}

static const struct opts_entry mesh_opts_table[] = {
	OPT_GROUP("Hosts and agents (as rperf converge)"),
	OPT_STRING(0, "hosts", "LIST", "the agents, HOST or HOST:PORT, by commas or blanks",
		   struct mesh_cli, hosts),
	OPT_UINT(0, "port", "N", "the agents' control port (default 18530)", struct mesh_cli,
		 port, 1, 65535),
	OPT_INCLUDE(struct mesh_cli, conv, cmd_agents_opts_table),
	OPT_GROUP("What is measured"),
	OPT_CALLBACK_ALL(0, "sl", "LIST", "SLs to measure, e.g. 0,1 (default 0)", mesh_opt_sl),
	OPT_CALLBACK_ALL(0, "tclass", "LIST", "RoCE traffic classes, paired with --sl by place",
			 mesh_opt_tclass),
	OPT_VALUE(OPTS_SECONDS, 'D', "duration", "TIME", "each ordered pair's measurement, per\n"
		  "class (default 1s)", struct mesh_cli, duration_s, 0, 3600ull * 1000000000ull),
	OPT_VALUE(OPTS_SECONDS, 0, "warmup", "TIME", "before each measurement (default 0.2s)",
		  struct mesh_cli, warmup_s, 0, 3600ull * 1000000000ull),
	OPT_VALUE(OPTS_BYTES, 's', "size", "BYTES", "message size (default 64)", struct mesh_cli,
		  size_bytes, 1, FLOW_MAX_MSG_BYTES),
	OPT_UINT(0, "sample", "K", "not every pair: those under each leaf switch and K\n"
		 "a host across leaves, rotated each pass (with\n--topology)", struct mesh_cli, sample,
		 1, MESH_MAX_HOSTS),
	OPT_CALLBACK_ALL(0, "clock", "SOURCE", "tsc (default) or monotonic", mesh_opt_clock),
	OPT_STRING('d', "device", "NAME", "RDMA device on every host (default: the first)",
		   struct mesh_cli, device),
	OPT_CALLBACK('x', "gid-index", "N", "GID index (default: RoCE v2 IPv4-mapped)",
		     struct mesh_cli, gid_index, mesh_opt_gid),
	{ .kind = OPTS_NUMBER, .short_name = 'k', .long_name = "mad-k", .arg = "K",
	  .help = "outliers: p50 above median + K scaled MADs of\nits class's pairs (default 3)",
	  .off = offsetof(struct mesh_cli, mad_k), .max = 1000, .expect = "0 to 1000" },
	OPT_GROUP("Where the latency is"),
	OPT_CALLBACK_ALL(0, "topology", "FILE", "locate the slow hops in this fabric:\n"
			 "ibnetdiscover, lldpcli -f json show neighbors or\n"
			 "a topology file; again for more files", mesh_opt_topology),
	OPT_CALLBACK(0, "topology-format", "FMT", "ibnetdiscover, lldp or file (default: from\n"
		     "each file's content)", struct mesh_cli, topo_format, mesh_opt_topo_format),
	OPT_STRING(0, "reference", "FILE", "an earlier rperf mesh --json: pairs and hops as\n"
		   "the excess over it", struct mesh_cli, reference),
	OPT_VALUE(OPTS_SECONDS, 0, "min-change", "TIME", "with --reference: the change a hop\n"
		  "must pass (default: from the reference's spread)", struct mesh_cli,
		  min_change_s, 0, 3600ull * 1000000000ull),
	OPT_STRING(0, "routes", "FILE", "the pairs' real paths: a routes file, or\n"
		   "dump_lfts output (InfiniBand forwarding tables)", struct mesh_cli, routes),
	OPT_STRING(0, "replay", "FILE", "no agents: locate the hops again from a saved\n"
		   "rperf mesh --json (with --topology)", struct mesh_cli, replay),
	OPT_GROUP("Outputs"),
	OPT_STRING('j', "json", "FILE", "write the results as JSON ('-': stdout)", struct mesh_cli,
		   json_path),
	OPT_STRING(0, "csv", "FILE", "one row per ordered pair and class ('-': stdout)",
		   struct mesh_cli, csv_path),
	OPT_STRING(0, "openmetrics", "FILE", "OpenMetrics text for a textfile collector,\n"
		   "written atomically", struct mesh_cli, om_path),
	OPT_STRING(0, "plot", "PREFIX", "a gnuplot heatmap per class: PREFIX-slN.gp, .dat",
		   struct mesh_cli, plot_prefix),
	OPT_STRING(0, "json-stream", "FILE", "each step as it ends, one JSON object a line\n"
		   "('-': stdout)", struct mesh_cli, stream_path),
	OPT_VALUE(OPTS_SECONDS, 0, "interval", "TIME", "repeat the mesh every TIME (outputs\n"
		  "rewritten after each pass)", struct mesh_cli, interval_s, 0,
		  366ull * 86400ull * 1000000000ull),
	OPT_UINT(0, "count", "N", "with --interval: passes (default 0: until stopped)",
		 struct mesh_cli, count, 0, 1000000000),
	OPT_END(),
};

const struct opts_usage mesh_opts_usage = {
	.cmd = "mesh",
	.args = "SCENARIO | --hosts LIST",
	.about = "Measure the RTT of every ordered pair of hosts, per SL, through 'rperf agent'\n"
		 "on each: a round-robin schedule, no host in two pairs at once; the matrix,\n"
		 "its outliers and why.",
	.table = mesh_opts_table,
	.more = "SCENARIO (rperf-scenario(5)) gives [global] settings and, by its flows, the\n"
		"hosts. Outliers are reported, not failed: exit 0.",
};

/* The command line into @o: 0, OPTS_HELP, or -EINVAL with the reason. */
int mesh_opts_parse(int argc, char **argv, struct mesh_cli *o, char *err, size_t errlen)
{
	int n, ret;

	*o = (struct mesh_cli){ .duration_s = 1, .warmup_s = 0.2, .size_bytes = 64, .mad_k = 3,
				.gid_index = -1, .min_change_s = NAN,
				.conv = { .timeout_s = 10, .agent_cmd = "rperf" } };
	ret = opts_parse(mesh_opts_table, o, argc, argv, &o->operand, 1, &n, err, errlen);
	if (ret)
		return ret;
	if ((o->routes || o->replay) && !o->n_topo)
		return errbuf_set(err, errlen, -EINVAL, "--%s goes with --topology",
				  o->routes ? "routes" : "replay");
	if (o->replay && (n || o->hosts || o->csv_path || o->om_path || o->plot_prefix ||
			  o->stream_path || o->interval_s))
		return errbuf_set(err, errlen, -EINVAL, "--replay takes no scenario nor hosts, and "
				  "writes the table and --json only");
	if (o->replay)
		return 0;
	if (n > 1 || (n == 1) == (o->hosts != NULL))
		return errbuf_set(err, errlen, -EINVAL, "a scenario or --hosts, one of them");
	if (o->n_sls && o->n_tclasses && o->n_sls != o->n_tclasses)
		return errbuf_set(err, errlen, -EINVAL, "--sl and --tclass: as many of each");
	if (o->conv.launch && !o->conv.token_file)
		return errbuf_set(err, errlen, -EINVAL,
				  "--launch needs --token-file: the agents listen beyond the loopback");
	if (o->count && !o->interval_s)
		return errbuf_set(err, errlen, -EINVAL, "--count goes with --interval");
	if (o->sample && !o->n_topo)
		return errbuf_set(err, errlen, -EINVAL, "--sample goes with --topology: it groups "
				  "the hosts by their leaf switch");
	if ((o->topo_format || o->reference || o->routes) && !o->n_topo)
		return errbuf_set(err, errlen, -EINVAL, "--%s goes with --topology",
				  o->reference ? "reference" : "topology-format");
	return 0;
}

/* The command line's settings over @sc's, and the classes, into @mo. */
int mesh_settings(const struct mesh_cli *o, struct scenario *sc, struct mesh_opts *mo,
			 char *err, size_t errlen)
{
	size_t i, n = o->n_sls > o->n_tclasses ? o->n_sls : o->n_tclasses;

	if (o->port)
		sc->agent_port = (uint16_t)o->port;
	if (o->clock_set)
		sc->clock = o->clock;
	if (o->device)
		snprintf(sc->device, sizeof(sc->device), "%s", o->device);
	if (o->gid_index >= 0)
		sc->gid_index = o->gid_index;
	mo->n_classes = n ? n : 1;
	for (i = 0; i < mo->n_classes; i++)
		mo->classes[i] = (struct mesh_class){ .sl = i < o->n_sls ? o->sls[i] : 0,
			.tclass = i < o->n_tclasses ? o->tclasses[i] : 0 };
	mo->duration_s = o->duration_s;
	mo->warmup_s = o->warmup_s;
	mo->size_bytes = o->size_bytes;
	mo->mad_k = o->mad_k;
	mo->sample_k = o->sample;
	mo->base = sc;
	mo->conv = &o->conv;
	return 0;
}

