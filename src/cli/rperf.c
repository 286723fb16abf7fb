/*
 * rperf: measure what an RDMA fabric really does.
 *
 * main() parses the global options, then dispatches to one subcommand
 * through the single command table below, git-style. Only main exits.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli/cmd.h"
#include "base/env.h"
#include "base/log.h"

static int cmd_help(int argc, char **argv);
static void cmd_help_usage(FILE *out);

const struct rperf_cmd rperf_cmds[] = {
	{ "agent", cmd_agent, cmd_agent_usage, "run the flows a converge coordinator gives this host" },
	{ "analyze", cmd_analyze, cmd_analyze_usage,
	  "predict per-SL shares from a port's arbitration configuration" },
	{ "bw", cmd_bw, cmd_bw_usage, "bandwidth generators on any SL: sent and received rates" },
	{ "converge", cmd_converge, cmd_converge_usage,
	  "mixed lat and bw flows from many hosts, shares vs analyze" },
	{ "help", cmd_help, cmd_help_usage, "show help for a command" },
	{ "lat", cmd_lat, cmd_lat_usage, "RTT through the fabric, without end-host overheads" },
	{ "server", cmd_server, cmd_server_usage, "passive side: keep RECVs posted, count arrivals" },
	{ NULL, NULL, NULL, NULL },
};

const struct rperf_cmd *rperf_cmd_find(const char *name)
{
	const struct rperf_cmd *c;

	for (c = rperf_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage_line(FILE *out)
{
	fprintf(out, "usage: rperf [--version] [--help] [-v | -q] COMMAND [ARGS]\n");
}

static void main_usage(FILE *out)
{
	const struct rperf_cmd *c;

	usage_line(out);
	fprintf(out, "\nGlobal options:\n"
		     "  -h, --help       show this help\n"
		     "  -V, --version    show the version\n"
		     "  -v, --verbose    more diagnostics on stderr (repeat for debug)\n"
		     "  -q, --quiet      errors only\n"
		     "\nCommands:\n");
	for (c = rperf_cmds; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\nSee 'rperf help COMMAND' or man rperf-COMMAND.\n");
}

static void cmd_help_usage(FILE *out)
{
	fprintf(out, "usage: rperf help [COMMAND]\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct rperf_cmd *c;

	if (argc < 2) {
		main_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (argc > 2) {
		cmd_help_usage(stderr);
		return RPERF_EXIT_USAGE;
	}
	c = rperf_cmd_find(argv[1]);
	if (!c) {
		log_error("unknown command '%s'", argv[1]);
		usage_line(stderr);
		return RPERF_EXIT_USAGE;
	}
	c->usage(stdout);
	return RPERF_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const struct rperf_cmd *c;
	int opt;

	env_set_cmdline(argc, argv);
	/* '+' stops at the first non-option: the rest belongs to the command. */
	while ((opt = getopt_long(argc, argv, "+hVvq", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			main_usage(stdout);
			return RPERF_EXIT_OK;
		case 'V':
			printf("rperf %s\n", PACKAGE_VERSION);
			return RPERF_EXIT_OK;
		case 'v':
			log_set_level(log_get_level() + 1);
			break;
		case 'q':
			log_set_level(LOG_LEVEL_ERROR);
			break;
		default:
			usage_line(stderr);
			return RPERF_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage_line(stderr);
		return RPERF_EXIT_USAGE;
	}
	c = rperf_cmd_find(argv[optind]);
	if (!c) {
		log_error("unknown command '%s'", argv[optind]);
		usage_line(stderr);
		return RPERF_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	/* Each command parses its own options from a fresh getopt state. */
	optind = 0;
	return c->fn(argc, argv);
}
