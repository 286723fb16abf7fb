/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What every fuzz target shares. */
#ifndef RPERF_FUZZ_H
#define RPERF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (the readers take text); NULL
 * when out of memory. Free it. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
	}
	return text;
}

#endif
