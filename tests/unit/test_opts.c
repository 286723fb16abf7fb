/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The option parser's global options: rperf's -v and -q accepted after a
 * command's name as before it, by the one parse every command goes
 * through, without a command's own options or operands changing meaning.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/log.h"
#include "base/opts.h"
#include "cli/bw.h"
#include "cli/cmd.h"
#include "cli/lat.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* A command's options, as any command has them: none is -v or -q. */
struct demo_opts {
	const char *name;
	unsigned count;
	bool version;
};

static const struct opts_entry demo_table[] = {
	OPT_STRING('n', "name", "NAME", "a name", struct demo_opts, name),
	OPT_UINT('c', "count", "N", "a count", struct demo_opts, count, 0, 100),
	OPT_END(),
};

/* A command that has its own -v: it wins over the global one. */
static const struct opts_entry demo_own_v_table[] = {
	OPT_FLAG('v', "version", "its own -v", struct demo_opts, version),
	OPT_END(),
};

static struct cmd_log_opts log_opts;
static struct demo_opts demo;
static const char *operands[4];
static int n_operands;
static char err[256];

static int argc_of(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return argc;
}

static int parse(const struct opts_entry *tab, char **argv)
{
	memset(&demo, 0, sizeof(demo));
	memset(operands, 0, sizeof(operands));
	err[0] = '\0';
	return opts_parse(tab, &demo, argc_of(argv), argv, operands, 4, &n_operands, err,
			  sizeof(err));
}

/* Each test starts as main leaves things for a command: the default log
 * level, rperf's -v and -q handed to the parse. */
static int setup(void **state)
{
	(void)state;
	memset(&log_opts, 0, sizeof(log_opts));
	log_set_level(LOG_LEVEL_WARN);
	opts_set_global(cmd_log_opts_table, &log_opts);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	opts_set_global(NULL, NULL);
	log_set_level(LOG_LEVEL_WARN);
	return 0;
}

/* Without main's hand-over the parse knows only the command's table. */
static void test_unknown_without_global(void **state)
{
	(void)state;
	opts_set_global(NULL, NULL);
	assert_int_equal(parse(demo_table, ARGV("analyze", "-v", "FILE")), -EINVAL);
	assert_string_equal(err, "unknown option '-v'");
	assert_int_equal(log_get_level(), LOG_LEVEL_WARN);
}

/* rperf analyze -v FILE: -v counted and acting, FILE still the operand. */
static void test_verbose_after_command(void **state)
{
	(void)state;
	assert_int_equal(parse(demo_table, ARGV("analyze", "-v", "FILE")), 0);
	assert_int_equal(n_operands, 1);
	assert_string_equal(operands[0], "FILE");
	assert_int_equal(log_opts.verbose, 1);
	assert_false(log_opts.quiet);
	assert_int_equal(log_get_level(), LOG_LEVEL_INFO);
}

/* Any spelling, anywhere among the command's own options and operands. */
static void test_spellings_and_places(void **state)
{
	(void)state;
	assert_int_equal(parse(demo_table, ARGV("analyze", "FILE", "--verbose", "-c", "3")), 0);
	assert_int_equal(log_opts.verbose, 1);
	assert_int_equal(demo.count, 3);
	assert_string_equal(operands[0], "FILE");
	assert_int_equal(parse(demo_table, ARGV("analyze", "-vv", "FILE")), 0);
	assert_int_equal(log_opts.verbose, 3);
	assert_int_equal(log_get_level(), LOG_LEVEL_DEBUG);
	/* Grouped with the command's short options. */
	assert_int_equal(parse(demo_table, ARGV("analyze", "-vc", "7", "FILE")), 0);
	assert_int_equal(demo.count, 7);
	assert_int_equal(log_opts.verbose, 4);
	assert_int_equal(log_get_level(), LOG_LEVEL_DEBUG);
}

/* -q: errors only, given before or after -v. */
static void test_quiet_wins(void **state)
{
	(void)state;
	assert_int_equal(parse(demo_table, ARGV("analyze", "-q", "FILE", "-v")), 0);
	assert_true(log_opts.quiet);
	assert_int_equal(log_get_level(), LOG_LEVEL_ERROR);
	setup(state);
	assert_int_equal(parse(demo_table, ARGV("analyze", "-v", "--quiet", "FILE")), 0);
	assert_int_equal(log_get_level(), LOG_LEVEL_ERROR);
	assert_int_equal(n_operands, 1);
}

/* A value of the command's option, or what follows "--", is not -v. */
static void test_values_and_operands_untouched(void **state)
{
	(void)state;
	assert_int_equal(parse(demo_table, ARGV("analyze", "--name", "-v", "FILE")), 0);
	assert_string_equal(demo.name, "-v");
	assert_int_equal(parse(demo_table, ARGV("analyze", "-n", "-q", "FILE")), 0);
	assert_string_equal(demo.name, "-q");
	assert_int_equal(parse(demo_table, ARGV("analyze", "--", "-v")), 0);
	assert_int_equal(n_operands, 1);
	assert_string_equal(operands[0], "-v");
	assert_int_equal(log_opts.verbose, 0);
	assert_false(log_opts.quiet);
	assert_int_equal(log_get_level(), LOG_LEVEL_WARN);
}

/* A command's own -v would keep its meaning; none has one today. */
static void test_command_option_wins(void **state)
{
	(void)state;
	assert_int_equal(parse(demo_own_v_table, ARGV("cmd", "-v")), 0);
	assert_true(demo.version);
	assert_int_equal(log_opts.verbose, 0);
	assert_int_equal(parse(demo_own_v_table, ARGV("cmd", "-q")), 0);
	assert_true(log_opts.quiet);
}

/* Bad usage is still said once, with what was wrong. */
static void test_errors(void **state)
{
	(void)state;
	assert_int_equal(parse(demo_table, ARGV("analyze", "-v", "-x", "FILE")), -EINVAL);
	assert_string_equal(err, "unknown option '-x'");
	assert_int_equal(parse(demo_table, ARGV("analyze", "--verbose=2")), -EINVAL);
	assert_string_equal(err, "option '--verbose' takes no value");
	assert_int_equal(parse(demo_table, ARGV("analyze", "--version")), -EINVAL);
	assert_string_equal(err, "unknown option '--version'");
}

/* lat's and bw's real parses take them too. */
static void test_lat_bw_parse(void **state)
{
	struct lat_opts lo;
	struct bw_opts bo;

	(void)state;
	err[0] = '\0';
	assert_int_equal(lat_opts_parse(3, ARGV("lat", "-v", "h2"), &lo, err, sizeof(err)), 0);
	assert_string_equal(lo.flow.host, "h2");
	assert_int_equal(bw_opts_parse(3, ARGV("bw", "h2", "-q"), &bo, err, sizeof(err)), 0);
	assert_int_equal(log_opts.verbose, 1);
	assert_true(log_opts.quiet);
	assert_int_equal(log_get_level(), LOG_LEVEL_ERROR);
}

/* Run command @d on @argv, as the command table does, with stdout and
 * stderr thrown away. */
static int run_silenced(const struct cmd_def *d, char **argv)
{
	int out, errfd, null, ret;

	fflush(stdout);
	fflush(stderr);
	out = dup(1);
	errfd = dup(2);
	null = open("/dev/null", O_WRONLY);
	assert_true(out >= 0 && errfd >= 0 && null >= 0);
	dup2(null, 1);
	dup2(null, 2);
	close(null);
	ret = cmd_dispatch(d, argc_of(argv), argv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(errfd, 2);
	close(out);
	close(errfd);
	return ret;
}

/* rperf analyze -v FILE, whole: it runs, at the level -v asked for. */
static void test_analyze_verbose(void **state)
{
	(void)state;
	assert_int_equal(run_silenced(&cmd_analyze,
				      ARGV("analyze", "-v", TEST_DATA "/config-a.table")),
			 RPERF_EXIT_OK);
	assert_int_equal(log_get_level(), LOG_LEVEL_INFO);
	assert_int_equal(run_silenced(&cmd_analyze,
				      ARGV("analyze", TEST_DATA "/config-a.table", "-q")),
			 RPERF_EXIT_OK);
	assert_int_equal(log_get_level(), LOG_LEVEL_ERROR);
	/* Bad usage stays bad usage. */
	assert_int_equal(run_silenced(&cmd_analyze,
				      ARGV("analyze", "-v", "-x", TEST_DATA "/config-a.table")),
			 RPERF_EXIT_USAGE);
}

/* Every command: -v and -q taken, then --help answered (exit 0, where an
 * unknown -v would have been bad usage). */
static void test_every_command(void **state)
{
	static const struct cmd_def mesh = { .main = cmd_mesh, .help = cmd_mesh_usage };
	static const struct {
		const char *name;
		const struct cmd_def *def;
	} cmds[] = {
		{ "agent", &cmd_agent }, { "analyze", &cmd_analyze }, { "bw", &cmd_bw },
		{ "converge", &cmd_converge }, { "lat", &cmd_lat }, { "mesh", &mesh },
		{ "server", &cmd_server },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *argv[] = { (char *)cmds[i].name, "-v", "--quiet", "--help", NULL };

		if (run_silenced(cmds[i].def, argv) != RPERF_EXIT_OK)
			fail_msg("rperf %s -v --quiet --help: not accepted", cmds[i].name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unknown_without_global, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verbose_after_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spellings_and_places, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quiet_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values_and_operands_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_option_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lat_bw_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_analyze_verbose, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_command, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
