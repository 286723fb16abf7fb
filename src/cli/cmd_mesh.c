/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh: the RTT of every ordered pair of hosts, per SL (and
 * traffic class), through the converge agents, scheduled as a
 * round-robin tournament so that no host is in two measurements at once;
 * the matrix, its outliers by a robust rule, and the outputs (text, JSON,
 * CSV, OpenMetrics, gnuplot heatmaps, a stream of steps), once or every
 * --interval. Here: the fabric's inputs read, the passes and the
 * outputs; the options are mesh_opts.c, the fabric's inputs
 * mesh_fabric.c, the hosts, the schedule and the run coord/mesh.c, the
 * formats report_mesh.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "cli/mesh.h"
#include "base/errbuf.h"
#include "base/jsonfile.h"
#include "base/log.h"
#include "base/stop.h"
#include "coord/mesh.h"
#include "report/report_mesh.h"

void cmd_mesh_usage(FILE *out)
{
	opts_usage(out, &mesh_opts_usage);
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
	if (o->csv_path && report_mesh_csv_write(o->csv_path, m, err, sizeof(err)))
		ret = log_error("--csv %s", err);
	if (o->om_path && report_mesh_openmetrics_write(o->om_path, m, err, sizeof(err)))
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
	size_t *leaf = NULL;
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
	if (ret)
		return cmd_usage_failed(&mesh_opts_usage, argc, argv, err);
	if (o.replay)
		return mesh_replay(&o);
	sc = calloc(1, sizeof(*sc));
	ret = sc ? mesh_hosts(o.operand, o.hosts, sc, &buf, hosts, &mo.n_hosts, err,
				   sizeof(err)) :
		   errbuf_set(err, sizeof(err), -ENOMEM, "out of memory");
	if (!ret)
		ret = mesh_settings(&o, sc, &mo, err, sizeof(err));
	mo.hosts = hosts;
	if (!ret)
		ret = mesh_fabric(&o, &topo, &paths, &refs, &mo, err, sizeof(err));
	if (!ret)
		ret = mesh_sample_leaves(&o, &leaf, &mo, err, sizeof(err));
	if (ret) {
		free(leaf);
		log_error("%s", err);
		topo_paths_free(&paths);
		topo_free(&topo);
		free(refs);
		free(buf);
		free(sc);
		return cmd_failed_json(o.json_path, "mesh", err, ret == -EINVAL ?
				       RPERF_EXIT_USAGE : RPERF_EXIT_FAILURE);
	}
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
	free(leaf);
	topo_paths_free(&paths);
	topo_free(&topo);
	free(refs);
	free(buf);
	free(sc);
	return ret || out.failed ? RPERF_EXIT_FAILURE : RPERF_EXIT_OK;
}
