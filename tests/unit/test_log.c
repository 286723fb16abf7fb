/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * log: the return contract that lets callers write `return log_error(...)`;
 * peer text cannot break a line, hide text or drive the terminal (an
 * indented newline, C1 controls, bidi marks and stray bytes once passed
 * raw); only what rperf wrapped itself keeps its continuations; a
 * warning repeated from one place is told in a few lines and a count,
 * not once each.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/log.h"

static void test_error_returns_minus_one(void **state)
{
	(void)state;
	log_set_level(LOG_LEVEL_QUIET);
	assert_int_equal(log_error("x %d", 1), -1);
	assert_int_equal(log_errno(-EINVAL, "bad '%s'", "y"), -EINVAL);
}

static void test_level_roundtrip(void **state)
{
	(void)state;
	log_set_level(LOG_LEVEL_DEBUG);
	assert_int_equal(log_get_level(), LOG_LEVEL_DEBUG);
	log_set_level(LOG_LEVEL_WARN);
	assert_int_equal(log_get_level(), LOG_LEVEL_WARN);
}

static void test_escape(void **state)
{
	char out[64];

	(void)state;
	log_escape("a\nb\x1b[2J\x7f\tc", out, sizeof(out));
	assert_string_equal(out, "a\\x0ab\\x1b[2J\\x7f\\x09c");
	/* Cut at a whole character, never inside an escape. */
	log_escape("abc\n", out, 6);
	assert_string_equal(out, "abc");
	log_escape("", out, sizeof(out));
	assert_string_equal(out, "");
	/* Every newline, an indented one too: only log_wrapped() keeps those. */
	log_escape("x\n    rperf: y", out, sizeof(out));
	assert_string_equal(out, "x\\x0a    rperf: y");
}

/*
 * Past ASCII: well-formed UTF-8 stays; C1 controls (CSI as U+009B or as
 * a bare 0x9b byte), bytes of no character, overlong forms, and the bidi
 * and invisible marks are shown a byte at a time.
 */
static void test_escape_utf8(void **state)
{
	char out[96];

	(void)state;
	log_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", out, sizeof(out));
	assert_string_equal(out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	log_escape("a\xc2\x9b" "2Jb\x9b" "2J", out, sizeof(out));
	assert_string_equal(out, "a\\xc2\\x9b" "2Jb\\x9b" "2J");
	log_escape("\xc0\x8a|\xe2\x80\xae|\xe2\x80\xa8|\xef\xbb\xbf|\xc3", out, sizeof(out));
	assert_string_equal(out, "\\xc0\\x8a|\\xe2\\x80\\xae|\\xe2\\x80\\xa8|"
			    "\\xef\\xbb\\xbf|\\xc3");
	/* A character that does not fit whole is left out. */
	log_escape("ab\xe2\x82\xac", out, 5);
	assert_string_equal(out, "ab");
}

/* What @fn wrote on stderr, in @buf. */
static void stderr_of(void (*fn)(void), char *buf, size_t len)
{
	char path[] = "/tmp/rperf-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

static void forged_line(void)
{
	log_warn("coordinator: unknown key '%s'", "x\nrperf: coordinator 10.0.0.1 connected");
	log_error("agent 'h2': %s", "\x1b[2Jall classes within tolerance");
	log_warn("agent 'h3': %s", "y\n    rperf: coordinator 10.0.0.2 connected");
}

/* What rperf wrapped itself keeps its indented continuation, no other. */
static void wrapped_lines(void)
{
	log_wrapped(false, "SL2-15 map to VL15;\n    SL1 too\n   x\nrperf: y");
}

static void garbage_1000(void)
{
	int i;

	for (i = 0; i < 1000; i++)
		log_warn("198.18.0.9:%d: not an rperf control frame", 40000 + i);
	log_flush();
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_peer_text(void **state)
{
	char buf[4096];

	(void)state;
	log_set_level(LOG_LEVEL_WARN);
	stderr_of(forged_line, buf, sizeof(buf));
	assert_int_equal(lines(buf), 3);
	assert_non_null(strstr(buf, "'x\\x0arperf: coordinator 10.0.0.1 connected'"));
	assert_non_null(strstr(buf, "y\\x0a    rperf: coordinator 10.0.0.2 connected\n"));
	assert_non_null(strstr(buf, "\\x1b[2Jall classes"));
	assert_null(strchr(buf, 0x1b));
	assert_non_null(strstr(log_last_error(), "\\x1b[2J"));
	stderr_of(wrapped_lines, buf, sizeof(buf));
	assert_string_equal(buf, "rperf: warning: SL2-15 map to VL15;\n    SL1 too\\x0a   "
			    "x\\x0arperf: y\n");
}

/* 1000 warnings from one place within a second: 5 lines, then one with the count. */
static void test_burst(void **state)
{
	char buf[8192];

	(void)state;
	log_set_level(LOG_LEVEL_WARN);
	stderr_of(garbage_1000, buf, sizeof(buf));
	assert_true(lines(buf) <= 2 * 5 + 2);
	assert_non_null(strstr(buf, "198.18.0.9:40000: not an rperf control frame\n"));
	assert_non_null(strstr(buf, "198.18.0.9:40999: not an rperf control frame ... "));
	assert_non_null(strstr(buf, " more\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_returns_minus_one),
		cmocka_unit_test(test_level_roundtrip),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_utf8),
		cmocka_unit_test(test_peer_text),
		cmocka_unit_test(test_burst),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
