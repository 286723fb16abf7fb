/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one command-line parser of rperf, after git's parse-options: each
 * command describes its options once, in a table of entries (short and
 * long name, the value's name, help text, where the value goes and how it
 * is read), and both the parse and the --help text come from that table.
 * Destinations are offsets into the command's options struct, so tables
 * are constant data; a table may include another one (the options every
 * traffic command shares) at an offset of its own.
 *
 * Pure: opts_parse() fills the struct and, on bad usage, an error buffer;
 * the command prints once (a callback may act, as -v does on the log). Messages: "unknown option '--bogus'", "option
 * '--size' needs a value", "--size 'x': expected ...".
 */
#ifndef RPERF_OPTS_H
#define RPERF_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opts_kind {
	OPTS_END,
	OPTS_GROUP,		/* a heading in --help: .help */
	OPTS_INCLUDE,		/* .table, its destinations at .off in this one's */
	OPTS_FLAG,		/* bool, set true */
	OPTS_STRING,		/* const char *, the value itself */
	OPTS_UINT,		/* an unsigned integer of .width bytes in [.min, .max] */
	OPTS_NUMBER,		/* double in [.min, .max], no unit */
	OPTS_BYTES,		/* size_t bytes in [.min, .max] (units_parse_bytes) */
	OPTS_SECONDS,		/* double seconds, in (.min, .max] ns (units_parse_ns) */
	OPTS_BPS,		/* uint64_t bit/s in [.min, .max] (units_parse_bps) */
	OPTS_CALLBACK,		/* .cb reads the value */
};

struct opts_entry;

/* Reads @value (NULL for an option without one) into @dst, the entry's
 * destination; @name is its "--long" name for messages. 0 or -EINVAL
 * with the reason in @err. */
typedef int (*opts_cb)(void *dst, const char *name, const char *value, char *err,
		       size_t errlen);

struct opts_entry {
	enum opts_kind kind;
	char short_name;		/* 0: long only */
	const char *long_name;		/* NULL: short only */
	const char *arg;		/* the value's name in --help; NULL: none */
	const char *help;		/* may hold '\n' for more lines; NULL: not in
					 * --help (a deprecated spelling) */
	size_t off;			/* the destination in the options struct */
	size_t width;			/* OPTS_UINT: sizeof the destination */
	uint64_t min, max;		/* OPTS_SECONDS: in ns */
	const char *expect;		/* the message's "expected ..."; NULL: generated */
	opts_cb cb;			/* OPTS_CALLBACK */
	const struct opts_entry *table;	/* OPTS_INCLUDE */
	bool optional_value;		/* the value only as --name=VALUE */
};

/* Entry builders: T is the options struct, F the field. */
#define OPTS_FIELD_WIDTH(T, F) sizeof(((T *)0)->F)
#define OPT_GROUP(H) { .kind = OPTS_GROUP, .help = (H) }
#define OPT_INCLUDE(T, F, TAB) { .kind = OPTS_INCLUDE, .off = offsetof(T, F), .table = (TAB) }
/* Another table over the same struct. */
#define OPT_INCLUDE_HERE(TAB) { .kind = OPTS_INCLUDE, .table = (TAB) }
#define OPT_FLAG(S, L, H, T, F) \
	{ .kind = OPTS_FLAG, .short_name = (S), .long_name = (L), .help = (H), \
	  .off = offsetof(T, F) }
#define OPT_STRING(S, L, A, H, T, F) \
	{ .kind = OPTS_STRING, .short_name = (S), .long_name = (L), .arg = (A), .help = (H), \
	  .off = offsetof(T, F) }
#define OPT_UINT(S, L, A, H, T, F, MIN, MAX) \
	{ .kind = OPTS_UINT, .short_name = (S), .long_name = (L), .arg = (A), .help = (H), \
	  .off = offsetof(T, F), .width = OPTS_FIELD_WIDTH(T, F), .min = (MIN), .max = (MAX) }
#define OPT_VALUE(K, S, L, A, H, T, F, MIN, MAX) \
	{ .kind = (K), .short_name = (S), .long_name = (L), .arg = (A), .help = (H), \
	  .off = offsetof(T, F), .min = (MIN), .max = (MAX) }
#define OPT_CALLBACK(S, L, A, H, T, F, CB) \
	{ .kind = OPTS_CALLBACK, .short_name = (S), .long_name = (L), .arg = (A), .help = (H), \
	  .off = offsetof(T, F), .cb = (CB) }
/* A callback given the whole options struct T rather than one field. */
#define OPT_CALLBACK_ALL(S, L, A, H, CB) \
	{ .kind = OPTS_CALLBACK, .short_name = (S), .long_name = (L), .arg = (A), .help = (H), \
	  .cb = (CB) }
#define OPT_END() { .kind = OPTS_END }
/* A number's macro as a string, for help texts: OPTS_STR(FLOW_MAX_SL). */
#define OPTS_STR_(x) #x
#define OPTS_STR(x) OPTS_STR_(x)

/* What --help says around a command's table. */
struct opts_usage {
	const char *cmd;		/* "lat"; "" for rperf's own options */
	const char *args;		/* "HOST", "FILE...", or "" */
	const char *about;		/* one paragraph, '\n'-separated lines */
	const struct opts_entry *table;
	const char *more;		/* after the options, or NULL */
	bool tolerance;			/* exit status 3 applies */
	const char *exit3;		/* what exit status 3 means; NULL: out of tolerance */
	const char *exit4;		/* what exit status 4 means; NULL: it is not given */
};

/* opts_parse() found -h or --help. */
#define OPTS_HELP 1

/*
 * Parse argv[1 .. argc) (argv[0] is the command's name) against @tab into
 * @dst. Options and operands may mix; "--" ends the options; "-" is an
 * operand. The first @cap operands go, in order, to @operands; *@n counts
 * them all. argv is not changed. Returns 0, OPTS_HELP at the first
 * -h/--help, or -EINVAL with the message in @err.
 */
int opts_parse(const struct opts_entry *tab, void *dst, int argc, char **argv,
	       const char **operands, int cap, int *n, char *err, size_t errlen);

/*
 * The options every parse accepts besides its own table's: rperf's global
 * options that may also follow the command's name (-v, -q), so that no
 * command lists them. @tab is looked up after the command's table (an
 * option of the command wins) and its destinations are in @dst, not in
 * the command's struct. Set once by main before the command runs; NULL:
 * none (the default, and what the unit tests of a command's parse see).
 */
void opts_set_global(const struct opts_entry *tab, void *dst);

/* The command's --help, from its table: usage line, about, options
 * aligned, exit statuses. */
void opts_usage(FILE *out, const struct opts_usage *u);

/* Bad usage, said once for every command: "rperf: error: @err" and where
 * to find the help, on stderr. */
void opts_report(const struct opts_usage *u, const char *err);

/* For callbacks: "NAME 'VALUE': expected WHAT" into @err; returns -EINVAL. */
int opts_bad_value(char *err, size_t errlen, const char *name, const char *value,
		   const char *what);

/* Split @value on commas and call @one on each item (at most @max items,
 * none empty): the shared shape of LIST options. 0 or -EINVAL. */
int opts_list(const char *name, const char *value, size_t max,
	      int (*one)(void *dst, size_t i, const char *item, char *err, size_t errlen),
	      void *dst, size_t *n, char *err, size_t errlen);

#endif
