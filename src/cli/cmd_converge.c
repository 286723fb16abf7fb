/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf converge: run a scenario's latency and bandwidth flows together,
 * from many hosts to one destination, through the agents on those hosts;
 * report per class (SL, or ETS band) the tail latency, the bandwidth
 * share the destination received and the share `rperf analyze` predicts
 * for the port's arbitration, and exit 3 when they differ by more than
 * the tolerance. Every flow starts at one instant: the coordinator
 * measures each agent's clock offset and hands it a start time on its
 * own clock. Here: the outputs; the options are converge_opts.c, the
 * inputs and the steps coord_run.c, talking to the agents coord_session.c, their
 * results into a step coord_results.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/converge.h"
#include "base/jsonfile.h"
#include "coord/coord.h"
#include "base/log.h"
#include "base/stop.h"
#include "report/report_converge.h"

/* ------------------------------------------------------------------ */
/* Report                                                              */
/* ------------------------------------------------------------------ */

/* What the reports say of the run as a whole; info->agent_envs is the caller's. */
static void coord_report_info(const struct coord *c, struct converge_report_info *info)
{
	json_t *envs = json_object();
	size_t i;

	for (i = 0; i < c->n_agents; i++)
		if (c->agents[i].env)
			json_object_set(envs, c->agents[i].addr, c->agents[i].env);
	*info = (struct converge_report_info){
		.scenario = c->sc.name, .destination = c->dests_name,
		.ets = c->have_cfg && c->cfg.kind == ARB_KIND_ETS,
		.link_gbps = c->sc.link_gbps, .duration_s = c->sc.duration_s,
		.warmup_s = c->sc.warmup_s, .tolerance_pp = c->o->tolerance_pp,
		.sweep = c->o->sweep,
		.baseline = c->baseline == SCENARIO_BASELINE_ALL ? "all" :
			    c->baseline == SCENARIO_BASELINE_LAT ? "lat" : "no",
		.arbitration = c->have_cfg ? c->arb_name : NULL,
		.env = &c->env,
		.agent_envs = envs,
		.fit = c->o->fit_best ? "best" : "configured",
		.semantics = c->semantics_name[0] ? c->semantics_name : NULL,
		.n_agents = c->connect_ms > 0 ? c->n_agents : 0,
		.connect_ms = c->connect_ms,
		.authenticated = c->authenticated,
	};
	info->model = !c->have_cfg ? NULL : arb_model_name(c->sc.model_set ? c->sc.model :
				info->ets ? ARB_MODEL_ETS : arb_model_default(ARB_KIND_VLARB));
}

/* --json-stream: one event, written as it happens (cmd_stream_put() on
 * the coordinator's stream, which lives in converge's struct coord). */
static void coord_stream(struct coord *c, json_t *ev)
{
	struct cmd_stream s = { .f = c->stream, .failed = c->stream_failed };

	cmd_stream_put(&s, ev);
	c->stream = s.f;
	c->stream_failed = s.failed;
}

static int coord_report(struct coord *c)
{
	char err[256];
	struct converge_report_info info;
	const char *j = c->o->json_path, *v = c->o->csv_path;
	json_t *doc;
	FILE *f;
	int ret = 0;

	coord_report_info(c, &info);
	if (!(j && !strcmp(j, "-")) && !(v && !strcmp(v, "-")) &&
	    !(c->o->json_stream_path && !strcmp(c->o->json_stream_path, "-")))
		report_converge_table(stdout, &info, c->steps, c->n_steps);
	if (j) {
		doc = report_converge_json(&info, c->steps, c->n_steps,
					   c->error[0] ? c->error : NULL);
		ret = jsonfile_write(doc, j, err, sizeof(err));
		json_decref(doc);
		if (ret)
			log_error("%s", err);
	}
	if (v) {
		f = strcmp(v, "-") ? fopen(v, "w") : stdout;
		if (!f)
			ret = log_error("'%s': %s", v, strerror(errno));
		else
			report_converge_csv(f, &info, c->steps, c->n_steps);
		if (f && f != stdout)
			fclose(f);
	}
	json_decref(info.agent_envs);
	fflush(stdout);
	return ret;
}

/* The --json-stream's events as the run goes (@arg: the report's info):
 * the steps' say what its start said of the run (before the agents were
 * reached), the end's the agents too. */
static void coord_on_start(void *arg, struct coord *c)
{
	coord_report_info(c, arg);
	coord_stream(c, report_converge_event_start(arg));
}

static void coord_on_step(void *arg, struct coord *c, size_t index)
{
	coord_stream(c, report_converge_event_step(arg, &c->steps[index], index));
}

static void coord_on_end(void *arg, struct coord *c)
{
	struct converge_report_info *info = arg;

	json_decref(info->agent_envs);
	coord_report_info(c, info);
	coord_stream(c, report_converge_event_end(info, c->steps, c->n_steps,
						  c->error[0] ? c->error : NULL));
	json_decref(info->agent_envs);
	info->agent_envs = NULL;
}

static int converge_run(void *p)
{
	struct converge_opts *o = p;
	struct converge_report_info info = { 0 };
	struct coord *c;
	enum converge_verdict v;
	bool out = false, judged;
	size_t i;
	int ret, rep;
	char err[256];

	c = calloc(1, sizeof(*c));
	if (!c)
		return RPERF_EXIT_FAILURE;
	c->o = o;
	ret = coord_inputs(c);
	if (ret) {
		free(c);
		return cmd_failed_json(o->json_path, "converge", NULL,
				       ret == -EIO ? RPERF_EXIT_FAILURE : RPERF_EXIT_USAGE);
	}
	/* Before the run: a missing directory must not cost the results. */
	if ((o->json_path && jsonfile_check(o->json_path, c->error, sizeof(c->error))) ||
	    (o->json_stream_path &&
	     !(c->stream = jsonl_open(o->json_stream_path, c->error, sizeof(c->error))))) {
		log_error("%s", c->error);
		free(c);
		return RPERF_EXIT_FAILURE;
	}
	stop_install();
	ret = coord_run(c, &(struct coord_events){ .start = coord_on_start,
			.step = coord_on_step, .end = coord_on_end, .arg = &info });
	if (c->error[0])
		log_error("%s", c->error);
	rep = c->n_steps ? coord_report(c) : 0;
	if (!c->n_steps)
		cmd_failed_json(o->json_path, "converge", c->error[0] ? c->error : NULL, 0);
	if (c->stream && jsonl_close(c->stream, err, sizeof(err))) {
		log_error("--json-stream: %s", err);
		c->stream_failed = true;
	}
	rep = rep || c->stream_failed;
	for (i = 0; i < c->n_steps; i++)
		out = out || cmd_criteria_exit(&c->steps[i].criteria) != RPERF_EXIT_OK;
	v = converge_run_verdict(c->steps, c->n_steps, c->have_cfg, &judged);
	out = out || v == CONVERGE_OUT;
	coord_release(c);
	free(c);
	if (ret || rep)
		return RPERF_EXIT_FAILURE;
	/*
	 * Out wins; a share the run cannot decide is no pass, and not an out
	 * either; nor is a run in which nothing was judged at all.
	 */
	if (!judged && !out)
		log_error("nothing was judged: no class's share is decided by the arbitration "
			  "(fewer than two classes saturate every port) and no criterion is set");
	return out ? RPERF_EXIT_TOLERANCE : v == CONVERGE_INCONCLUSIVE ? RPERF_EXIT_INCONCLUSIVE :
		     RPERF_EXIT_OK;
}

const struct cmd_def cmd_converge = {
	.usage = &converge_opts_usage,
	.opts_size = sizeof(struct converge_opts),
	.parse = converge_opts_parse,
	.run = converge_run,
};
