/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Arrays that grow as items are added: a pointer and the count of items it
 * has room for, reallocated by doubling, so that adding n items one at a
 * time costs O(n) copies; or by one item at a time, for the short lists
 * of findings. One helper for the tables that readers and engines fill
 * without knowing their size beforehand.
 */
#ifndef RPERF_ARRAY_H
#define RPERF_ARRAY_H

#include <stddef.h>

/*
 * Room for @want items of @item_bytes each in *@items, which has room for
 * *@cap of them. When it has not, *@items is reallocated to twice *@cap
 * items (@first when *@cap is 0), or to @want if that is more, and *@cap
 * says so. 0, or -ENOMEM with *@items and *@cap as they were.
 */
int array_room(void **items, size_t *cap, size_t want, size_t item_bytes, size_t first);
/*
 * One more item of @item_bytes at the end of *@items, which holds *@n of
 * them, reallocated to fit it exactly: the new item, zeroed, with *@n
 * counting it; NULL, with *@items and *@n as they were, when there is no
 * memory. For tables that stay small.
 */
void *array_push(void **items, size_t *n, size_t item_bytes);

#endif
