/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Helpers cmocka lacks in the versions we build against (1.1 has no
 * assert_double_equal), and what the loopback and schema tests share. Include after
 * <cmocka.h>.
 */
#ifndef RPERF_TESTS_UNIT_H
#define RPERF_TESTS_UNIT_H

#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

/* |a - b| <= tol, NaN never passes; prints both values on failure. */
#define assert_near(a, b, tol) do {						\
	double a_ = (a), b_ = (b), tol_ = (tol);				\
	if (!(fabs(a_ - b_) <= tol_))						\
		fail_msg("%s = %.17g, expected %.17g +- %g", #a, a_, b_, tol_);	\
} while (0)

/* Schema @name (schema/ under $TEST_TOP, which make check sets; else .), loaded (asserted). */
static inline json_t *unit_schema_load(const char *name)
{
	const char *top = getenv("TEST_TOP");
	char path[4096];
	json_t *schema;

	snprintf(path, sizeof(path), "%s/schema/%s", top ? top : ".", name);
	schema = json_load_file(path, 0, NULL);
	assert_non_null(schema);
	return schema;
}

/* A TCP connection to 127.0.0.1 @port, made (asserted). */
static inline int unit_connect_lo(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

#endif
