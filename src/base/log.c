/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One place that prints diagnostics, so every message has the same shape:
 * "rperf: error: <subject>: <what went wrong>".
 */
#include <stdio.h>
#include "base/log.h"

static enum log_level current_level = LOG_LEVEL_WARN;
/* The last error said, printed or not: the document of a failed run. */
static char last_error[512];

void log_set_level(enum log_level level)
{
	current_level = level;
}

enum log_level log_get_level(void)
{
	return current_level;
}

static void log_vprint(enum log_level level, const char *tag, const char *fmt, va_list ap)
{
	va_list copy;

	if (level == LOG_LEVEL_ERROR) {
		va_copy(copy, ap);
		vsnprintf(last_error, sizeof(last_error), fmt, copy);
		va_end(copy);
	}
	if (level > current_level)
		return;
	fprintf(stderr, "rperf: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

const char *log_last_error(void)
{
	return last_error;
}

int log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_ERROR, "error: ", fmt, ap);
	va_end(ap);
	return -1;
}

int log_errno(int neg_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_ERROR, "error: ", fmt, ap);
	va_end(ap);
	return neg_errno;
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_WARN, "warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_INFO, "", fmt, ap);
	va_end(ap);
}

void log_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_INFO, "note: ", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_DEBUG, "debug: ", fmt, ap);
	va_end(ap);
}
