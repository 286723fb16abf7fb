/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the commands share beyond their table: the exit status that a
 * run's pass/fail criteria give, each failed one named on its own line,
 * the document a command given --json leaves when it fails early, and
 * the options of the commands that drive agents (converge, mesh), the
 * --json-stream of lat, bw and mesh, and rperf's -v and -q, which every
 * command takes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/errbuf.h"
#include "base/jsonfile.h"
#include "base/log.h"
#include "base/opts.h"
#include "cli/cmd.h"
#include "coord/coord.h"
#include "engine/client.h"
#include "engine/run.h"
#include "rdma/verbs.h"
#include "report/report.h"

/* -v: one more level of diagnostics each time, unless -q was given. */
static int cmd_opt_verbose(void *dst, const char *name, const char *value, char *err,
			   size_t errlen)
{
	struct cmd_log_opts *o = dst;

	(void)name, (void)value, (void)err, (void)errlen;
	o->verbose++;
	if (!o->quiet && log_get_level() < LOG_LEVEL_DEBUG)
		log_set_level(log_get_level() + 1);
	return 0;
}

/* -q: errors only, before or after any -v. */
static int cmd_opt_quiet(void *dst, const char *name, const char *value, char *err,
			 size_t errlen)
{
	struct cmd_log_opts *o = dst;

	(void)name, (void)value, (void)err, (void)errlen;
	o->quiet = true;
	log_set_level(LOG_LEVEL_ERROR);
	return 0;
}

const struct opts_entry cmd_log_opts_table[] = {
	OPT_CALLBACK_ALL('v', "verbose", NULL, "more diagnostics on stderr (repeat for debug)",
			 cmd_opt_verbose),
	OPT_CALLBACK_ALL('q', "quiet", NULL, "errors only", cmd_opt_quiet),
	OPT_END(),
};

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

/* A failure document over a file that held a run's results: said, so a
 * good file is not lost unnoticed. */
static void cmd_warn_replaced(const char *path, const char *command)
{
	json_t *old;

	if (!strcmp(path, "-"))
		return;
	old = json_load_file(path, 0, NULL);
	if (json_is_object(old) && !json_is_false(json_object_get(old, "complete")))
		log_warn("'%s': the results it held are replaced by this failed %s's document "
			 "(complete: false)", path, command);
	json_decref(old);
}

int cmd_failed_json(const char *path, const char *command, const char *error, int status)
{
	char err[256];
	json_t *doc;

	if (!path)
		return status;
	cmd_warn_replaced(path, command);
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

/* The entry of @t (or a table it includes) whose long name is @name. */
static const struct opts_entry *cmd_opt_find(const struct opts_entry *t, const char *name)
{
	const struct opts_entry *e;

	for (; t && t->kind != OPTS_END; t++) {
		if (t->kind == OPTS_INCLUDE && (e = cmd_opt_find(t->table, name)))
			return e;
		if (t->long_name && !strcmp(t->long_name, name))
			return t;
	}
	return NULL;
}

/*
 * The FILE of --json (or its short form) on a command line that did not
 * parse: the document of a usage error goes there, as of any early
 * failure. NULL when the command has no --json or the line gives none.
 */
static const char *cmd_json_in_argv(const struct opts_entry *table, int argc, char **argv)
{
	const struct opts_entry *e = cmd_opt_find(table, "json");
	const char *path = NULL, *a;
	int i;

	for (i = 1; e && i < argc && strcmp(argv[i], "--"); i++) {
		a = argv[i];
		if (!strncmp(a, "--json=", 7) && a[7])
			path = a + 7;
		else if ((!strcmp(a, "--json") || (e->short_name && a[0] == '-' &&
						    a[1] == e->short_name && !a[2])) &&
			 i + 1 < argc)
			path = argv[++i];
		else if (e->short_name && a[0] == '-' && a[1] == e->short_name && a[2])
			path = a + 2;
	}
	return path;
}

int cmd_usage_failed(const struct opts_usage *u, int argc, char **argv, const char *err)
{
	opts_report(u, err);
	return cmd_failed_json(cmd_json_in_argv(u->table, argc, argv), u->cmd, err,
			       RPERF_EXIT_USAGE);
}

void cmd_usage(const struct cmd_def *d, FILE *out)
{
	if (d->help)
		d->help(out);
	else
		opts_usage(out, d->usage);
}

int cmd_dispatch(const struct cmd_def *d, int argc, char **argv)
{
	char err[512];
	void *o;
	int ret;

	if (d->main)
		return d->main(argc, argv);
	o = calloc(1, d->opts_size);
	if (!o)
		return log_error("out of memory"), RPERF_EXIT_FAILURE;
	ret = d->parse(argc, argv, o, err, sizeof(err));
	if (ret == OPTS_HELP) {
		cmd_usage(d, stdout);
		ret = RPERF_EXIT_OK;
	} else if (ret) {
		ret = cmd_usage_failed(d->usage, argc, argv, err);
	} else {
		ret = d->run(o);
	}
	free(o);
	return ret;
}

/* An output file: @path, or stdout for "-"; NULL with the reason in @err. */
static FILE *cmd_file_open(const char *path, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
	return f;
}

int cmd_run_begin(const struct flow_opts *f, char *err, size_t errlen)
{
	int ret;

	if (f->json_path) {
		ret = jsonfile_check(f->json_path, err, errlen);
		if (ret)
			return ret;
	}
	srand48(getpid() ^ (long)clock_read_monotonic_ns());
	return 0;
}

int cmd_run_csv(const struct flow_opts *f, int ret, FILE **csv, char *err, size_t errlen)
{
	*csv = !ret && f->csv_path ? cmd_file_open(f->csv_path, err, errlen) : NULL;
	return !ret && f->csv_path && !*csv ? -EIO : ret;
}

void cmd_error(int ret, const char *err)
{
	const char *const *hint;

	log_error("%s", err);
	if (ret == -ENXIO)
		for (hint = verbs_no_device_hints; *hint; hint++)
			log_hint("%s", *hint);
}

int cmd_run_failed(const struct flow_opts *f, const char *command, int ret, const char *err,
		   struct cmd_stream *s, json_t *end)
{
	cmd_error(ret, err);
	return cmd_failed_stream(f->json_path, command, err, s, end,
				 client_error_is_usage(ret) ? RPERF_EXIT_USAGE : RPERF_EXIT_FAILURE);
}

void cmd_run_prepared(const struct run_common *c)
{
	size_t i;

	if (c->clk.fallback)
		log_warn("%s", c->clk.fallback);
	for (i = 0; i < c->n_warnings; i++)
		log_warn("%s", c->warnings[i]);
}

void cmd_run_ended(const struct flow_opts *f, const struct run_common *c)
{
	if (f->hugepages && !c->got_huge)
		log_warn("no huge pages available: buffers on normal pages");
	if (c->tick_warning[0])
		log_warn("%s", c->tick_warning);
	if (c->error)
		log_error("%s", c->error);
}

int cmd_run_exit(const struct run_common *c, const struct criteria *crit, int ret,
		 struct cmd_stream *s)
{
	if (cmd_stream_close(s))
		ret = -EIO;
	if (c->error || ret)
		return RPERF_EXIT_FAILURE;
	return cmd_criteria_exit(crit);
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
