/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Room for a newcomer among pending connections: see slots.h. */
#include <string.h>

#include "base/slots.h"

size_t slots_pick(const struct slot_view *v, size_t n, const char *from, size_t per_addr,
		  bool *evict)
{
	size_t i, free_i = n, worst = n, worst_from = n, same = 0;

	for (i = 0; i < n; i++) {
		if (!v[i].used) {
			free_i = free_i < n ? free_i : i;
			continue;
		}
		if (worst == n || v[i].rank < v[worst].rank)
			worst = i;
		if (strcmp(v[i].from, from))
			continue;
		same++;
		if (worst_from == n || v[i].rank < v[worst_from].rank)
			worst_from = i;
	}
	*evict = true;
	if (same >= per_addr)
		return worst_from;
	if (free_i < n)
		*evict = false;
	return free_i < n ? free_i : worst;
}
