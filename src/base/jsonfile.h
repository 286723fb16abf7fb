/*
 * JSON documents written to files atomically: through a temporary file in
 * the same directory and rename(), so a reader never sees half a file,
 * and a check before a run that the file can be written at all.
 */
#ifndef RPERF_JSONFILE_H
#define RPERF_JSONFILE_H

#include <stddef.h>
#include <jansson.h>

/*
 * Write @root to @path ("-" is stdout) through a temporary file in the
 * same directory and rename(), so a reader never sees half a file.
 * 0 or -errno with the reason in @err.
 */
int jsonfile_write(json_t *root, const char *path, char *err, size_t errlen);
/*
 * Whether jsonfile_write() can create its temporary file for @path:
 * checked before a run, so that a missing or read-only directory is
 * found before the measurement rather than after it. 0 or -errno.
 */
int jsonfile_check(const char *path, char *err, size_t errlen);

#endif
