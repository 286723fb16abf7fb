/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the commands share beyond their table: the exit status that a
 * run's pass/fail criteria give, each failed one named on its own line,
 * the document a command given --json leaves when it fails early, and
 * the options of the commands that drive agents (converge, mesh).
 */
#include <string.h>

#include "base/jsonfile.h"
#include "base/log.h"
#include "base/opts.h"
#include "cli/cmd.h"
#include "converge/coord.h"
#include "report/report.h"

/* --launch: how the agents are started (coord_launch.c). */
static int cmd_opts_launch(void *dst, const char *name, const char *value, char *err,
			   size_t errlen)
{
	if (strcmp(value, "ssh") && strcmp(value, "srun"))
		return opts_bad_value(err, errlen, name, value, "ssh or srun");
	*(const char **)dst = value;
	return 0;
}

const struct opts_entry cmd_agents_opts_table[] = {
	OPT_CALLBACK(0, "launch", "HOW", "start the agents (rperf agent --once): ssh, one\n"
		     "a host, or srun, one job step",
		     struct converge_opts, launch, cmd_opts_launch),
	OPT_STRING(0, "agent-command", "CMD", "with --launch: the rperf to run there\n"
		   "(default rperf)",
		   struct converge_opts, agent_cmd),
	OPT_STRING(0, "token-file", "FILE", "the agents' shared token", struct converge_opts,
		   token_file),
	OPT_VALUE(OPTS_SECONDS, 0, "timeout", "TIME", "reaching an agent (default 10; bare: seconds)",
		  struct converge_opts, timeout_s, 0, 3600ull * 1000000000ull),
	OPT_END(),
};

int cmd_criteria_exit(const struct criteria *cs)
{
	char line[256];
	int i;

	for (i = 0; i < cs->n; i++) {
		if (cs->c[i].passed)
			continue;
		report_criterion_line(&cs->c[i], line, sizeof(line));
		log_error("criterion failed: %s", line);
	}
	return criteria_failed(cs) ? RPERF_EXIT_TOLERANCE : RPERF_EXIT_OK;
}

int cmd_failed_json(const char *path, const char *command, const char *error, int status)
{
	char err[256];
	json_t *doc;

	if (!path)
		return status;
	doc = report_failed_json(command, error ? error : log_last_error());
	if (!doc || jsonfile_write(doc, path, err, sizeof(err)))
		log_error("%s", doc ? err : "out of memory");
	json_decref(doc);
	return status;
}

void cmd_stream(struct jsonl **s, bool *failed, json_t *ev)
{
	char err[256];

	if (*s && jsonl_write(*s, ev, err, sizeof(err))) {
		log_error("--json-stream: %s", err);
		jsonl_close(*s, err, sizeof(err));
		*s = NULL;
		*failed = true;
	}
	json_decref(ev);
}
