/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf: measure what an RDMA fabric really does.
 *
 * main() parses the global options (through base/opts, as every command
 * does), then dispatches to one subcommand through the single command
 * table below, git-style; -v and -q go on being accepted after the
 * command's name, by every command's parse. Only main exits.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli/cmd.h"
#include "base/env.h"
#include "base/opts.h"

static int cmd_help(int argc, char **argv);
static void cmd_help_usage(FILE *out);

static const struct cmd_def cmd_help_def = { .main = cmd_help, .help = cmd_help_usage };
static const struct cmd_def cmd_mesh_def = { .main = cmd_mesh, .help = cmd_mesh_usage };

const struct rperf_cmd rperf_cmds[] = {
	{ "agent", &cmd_agent, "run the flows a converge coordinator gives this host" },
	{ "analyze", &cmd_analyze, "predict per-SL shares from a port's arbitration configuration" },
	{ "bw", &cmd_bw, "bandwidth generators on any SL: sent and received rates" },
	{ "converge", &cmd_converge, "mixed lat and bw flows from many hosts, shares vs analyze" },
	{ "help", &cmd_help_def, "show help for a command" },
	{ "lat", &cmd_lat, "RTT through the fabric, without end-host overheads" },
	{ "mesh", &cmd_mesh_def, "RTT of every ordered pair of hosts per SL; outliers" },
	{ "server", &cmd_server, "passive side: keep RECVs posted, count arrivals" },
	{ NULL, NULL, NULL },
};

const struct rperf_cmd *rperf_cmd_find(const char *name)
{
	const struct rperf_cmd *c;

	for (c = rperf_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* The global options, before the command's name; -v and -q (.log) also
 * after it. */
struct main_opts {
	bool version;
	struct cmd_log_opts log;
};

static const struct opts_entry main_opts_table[] = {
	OPT_FLAG('V', "version", "show the version", struct main_opts, version),
	OPT_INCLUDE(struct main_opts, log, cmd_log_opts_table),
	OPT_END(),
};

/* The command list that follows the options in --help; built once. */
static const char *main_commands_text(void)
{
	static char buf[1024];
	const struct rperf_cmd *c;
	size_t len;

	if (*buf)
		return buf;
	len = (size_t)snprintf(buf, sizeof(buf), "Commands:\n");
	for (c = rperf_cmds; c->name && len < sizeof(buf); c++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "  %-10s %s\n", c->name,
					c->summary);
	if (len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len,
			 "\nSee 'rperf help COMMAND' or man rperf-COMMAND.");
	return buf;
}

/* What 'rperf --help' says; .more is filled in by main_usage(). */
static struct opts_usage main_opts_usage = {
	.cmd = "",
	.args = "COMMAND [ARGS]",
	.about = "Measure what an RDMA fabric really does: latency through it, bandwidth on\n"
		 "any service level, and whether its QoS arbitration gives each class its share.",
	.table = main_opts_table,
	.tolerance = true,
	.exit3 = "a criterion failed",
};

static void main_usage(FILE *out)
{
	main_opts_usage.more = main_commands_text();
	opts_usage(out, &main_opts_usage);
}

/* Bad usage of rperf itself, said as every command says it. */
static int main_usage_error(const char *err)
{
	opts_report(&main_opts_usage, err);
	return RPERF_EXIT_USAGE;
}

static void cmd_help_usage(FILE *out)
{
	fprintf(out, "usage: rperf help [COMMAND]\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct rperf_cmd *c;
	char err[160];

	if (argc < 2) {
		main_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cmd_help_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (argc > 2) {
		cmd_help_usage(stderr);
		return RPERF_EXIT_USAGE;
	}
	c = rperf_cmd_find(argv[1]);
	if (!c) {
		snprintf(err, sizeof(err), "unknown command '%s'", argv[1]);
		return main_usage_error(err);
	}
	cmd_usage(c->def, stdout);
	return RPERF_EXIT_OK;
}

/* Where the command's name is in @argv: the first operand, or what
 * follows "--". The global options take no values, so nothing before it
 * can be one. argc when there is none. */
static int main_command_index(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1;
		if (argv[i][0] != '-' || !argv[i][1])
			return i;
	}
	return argc;
}

/* Parse the global options in argv[1 .. @end) into @o, -v and -q acting
 * as they are read. -1 to go on, else the exit status (help, version, or
 * bad usage reported). */
static int main_global_opts(int end, char **argv, struct main_opts *o)
{
	char err[160];
	int n, ret;

	ret = opts_parse(main_opts_table, o, end, argv, NULL, 0, &n, err, sizeof(err));
	if (ret == OPTS_HELP) {
		main_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (ret)
		return main_usage_error(err);
	if (o->version) {
		printf("rperf %s\n", PACKAGE_VERSION);
		return RPERF_EXIT_OK;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static struct main_opts o;
	const struct rperf_cmd *c;
	char err[160];
	int i, ret;

	env_set_cmdline(argc, argv);
	i = main_command_index(argc, argv);
	ret = main_global_opts(i, argv, &o);
	if (ret >= 0)
		return ret;
	if (i >= argc)
		return main_usage_error("no command given");
	c = rperf_cmd_find(argv[i]);
	if (!c) {
		snprintf(err, sizeof(err), "unknown command '%s'", argv[i]);
		return main_usage_error(err);
	}
	/* -v and -q after the command's name too, counted with those before. */
	opts_set_global(cmd_log_opts_table, &o.log);
	return cmd_dispatch(c->def, argc - i, argv + i);
}
