/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf converge: run a scenario's latency and bandwidth flows together,
 * from many hosts to one destination, through the agents on those hosts;
 * report per class (SL, or ETS band) the tail latency, the bandwidth
 * share the destination received and the share `rperf analyze` predicts
 * for the port's arbitration, and exit 3 when they differ by more than
 * the tolerance. Every flow starts at one instant: the coordinator
 * measures each agent's clock offset and hands it a start time on its
 * own clock. Here: the options, the inputs, the steps and the report;
 * talking to the agents is coord_session.c, their results into a step
 * coord_results.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "converge/coord.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"
#include "base/opts.h"
#include "qos/arb_source.h"
#include "qos/qosconf.h"
#include "report/report.h"

/* --fit configured|best */
static int coord_opts_fit(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	if (strcmp(value, "best") && strcmp(value, "configured"))
		return opts_bad_value(err, errlen, name, value, "configured or best");
	*(bool *)dst = !strcmp(value, "best");
	return 0;
}

/* --baseline[=lat|all|no] */
static int coord_opts_baseline(void *dst, const char *name, const char *value, char *err,
			       size_t errlen)
{
	struct converge_opts *o = dst;

	o->baseline_set = true;
	if (scenario_baseline_parse(value ? value : "lat", &o->baseline))
		return opts_bad_value(err, errlen, name, value, "lat, all or no");
	return 0;
}

static const struct opts_entry coord_opts_table[] = {
	{ .kind = OPTS_NUMBER, .short_name = 't', .long_name = "tolerance", .arg = "PP",
	  .help = "allowed gap between measured and analyzed share, in\n"
		  "percentage points (default 2)",
	  .off = offsetof(struct converge_opts, tolerance_pp), .max = 100,
	  .expect = "0 to 100 points" },
	OPT_FLAG(0, "sweep", "activate the bw flows one at a time, 0 .. N", struct converge_opts,
		 sweep),
	{ .kind = OPTS_CALLBACK, .long_name = "baseline", .arg = "WHICH",
	  .help = "first run each lat flow alone (lat, the default\nvalue), or each flow (all): "
		  "impact factors", .cb = coord_opts_baseline, .optional_value = true },
	OPT_STRING('j', "json", "FILE", "write the results as JSON ('-': stdout)",
		   struct converge_opts, json_path),
	OPT_CALLBACK(0, "fit", "WHICH", "exit 3 against the configured reading of the\n"
		     "arbitration (default), or the best-fitting one", struct converge_opts,
		     fit_best, coord_opts_fit),
	OPT_STRING(0, "json-stream", "FILE", "write each step as it ends, one JSON object a\n"
		   "line ('-': stdout)", struct converge_opts, json_stream_path),
	OPT_STRING(0, "csv", "FILE", "write one row per step and class ('-': stdout)",
		   struct converge_opts, csv_path),
	OPT_STRING(0, "arbitration", "SPEC", "compare with this configuration, not the\nscenario's: "
		   "files, or port:LID:PORT (read live)",
		   struct converge_opts, arbitration),
	OPT_INCLUDE_HERE(cmd_agents_opts_table),
	OPT_END(),
};

static const struct opts_usage coord_opts_usage = {
	.cmd = "converge",
	.args = "SCENARIO",
	.about = "Run a scenario's lat and bw flows together through 'rperf agent' on every\n"
		 "host; compare per-class bandwidth shares with the arbitration's analysis.",
	.table = coord_opts_table,
	.more = "SCENARIO is described in rperf-scenario(5).",
	.tolerance = true,
	.exit3 = "shares out of tolerance or a criterion failed",
	.exit4 = "inconclusive: no share out, but one whose interval straddles the\n"
		 "tolerance's edge (run longer)",
};

/* ------------------------------------------------------------------ */
/* Options and inputs                                                  */
/* ------------------------------------------------------------------ */

/* The command line into @o: 0, OPTS_HELP, or -EINVAL with the reason. */
static int coord_opts_parse(int argc, char **argv, void *p, char *err, size_t errlen)
{
	struct converge_opts *o = p;
	int n, ret;

	*o = (struct converge_opts){ .tolerance_pp = 2, .timeout_s = 10, .agent_cmd = "rperf" };
	ret = opts_parse(coord_opts_table, o, argc, argv, &o->scenario, 1, &n, err, errlen);
	if (ret)
		return ret;
	if (n != 1)
		return errbuf_set(err, errlen, -EINVAL, n ? "one scenario file, please" :
				  "the scenario file is missing");
	if (o->launch && !o->token_file)
		return errbuf_set(err, errlen, -EINVAL,
				  "--launch needs --token-file: the agents listen beyond the loopback");
	return 0;
}

/* The arbitration (files, a live port, or both) into c->cfg. */
static int coord_load_arb(struct coord *c)
{
	struct arb_source src = { .n_files = c->sc.n_arb_files };
	struct arb_source_info info;
	struct qosconf_opts qo;
	char qe[512];
	int i, ret;

	qosconf_opts_init(&qo);
	for (i = 0; i < c->sc.n_arb_files; i++)
		src.files[i] = c->sc.arb_files[i];
	src.port = c->sc.arb_port[0] ? c->sc.arb_port : NULL;
	src.ca = c->sc.arb_ca[0] ? c->sc.arb_ca : NULL;
	if (src.port && arb_source_port_check("arbitration port", src.port, qe, sizeof(qe)))
		return log_errno(-EINVAL, "%s: %s", c->sc.name, qe);
	ret = arb_source_load(&src, &qo, &c->cfg, &info, qe, sizeof(qe));
	if (ret) {
		log_errno(ret, "%s", qe);
		return info.fabric_error ? -EIO : -EINVAL;
	}
	snprintf(c->arb_name, sizeof(c->arb_name), "%s", info.port_name);
	for (i = 0; i < c->sc.n_arb_files; i++)
		snprintf(c->arb_name + strlen(c->arb_name), sizeof(c->arb_name) - strlen(c->arb_name),
			 "%s%s", c->arb_name[0] ? "," : "", c->sc.arb_files[i]);
	c->have_cfg = true;
	if (c->cfg.kind != ARB_KIND_ETS)
		arb_semantics_format(&c->sc.semantics, c->semantics_name, sizeof(c->semantics_name));
	return 0;
}

static int coord_inputs(struct coord *c)
{
	const char *dests[CONVERGE_MAX_PORTS + 1];
	char err[512];
	size_t i, n, len = 0;
	int ret;

	ret = scenario_load(c->o->scenario, &c->sc, err, sizeof(err));
	if (ret)
		return log_errno(ret, "%s", err);
	n = scenario_dests(&c->sc, dests, CONVERGE_MAX_PORTS + 1);
	if (n > CONVERGE_MAX_PORTS)
		return log_errno(-EINVAL, "%s: more than %d destinations", c->sc.name,
				 CONVERGE_MAX_PORTS);
	for (i = 0; i < n && len < sizeof(c->dests_name); i++)
		len += (size_t)snprintf(c->dests_name + len, sizeof(c->dests_name) - len, "%s%s",
					i ? ", " : "", dests[i]);
	c->baseline = c->o->baseline_set ? c->o->baseline : c->sc.baseline;
	run_env_host(&c->env);
	if (c->o->arbitration &&
	    scenario_set_arbitration(&c->sc, c->o->arbitration, NULL, err, sizeof(err)))
		return log_errno(-EINVAL, "--arbitration '%s': %s", c->o->arbitration, err);
	if ((c->sc.n_arb_files || c->sc.arb_port[0]) && (ret = coord_load_arb(c)))
		return ret;
	if (c->have_cfg && c->sc.model_set &&
	    (c->sc.model == ARB_MODEL_ETS) != (c->cfg.kind == ARB_KIND_ETS))
		return log_errno(-EINVAL, "%s: model %s does not fit %s", c->sc.name,
				 arb_model_name(c->sc.model), c->arb_name);
	if (c->o->token_file &&
	    ctl_token_read(c->o->token_file, c->token, sizeof(c->token), err, sizeof(err)))
		return log_errno(-EINVAL, "%s", err);
	return 0;
}

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

static void coord_release(struct coord *c)
{
	size_t i, k;

	coord_agents_free(c);
	for (i = 0; i < c->n_steps; i++) {
		for (k = 0; k < c->steps[i].n_classes; k++)
			hist_free(c->steps[i].classes[k].lat_ns);
		for (k = 0; k < c->steps[i].n_flows; k++)
			hist_free(c->steps[i].flows[k].rtt);
	}
	free(c->steps);
}

static unsigned coord_n_bw(const struct scenario *sc)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < sc->n_flows; i++)
		n += sc->flows[i].type == SCENARIO_FLOW_BW;
	return n;
}

static int coord_run(struct coord *c)
{
	unsigned n_bw = coord_n_bw(&c->sc), k;
	struct converge_report_info info;
	const struct scenario_flow *f;
	size_t i;
	int ret;

	c->steps = calloc(c->sc.n_flows + n_bw + 1, sizeof(*c->steps));
	if (!c->steps)
		return log_errno(-ENOMEM, "out of memory");
	coord_report_info(c, &info);
	coord_stream(c, report_converge_event_start(&info));
	ret = coord_connect_agents(c);
	for (i = 0; !ret && i < c->sc.n_flows; i++) {
		f = &c->sc.flows[i];
		if (c->baseline == SCENARIO_BASELINE_NONE ||
		    (f->type == SCENARIO_FLOW_BW && c->baseline != SCENARIO_BASELINE_ALL))
			continue;
		log_info("baseline: flow %s alone", f->name);
		ret = coord_run_step(c, 0, true, i);
		coord_stream(c, report_converge_event_step(&info, &c->steps[c->n_steps - 1],
							   c->n_steps - 1));
	}
	for (k = c->o->sweep ? 0 : n_bw; !ret && k <= n_bw; k++) {
		log_info("step: %u bandwidth flow%s", k, k == 1 ? "" : "s");
		ret = coord_run_step(c, k, false, 0);
		coord_stream(c, report_converge_event_step(&info, &c->steps[c->n_steps - 1],
							   c->n_steps - 1));
	}
	coord_hangup(c, ret != 0);
	if (ret && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s", strerror(-ret));
	json_decref(info.agent_envs);
	coord_report_info(c, &info);	/* now with the agents */
	coord_stream(c, report_converge_event_end(&info, c->steps, c->n_steps,
						  c->error[0] ? c->error : NULL));
	json_decref(info.agent_envs);
	return ret;
}

static int converge_run(void *p)
{
	struct converge_opts *o = p;
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
	ret = coord_run(c);
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
	.usage = &coord_opts_usage,
	.opts_size = sizeof(struct converge_opts),
	.parse = coord_opts_parse,
	.run = converge_run,
};
