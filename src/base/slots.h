/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Room for a newcomer among a fixed set of pending connections, capped
 * overall and per source address: what the agent's control-port gate and
 * the sink's data-port gate both decide when a connection arrives. Each
 * gate describes its slots; the choice is made here, once.
 */
#ifndef RPERF_SLOTS_H
#define RPERF_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One slot as its gate sees it. */
struct slot_view {
	bool used;
	const char *from;		/* its source address, when used */
	uint64_t rank;			/* lower: the first to make room */
};

/*
 * The slot of @v[0 .. @n) a newcomer from @from takes: a free one while
 * @from holds fewer than @per_addr and one is free; else the lowest-ranked
 * of @from's (at its cap) or of all (no slot free), which the caller
 * closes first (*@evict true). @n must be at least 1.
 */
size_t slots_pick(const struct slot_view *v, size_t n, const char *from, size_t per_addr,
		  bool *evict);

#endif
