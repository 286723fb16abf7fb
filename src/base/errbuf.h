/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Errors that travel with their message. Engines and helpers that cannot
 * print (they may run in worker threads, or their caller knows better what
 * to add) write the reason into a caller's buffer and return -errno; the
 * command prints it once.
 */
#ifndef RPERF_ERRBUF_H
#define RPERF_ERRBUF_H

#include <stddef.h>

/* Format into @err (may be NULL) and return @ret, so callers can
 * `return errbuf_set(err, errlen, -EINVAL, "...")`. */
int errbuf_set(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
