/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The man pages against the flow field table (flow/flow_spec.h):
 * rperf-scenario(5)'s flow keys are the table's keys (and host, dest,
 * type), each with the table's default and limits; rperf-lat(1)'s and
 * rperf-bw(1)'s flags that set a flow field say the default the command
 * really takes, and that is the table's, and the table's limits; the traffic patterns of rperf-scenario(5) are
 * those of the patterns' table. Each check is also run on a page made wrong on
 * purpose, which it must refuse. Pages from $TEST_TOP/man (make check
 * sets TEST_TOP).
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "cli/bw.h"
#include "cli/lat.h"
#include "coord/scenario_pattern.h"
#include "flow/flow_spec.h"

#define PAGE_MAX	(1 << 20)
#define ITEM_MAX	4096

/* Keys of a flow section that are the scenario's, not a flow setting's. */
static const char *const scenario_own_keys[] = { "host", "dest", "type" };

static char *page_read(const char *name)
{
	const char *top = getenv("TEST_TOP");
	char path[1024], *buf = calloc(1, PAGE_MAX + 1);
	FILE *f;

	assert_non_null(buf);
	snprintf(path, sizeof(path), "%s/man/%s", top ? top : ".", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: cannot be read", path);
	assert_true(fread(buf, 1, PAGE_MAX, f) > 0);
	fclose(f);
	return buf;
}

/*
 * The item (a .TP paragraph) whose head line starts with @head, up to the
 * next paragraph, lines joined by spaces, into @buf; NULL when the page
 * has none.
 */
static const char *man_item(const char *page, const char *head, char *buf, size_t len)
{
	const char *at = strstr(page, head), *end;
	size_t n, i;

	if (!at)
		return NULL;
	end = at + strlen(head);
	while ((end = strchr(end, '\n')) && end[1] != '\0' && strncmp(end + 1, ".TP", 3) &&
	       strncmp(end + 1, ".S", 2) && strncmp(end + 1, ".PP", 3))
		end++;
	n = end ? (size_t)(end - at) : strlen(at);
	n = n < len - 1 ? n : len - 1;
	for (i = 0; i < n; i++)
		buf[i] = at[i] == '\n' ? ' ' : at[i];
	buf[n] = '\0';
	return buf;
}

/* The number after "default " (any case) in @item: 0, or -1 when none. */
static int man_default(const char *item, unsigned long long *v)
{
	const char *p;

	for (p = item; *p; p++)
		if (!strncasecmp(p, "default ", 8) && isdigit((unsigned char)p[8])) {
			*v = strtoull(p + 8, NULL, 10);
			return 0;
		}
	return -1;
}

/* One mismatch said, counted. */
static int mismatch(const char *page, const char *what, unsigned long long said,
		    unsigned long long want)
{
	fprintf(stderr, "%s: %s: default %llu, want %llu\n", page, what, said, want);
	return 1;
}

/* The item under @head says default @want: 0, or 1 said. */
static int check_default(const char *name, const char *page, const char *head,
			 unsigned long long want)
{
	char buf[ITEM_MAX];
	const char *item = man_item(page, head, buf, sizeof(buf));
	unsigned long long v;

	if (!item || man_default(item, &v)) {
		fprintf(stderr, "%s: '%s': %s\n", name, head + 1, item ? "no default" : "missing");
		return 1;
	}
	return v == want ? 0 : mismatch(name, head + 1, v, want);
}

/* @v in the largest of @units (each @step times the one before) that
 * divides it: "1 GiB", "10 Tbit/s". */
static void man_scaled(char *buf, size_t len, unsigned long long v, unsigned long long step,
		       const char *const *units, size_t n)
{
	size_t i = 0;

	while (i + 1 < n && v && v % step == 0) {
		v /= step;
		i++;
	}
	snprintf(buf, len, "%llu %s", v, units[i]);
}

/* How a page says @f's limits: "0 to 15", "1 byte to 1 GiB", "at most
 * 10 Tbit/s", "at most 3600 s". */
static void limit_phrase(const struct flow_spec_field *f, char *buf, size_t len)
{
	static const char *const bytes[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	static const char *const bps[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
	char max[64];

	switch (f->kind) {
	case FLOW_SPEC_INT:
		snprintf(buf, len, "%llu to %llu", (unsigned long long)f->min,
			 (unsigned long long)f->max);
		return;
	case FLOW_SPEC_BYTES:
		man_scaled(max, sizeof(max), f->max, 1024, bytes, 5);
		snprintf(buf, len, "%llu byte%s to %s", (unsigned long long)f->min,
			 f->min == 1 ? "" : "s", max);
		return;
	case FLOW_SPEC_BPS:
		man_scaled(max, sizeof(max), f->max, 1000, bps, 5);
		break;
	case FLOW_SPEC_NS:
		snprintf(max, sizeof(max), "%llu s", (unsigned long long)(f->max / 1000000000ull));
		break;
	}
	snprintf(buf, len, "at most %s", max);
}

/* The item under @head states @f's limits: 0, or 1 said. */
static int check_limits(const char *name, const char *page, const char *head,
			const struct flow_spec_field *f)
{
	char buf[ITEM_MAX], want[96];
	const char *item = man_item(page, head, buf, sizeof(buf));

	limit_phrase(f, want, sizeof(want));
	if (item && strstr(item, want))
		return 0;
	fprintf(stderr, "%s: '%s': does not say '%s' (the table's limits)\n", name, head + 1,
		want);
	return 1;
}

/* ------------------------------------------------------------------ */
/* rperf-scenario(5)                                                   */
/* ------------------------------------------------------------------ */

static bool table_has(const char *key)
{
	size_t i;

	for (i = 0; i < flow_spec_n_fields; i++)
		if (!strcmp(flow_spec_fields[i].key, key))
			return true;
	for (i = 0; i < sizeof(scenario_own_keys) / sizeof(scenario_own_keys[0]); i++)
		if (!strcmp(scenario_own_keys[i], key))
			return true;
	return false;
}

/* Each key on the head lines of FLOW KEYS (".BI on ... \fPoff ..."). */
static int scenario_keys(const char *page, char keys[][32], int cap)
{
	const char *sec = strstr(page, "\n.SH FLOW KEYS"), *end, *p, *w;
	int n = 0;

	assert_non_null(sec);
	end = strstr(sec, "\n.SS");
	assert_non_null(end);
	for (p = strstr(sec, "\n.BI "); p && p < end && n < cap; p = strstr(p + 1, "\n.BI ")) {
		w = p + 5;
		do {
			snprintf(keys[n++], 32, "%.*s", (int)strcspn(w, " \"\n"), w);
			w = strstr(w, "\\fP");
			w = w && w < strchr(p + 1, '\n') ? w + 3 : NULL;
		} while (w && n < cap);
	}
	return n;
}

/* The page's flow keys and the table's, both ways; each default. */
static int check_scenario(const char *page)
{
	char keys[64][32], head[64], buf[ITEM_MAX], want[128];
	int n = scenario_keys(page, keys, 64), bad = 0, i;
	const struct flow_spec_field *f;
	size_t k;

	for (i = 0; i < n; i++)
		if (!table_has(keys[i]))
			bad += fprintf(stderr, "rperf-scenario.5: flow key '%s' is not in the "
				       "table\n", keys[i]) > 0;
	for (k = 0; k < flow_spec_n_fields; k++) {
		f = &flow_spec_fields[k];
		for (i = 0; i < n && strcmp(keys[i], f->key); i++)
			;
		if (i == n) {
			bad += fprintf(stderr, "rperf-scenario.5: no flow key '%s'\n", f->key) > 0;
			continue;
		}
		/* off is told under on's head ("on TIME, off TIME"). */
		snprintf(head, sizeof(head), "\n.BI %s \"",
			 f->kind == FLOW_SPEC_NS ? "on" : f->key);
		bad += check_limits("rperf-scenario.5", page, head, f);
		if (!strcmp(f->key, "size")) {
			/* The one default that depends on the flow's type. */
			snprintf(want, sizeof(want), "default %zu for lat, %zu for bw",
				 flow_spec_size_default(false), flow_spec_size_default(true));
			if (!strstr(man_item(page, head, buf, sizeof(buf)), want))
				bad += fprintf(stderr, "rperf-scenario.5: size does not say '%s'\n",
					       want) > 0;
		} else if (f->kind != FLOW_SPEC_NS) {	/* on, off: none means no bursts */
			bad += check_default("rperf-scenario.5", page, head, f->def);
		}
	}
	return bad;
}

/* Every pattern of the table (scenario_pattern_choices()) is described,
 * "\fBNAME\fR:", under the pattern key, and no other. */
static int check_patterns(const char *page)
{
	char buf[ITEM_MAX], name[64], list[128];
	const char *item = man_item(page, "\n.BI pattern \"", buf, sizeof(buf)), *p, *e, *sp;
	enum scenario_pattern kind;
	int bad = 0, n = 0, want = 1;

	assert_non_null(item);
	snprintf(list, sizeof(list), "%s", scenario_pattern_choices());
	for (p = strstr(item, "\\fB"); p; p = strstr(e, "\\fB")) {
		p += 3;
		e = strstr(p, "\\fR:");
		sp = strchr(p, ' ');
		if (!e || (sp && sp < e)) {
			e = p;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(e - p), p);
		/* groff's \- is the name's plain hyphen. */
		for (char *d = name, *q = name; ; q++)
			if (!(*q == '\\' && q[1] == '-') && !(*d++ = *q))
				break;
		if (scenario_pattern_parse(name, &kind))
			bad += fprintf(stderr, "rperf-scenario.5: pattern '%s' is not in the "
				       "table (%s)\n", name, list) > 0;
		n++;
	}
	/* "a, b, c or d": two more names than commas. */
	for (p = list, want = 2; (p = strchr(p, ',')); p++)
		want++;
	if (n != want)
		bad += fprintf(stderr, "rperf-scenario.5: %d patterns described, the table "
			       "has %d (%s)\n", n, want, list) > 0;
	return bad;
}

/* ------------------------------------------------------------------ */
/* rperf-lat(1), rperf-bw(1)                                           */
/* ------------------------------------------------------------------ */

/* The field of key @key. */
static const struct flow_spec_field *field(const char *key)
{
	size_t i;

	for (i = 0; i < flow_spec_n_fields; i++)
		if (!strcmp(flow_spec_fields[i].key, key))
			return &flow_spec_fields[i];
	fail_msg("no flow field '%s'", key);
	return NULL;
}

/* A flag of the page, the field it sets, its default as the command takes it. */
struct flag_case {
	const char *head;
	const char *key;
	unsigned long long cli_def;
};

/* Each flag of @c: the page says the command's default, and that is the
 * table's (a @bw flow's, for the size). */
static int check_flags(const char *name, const char *page, const struct flag_case *c, size_t n,
		       bool bw)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		bad += check_default(name, page, c[i].head, c[i].cli_def);
		bad += check_limits(name, page, c[i].head, field(c[i].key));
		if (strcmp(c[i].key, "size"))
			assert_int_equal(c[i].cli_def, field(c[i].key)->def);
		else	/* bw's message size is its own (see check_bw) */
			assert_int_equal(c[i].cli_def, bw ? FLOW_SIZE_DEFAULT_BW_CLI :
					 flow_spec_size_default(bw));
	}
	return bad;
}

static int check_lat(const char *page)
{
	char *argv[] = { "lat", "h", NULL };
	struct lat_opts o;
	char err[256];

	assert_int_equal(lat_opts_parse(2, argv, &o, err, sizeof(err)), 0);
	const struct flag_case c[] = {
		{ "\n.BI \\-\\-sl \"", "sl", o.flow.spec.sl },
		{ "\n.BI \\-\\-tclass \"", "tclass", o.flow.spec.tclass },
		{ "\n.BI \\-\\-threads \"", "threads", o.flow.spec.threads },
		{ "\n.BR \\-s \", \" \\-\\-size ", "size", o.sizes[0] },
	};

	return check_flags("rperf-lat.1", page, c, sizeof(c) / sizeof(c[0]), false);
}

/*
 * bw's message size default is 65536 on the command line, where a
 * scenario's bw flow sends 4096 (flow_spec_size_default): two defaults
 * of one setting, on purpose, said once in flow/flow_spec.h
 * (FLOW_SIZE_DEFAULT_BW_CLI). The page is held to what `rperf bw` takes.
 */
static int check_bw(const char *page)
{
	char *argv[] = { "bw", "h", NULL };
	struct bw_opts o;
	char err[256];

	assert_int_equal(bw_opts_parse(2, argv, &o, err, sizeof(err)), 0);
	const struct flag_case c[] = {
		{ "\n.BR \\-s \", \" \\-\\-size ", "size", o.flow.spec.size_bytes },
		{ "\n.BI \\-\\-qps \"", "qps", o.flow.spec.qps },
		{ "\n.BI \\-\\-rate \"", "rate", o.flow.spec.rate_bps },
	};

	return check_flags("rperf-bw.1", page, c, sizeof(c) / sizeof(c[0]), true);
}

/* @page with the first @from after @after made @to: a page made wrong. */
static char *page_spoiled(const char *page, const char *after, const char *from, const char *to)
{
	char *out = calloc(1, strlen(page) + strlen(to) + 1);
	const char *at = strstr(page, after);

	assert_non_null(out);
	assert_non_null(at);
	at = strstr(at, from);
	assert_non_null(at);
	memcpy(out, page, (size_t)(at - page));
	strcat(out, to);
	strcat(out, at + strlen(from));
	return out;
}

/* Page @name passes @check, and the same page with the first @from after
 * @after made @to is refused. */
static void page_refused(const char *name, int (*check)(const char *), const char *after,
			 const char *from, const char *to)
{
	char *page = page_read(name), *wrong;

	assert_int_equal(check(page), 0);
	wrong = page_spoiled(page, after, from, to);
	if (check(wrong) == 0)
		fail_msg("%s with '%s' made '%s' after '%s' passed", name, from, to, after + 1);
	free(wrong);
	free(page);
}

/* A default, a key the table lacks, a key the page lacks: each refused. */
static void test_scenario_page(void **state)
{
	(void)state;
	page_refused("rperf-scenario.5", check_scenario, "\n.BI threads", "(default 1)",
		     "(default 2)");
	page_refused("rperf-scenario.5", check_scenario, "\n.BI qps", ".BI qps", ".BI qpairs");
	page_refused("rperf-scenario.5", check_scenario, "\n.BI size", "4096 for", "65536 for");
	page_refused("rperf-scenario.5", check_scenario, "\n.BI sl", "0 to 15", "0 to 7");
	page_refused("rperf-scenario.5", check_scenario, "\n.BI on", "at most 3600 s",
		     "at most 60 s");
	page_refused("rperf-scenario.5", check_patterns, "\n.BI pattern", "\\fBring\\fR:",
		     "\\fBstar\\fR:");
	page_refused("rperf-scenario.5", check_patterns, "\n.BI pattern", "\\fBring\\fR:",
		     "ring:");
}

static void test_lat_page(void **state)
{
	(void)state;
	page_refused("rperf-lat.1", check_lat, "\n.BI \\-\\-sl", "(default 0)", "(default 3)");
	page_refused("rperf-lat.1", check_lat, "\n.BI \\-\\-threads", "(default 1)",
		     "(default 2)");
	page_refused("rperf-lat.1", check_lat, "\n.BI \\-\\-threads", "1 to 64", "1 to 128");
}

static void test_bw_page(void **state)
{
	(void)state;
	page_refused("rperf-bw.1", check_bw, "\n.BI \\-\\-qps", "(default 1)", "(default 4)");
	page_refused("rperf-bw.1", check_bw, "\n.BI \\-\\-qps", "1 to 64", "1 to 128");
	page_refused("rperf-bw.1", check_bw, "\n.BR \\-s", "(default 65536", "(default 4096");
	page_refused("rperf-bw.1", check_bw, "\n.BR \\-s", "1 byte to 1 GiB", "1 byte to 4 GiB");
	page_refused("rperf-bw.1", check_bw, "\n.BI \\-\\-rate", "10 Tbit/s", "100 Tbit/s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_page),
		cmocka_unit_test(test_lat_page),
		cmocka_unit_test(test_bw_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
