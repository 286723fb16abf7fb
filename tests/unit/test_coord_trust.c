/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the coordinator does not take on trust (coord/coord_trust.c):
 * a rate above the slowest port of a flow's path is refused, naming
 * that port's agent (a fake agent once had 7,999,990 Mb/s pass on a
 * 100g link); rates within the clocks' 2 % pass, and so does any rate
 * when no port rate is known. The scenario's link_rate bounds agents
 * that give no port rate, or one above it. Without a token, a peer on
 * the loopback is taken and one elsewhere refused, with --token-file in
 * the reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "coord/coord.h"

/* A coordinator that knows agents h1 (source) and h3 (destination), with
 * port rates @h1_gbps and @h3_gbps (0: not given). */
static struct coord *two_agents(double h1_gbps, double h3_gbps)
{
	struct coord *c = calloc(1, sizeof(*c));
	const char *names[2] = { "h1", "h3" };
	double gbps[2] = { h1_gbps, h3_gbps };
	size_t i;

	assert_non_null(c);
	assert_int_equal(coord_agents_alloc(c, 2), 0);
	c->agent_ids = json_object();
	for (i = 0; i < 2; i++) {
		c->agents[i].addr = names[i];
		c->agents[i].env = json_object();
		if (gbps[i] > 0)
			json_object_set_new(c->agents[i].env, "port_gbps", json_real(gbps[i]));
		json_object_set_new(c->agent_ids, names[i], json_integer((json_int_t)i + 1));
	}
	c->n_agents = 2;
	return c;
}

static void free_agents(struct coord *c)
{
	coord_agents_free(c);
	json_decref(c->agent_ids);
	free(c);
}

static void test_rates(void **state)
{
	struct coord *c = two_agents(100, 100);
	char why[256];

	(void)state;
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 0, 7999.99, why, sizeof(why)),
			 -EPROTO);
	assert_non_null(strstr(why, "7999990.000 Mb/s measured, above the 100000.000 Mb/s"));
	assert_non_null(strstr(why, "impossible"));
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 0, 99.9, why, sizeof(why)), 0);
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 0, 101.9, why, sizeof(why)), 0);
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 0, 102.5, why, sizeof(why)),
			 -EPROTO);
	free_agents(c);
	/* The slowest port of the path: the source's, named. */
	c = two_agents(25, 100);
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 0, 30, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "(agent 'h1')"));
	free_agents(c);
	/* No rate known: nothing to judge by. */
	c = two_agents(0, 0);
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 0, 1e6, why, sizeof(why)), 0);
	/* Agents that leave their port rate out: the scenario's link_rate bounds them. */
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 100, 7999.99, why,
					  sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "above the scenario's link_rate of 100000.000 Mb/s"));
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 100, 99.9, why,
					  sizeof(why)), 0);
	free_agents(c);
	/* A port rate an agent claims above the scenario's does not lift the bound. */
	c = two_agents(400, 400);
	assert_int_equal(coord_rate_check(&c->agents[1], coord_agent_of(c, "h1"), 100, 200, why,
					  sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "link_rate"));
	/* A slower port than the scenario's is the bound, named. */
	assert_int_equal(coord_rate_check(&c->agents[1], NULL, 500, 450, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "(agent 'h3')"));
	free_agents(c);
}

/* A connected pair: our end (the coordinator's) of a connection to @addr. */
static int pair_to(const char *addr, int *lfd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd;

	*lfd = socket(AF_INET, SOCK_STREAM, 0);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (bind(*lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(*lfd, 1) ||
	    getsockname(*lfd, (struct sockaddr *)&sa, &sl))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void test_tokenless(void **state)
{
	struct coord *c = two_agents(0, 0);
	char err[256];
	int lfd, fd;

	(void)state;
	fd = pair_to("127.0.0.2", &lfd);
	assert_true(fd >= 0);
	assert_int_equal(coord_tokenless_check(c, fd, err, sizeof(err)), 0);
	close(fd);
	close(lfd);
	/* A socket with no peer: not the loopback, refused. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(coord_tokenless_check(c, fd, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "off the loopback"));
	assert_non_null(strstr(err, "--token-file"));
	/* With a token, the agent proves it wherever it is. */
	strcpy(c->token, "a-token");
	assert_int_equal(coord_tokenless_check(c, fd, err, sizeof(err)), 0);
	close(fd);
	free_agents(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_tokenless),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
