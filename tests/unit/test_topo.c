/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The topology readers on real captures (ibnetdiscover under ibsim,
 * lldpcli from lldpd in network namespaces: tests/data/README says how
 * they were made), the simple topology file and its errors, and routes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fabric/topo.h"

static char err[512];

/* Read the files @names (under TEST_DATA, a name may be HOST=NAME). */
static int load(struct topo *t, const char *format, int n, const char *const *names)
{
	char paths[8][1024];
	const char *p[8];

	for (int i = 0; i < n; i++) {
		const char *eq = strchr(names[i], '=');

		if (eq)
			snprintf(paths[i], sizeof(paths[i]), "%.*s=%s/%s", (int)(eq - names[i]),
				 names[i], TEST_DATA, eq + 1);
		else
			snprintf(paths[i], sizeof(paths[i]), "%s/%s", TEST_DATA, names[i]);
		p[i] = paths[i];
	}
	memset(t, 0, sizeof(*t));
	err[0] = '\0';
	return topo_read(t, p, (size_t)n, format, err, sizeof(err));
}

/* Read @text from a scratch file named like @name. */
static int load_text(struct topo *t, const char *text)
{
	char path[] = "/tmp/test_topo.XXXXXX";
	const char *p = path;
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	memset(t, 0, sizeof(*t));
	err[0] = '\0';
	rc = topo_read(t, &p, 1, NULL, err, sizeof(err));
	unlink(path);
	if (rc)
		assert_non_null(strstr(err, path));	/* errors name the file */
	return rc;
}

/* The index of the link named @name, or -1. */
static int link_named(const struct topo *t, const char *name)
{
	for (size_t i = 0; i < t->n_links; i++)
		if (!strcmp(t->links[i].name, name))
			return (int)i;
	return -1;
}

/* Route @a -> @b: its length, *ecmp. */
static size_t route(const struct topo *t, const char *a, const char *b, bool *ecmp, int *links)
{
	size_t n = 99;

	assert_true(topo_host(t, a) >= 0);
	assert_true(topo_host(t, b) >= 0);
	assert_int_equal(topo_route(t, topo_host(t, a), topo_host(t, b), links, 16, &n, ecmp,
				    err, sizeof(err)), 0);
	return n;
}

static void test_ib_two_switch(void **state)
{
	static const char *const f[] = { "ib/two-switch.ibnetdiscover.txt" };
	struct topo t;
	int links[16];
	bool ecmp;

	(void)state;
	assert_int_equal(load(&t, NULL, 1, f), 0);
	assert_int_equal(t.n_nodes, 6);
	assert_int_equal(t.n_links, 5);		/* each printed from both ends, kept once */
	assert_true(t.nodes[topo_host(&t, "sw1")].is_switch);
	assert_true(t.nodes[topo_host(&t, "sw2")].is_switch);
	assert_false(t.nodes[topo_host(&t, "h3")].is_switch);
	assert_true(link_named(&t, "h1 - sw1:1") >= 0);
	assert_true(link_named(&t, "h4 - sw2:2") >= 0);
	assert_true(link_named(&t, "sw2:8 - sw1:8") >= 0 || link_named(&t, "sw1:8 - sw2:8") >= 0);
	assert_int_equal(route(&t, "h1", "h4", &ecmp, links), 3);
	assert_false(ecmp);
	assert_string_equal(t.links[links[0]].name, "h1 - sw1:1");
	assert_string_equal(t.links[links[2]].name, "h4 - sw2:2");
	assert_int_equal(route(&t, "h1", "h2", &ecmp, links), 2);
	assert_false(ecmp);
	topo_free(&t);
}

static void test_ib_clos(void **state)
{
	static const char *const f[] = { "ib/clos.ibnetdiscover.txt" };
	struct topo t;
	int links[16];
	bool ecmp;

	(void)state;
	assert_int_equal(load(&t, "ibnetdiscover", 1, f), 0);
	assert_int_equal(t.n_nodes, 8);
	assert_int_equal(t.n_links, 8);
	/* a CA is named by its node description; its host name finds it */
	assert_int_equal(topo_host(&t, "h1"), topo_host(&t, "h1 mlx5_0"));
	assert_int_equal(topo_host(&t, "h9"), -1);
	assert_int_equal(route(&t, "h1", "h3", &ecmp, links), 4);
	assert_true(ecmp);		/* through spine1 or spine2 */
	assert_int_equal(route(&t, "h1", "h2", &ecmp, links), 2);
	assert_false(ecmp);
	topo_free(&t);
}

/* Whether @a and @b have the same nodes and links (by name). */
static void assert_same_topo(const struct topo *a, const struct topo *b)
{
	assert_int_equal(a->n_nodes, b->n_nodes);
	assert_int_equal(a->n_links, b->n_links);
	for (size_t i = 0; i < a->n_nodes; i++) {
		int j = topo_host(b, a->nodes[i].name);

		assert_true(j >= 0);
		assert_int_equal(a->nodes[i].is_switch, b->nodes[j].is_switch);
	}
	for (size_t i = 0; i < a->n_links; i++)
		if (link_named(b, a->links[i].name) < 0)
			fail_msg("link '%s' in one, not the other", a->links[i].name);
}

/* ibnetdiscover -p (one port a line) and -g (grouped) read as the
 * default output of the same fabric. */
static void test_ib_other_outputs(void **state)
{
	static const char *const d[] = { "ib/clos.ibnetdiscover.txt" };
	static const char *const p[] = { "ib/clos.ibnetdiscover-p.txt" };
	static const char *const d2[] = { "ib/two-switch.ibnetdiscover.txt" };
	static const char *const g[] = { "ib/two-switch.ibnetdiscover-g.txt" };
	struct topo a, b;

	(void)state;
	assert_int_equal(load(&a, NULL, 1, d), 0);
	assert_int_equal(load(&b, NULL, 1, p), 0);
	assert_same_topo(&a, &b);
	topo_free(&a);
	topo_free(&b);
	assert_int_equal(load(&a, NULL, 1, d2), 0);
	assert_int_equal(load(&b, "ibnetdiscover", 1, g), 0);
	assert_same_topo(&a, &b);
	topo_free(&a);
	topo_free(&b);
}

static void test_lldp_merged(void **state)
{
	static const char *const f[] = { "lldp/h1.json", "lldp/h2.json", "lldp/h3.json",
					 "lldp/h4.json", "lldp/sw1.json", "lldp/sw2.json" };
	struct topo t;
	int links[16];
	bool ecmp;

	(void)state;
	assert_int_equal(load(&t, NULL, 6, f), 0);
	assert_int_equal(t.n_nodes, 6);
	assert_int_equal(t.n_links, 5);		/* each seen from both ends */
	assert_true(t.nodes[topo_host(&t, "sw1")].is_switch);	/* says Bridge */
	assert_false(t.nodes[topo_host(&t, "h1")].is_switch);	/* says Station */
	assert_true(link_named(&t, "h1 - sw1:eth1") >= 0);
	assert_true(link_named(&t, "h4 - sw2:eth2") >= 0);
	assert_true(link_named(&t, "sw1:eth3 - sw2:eth3") >= 0 ||
		    link_named(&t, "sw2:eth3 - sw1:eth3") >= 0);
	assert_int_equal(route(&t, "h2", "h3", &ecmp, links), 3);
	assert_false(ecmp);
	topo_free(&t);
}

static void test_lldp_local_name(void **state)
{
	static const char *const alone[] = { "lldp/h1.neighbors.json" };
	static const char *const named[] = { "h1=lldp/h1.neighbors.json", "lldp/sw1.json" };
	static const char *const wrong[] = { "h2=lldp/h1.json" };
	struct topo t;

	(void)state;
	assert_int_equal(load(&t, "lldp", 1, alone), -EINVAL);
	assert_non_null(strstr(err, "names no local chassis"));
	assert_int_equal(load(&t, NULL, 2, named), 0);
	assert_int_equal(t.n_nodes, 4);		/* h1, sw1, and sw1's h2 and sw2 */
	assert_true(link_named(&t, "h1 - sw1:eth1") >= 0);
	assert_int_equal(t.n_links, 3);
	topo_free(&t);
	assert_int_equal(load(&t, NULL, 1, wrong), -EINVAL);
	assert_non_null(strstr(err, "the file's chassis is 'h1'"));
}

static void test_file(void **state)
{
	struct topo t;
	int links[16];
	bool ecmp;

	(void)state;
	assert_int_equal(load_text(&t, "# two leaves\nh1 sw1:p1\nh2 sw1   # a comment\n"
				   "\nsw1:p9 sw2:p9\nh3 sw2\n"), 0);
	assert_int_equal(t.n_nodes, 5);
	assert_true(t.nodes[topo_host(&t, "sw1")].is_switch);	/* several links */
	assert_false(t.nodes[topo_host(&t, "h3")].is_switch);
	assert_true(link_named(&t, "h1 - sw1:p1") >= 0);
	assert_true(link_named(&t, "sw1:p9 - sw2:p9") >= 0);
	assert_int_equal(route(&t, "h1", "h3", &ecmp, links), 3);
	topo_free(&t);
	/* parallel links: two shortest paths */
	assert_int_equal(load_text(&t, "h1 sw1\nsw1 sw2\nsw1 sw2\nsw2 h2\n"), 0);
	assert_int_equal(route(&t, "h1", "h2", &ecmp, links), 3);
	assert_true(ecmp);
	topo_free(&t);
}

static void test_file_errors(void **state)
{
	struct topo t;

	(void)state;
	assert_int_equal(load_text(&t, "h1 sw1\n# x\nh2 sw1 sw2\n"), -EINVAL);
	assert_non_null(strstr(err, ":3: want a link as two ends"));
	assert_int_equal(load_text(&t, "h1 sw1:\n"), -EINVAL);
	assert_non_null(strstr(err, ":1: bad port"));
	assert_int_equal(load_text(&t, "sw1 sw1\n"), -EINVAL);
	assert_non_null(strstr(err, ":1: 'sw1' linked to itself"));
	assert_int_equal(load_text(&t, "switch\n"), -EINVAL);
	assert_non_null(strstr(err, ":1: 'switch' names no node"));
	assert_int_equal(load_text(&t, "# nothing\n"), -EINVAL);
	assert_non_null(strstr(err, "no link"));
	assert_int_equal(load_text(&t, "{\"lldp\": 3}\n"), -EINVAL);	/* detected as lldp */
	assert_non_null(strstr(err, "names no local chassis"));
	assert_int_equal(load_text(&t, "Switch\t8 \"S-1\"\t# \"sw1\"\n[1]\t\"H-2\"\n"), -EINVAL);
	assert_non_null(strstr(err, ":2: bad port line"));
	assert_int_equal(load_text(&t, "SW 1 1 0x1 4x SDR - CA 2 1 0x2 ( 'sw1' - 'h1' )\n"
				   "SW 1 2 0x1 4x SDR - CA 3\n"), -EINVAL);
	assert_non_null(strstr(err, ":2: bad port line"));
}

static void test_detect(void **state)
{
	(void)state;
	assert_string_equal(topo_detect("  {\"lldp\": {}}"), "lldp");
	assert_string_equal(topo_detect("#\nvendid=0x0\ncaguid=0x1\n"), "ibnetdiscover");
	assert_string_equal(topo_detect("Switch\t8 \"S-1\"\t\t# \"a\"\n"), "ibnetdiscover");
	assert_string_equal(topo_detect("Switch sw1\n"), "file");
	assert_string_equal(topo_detect("h1 sw1\n"), "file");
}

static void test_no_transit_through_hosts(void **state)
{
	struct topo t;
	int links[16];
	size_t n;
	bool ecmp;

	(void)state;
	assert_int_equal(load_text(&t, "host hx\nh1 sw1\nsw1 hx\nhx sw2\nsw2 h2\n"), 0);
	assert_false(t.nodes[topo_host(&t, "hx")].is_switch);
	assert_int_equal(topo_route(&t, topo_host(&t, "h1"), topo_host(&t, "h2"), links, 16, &n,
				    &ecmp, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no path from 'h1' to 'h2'"));
	assert_int_equal(topo_route(&t, 0, 99, links, 16, &n, &ecmp, err, sizeof(err)), -EINVAL);
	topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib_two_switch),
		cmocka_unit_test(test_ib_clos),
		cmocka_unit_test(test_ib_other_outputs),
		cmocka_unit_test(test_lldp_merged),
		cmocka_unit_test(test_lldp_local_name),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_no_transit_through_hosts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
