/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the commands share beyond their table: the exit status that a
 * run's pass/fail criteria give, each failed one named on its own line,
 * and the document a command given --json leaves when it fails early.
 */
#include "base/jsonfile.h"
#include "base/log.h"
#include "cli/cmd.h"
#include "report/report.h"

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
