/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* See array.h: the ways a table grows. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void *array_push(void **items, size_t *n, size_t item_bytes)
{
	char *p;

	if (item_bytes && *n >= SIZE_MAX / item_bytes)
		return NULL;
	p = realloc(*items, (*n + 1) * item_bytes);
	if (!p)
		return NULL;
	*items = p;
	p += (*n)++ * item_bytes;
	memset(p, 0, item_bytes);
	return p;
}
