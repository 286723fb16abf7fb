/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* See array.h: one way for a table to grow. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/array.h"

int array_room(void **items, size_t *cap, size_t want, size_t item_bytes, size_t first)
{
	size_t n = *cap ? 2 * *cap : first;
	void *p;

	if (want <= *cap)
		return 0;
	if (n < want || n < *cap)	/* n < *cap: the doubling overflowed */
		n = want;
	if (item_bytes && n > SIZE_MAX / item_bytes)
		return -ENOMEM;
	p = realloc(*items, n * item_bytes);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = n;
	return 0;
}
