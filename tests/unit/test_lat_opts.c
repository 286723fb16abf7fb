/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* lat options: defaults, every validation rule, and the -a sweep. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "base/units.h"
#include "cli/lat.h"

/* Parse a NULL-terminated argument list; argv[0] is "lat". */
#define PARSE(o, ...) parse(o, (char *[]){ "lat", __VA_ARGS__, NULL })

static char err[256];

static int parse(struct lat_opts *o, char **args)
{
	int argc = 0;

	while (args[argc])
		argc++;
	err[0] = '\0';
	return lat_opts_parse(argc, args, o, err, sizeof(err));
}

static void test_defaults(void **state)
{
	struct lat_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "h2"), 0);
	assert_string_equal(o.flow.host, "h2");
	assert_null(o.flow.device);
	assert_int_equal(o.flow.ib_port, 1);
	assert_int_equal(o.flow.gid_index, -1);
	assert_int_equal(o.flow.spec.sl, 0);
	assert_int_equal(o.flow.qp_timeout, 14);
	assert_int_equal(o.flow.retry, 7);
	assert_int_equal(o.iterations, 1000);
	assert_int_equal(o.warmup, 100);
	assert_int_equal(o.n_sizes, 1);
	assert_int_equal(o.sizes[0], 64);
	assert_int_equal(o.flow.spec.threads, 1);
	assert_int_equal(o.flow.clock, CLOCK_SRC_TSC);
	assert_false(o.flow.rdma_cm);
}

static void test_full_line(void **state)
{
	struct lat_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-d", "mlx5_0", "-i", "2", "-x", "3", "--sl", "15",
			       "--tclass", "96", "--qp-timeout", "20", "--retry", "3", "-s",
			       "64,4k,1m", "--threads", "2", "--cpu", "4,6", "--clock=monotonic",
			       "--json", "-", "--hugepages", "--yield", "host"), 0);
	assert_string_equal(o.flow.device, "mlx5_0");
	assert_int_equal(o.flow.ib_port, 2);
	assert_int_equal(o.flow.gid_index, 3);
	assert_int_equal(o.flow.spec.sl, 15);
	assert_int_equal(o.flow.spec.tclass, 96);
	assert_int_equal(o.flow.qp_timeout, 20);
	assert_int_equal(o.flow.retry, 3);
	assert_int_equal(o.n_sizes, 3);
	assert_int_equal(o.sizes[1], 4096);
	assert_int_equal(o.sizes[2], 1 << 20);
	assert_int_equal(o.flow.spec.threads, 2);
	assert_int_equal(o.flow.n_cpus, 2);
	assert_int_equal(o.flow.cpus[1], 6);
	assert_int_equal(o.flow.clock, CLOCK_SRC_MONOTONIC);
	assert_string_equal(o.flow.json_path, "-");
	assert_true(!o.flow.rdma_cm && o.flow.hugepages && o.flow.yield);
	/* --rdma-cm runs one thread (test_rejects): alone here. */
	assert_int_equal(PARSE(&o, "--rdma-cm", "host"), 0);
	assert_true(o.flow.rdma_cm);
}

static void test_duration_replaces_iterations(void **state)
{
	struct lat_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-D", "2.5", "h"), 0);
	assert_int_equal(o.iterations, 0);
	assert_true(o.duration_s == 2.5);
	assert_int_equal(PARSE(&o, "-D", "2", "-n", "10", "h"), -EINVAL);
	assert_non_null(strstr(err, "-n or -D"));
}

/* Each bad line fails with a message naming the problem. */
static void test_rejects(void **state)
{
	static const struct {
		char *args[8];
		const char *msg;
	} bad[] = {
		{ { "lat", "--sl", "16", "h" }, "service level" },
		{ { "lat", "--sl", "-1", "h" }, "service level" },
		{ { "lat", "--retry", "8", "h" }, "--retry" },
		{ { "lat", "--qp-timeout", "32", "h" }, "--qp-timeout" },
		{ { "lat", "--tclass", "256", "h" }, "--tclass" },
		{ { "lat", "-s", "0", "h" }, "--size '0'" },
		{ { "lat", "-s", "64,x", "h" }, "--size 'x'" },
		{ { "lat", "-s", "8g", "h" }, "--size '8g'" },
		{ { "lat", "-s", "64", "-a", "h" }, "-s or -a" },
		{ { "lat", "-n", "0", "h" }, "--iters" },
		{ { "lat", "-D", "0", "h" }, "--duration" },
		{ { "lat", "--threads", "2", "--cpu", "1", "h" }, "--cpu lists 1" },
		{ { "lat", "--rdma-cm", "--threads", "2", "h" }, "--rdma-cm runs one thread" },
		{ { "lat", "--clock", "hpet", "h" }, "--clock 'hpet'" },
		{ { "lat", "--json", "-", "--csv", "-", "h" }, "only one of --json, --csv and" },
		{ { "lat", "--json-stream", "-", "--csv", "-", "h" }, "can be stdout" },
		{ { "lat", "--bogus", "h" }, "unknown option '--bogus'" },
		{ { "lat", "-s" }, "needs a value" },
		{ { "lat" }, "no server" },
		{ { "lat", "a", "b" }, "more than one server" },
	};
	struct lat_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&o, (char **)bad[i].args), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: '%s' does not mention '%s'", i, err, bad[i].msg);
	}
}

static void test_help(void **state)
{
	struct lat_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--help"), 0);
	assert_true(o.help);
}

static void test_sizes(void **state)
{
	uint64_t s;
	size_t sizes[32];

	(void)state;
	assert_int_equal(units_parse_bytes("4k", &s), 0);
	assert_int_equal(s, 4096);
	assert_int_equal(units_parse_bytes("2M", &s), 0);
	assert_int_equal(s, 2u << 20);
	assert_int_equal(units_parse_bytes("4kk", &s), -EINVAL);
	/* rxe: 8 MiB; the sweep stops at 2^23 whatever the port allows. */
	assert_int_equal(run_sweep_sizes(8u << 20, sizes, 32), 23);
	assert_int_equal(sizes[0], 2);
	assert_int_equal(sizes[22], 8u << 20);
	assert_int_equal(run_sweep_sizes(1u << 30, sizes, 32), 23);
	assert_int_equal(run_sweep_sizes(4096, sizes, 32), 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_line),
		cmocka_unit_test(test_duration_replaces_iterations),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
