/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * array: room made by doubling from a first size, or as much as asked
 * when that is more; none made when there is room; a size that would
 * overflow refused with the array as it was. An item pushed at the end,
 * zeroed and counted, the ones before it kept.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/array.h"

static void test_doubling(void **state)
{
	int *v = NULL;
	size_t cap = 0, i;

	(void)state;
	assert_int_equal(array_room((void **)&v, &cap, 1, sizeof(*v), 16), 0);
	assert_non_null(v);
	assert_int_equal(cap, 16);
	for (i = 0; i < 16; i++)
		v[i] = (int)i;
	assert_int_equal(array_room((void **)&v, &cap, 16, sizeof(*v), 16), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(array_room((void **)&v, &cap, 17, sizeof(*v), 16), 0);
	assert_int_equal(cap, 32);
	for (i = 0; i < 16; i++)
		assert_int_equal(v[i], (int)i);	/* kept across the move */
	free(v);
}

static void test_want_more(void **state)
{
	char *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(array_room((void **)&v, &cap, 5, 1, 0), 0);
	assert_int_equal(cap, 5);	/* no first size: as much as asked */
	assert_int_equal(array_room((void **)&v, &cap, 100, 1, 0), 0);
	assert_int_equal(cap, 100);	/* more than twice 5 */
	assert_int_equal(array_room((void **)&v, &cap, 101, 1, 0), 0);
	assert_int_equal(cap, 200);
	free(v);
}

static void test_overflow(void **state)
{
	double *v = NULL, *was;
	size_t cap = 0;

	(void)state;
	assert_int_equal(array_room((void **)&v, &cap, 4, sizeof(*v), 4), 0);
	was = v;
	assert_int_equal(array_room((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v), 4), -ENOMEM);
	assert_ptr_equal(v, was);
	assert_int_equal(cap, 4);
	free(v);
}

static void test_push(void **state)
{
	struct item {
		int a;
		char name[8];
	} *v = NULL, *it;
	size_t n = 0;

	(void)state;
	it = array_push((void **)&v, &n, sizeof(*v));
	assert_non_null(it);
	assert_ptr_equal(it, v);
	assert_int_equal(n, 1);
	assert_int_equal(it->a, 0);
	it->a = 7;
	strcpy(it->name, "first");
	it = array_push((void **)&v, &n, sizeof(*v));
	assert_ptr_equal(it, &v[1]);
	assert_int_equal(n, 2);
	assert_int_equal(it->a, 0);
	assert_string_equal(it->name, "");
	assert_int_equal(v[0].a, 7);
	assert_string_equal(v[0].name, "first");
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubling),
		cmocka_unit_test(test_want_more),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_push),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
