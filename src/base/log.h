/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Diagnostics with one prefix style. Everything here goes to stderr; stdout
 * carries results only. Engines never call these for results, only for
 * errors and warnings that they are the best placed to explain.
 */
#ifndef RPERF_LOG_H
#define RPERF_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum log_level {
	LOG_LEVEL_QUIET = 0,
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* Print "rperf: error: ..." and return -1, so callers can `return log_error(...)`. */
int log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, returning the given negative errno value. */
int log_errno(int neg_errno, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text of the last error logged ("" before any), even under -q: what a
 * failed command's JSON document says. */
const char *log_last_error(void);
/* Print "rperf: hint: ..." after an error: what to do about it (shown at every level). */
void log_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A warning. Of one shape (the call site, and the text but for its
 * digits), LOG_BURST a second are printed; those past it are counted and
 * told in one line, "<the last> ... N more", once the second is over (at
 * the next message, log_flush() or exit).
 */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "note: ": a remark shown at the info level (-v). */
void log_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Tell every warning held back now, whether or not its second is over. */
void log_flush(void);
/*
 * @in with every control character (below 0x20, 0x7f, and the C1 range
 * U+0080-U+009F), every byte that is not part of well-formed UTF-8, and
 * the invisible and bidi marks (U+200B-200F, U+2028-202E, U+2060-206F,
 * U+FEFF) shown as \xNN a byte, into @out (NUL-terminated, cut at a
 * whole character): what every message here is printed as, so that peer
 * text cannot break, forge or hide a line. The length written.
 */
size_t log_escape(const char *in, char *out, size_t outlen);
/*
 * A diagnostic rperf wrapped itself (report_analyze_diags), a warning or
 * with @note a note: escaped as above but for a newline followed by four
 * spaces, its indented continuation, which no line of its own starts
 * with. Never for text a peer sent: log_warn() and the rest escape every
 * newline.
 */
void log_wrapped(bool note, const char *wrapped);

#endif
