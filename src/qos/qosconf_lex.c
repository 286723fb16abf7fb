/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The qosconf readers' shared lexing (see qosconf_lex.h): apart from the
 * dispatcher so that the readers call down into it and never back up
 * into the file that calls them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/jsonfile.h"
#include "qos/qosconf_lex.h"

int __attribute__((format(printf, 2, 3)))
qosconf_lex_error(struct qosconf_parser *p, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errbuf_set(p->err, p->errlen, -EINVAL, "%s:%d: %s", p->name,
			  p->line, what);
}

int qosconf_lex_error_line(struct qosconf_parser *p, int line, const char *what)
{
	p->line = line;
	return qosconf_lex_error(p, "%s", what);
}

void __attribute__((format(printf, 3, 4)))
qosconf_lex_warn(struct qosconf_parser *p, const char *code, const char *fmt, ...)
{
	struct arb_config *cfg = p->cfg;
	char what[ARB_WARNING_LEN];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	for (i = 0; i < cfg->n_warnings; i++)
		if (!strcmp(cfg->warnings[i], what))
			return;
	if (cfg->n_warnings >= ARB_MAX_CONFIG_WARNINGS)
		return;
	snprintf(cfg->warning_codes[cfg->n_warnings], ARB_WARNING_CODE_LEN, "%s", code);
	memcpy(cfg->warnings[cfg->n_warnings++], what, sizeof(what));
}

char *qosconf_lex_skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return (char *)s;
}

void qosconf_lex_trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

char *qosconf_lex_strip_comment(char *s)
{
	char *hash = strchr(s, '#');

	if (hash)
		*hash = '\0';
	qosconf_lex_trim_end(s);
	return qosconf_lex_skip_space(s);
}

int qosconf_lex_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	s = qosconf_lex_skip_space(s);
	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 0);
	if (end == s || *qosconf_lex_skip_space(end))
		return -EINVAL;
	if (errno || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int qosconf_lex_number(struct qosconf_parser *p, const char *what,
		       const char *s, long lo, long hi, long *out)
{
	int err = qosconf_lex_parse_long(s, lo, hi, out);

	if (err == -EINVAL)
		return qosconf_lex_error(p, "%s '%s' is not a number", what, s);
	if (err)
		return qosconf_lex_error(p, "%s %s out of range %ld-%ld", what,
					 s, lo, hi);
	return 0;
}

int qosconf_lex_list(const char *s, long lo, long hi, int max,
		     uint8_t *out, int *count, char *err, size_t errlen)
{
	char buf[512], *tok, *save;
	long v;
	int n = 0, rc;

	if (strlen(s) >= sizeof(buf))
		return errbuf_set(err, errlen, -EINVAL, "list too long");
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return errbuf_set(err, errlen, -EINVAL, "more than %d values in '%s'", max, s);
		rc = qosconf_lex_parse_long(tok, lo, hi, &v);
		if (rc == -EINVAL)
			return errbuf_set(err, errlen, -EINVAL, "'%s' is not a number", tok);
		if (rc)
			return errbuf_set(err, errlen, -EINVAL, "%s out of range %ld-%ld", tok, lo, hi);
		out[n++] = v;
	}
	if (!n)
		return errbuf_set(err, errlen, -EINVAL, "empty list");
	*count = n;
	return 0;
}

int qosconf_lex_table_add(struct qosconf_parser *p, struct arb_table *t,
			  const char *which, long vl, long weight)
{
	if (t->n_entries == ARB_MAX_ENTRIES)
		return qosconf_lex_error(p, "more than %d entries in the %s table",
					 ARB_MAX_ENTRIES, which);
	t->entries[t->n_entries].vl = vl;
	t->entries[t->n_entries].weight = weight;
	t->n_entries++;
	return 0;
}

/* jsonfile_each()'s callback: the reader's, with p->line set. */
struct json_each_ctx {
	struct qosconf_parser *p;
	int (*fn)(struct qosconf_parser *p, json_t *v);
};

static int json_each_one(void *ctx, int line, json_t *v)
{
	struct json_each_ctx *c = ctx;

	c->p->line = line;
	return c->fn(c->p, v);
}

int qosconf_lex_json_each(struct qosconf_parser *p, const char *text,
			  int (*fn)(struct qosconf_parser *p, json_t *v))
{
	struct json_each_ctx c = { p, fn };
	json_error_t e;
	int bad_line, rc;

	rc = jsonfile_each(text, json_each_one, &c, &bad_line, &e);
	if (rc == -EINVAL && bad_line) {
		p->line = bad_line;
		return qosconf_lex_error(p, "bad JSON: %s", e.text);
	}
	return rc;
}

int qosconf_lex_json_int(struct qosconf_parser *p, const json_t *o, const char *key,
			 long lo, long hi, long *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return qosconf_lex_error(p, "'%s': expected an integer from %ld to %ld", key,
					 lo, hi);
	*out = (long)json_integer_value(v);
	return 0;
}
