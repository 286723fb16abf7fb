/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Traffic patterns of a scenario: one table row each (its name, the
 * hosts it needs and how its error says so, whether 'dest' names its
 * destination, and the function that turns a host list into flows), so
 * the parser, its errors and rperf-scenario(5) read one list. A pattern
 * only pairs hosts: each (source, destination) goes to the caller, who
 * makes it a flow. Pure: no I/O, no printing.
 */
#ifndef RPERF_SCENARIO_PATTERN_H
#define RPERF_SCENARIO_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A pattern section expands into flows over its host list (in order):
 * every host but the destination to it (incast), every ordered pair
 * (all-to-all), each host to one other, each receiving from one, drawn
 * with a seed (random-pairs), each to its neighbours on a ring (ring),
 * hosts paired in order, both ways (flood-pairs).
 */
enum scenario_pattern {
	SCENARIO_PATTERN_NONE,
	SCENARIO_PATTERN_INCAST,
	SCENARIO_PATTERN_ALL_TO_ALL,
	SCENARIO_PATTERN_RANDOM_PAIRS,
	SCENARIO_PATTERN_RING,
	SCENARIO_PATTERN_FLOOD_PAIRS,
	SCENARIO_PATTERN_COUNT
};

/* What a pattern hands its pairs to: @flow makes @src -> @dst a flow,
 * 0 or -errno with the reason in @err. */
struct scenario_pattern_sink {
	int (*flow)(void *arg, const char *src, const char *dst, char *err, size_t errlen);
	void *arg;
};

const char *scenario_pattern_name(enum scenario_pattern p);
/* @name -> *@p (not "none"): 0, or -EINVAL. */
int scenario_pattern_parse(const char *name, enum scenario_pattern *p);
/* "incast, all-to-all, random-pairs, ring or flood-pairs", from the table. */
const char *scenario_pattern_choices(void);

/*
 * Before the hosts are read: @p is a pattern, and a 'dest' given
 * (@dest_given) is one it takes (incast's alone). 0, or -EINVAL with the
 * reason in @err, which starts with @where ("FILE:LINE: [SECTION]").
 */
int scenario_pattern_check(enum scenario_pattern p, bool dest_given, const char *where,
			   char *err, size_t errlen);
/*
 * Expand pattern @p over hosts @h[0 .. @n) (distinct names, in order;
 * @h is reordered): @dst is incast's destination (dropped from its
 * list), @seed random-pairs'. The host count checked against the
 * pattern's rule, each pair goes to @to. 0, or -errno with the reason in
 * @err, which starts with @where.
 */
int scenario_pattern_expand(enum scenario_pattern p, const char **h, int n, const char *dst,
			    uint64_t seed, const char *where, const struct scenario_pattern_sink *to,
			    char *err, size_t errlen);

#endif
