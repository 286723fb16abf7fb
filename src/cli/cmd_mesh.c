/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh: the RTT of every ordered pair of hosts, per SL (and
 * traffic class), through the converge agents, scheduled as a
 * round-robin tournament so that no host is in two measurements at once;
 * the matrix, its outliers by a robust rule, and the outputs (text, JSON,
 * CSV, OpenMetrics, gnuplot heatmaps, a stream of steps), once or every
 * --interval. Here: the options, the hosts, the passes and the outputs;
 * the schedule and the run are converge/mesh.c, the formats report_mesh.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "base/errbuf.h"
#include "base/jsonfile.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/stop.h"
#include "engine/flow_opts.h"
#include "converge/mesh.h"
#include "report/report.h"

#define MESH_MAX_TOPO_FILES	64

struct mesh_cli {
	const char *operand;		/* SCENARIO */
	const char *hosts;		/* --hosts */
	struct converge_opts conv;	/* --launch, --agent-command, --token-file, --timeout */
	unsigned port;
	int sls[MESH_MAX_CLASSES], tclasses[MESH_MAX_CLASSES];
	size_t n_sls, n_tclasses;
	double duration_s, warmup_s;
	size_t size_bytes;
	enum clock_source clock;
	bool clock_set;
	const char *device;
	int gid_index;
	double mad_k;
	const char *json_path, *csv_path, *om_path, *plot_prefix, *stream_path;
	double interval_s;
	unsigned count;
	const char *topo_paths[MESH_MAX_TOPO_FILES];
	size_t n_topo;
	const char *topo_format;
	const char *reference;
	const char *routes, *replay;	/* --routes, --replay */
	double min_change_s;		/* --min-change; NAN: from the reference */
};

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
		  size_bytes, 1, FLOW_SPEC_MAX_MSG_BYTES),
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

static const struct opts_usage mesh_opts_usage = {
	.cmd = "mesh",
	.args = "SCENARIO | --hosts LIST",
	.about = "Measure the RTT of every ordered pair of hosts, per SL, through 'rperf agent'\n"
		 "on each: a round-robin schedule, no host in two pairs at once; the matrix,\n"
		 "its outliers and why.",
	.table = mesh_opts_table,
	.more = "SCENARIO (rperf-scenario(5)) gives [global] settings and, by its flows, the\n"
		"hosts. Outliers are reported, not failed: exit 0.",
};

void cmd_mesh_usage(FILE *out)
{
	opts_usage(out, &mesh_opts_usage);
}

/* ------------------------------------------------------------------ */
/* Options and hosts                                                   */
/* ------------------------------------------------------------------ */

/* The command line into @o: 0, OPTS_HELP, or -EINVAL with the reason. */
static int mesh_opts_parse(int argc, char **argv, struct mesh_cli *o, char *err, size_t errlen)
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
	if ((o->topo_format || o->reference || o->routes) && !o->n_topo)
		return errbuf_set(err, errlen, -EINVAL, "--%s goes with --topology",
				  o->reference ? "reference" : "topology-format");
	return 0;
}

/* Add @h to @hosts (at most MESH_MAX_HOSTS, none twice). 0 or -EINVAL. */
static int mesh_host_add(const char **hosts, size_t *n, const char *h, char *err, size_t errlen)
{
	char host[SCENARIO_HOST_MAX];
	uint16_t port;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(hosts[i], h))
			return 0;
	if (*n == MESH_MAX_HOSTS)
		return errbuf_set(err, errlen, -EINVAL, "at most %d hosts", MESH_MAX_HOSTS);
	if (strlen(h) >= SCENARIO_HOST_MAX || scenario_agent_addr(h, host, sizeof(host), &port))
		return errbuf_set(err, errlen, -EINVAL, "host '%s': expected HOST, HOST:PORT or "
				  "[IPV6]:PORT", h);
	hosts[(*n)++] = h;
	return 0;
}

/*
 * The hosts, from --hosts (split in @buf, which they point into) or the
 * scenario's flows in order of first use; @sc the scenario, or defaults.
 */
static int mesh_hosts(const struct mesh_cli *o, struct scenario *sc, char **buf,
		      const char **hosts, size_t *n, char *err, size_t errlen)
{
	char *tok, *save;
	size_t i;
	int ret = 0;

	*n = 0;
	if (o->operand) {
		ret = scenario_load(o->operand, sc, err, errlen);
		for (i = 0; !ret && i < sc->n_flows; i++) {
			ret = mesh_host_add(hosts, n, sc->flows[i].host, err, errlen);
			ret = ret ? ret : mesh_host_add(hosts, n, sc->flows[i].dest, err, errlen);
		}
	} else {
		scenario_defaults(sc, "--hosts");
		*buf = strdup(o->hosts);
		if (!*buf)
			return errbuf_set(err, errlen, -ENOMEM, "out of memory");
		for (tok = strtok_r(*buf, ", \t\n", &save); !ret && tok;
		     tok = strtok_r(NULL, ", \t\n", &save))
			ret = mesh_host_add(hosts, n, tok, err, errlen);
	}
	if (!ret && *n < 2)
		ret = errbuf_set(err, errlen, -EINVAL, "a mesh needs two hosts or more");
	return ret;
}

/* The command line's settings over @sc's, and the classes, into @mo. */
static int mesh_settings(const struct mesh_cli *o, struct scenario *sc, struct mesh_opts *mo,
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
	mo->base = sc;
	mo->conv = &o->conv;
	return 0;
}

/* --topology, --routes and --reference into @topo, @paths, @refs and @mo. */
static int mesh_fabric(const struct mesh_cli *o, struct topo *topo, struct topo_paths *paths,
		       struct mesh_ref **refs, struct mesh_opts *mo, char *err, size_t errlen)
{
	int ret;

	if (!o->n_topo)
		return 0;
	ret = topo_read(topo, o->topo_paths, o->n_topo, o->topo_format, err, errlen);
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	mo->topo = topo;
	mo->min_change_ns = o->min_change_s * 1e9;
	if (o->routes) {
		ret = topo_paths_read(paths, topo, o->routes, err, errlen);
		if (ret)
			return ret == -ENOMEM ? ret : -EINVAL;
		mo->paths = paths;
	}
	if (o->reference) {
		ret = report_mesh_ref_load(o->reference, refs, &mo->n_refs, err, errlen);
		mo->refs = *refs;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Outputs                                                             */
/* ------------------------------------------------------------------ */

struct mesh_out {
	const struct mesh_cli *o;
	struct mesh_report_info info;
	struct cmd_stream stream;	/* --json-stream */
	bool failed;			/* an output could not be written */
};

/* --json-stream: an event as it happens. */
static void mesh_stream(struct mesh_out *out, json_t *ev)
{
	cmd_stream_put(&out->stream, ev);
}

static void mesh_on_step(void *arg, const struct mesh_run *m, const struct mesh_step_info *s)
{
	mesh_stream(arg, report_mesh_event_step(m, s));
}

/* report_mesh_openmetrics() and report_mesh_csv() as textfile_write() fillers. */
static int mesh_fill_om(FILE *f, void *m)
{
	return report_mesh_openmetrics(f, m);
}

static int mesh_fill_csv(FILE *f, void *m)
{
	report_mesh_csv(f, m);
	return ferror(f) ? -1 : 0;
}

/* Every output of a pass; 0, or -1 when one could not be written (said). */
static int mesh_outputs(struct mesh_out *out, const struct mesh_run *m)
{
	const struct mesh_cli *o = out->o;
	char err[512];
	json_t *doc;
	int ret = 0;

	/* A pass that failed before its first step has no table to show:
	 * its error, said on stderr, is all there is (the files still say
	 * so, complete false). */
	if (m->steps_done && !(o->json_path && !strcmp(o->json_path, "-")) &&
	    !(o->csv_path && !strcmp(o->csv_path, "-")) &&
	    !(o->om_path && !strcmp(o->om_path, "-")) &&
	    !(o->stream_path && !strcmp(o->stream_path, "-")))
		report_mesh_table(stdout, &out->info, m);
	if (o->json_path) {
		doc = report_mesh_json(&out->info, m);
		if (jsonfile_write(doc, o->json_path, err, sizeof(err)))
			ret = log_error("%s", err);
		json_decref(doc);
	}
	if (o->csv_path && textfile_write(o->csv_path, mesh_fill_csv, (void *)m, err, sizeof(err)))
		ret = log_error("--csv %s", err);
	if (o->om_path && textfile_write(o->om_path, mesh_fill_om, (void *)m, err, sizeof(err)))
		ret = log_error("--openmetrics %s", err);
	if (o->plot_prefix && report_mesh_plot(o->plot_prefix, m, err, sizeof(err)))
		ret = log_error("--plot %s", err);
	fflush(stdout);
	return ret ? -1 : 0;
}

/* Sleep until @until_ns (ctl_now_ns()) or a stop. */
static void mesh_wait(uint64_t until_ns)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	while (!stop_requested() && ctl_now_ns() < until_ns)
		nanosleep(&ts, NULL);
}

/* --replay: the saved mesh located again over the topology; its outputs. */
static int mesh_replay(const struct mesh_cli *o)
{
	struct mesh_report_info info = { .source = o->replay, .reference = o->reference };
	struct topo_paths paths = { 0 };
	struct mesh_ref *refs = NULL;
	struct mesh_replay r;
	struct topo topo = { 0 };
	char err[512];
	json_t *doc;
	int ret = mesh_replay_load(&r, o->replay, err, sizeof(err));

	if (!ret)
		ret = mesh_fabric(o, &topo, &paths, &refs, &r.o, err, sizeof(err));
	if (!ret && mesh_locate(&r.m))
		ret = errbuf_set(err, sizeof(err), -ENOMEM, "out of memory");
	if (!ret && !(o->json_path && !strcmp(o->json_path, "-")))
		report_mesh_replay_table(stdout, &info, &r.m);
	if (!ret && o->json_path) {
		doc = report_mesh_replay_json(r.doc, &info, &r.m);
		ret = jsonfile_write(doc, o->json_path, err, sizeof(err)) ? -EIO : 0;
		json_decref(doc);
	}
	if (ret)
		log_error("%s", err);
	mesh_replay_free(&r);
	topo_paths_free(&paths);
	topo_free(&topo);
	free(refs);
	return !ret ? RPERF_EXIT_OK : ret == -EINVAL ? RPERF_EXIT_USAGE : RPERF_EXIT_FAILURE;
}

/* Every pass: once, or every --interval until --count or a stop. */
static int mesh_passes(struct mesh_out *out, struct mesh_run *m)
{
	const struct mesh_cli *o = out->o;
	uint64_t start;
	int ret = 0, rep;

	for (m->pass = 1;; m->pass++) {
		start = ctl_now_ns();
		mesh_reset(m);
		ret = mesh_run_pass(m, mesh_on_step, out);
		if (m->error[0])
			log_error("%s", m->error);
		mesh_stream(out, report_mesh_event_end(m));
		rep = mesh_outputs(out, m);
		out->failed = out->failed || rep;
		if (ret || !o->interval_s || (o->count && m->pass >= o->count) || stop_requested())
			break;
		mesh_wait(start + (uint64_t)(o->interval_s * 1e9));
		if (stop_requested())
			break;
	}
	return ret;
}

int cmd_mesh(int argc, char **argv)
{
	const char *hosts[MESH_MAX_HOSTS];
	struct mesh_out out = { 0 };
	struct mesh_opts mo = { 0 };
	struct mesh_ref *refs = NULL;
	struct topo_paths paths = { 0 };
	struct topo topo = { 0 };
	struct mesh_run m;
	struct scenario *sc;
	struct mesh_cli o;
	char err[512], *buf = NULL;
	int ret;

	ret = mesh_opts_parse(argc, argv, &o, err, sizeof(err));
	if (ret == OPTS_HELP) {
		cmd_mesh_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (ret) {
		opts_report(&mesh_opts_usage, err);
		return RPERF_EXIT_USAGE;
	}
	if (o.replay)
		return mesh_replay(&o);
	sc = calloc(1, sizeof(*sc));
	ret = sc ? mesh_hosts(&o, sc, &buf, hosts, &mo.n_hosts, err, sizeof(err)) :
		   errbuf_set(err, sizeof(err), -ENOMEM, "out of memory");
	if (!ret)
		ret = mesh_settings(&o, sc, &mo, err, sizeof(err));
	if (!ret)
		ret = mesh_fabric(&o, &topo, &paths, &refs, &mo, err, sizeof(err));
	if (ret) {
		log_error("%s", err);
		topo_paths_free(&paths);
		topo_free(&topo);
		free(refs);
		free(buf);
		free(sc);
		return cmd_failed_json(o.json_path, "mesh", err, ret == -EINVAL ?
				       RPERF_EXIT_USAGE : RPERF_EXIT_FAILURE);
	}
	mo.hosts = hosts;
	out = (struct mesh_out){ .o = &o, .info = { .source = o.operand ? sc->name : "--hosts",
		.interval_s = o.interval_s, .reference = o.reference } };
	ret = mesh_init(&m, &mo);
	if (!ret && ((o.json_path && jsonfile_check(o.json_path, err, sizeof(err))) ||
		     (o.om_path && jsonfile_check(o.om_path, err, sizeof(err)))))
		ret = log_error("%s", err);
	else if (!ret && cmd_stream_open(&out.stream, o.stream_path))
		ret = -EIO;	/* logged there */
	else if (ret)
		log_error("out of memory");
	if (!ret) {
		stop_install();
		ret = mesh_passes(&out, &m);
	}
	if (cmd_stream_close(&out.stream))
		out.failed = true;
	mesh_free(&m);
	topo_paths_free(&paths);
	topo_free(&topo);
	free(refs);
	free(buf);
	free(sc);
	return ret || out.failed ? RPERF_EXIT_FAILURE : RPERF_EXIT_OK;
}
