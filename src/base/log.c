/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One place that prints diagnostics, so every message has the same shape:
 * "rperf: error: <subject>: <what went wrong>". Messages often carry text
 * a peer sent (an agent's error, a field's name, a coordinator's reason):
 * every control character (C0, DEL, C1), byte that is not well-formed
 * UTF-8, and invisible or bidi mark is shown as \xNN, so that no peer
 * can end a line, forge the next one, hide text or drive the terminal.
 * Only log_wrapped(), for text rperf wrapped itself, keeps newlines. And a warning of one
 * shape (its call site, and its text but for digits: the same failure
 * from another peer or port) is printed LOG_BURST times a second at most;
 * the rest are counted and told in one line ("<the last one> ... N more")
 * once that second is over (at the next message, log_flush() or exit).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"

#define LOG_BURST	5		/* lines a second from one call site */
#define LOG_SITES	32		/* call sites followed at once */
#define LOG_LINE	1024

static enum log_level current_level = LOG_LEVEL_WARN;
/* The last error said, printed or not: the document of a failed run. */
static char last_error[512];
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

/* A warning's shape and what it said in its current second. */
struct log_site {
	uint64_t shape;			/* log_shape(); 0: a free slot */
	uint64_t second;		/* CLOCK_MONOTONIC, whole seconds */
	unsigned n;			/* printed in it */
	unsigned held;			/* not printed */
	char last[LOG_LINE];		/* the last one not printed */
};
static struct log_site sites[LOG_SITES];
static bool flush_at_exit;

void log_set_level(enum log_level level)
{
	current_level = level;
}

enum log_level log_get_level(void)
{
	return current_level;
}

/* Whether code point @cp is shown as itself: not a C1 control, nor one
 * of the invisible marks, line separators and bidi overrides that can
 * hide or reorder what a line says. */
static bool log_cp_shown(uint32_t cp)
{
	return cp >= 0xa0 && !(cp >= 0x200b && cp <= 0x200f) && !(cp >= 0x2028 && cp <= 0x202e) &&
	       !(cp >= 0x2060 && cp <= 0x206f) && cp != 0xfeff;
}

/* The length of the well-formed UTF-8 character at @p that is shown as
 * itself (2 to 4 bytes); 0 for anything else (its first byte escaped). */
static size_t log_utf8_len(const unsigned char *p)
{
	static const uint32_t min_cp[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	uint32_t cp;
	size_t n, i;

	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2, cp = *p & 0x1f;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3, cp = *p & 0x0f;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4, cp = *p & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* the NUL too: never read past it */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min_cp[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || !log_cp_shown(cp))
		return 0;
	return n;
}

/* log_escape(); with @indented, a newline before four spaces kept. */
static size_t log_escape_as(const char *in, char *out, size_t outlen, bool indented)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0, k;

	if (!outlen)
		return 0;
	while (*p) {
		k = *p >= 0x20 && *p < 0x7f ? 1 : log_utf8_len(p);
		if (!k && indented && *p == '\n' && !strncmp((const char *)p + 1, "    ", 4))
			k = 1;
		if (k && n + k < outlen) {
			memcpy(out + n, p, k);
			n += k;
			p += k;
		} else if (!k && n + 4 < outlen) {
			snprintf(out + n, 5, "\\x%02x", *p++);
			n += 4;
		} else {
			break;
		}
	}
	out[n] = '\0';
	return n;
}

size_t log_escape(const char *in, char *out, size_t outlen)
{
	return log_escape_as(in, out, outlen, false);
}

static uint64_t log_second(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* Tell what @s held back, if its second is over (@now) or @all. Under log_mu. */
static void site_tell(struct log_site *s, uint64_t now, bool all)
{
	if (!s->shape || !s->held || (!all && s->second == now))
		return;
	fprintf(stderr, "rperf: warning: %s ... %u more\n", s->last, s->held);
	s->held = 0;
}

void log_flush(void)
{
	uint64_t now = log_second();
	size_t i;

	pthread_mutex_lock(&log_mu);
	for (i = 0; i < LOG_SITES; i++)
		site_tell(&sites[i], now, true);
	pthread_mutex_unlock(&log_mu);
}

static void log_flush_at_exit(void)
{
	log_flush();
}

/* A warning's shape: FNV-1a over its call site @at and @text without digits; never 0. */
static uint64_t log_shape(const void *at, const char *text)
{
	uint64_t h = 14695981039346656037ull ^ (uint64_t)(uintptr_t)at;

	for (; *text; text++)
		if (*text < '0' || *text > '9')
			h = (h ^ (unsigned char)*text) * 1099511628211ull;
	return h ? h : 1;
}

/*
 * Whether the warning @text from call site @at is printed now; when not,
 * it is held (counted, kept as the last). Under log_mu.
 */
static bool site_admit(const void *at, const char *text)
{
	uint64_t now = log_second(), shape = log_shape(at, text);
	struct log_site *s = NULL, *old = &sites[0];
	size_t i;

	for (i = 0; i < LOG_SITES; i++) {
		site_tell(&sites[i], now, false);
		if (sites[i].shape == shape)
			s = &sites[i];
		if (sites[i].second < old->second)
			old = &sites[i];
	}
	if (!s) {
		s = old;	/* a free slot is second 0, the oldest */
		site_tell(s, now, true);
		*s = (struct log_site){ .shape = shape, .second = now };
	}
	if (s->second != now) {
		s->second = now;
		s->n = 0;
	}
	if (s->n < LOG_BURST) {
		s->n++;
		return true;
	}
	if (!flush_at_exit)
		flush_at_exit = !atexit(log_flush_at_exit);
	s->held++;
	snprintf(s->last, sizeof(s->last), "%s", text);
	return false;
}

/* Print @text, escaped already, with @tag at @level (a warning from @at). */
static void log_text(enum log_level level, const char *tag, const void *at, const char *text)
{
	pthread_mutex_lock(&log_mu);
	if (level == LOG_LEVEL_ERROR && !strcmp(tag, "error: "))	/* a hint is not the error */
		snprintf(last_error, sizeof(last_error), "%.*s", (int)sizeof(last_error) - 1, text);
	if (level <= current_level && (level != LOG_LEVEL_WARN || site_admit(at, text)))
		fprintf(stderr, "rperf: %s%s\n", tag, text);
	pthread_mutex_unlock(&log_mu);
}

static void log_vprint(enum log_level level, const char *tag, const void *at, const char *fmt,
		       va_list ap)
{
	char raw[LOG_LINE], text[LOG_LINE];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	log_escape(raw, text, sizeof(text));
	log_text(level, tag, at, text);
}

void log_wrapped(bool note, const char *wrapped)
{
	char text[LOG_LINE];

	log_escape_as(wrapped, text, sizeof(text), true);
	log_text(note ? LOG_LEVEL_INFO : LOG_LEVEL_WARN, note ? "note: " : "warning: ",
		 __builtin_return_address(0), text);
}

const char *log_last_error(void)
{
	return last_error;
}

/*
 * The body of each printf-like entry point below: its arguments after
 * fmt formatted, escaped and printed with @tag at @level (a warning
 * from @at).
 */
#define LOG_ARGS_PRINT(level, tag, at)				\
	do {							\
		va_list ap;					\
								\
		va_start(ap, fmt);				\
		log_vprint(level, tag, at, fmt, ap);		\
		va_end(ap);					\
	} while (0)

int log_error(const char *fmt, ...)
{
	LOG_ARGS_PRINT(LOG_LEVEL_ERROR, "error: ", NULL);
	return -1;
}

int log_errno(int neg_errno, const char *fmt, ...)
{
	LOG_ARGS_PRINT(LOG_LEVEL_ERROR, "error: ", NULL);
	return neg_errno;
}

void log_hint(const char *fmt, ...)
{
	LOG_ARGS_PRINT(LOG_LEVEL_ERROR, "hint: ", NULL);
}

void log_warn(const char *fmt, ...)
{
	LOG_ARGS_PRINT(LOG_LEVEL_WARN, "warning: ", __builtin_return_address(0));
}

void log_info(const char *fmt, ...)
{
	LOG_ARGS_PRINT(LOG_LEVEL_INFO, "", NULL);
}

void log_note(const char *fmt, ...)
{
	LOG_ARGS_PRINT(LOG_LEVEL_INFO, "note: ", NULL);
}

void log_debug(const char *fmt, ...)
{
	LOG_ARGS_PRINT(LOG_LEVEL_DEBUG, "debug: ", NULL);
}
