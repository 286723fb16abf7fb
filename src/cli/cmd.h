/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The subcommands. Each lives in its own cmd_<name>.c, takes the arguments
 * after its name (argv[0] is the command name) and returns the process exit
 * status: 0 ok, 1 runtime failure, 2 bad usage, 3 measured shares out of
 * tolerance or a pass/fail criterion failed. The table that dispatches
 * them is in rperf.c.
 */
#ifndef RPERF_CMD_H
#define RPERF_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "base/jsonfile.h"
#include "base/opts.h"
#include "engine/flow_opts.h"

enum rperf_exit {
	RPERF_EXIT_OK = 0,
	RPERF_EXIT_FAILURE = 1,
	RPERF_EXIT_USAGE = 2,
	RPERF_EXIT_TOLERANCE = 3,
	/* converge: nothing out of tolerance, but a share the run cannot decide */
	RPERF_EXIT_INCONCLUSIVE = 4,
};

struct criteria;

/* RPERF_EXIT_TOLERANCE when a criterion failed (each named on stderr), else OK. */
int cmd_criteria_exit(const struct criteria *cs);

/*
 * A command given --json @path (NULL: none) that fails with @error (NULL:
 * the last error logged) before it has results still leaves a document
 * ("complete": false, the error),
 * written atomically. Returns @status, the exit status of the failure,
 * for `return cmd_failed_json(...)`.
 */
int cmd_failed_json(const char *path, const char *command, const char *error, int status);
/*
 * A command line of @u's command that did not parse, with @err: reported
 * once, and the document of a usage error written to the FILE of the
 * line's --json, if it gives one. Returns RPERF_EXIT_USAGE.
 */
int cmd_usage_failed(const struct opts_usage *u, int argc, char **argv, const char *err);
/* The error @err of a command that failed with @ret, and what to do about it where known. */
void cmd_error(int ret, const char *err);

/*
 * rperf's global options that may also follow the command's name, the
 * same for every command: -v (one more log level each time) and -q
 * (errors only, whatever -v says). Each acts on the log as it is parsed,
 * so a command sees the level once its parse returns. main's table
 * includes this one, and main hands it to every command's parse
 * (opts_set_global()).
 */
struct cmd_log_opts {
	unsigned verbose;	/* how many -v */
	bool quiet;
};
extern const struct opts_entry cmd_log_opts_table[];

/*
 * --launch, --agent-command, --token-file, --timeout over a struct
 * converge_opts: how the commands that drive agents reach them.
 */
extern const struct opts_entry cmd_agents_opts_table[];

/*
 * --json-stream (lat, bw, mesh): events written as they happen, one a
 * line. A stream that cannot be written is reported once and closed; the
 * run goes on, and fails at its end (cmd_stream_close() says so).
 */
struct cmd_stream {
	struct jsonl *f;		/* NULL: none, or closed after a failure */
	bool failed;
};
/* Open @path (NULL: no stream): 0, or -1 with the error logged. */
int cmd_stream_open(struct cmd_stream *s, const char *path);
/* Write event @ev (a new reference, released here; NULL: out of memory). */
void cmd_stream_put(struct cmd_stream *s, json_t *ev);
/* Close the stream; true when it could not be written whole. */
bool cmd_stream_close(struct cmd_stream *s);
/* A run that failed before its results: cmd_failed_json(), then @end,
 * the stream's last event, written and the stream closed; @status. */
int cmd_failed_stream(const char *path, const char *command, const char *error,
		      struct cmd_stream *s, json_t *end, int status);
/* Write document @doc (a new reference, released here) to @path, an
 * error logged; 0 or -errno. */
int cmd_write_json(const char *path, json_t *doc);
/* Whether --json, --csv or --json-stream of @f is stdout (then no table). */
bool cmd_stdout_taken(const struct flow_opts *f);

/*
 * What lat and bw do alike around the run engine (engine/run.h).
 * cmd_run_begin: before the run, refuse a --json path that cannot be
 * written (a missing directory must not cost the results) and seed the
 * PSN generator; 0, or -errno with the reason in @err. cmd_run_csv:
 * after the prepare gave @ret, --csv's file (@f->csv_path, NULL: none)
 * opened into *@csv (NULL when not); @ret, or -EIO with the reason in
 * @err. cmd_run_failed: a run whose prepare failed with @ret
 * (@err): the error logged, cmd_failed_stream() with the stream's @end;
 * the exit status, usage for the user's errors (client_error_is_usage).
 * cmd_run_prepared: once prepared, @c's warnings logged (the clock's
 * fallback, what the path ignores of the options).
 * cmd_run_ended: once run, the huge-page warning (@f asked, @c had
 * none), a clock too coarse for the medians and the run's error, logged. cmd_run_exit: the stream closed;
 * failure for the run's error, a report that failed (@ret) or the
 * stream, else the criteria's status.
 */
struct run_common;
int cmd_run_begin(const struct flow_opts *f, char *err, size_t errlen);
int cmd_run_csv(const struct flow_opts *f, int ret, FILE **csv, char *err, size_t errlen);
int cmd_run_failed(const struct flow_opts *f, const char *command, int ret, const char *err,
		   struct cmd_stream *s, json_t *end);
void cmd_run_prepared(const struct run_common *c);
void cmd_run_ended(const struct flow_opts *f, const struct run_common *c);
int cmd_run_exit(const struct run_common *c, const struct criteria *crit, int ret,
		 struct cmd_stream *s);

/*
 * A subcommand as the command table runs it (cmd_dispatch()). The
 * prologue every command shares happens there, once: a zeroed struct of
 * @opts_size bytes, @parse into it (0, OPTS_HELP, or -EINVAL with the
 * reason), --help or bad usage said from @usage, then @run, whose return
 * is the exit status. A command that reads its arguments itself gives
 * @main instead.
 */
struct cmd_def {
	const struct opts_usage *usage;	/* --help's text and bad usage's */
	void (*help)(FILE *out);	/* --help, when not opts_usage(@usage) */
	size_t opts_size;
	int (*parse)(int argc, char **argv, void *opts, char *err, size_t errlen);
	int (*run)(void *opts);
	int (*main)(int argc, char **argv);
};

/* Run @d on argv[0 .. @argc) (argv[0] is the command's name): the exit status. */
int cmd_dispatch(const struct cmd_def *d, int argc, char **argv);
/* @d's --help on @out. */
void cmd_usage(const struct cmd_def *d, FILE *out);

struct rperf_cmd {
	const char *name;
	const struct cmd_def *def;
	const char *summary;
};

/* The command table: NULL-terminated. */
extern const struct rperf_cmd rperf_cmds[];
const struct rperf_cmd *rperf_cmd_find(const char *name);

/* agent: runs a converge coordinator's flows on its host. */
extern const struct cmd_def cmd_agent;
/* analyze: offline prediction of per-SL shares from a port's arbitration. */
extern const struct cmd_def cmd_analyze;
/* bw: open-loop bandwidth generators on any SL, sent and received rates. */
extern const struct cmd_def cmd_bw;
/* converge: mixed-traffic QoS test through the agents, compared with analyze. */
extern const struct cmd_def cmd_converge;
/* lat: RTT through the fabric with RPerf's wire/loopback method. */
extern const struct cmd_def cmd_lat;
/* server: the passive side lat and bw clients send to. */
extern const struct cmd_def cmd_server;

/* mesh: the RTT of every ordered pair of hosts per SL, through the agents. */
int cmd_mesh(int argc, char **argv);
void cmd_mesh_usage(FILE *out);

#endif
