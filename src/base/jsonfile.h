/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * JSON documents written to files atomically: through a temporary file in
 * the same directory and rename(), so a reader never sees half a file,
 * and a check before a run that the file can be written at all.
 */
#ifndef RPERF_JSONFILE_H
#define RPERF_JSONFILE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

/*
 * Write @root to @path ("-" is stdout) through a temporary file in the
 * same directory and rename(), so a reader never sees half a file.
 * 0 or -errno with the reason in @err.
 */
int jsonfile_write(json_t *root, const char *path, char *err, size_t errlen);
/*
 * The same for any text: @fill(f, @arg) writes it (0, or nonzero when it
 * could not) into the temporary file, which is then synced and renamed
 * over @path ("-": @fill writes stdout). 0 or -errno with "'PATH': why".
 */
int textfile_write(const char *path, int (*fill)(FILE *f, void *arg), void *arg, char *err,
		   size_t errlen);
/*
 * Whether jsonfile_write() can create its temporary file for @path:
 * checked before a run, so that a missing or read-only directory is
 * found before the measurement rather than after it. 0 or -errno.
 */
int jsonfile_check(const char *path, char *err, size_t errlen);

/*
 * Each JSON value of @text in turn (a file may hold the output of two
 * commands, one after the other) to @fn, with the line it starts on.
 * 0, the first non-zero return of @fn, or -EINVAL for bad JSON, with
 * *bad_line (else 0) and @e saying where and why.
 */
int jsonfile_each(const char *text, int (*fn)(void *ctx, int line, json_t *v), void *ctx,
		  int *bad_line, json_error_t *e);

/*
 * A JSON-lines stream: one compact object per line, each flushed to the
 * kernel as it is written, so a run killed at any point leaves whole
 * lines up to its last event. @path "-" is stdout.
 */
struct jsonl;
struct jsonl *jsonl_open(const char *path, char *err, size_t errlen);
/* Write @obj as one line (the reference is kept by the caller). 0 or -errno. */
int jsonl_write(struct jsonl *s, json_t *obj, char *err, size_t errlen);
/* Close (not stdout); 0 or -errno. NULL is a no-op. */
int jsonl_close(struct jsonl *s, char *err, size_t errlen);

#endif
