/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the commands share beyond their table: the exit status that a
 * run's pass/fail criteria give, each failed one named on its own line,
 * the document a command given --json leaves when it fails early, and
 * lat's and bw's --json-stream.
 */
#include <errno.h>
#include <string.h>

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

int cmd_stream_open(struct cmd_stream *s, const char *path)
{
	char err[256];

	s->failed = false;
	s->f = NULL;
	if (!path)
		return 0;
	s->f = jsonl_open(path, err, sizeof(err));
	if (!s->f) {
		log_error("%s", err);
		return -1;
	}
	return 0;
}

void cmd_stream_put(struct cmd_stream *s, json_t *ev)
{
	char err[256];

	if (s->f && (!ev || jsonl_write(s->f, ev, err, sizeof(err)))) {
		log_error("--json-stream: %s", ev ? err : "out of memory");
		jsonl_close(s->f, err, sizeof(err));
		s->f = NULL;
		s->failed = true;
	}
	json_decref(ev);
}

bool cmd_stream_close(struct cmd_stream *s)
{
	char err[256];

	if (s->f && jsonl_close(s->f, err, sizeof(err))) {
		log_error("--json-stream: %s", err);
		s->failed = true;
	}
	s->f = NULL;
	return s->failed;
}

int cmd_failed_stream(const char *path, const char *command, const char *error,
		      struct cmd_stream *s, json_t *end, int status)
{
	cmd_stream_put(s, end);
	cmd_stream_close(s);
	return cmd_failed_json(path, command, error, status);
}

/* Whether @path is stdout. */
static bool cmd_is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

bool cmd_stdout_taken(const struct flow_opts *f)
{
	return cmd_is_stdout(f->json_path) || cmd_is_stdout(f->csv_path) ||
	       cmd_is_stdout(f->json_stream_path);
}

int cmd_write_json(const char *path, json_t *doc)
{
	char err[256];
	int ret = doc ? jsonfile_write(doc, path, err, sizeof(err)) : -ENOMEM;

	if (ret)
		log_error("%s", doc ? err : "out of memory");
	json_decref(doc);
	return ret;
}
