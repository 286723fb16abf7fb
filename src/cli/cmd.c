/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the commands share beyond their table: the exit status that a
 * run's pass/fail criteria give, each failed one named on its own line.
 */
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
