/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One place that prints diagnostics, so every message has the same shape:
 * "rperf: error: <subject>: <what went wrong>". Messages often carry text
 * a peer sent (an agent's error, a field's name, a coordinator's reason):
 * every control character is shown as \xNN, so that no peer can end a
 * line, forge the next one or drive the terminal. And a warning of one
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

size_t log_escape(const char *in, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0;

	if (!outlen)
		return 0;
	for (; *p && n + 1 < outlen; p++) {
		if ((*p >= 0x20 && *p != 0x7f) || (*p == '\n' && !strncmp((const char *)p + 1, "    ", 4))) {
			out[n++] = (char)*p;
		} else if (n + 4 < outlen) {
			snprintf(out + n, 5, "\\x%02x", *p);
			n += 4;
		} else {
			break;
		}
	}
	out[n] = '\0';
	return n;
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

static void log_vprint(enum log_level level, const char *tag, const void *at, const char *fmt,
		       va_list ap)
{
	char raw[LOG_LINE], text[LOG_LINE];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	log_escape(raw, text, sizeof(text));
	pthread_mutex_lock(&log_mu);
	if (level == LOG_LEVEL_ERROR && !strcmp(tag, "error: "))	/* a hint is not the error */
		snprintf(last_error, sizeof(last_error), "%.*s", (int)sizeof(last_error) - 1, text);
	if (level <= current_level && (level != LOG_LEVEL_WARN || site_admit(at, text)))
		fprintf(stderr, "rperf: %s%s\n", tag, text);
	pthread_mutex_unlock(&log_mu);
}

const char *log_last_error(void)
{
	return last_error;
}

int log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_ERROR, "error: ", NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int log_errno(int neg_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_ERROR, "error: ", NULL, fmt, ap);
	va_end(ap);
	return neg_errno;
}

void log_hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_ERROR, "hint: ", NULL, fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_WARN, "warning: ", __builtin_return_address(0), fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_INFO, "", NULL, fmt, ap);
	va_end(ap);
}

void log_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_INFO, "note: ", NULL, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_LEVEL_DEBUG, "debug: ", NULL, fmt, ap);
	va_end(ap);
}
