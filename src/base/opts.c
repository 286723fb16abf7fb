/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One parser and one --help generator for every command: see opts.h.
 * Written here rather than on getopt_long() so that the parse is pure
 * (getopt keeps global state and prints its own messages) and the help
 * cannot drift from what is accepted.
 */
#include <errno.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/units.h"

/* Help text starts at this column at least. */
#define OPTS_HELP_COL 24

/* An entry found by name: the options struct it writes to and the
 * offset of its table's destination there. */
struct opts_hit {
	const struct opts_entry *e;
	void *dst;
	size_t base;
};

/* The options every parse accepts after its own table's (opts_set_global). */
static const struct opts_entry *opts_global_tab;
static void *opts_global_dst;

void opts_set_global(const struct opts_entry *tab, void *dst)
{
	opts_global_tab = tab;
	opts_global_dst = dst;
}

/* Find the entry named @s (short) or @l of @l_len bytes (long) in @tab
 * and the tables it includes. */
static bool opts_find(const struct opts_entry *tab, size_t base, char s, const char *l,
		      size_t l_len, struct opts_hit *hit)
{
	for (; tab->kind != OPTS_END; tab++) {
		if (tab->kind == OPTS_INCLUDE) {
			if (opts_find(tab->table, base + tab->off, s, l, l_len, hit))
				return true;
			continue;
		}
		if (tab->kind == OPTS_GROUP)
			continue;
		if ((s && tab->short_name == s) ||
		    (l && tab->long_name && strlen(tab->long_name) == l_len &&
		     !strncmp(tab->long_name, l, l_len))) {
			hit->e = tab;
			hit->base = base;
			return true;
		}
	}
	return false;
}

/* opts_find() in @tab, for the struct @dst, then in the global options. */
static bool opts_lookup(const struct opts_entry *tab, void *dst, char s, const char *l,
			size_t l_len, struct opts_hit *hit)
{
	if (opts_find(tab, 0, s, l, l_len, hit)) {
		hit->dst = dst;
		return true;
	}
	if (opts_global_tab && opts_find(opts_global_tab, 0, s, l, l_len, hit)) {
		hit->dst = opts_global_dst;
		return true;
	}
	return false;
}

int opts_bad_value(char *err, size_t errlen, const char *name, const char *value,
		   const char *what)
{
	return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected %s", name, value, what);
}

/* Store @v in an unsigned field of @width bytes. */
static void opts_store_uint(void *dst, size_t width, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (width) {
	case 1: memcpy(dst, &u8, 1); break;
	case 2: memcpy(dst, &u16, 2); break;
	case 4: memcpy(dst, &u32, 4); break;
	default: memcpy(dst, &v, 8); break;
	}
}

/* What a value of @e should be, for its message. */
static const char *opts_expect(const struct opts_entry *e, char *buf, size_t cap)
{
	unsigned long long lo = e->min, hi = e->max;

	if (e->expect)
		return e->expect;
	switch (e->kind) {
	case OPTS_UINT:
		snprintf(buf, cap, "an integer from %llu to %llu", lo, hi);
		return buf;
	case OPTS_BYTES:
		snprintf(buf, cap, "bytes from %llu to %llu (k, m, g suffixes)", lo, hi);
		return buf;
	case OPTS_NUMBER:
		snprintf(buf, cap, "a number from %llu to %llu", lo, hi);
		return buf;
	case OPTS_SECONDS:
		return "a time above 0 (" UNITS_NS_SPELLINGS ")";
	default:
		return "a rate such as " UNITS_BPS_SPELLINGS;
	}
}

/* Read @value as @e's kind into @dst, checked against [min, max]. 0 or
 * -EINVAL. */
static int opts_read(const struct opts_entry *e, const char *value, void *dst)
{
	uint64_t v;
	double d;
	int ret;

	switch (e->kind) {
	case OPTS_NUMBER:
		if (units_parse_double(value, &d) || d < (double)e->min || d > (double)e->max)
			return -EINVAL;
		*(double *)dst = d;
		return 0;
	case OPTS_SECONDS:
		if (units_parse_ns(value, &v) || v <= e->min || v > e->max)
			return -EINVAL;
		*(double *)dst = (double)v / 1e9;
		return 0;
	case OPTS_UINT: ret = units_parse_u64(value, 0, UINT64_MAX, &v); break;
	case OPTS_BYTES: ret = units_parse_bytes(value, &v); break;
	default: ret = units_parse_bps(value, &v); break;
	}
	if (ret || v < e->min || v > e->max)
		return -EINVAL;
	if (e->kind == OPTS_BYTES)
		*(size_t *)dst = (size_t)v;
	else
		opts_store_uint(dst, e->kind == OPTS_BPS ? 8 : e->width, v);
	return 0;
}

/* Apply entry @h to its options struct with @value. */
static int opts_apply(const struct opts_hit *h, const char *value, char *err, size_t errlen)
{
	const struct opts_entry *e = h->e;
	char *field = (char *)h->dst + h->base + e->off;
	char name[64], what[96];

	if (e->long_name)
		snprintf(name, sizeof(name), "--%s", e->long_name);
	else
		snprintf(name, sizeof(name), "-%c", e->short_name);
	switch (e->kind) {
	case OPTS_FLAG:
		*(bool *)field = true;
		return 0;
	case OPTS_STRING:
		*(const char **)field = value;
		return 0;
	case OPTS_CALLBACK:
		return e->cb(field, name, value, err, errlen);
	default:
		if (opts_read(e, value, field))
			return opts_bad_value(err, errlen, name, value,
					      opts_expect(e, what, sizeof(what)));
		return 0;
	}
}

static bool opts_takes_value(const struct opts_entry *e)
{
	return e->kind != OPTS_FLAG && !(e->kind == OPTS_CALLBACK && !e->arg);
}

/* "--name", "--name=value" or "--name value" at argv[*i]. */
static int opts_long(const struct opts_entry *tab, void *dst, int argc, char **argv, int *i,
		     char *err, size_t errlen)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	struct opts_hit h;

	if (len == 4 && !strncmp(name, "help", 4) && !opts_find(tab, 0, 0, name, len, &h))
		return OPTS_HELP;
	if (!opts_lookup(tab, dst, 0, name, len, &h))
		return errbuf_set(err, errlen, -EINVAL, "unknown option '--%.*s'", (int)len, name);
	if (!opts_takes_value(h.e)) {
		if (eq)
			return errbuf_set(err, errlen, -EINVAL, "option '--%s' takes no value",
					  h.e->long_name);
		return opts_apply(&h, NULL, err, errlen);
	}
	if (eq || h.e->optional_value)
		return opts_apply(&h, eq ? eq + 1 : NULL, err, errlen);
	if (*i + 1 >= argc)
		return errbuf_set(err, errlen, -EINVAL, "option '--%s' needs a value",
				  h.e->long_name);
	return opts_apply(&h, argv[++*i], err, errlen);
}

/* "-a", "-ab", "-s 64" or "-s64" at argv[*i]. */
static int opts_short(const struct opts_entry *tab, void *dst, int argc, char **argv, int *i,
		      char *err, size_t errlen)
{
	const char *p = argv[*i] + 1;
	struct opts_hit h;
	int ret;

	for (; *p; p++) {
		if (*p == 'h' && !opts_find(tab, 0, 'h', NULL, 0, &h))
			return OPTS_HELP;
		if (!opts_lookup(tab, dst, *p, NULL, 0, &h))
			return errbuf_set(err, errlen, -EINVAL, "unknown option '-%c'", *p);
		if (opts_takes_value(h.e) && !h.e->optional_value) {
			if (p[1])
				return opts_apply(&h, p + 1, err, errlen);
			if (*i + 1 >= argc)
				return h.e->long_name ?
					errbuf_set(err, errlen, -EINVAL, "option '--%s' needs a value",
						   h.e->long_name) :
					errbuf_set(err, errlen, -EINVAL, "option '-%c' needs a value", *p);
			return opts_apply(&h, argv[++*i], err, errlen);
		}
		ret = opts_apply(&h, NULL, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int opts_parse(const struct opts_entry *tab, void *dst, int argc, char **argv,
	       const char **operands, int cap, int *n, char *err, size_t errlen)
{
	bool only_operands = false;
	int i, ret = 0;

	*n = 0;
	for (i = 1; i < argc && !ret; i++) {
		if (only_operands || argv[i][0] != '-' || !argv[i][1]) {
			if (*n < cap)
				operands[*n] = argv[i];
			++*n;
		} else if (!strcmp(argv[i], "--")) {
			only_operands = true;
		} else if (argv[i][1] == '-') {
			ret = opts_long(tab, dst, argc, argv, &i, err, errlen);
		} else {
			ret = opts_short(tab, dst, argc, argv, &i, err, errlen);
		}
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* --help                                                              */
/* ------------------------------------------------------------------ */

/* "-d, --device NAME" or "    --json[=FILE]" into @buf. */
static void opts_label(const struct opts_entry *e, char *buf, size_t cap)
{
	char arg[48] = "";

	if (e->arg)
		snprintf(arg, sizeof(arg), e->optional_value ? "[=%s]" : " %s", e->arg);
	if (e->short_name && e->long_name)
		snprintf(buf, cap, "-%c, --%s%s", e->short_name, e->long_name, arg);
	else if (e->long_name)
		snprintf(buf, cap, "    --%s%s", e->long_name, arg);
	else
		snprintf(buf, cap, "-%c%s", e->short_name, arg);
}

/* The widest label of @tab and what it includes. */
static size_t opts_label_width(const struct opts_entry *tab)
{
	char buf[128];
	size_t w = 0, l;

	for (; tab->kind != OPTS_END; tab++) {
		if (tab->kind == OPTS_INCLUDE)
			l = opts_label_width(tab->table);
		else if (tab->kind == OPTS_GROUP || !tab->help)
			continue;
		else {
			opts_label(tab, buf, sizeof(buf));
			l = strlen(buf);
		}
		w = l > w ? l : w;
	}
	return w;
}

/* One option: its label, then its help's lines at column @col. */
static void opts_usage_entry(FILE *out, const char *label, const char *help, int col)
{
	const char *nl;

	if ((int)strlen(label) + 2 >= col)
		fprintf(out, "  %s\n%*s", label, col, "");
	else
		fprintf(out, "  %-*s", col - 2, label);
	while ((nl = strchr(help, '\n'))) {
		fprintf(out, "%.*s\n%*s", (int)(nl - help), help, col, "");
		help = nl + 1;
	}
	fprintf(out, "%s\n", help);
}

static void opts_usage_table(FILE *out, const struct opts_entry *tab, int col)
{
	char label[128];

	for (; tab->kind != OPTS_END; tab++) {
		if (tab->kind == OPTS_INCLUDE) {
			opts_usage_table(out, tab->table, col);
		} else if (tab->kind == OPTS_GROUP) {
			fprintf(out, "\n%s\n", tab->help);
		} else if (tab->help) {
			opts_label(tab, label, sizeof(label));
			opts_usage_entry(out, label, tab->help, col);
		}
	}
}

/* The exit statuses, within 80 columns: 3 on a line of its own when long. */
static void opts_usage_exit(FILE *out, const struct opts_usage *u)
{
	const char *exit3 = u->exit3 ? u->exit3 : "measured shares out of tolerance";
	const char *head = "Exit status: 0 ok, 1 runtime failure, 2 bad usage";

	if (!u->tolerance)
		fprintf(out, "\n%s.\n", head);
	else
		fprintf(out, "\n%s,%s3 %s.\n", head,
			strlen(head) + strlen(exit3) + 5 > 80 ? "\n" : " ", exit3);
	if (u->exit4)
		fprintf(out, "4 %s.\n", u->exit4);
}

/* A command's --help names the global options it takes too (and only
 * names them: rperf --help says what they do). */
static void opts_usage_global(FILE *out)
{
	const struct opts_entry *e;
	const char *sep = "";

	fprintf(out, "\nrperf's ");
	for (e = opts_global_tab; e->kind != OPTS_END; e++) {
		if (e->kind == OPTS_GROUP || e->kind == OPTS_INCLUDE)
			continue;
		fprintf(out, "%s", *sep && e[1].kind == OPTS_END ? " and " : sep);
		if (e->short_name)
			fprintf(out, "-%c%s", e->short_name, e->long_name ? " (" : "");
		if (e->long_name)
			fprintf(out, "--%s%s", e->long_name, e->short_name ? ")" : "");
		sep = ", ";
	}
	fprintf(out, " work here too: see 'rperf --help'.\n");
}

void opts_usage(FILE *out, const struct opts_usage *u)
{
	size_t w = opts_label_width(u->table);
	int col = (int)(w + 4 > OPTS_HELP_COL ? w + 4 : OPTS_HELP_COL);

	fprintf(out, "usage: rperf%s%s [options]%s%s\n\n%s\n\nOptions:\n", *u->cmd ? " " : "",
		u->cmd, *u->args ? " " : "", u->args, u->about);
	opts_usage_table(out, u->table, col);
	opts_usage_entry(out, "-h, --help", "show this help", col);
	if (u->more)
		fprintf(out, "\n%s\n", u->more);
	if (*u->cmd && opts_global_tab)
		opts_usage_global(out);
	opts_usage_exit(out, u);
}

void opts_report(const struct opts_usage *u, const char *err)
{
	log_error("%s", err);
	fprintf(stderr, "see 'rperf%s%s --help'\n", *u->cmd ? " " : "", u->cmd);
}

int opts_list(const char *name, const char *value, size_t max,
	      int (*one)(void *dst, size_t i, const char *item, char *err, size_t errlen),
	      void *dst, size_t *n, char *err, size_t errlen)
{
	char buf[512], *tok, *save;

	if (strlen(value) >= sizeof(buf))
		return errbuf_set(err, errlen, -EINVAL, "%s list too long", name);
	strcpy(buf, value);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return errbuf_set(err, errlen, -EINVAL, "%s: at most %zu items", name, max);
		if (one(dst, *n, tok, err, errlen))
			return -EINVAL;
		(*n)++;
	}
	if (!*n)
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': no item given", name, value);
	return 0;
}
