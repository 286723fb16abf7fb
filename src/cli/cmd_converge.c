/*
 * rperf converge: run a scenario's latency and bandwidth flows together,
 * from many hosts to one destination, through the agents on those hosts;
 * report per class (SL, or ETS band) the tail latency, the bandwidth
 * share the destination received and the share `rperf analyze` predicts
 * for the port's arbitration, and exit 3 when they differ by more than
 * the tolerance. Every flow starts at one instant: the coordinator
 * measures each agent's clock offset and hands it a start time on its
 * own clock. Here: the options, the inputs, the steps and the report;
 * talking to the agents is conv_session.c, their results into a step
 * conv_results.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "converge/conv_int.h"
#include "base/log.h"
#include "base/stop.h"
#include "qos/qosconf.h"
#include "report/report.h"

void cmd_converge_usage(FILE *out)
{
	fprintf(out,
		"usage: rperf converge [options] SCENARIO\n"
		"\n"
		"Run a scenario's lat and bw flows together through 'rperf agent' on every\n"
		"host; compare per-class bandwidth shares with the arbitration's analysis.\n"
		"Exit status: 0 within tolerance, 3 out of it, 1 runtime failure, 2 bad usage.\n"
		"\n"
		"  -t, --tolerance PP    allowed gap between measured and analyzed share, in\n"
		"                        percentage points (default 2)\n"
		"      --sweep           activate the bw flows one at a time, 0 .. N\n"
		"      --json FILE       write the results as JSON ('-': stdout)\n"
		"      --csv FILE        write one row per step and class ('-': stdout)\n"
		"      --arbitration F   compare with this configuration, not the scenario's\n"
		"      --launch ssh      start the agents over ssh (rperf agent --once)\n"
		"      --agent-command C with --launch: the rperf to run there (default rperf)\n"
		"      --token-file FILE the agents' shared token\n"
		"      --timeout SECS    reaching an agent (default 10)\n"
		"  -h, --help            show this help\n");
}

/* ------------------------------------------------------------------ */
/* Options and inputs                                                  */
/* ------------------------------------------------------------------ */

static int conv_opts_parse(int argc, char **argv, struct converge_opts *o)
{
	static const struct option lo[] = {
		{ "tolerance", required_argument, NULL, 't' },
		{ "sweep", no_argument, NULL, 'S' },
		{ "json", required_argument, NULL, 'J' },
		{ "csv", required_argument, NULL, 'C' },
		{ "arbitration", required_argument, NULL, 'A' },
		{ "launch", required_argument, NULL, 'L' },
		{ "agent-command", required_argument, NULL, 'G' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "timeout", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct converge_opts){ .tolerance_pp = 2, .timeout_s = 10, .agent_cmd = "rperf" };
	optind = 0;
	while ((c = getopt_long(argc, argv, "t:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			o->tolerance_pp = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(o->tolerance_pp) ||
			    o->tolerance_pp < 0 || o->tolerance_pp > 100)
				return log_error("--tolerance '%s': expected 0 to 100 points", optarg);
			break;
		case 'W':
			o->timeout_s = strtod(optarg, &end);
			if (*end || end == optarg || !(o->timeout_s > 0) || o->timeout_s > 3600)
				return log_error("--timeout '%s': expected seconds above 0", optarg);
			break;
		case 'L':
			if (strcmp(optarg, "ssh"))
				return log_error("--launch '%s': only ssh is built in", optarg);
			o->launch = optarg;
			break;
		case 'S': o->sweep = true; break;
		case 'J': o->json_path = optarg; break;
		case 'C': o->csv_path = optarg; break;
		case 'A': o->arbitration = optarg; break;
		case 'G': o->agent_cmd = optarg; break;
		case 'T': o->token_file = optarg; break;
		case 'h': o->help = true; return 0;
		default: return -1;
		}
	}
	if (optind != argc - 1)
		return log_error(optind < argc ? "one scenario file, please" :
						 "the scenario file is missing");
	if (o->launch && !o->token_file)
		return log_error("--launch needs --token-file: the agents listen beyond the loopback");
	o->scenario = argv[optind];
	return 0;
}

/* The arbitration files (qosconf formats) into c->cfg. */
static int conv_load_arb(struct conv *c)
{
	struct qosconf_source src[SCEN_MAX_ARB_FILES];
	char *text[SCEN_MAX_ARB_FILES] = { NULL };
	struct qosconf_opts qo;
	enum qosconf_format fmt;
	char qe[256];
	int i, n = c->sc.n_arb_files, ret = 0;

	qosconf_opts_init(&qo);
	for (i = 0; i < n && !ret; i++) {
		ret = qosconf_read_file(c->sc.arb_files[i], &text[i], qe, sizeof(qe));
		src[i] = (struct qosconf_source){ .name = c->sc.arb_files[i], .text = text[i] };
	}
	if (!ret)
		ret = qosconf_parse(src, n, &qo, &c->cfg, &fmt, qe, sizeof(qe));
	for (i = 0; i < n; i++)
		free(text[i]);
	if (ret)
		return log_errno(ret, "%s", qe);
	c->have_cfg = true;
	return 0;
}

static int conv_inputs(struct conv *c)
{
	char err[512];
	int ret;

	ret = scenario_load(c->o->scenario, &c->sc, err, sizeof(err));
	if (ret)
		return log_errno(ret, "%s", err);
	if (c->o->arbitration) {
		snprintf(c->sc.arb_files[0], SCEN_PATH_MAX, "%s", c->o->arbitration);
		c->sc.n_arb_files = 1;
	}
	if (c->sc.n_arb_files && conv_load_arb(c))
		return -EINVAL;
	if (c->have_cfg && c->sc.model_set &&
	    (c->sc.model == ARB_MODEL_ETS) != (c->cfg.kind == ARB_KIND_ETS))
		return log_errno(-EINVAL, "%s: model %s does not fit %s", c->sc.name,
				 arb_model_name(c->sc.model), c->sc.arb_files[0]);
	if (c->o->token_file &&
	    ctl_token_read(c->o->token_file, c->token, sizeof(c->token), err, sizeof(err)))
		return log_errno(-EINVAL, "%s", err);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Steps                                                               */
/* ------------------------------------------------------------------ */

/* One step: set up, start together, collect; partial results kept. */
static int conv_run_step(struct conv *c, unsigned active_bw)
{
	struct converge_step *st = &c->steps[c->n_steps];
	json_t *conns[CONV_MAX_HOSTS] = { NULL };
	size_t i;
	int ret, rres;

	memset(st, 0, sizeof(*st));
	st->active_bw = active_bw;
	conv_step_flows(c, st);
	ret = conv_setup(c, active_bw, conns);
	if (!ret)
		ret = conv_start(c);
	if (!ret)
		ret = conv_collect(c);
	st->cut_short = ret != 0;
	rres = conv_step_results(c, st, conns);
	ret = ret ? ret : rres;
	c->n_steps++;
	for (i = 0; i < c->n_agents; i++) {
		json_decref(conns[i]);
		json_decref(c->agents[i].result);
		c->agents[i].result = NULL;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Report                                                              */
/* ------------------------------------------------------------------ */

static int conv_report(struct conv *c)
{
	char arb[SCEN_PATH_MAX * 2] = "", err[256];
	struct converge_report_info info = {
		.scenario = c->sc.name, .destination = c->sc.dest,
		.ets = c->have_cfg && c->cfg.kind == ARB_KIND_ETS,
		.link_gbps = c->sc.link_gbps, .duration_s = c->sc.duration_s,
		.warmup_s = c->sc.warmup_s, .tolerance_pp = c->o->tolerance_pp,
		.sweep = c->o->sweep,
	};
	const char *j = c->o->json_path, *v = c->o->csv_path;
	json_t *doc;
	FILE *f;
	int i, ret = 0;

	for (i = 0; i < c->sc.n_arb_files; i++)
		snprintf(arb + strlen(arb), sizeof(arb) - strlen(arb), "%s%s", i ? "," : "",
			 c->sc.arb_files[i]);
	info.arbitration = c->have_cfg ? arb : NULL;
	info.model = !c->have_cfg ? NULL : arb_model_name(c->sc.model_set ? c->sc.model :
				info.ets ? ARB_MODEL_ETS : arb_model_default(ARB_KIND_VLARB));
	if (!(j && !strcmp(j, "-")) && !(v && !strcmp(v, "-")))
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
			return log_error("'%s': %s", v, strerror(errno));
		report_converge_csv(f, &info, c->steps, c->n_steps);
		if (f != stdout)
			fclose(f);
	}
	fflush(stdout);
	return ret;
}

static void conv_release(struct conv *c)
{
	size_t i, k;

	for (i = 0; i < c->n_steps; i++) {
		for (k = 0; k < c->steps[i].n_classes; k++)
			hist_free(c->steps[i].classes[k].lat_ns);
		for (k = 0; k < c->steps[i].n_flows; k++)
			hist_free(c->steps[i].flows[k].rtt);
	}
	free(c->steps);
}

static unsigned conv_n_bw(const struct scenario *sc)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < sc->n_flows; i++)
		n += sc->flows[i].type == SCEN_FLOW_BW;
	return n;
}

static int conv_run(struct conv *c)
{
	unsigned n_bw = conv_n_bw(&c->sc), k;
	int ret;

	c->steps = calloc(n_bw + 1, sizeof(*c->steps));
	if (!c->steps)
		return log_errno(-ENOMEM, "out of memory");
	ret = conv_connect_agents(c);
	for (k = c->o->sweep ? 0 : n_bw; !ret && k <= n_bw; k++) {
		log_info("step: %u bandwidth flow%s", k, k == 1 ? "" : "s");
		ret = conv_run_step(c, k);
	}
	conv_hangup(c, ret != 0);
	if (ret && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s", strerror(-ret));
	return ret;
}

int cmd_converge(int argc, char **argv)
{
	struct converge_opts o;
	struct conv *c;
	bool within = true;
	size_t i;
	int ret, rep;

	if (conv_opts_parse(argc, argv, &o)) {
		fprintf(stderr, "see 'rperf converge --help'\n");
		return RPERF_EXIT_USAGE;
	}
	if (o.help) {
		cmd_converge_usage(stdout);
		return RPERF_EXIT_OK;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return RPERF_EXIT_FAILURE;
	c->o = &o;
	if (conv_inputs(c)) {
		free(c);
		return RPERF_EXIT_USAGE;
	}
	/* Before the run: a missing directory must not cost the results. */
	if (o.json_path && jsonfile_check(o.json_path, c->error, sizeof(c->error))) {
		log_error("%s", c->error);
		free(c);
		return RPERF_EXIT_FAILURE;
	}
	stop_install();
	ret = conv_run(c);
	if (c->error[0])
		log_error("%s", c->error);
	rep = c->n_steps ? conv_report(c) : 0;
	for (i = 0; i < c->n_steps; i++)
		within = within && c->steps[i].within;
	conv_release(c);
	free(c);
	if (ret || rep)
		return RPERF_EXIT_FAILURE;
	return within ? RPERF_EXIT_OK : RPERF_EXIT_TOLERANCE;
}
