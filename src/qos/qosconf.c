/*
 * The dispatcher of the arbitration configuration readers (see
 * qosconf.h): it detects the format and feeds each file line by line to
 * that format's reader. Above the readers (qosconf_readers.h), which only
 * call down into the shared lexing (qosconf_lex.h).
 *
 * Each format has a line parser working on one struct qosconf_parser
 * (qosconf_parser.h); a finish step checks what only the whole input can
 * tell (a missing table, a truncated capture, a band used but never
 * defined). Every error names the file and the line it was found on, and
 * the value that is wrong.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

static const char *const format_names[] = {
	[QOSCONF_FORMAT_AUTO] = "auto",
	[QOSCONF_FORMAT_OPENSM] = "opensm",
	[QOSCONF_FORMAT_SMPQUERY] = "smpquery",
	[QOSCONF_FORMAT_TABLE] = "table",
	[QOSCONF_FORMAT_ETS] = "ets",
};

static int __attribute__((format(printf, 2, 3)))
err_set(struct qosconf_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Detection and driver                                                */
/* ------------------------------------------------------------------ */

void qosconf_opts_init(struct qosconf_opts *opts)
{
	opts->format = QOSCONF_FORMAT_AUTO;
	opts->node_type = QOSCONF_NODE_SWE;
	opts->in_port = -1;
}

static int name_lookup(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -EINVAL;
}

const char *qosconf_format_name(enum qosconf_format format)
{
	return format_names[format];
}

int qosconf_format_parse(const char *name, enum qosconf_format *format)
{
	int i = name_lookup(format_names, QOSCONF_FORMAT_ETS + 1, name);

	if (i < 0)
		return i;
	*format = i;
	return 0;
}

const char *qosconf_node_type_name(enum qosconf_node_type type)
{
	return qosconf_opensm_node_prefix(type);
}

int qosconf_node_type_parse(const char *name, enum qosconf_node_type *type)
{
	int i;

	for (i = 0; i < QOSCONF_NODE_COUNT; i++) {
		if (!strcmp(qosconf_opensm_node_prefix(i), name)) {
			*type = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* What the first meaningful line of a non-smpquery file looks like. */
static enum qosconf_format detect_line(const char *s)
{
	size_t word = strcspn(s, " \t,");

	if (s[word] == ',' && (!strncasecmp(s, "high", word) ||
			       !strncasecmp(s, "low", word)))
		return QOSCONF_FORMAT_TABLE;
	if (!strncmp(s, "band", word) || !strncmp(s, "dscp", word) ||
	    !strncmp(s, "prio", word) || !strncmp(s, "default", word))
		return QOSCONF_FORMAT_ETS;
	if (isalpha((unsigned char)*s) && (s[word] == ' ' || s[word] == '\t'))
		return QOSCONF_FORMAT_OPENSM;
	return QOSCONF_FORMAT_AUTO;
}

enum qosconf_format qosconf_detect(const char *text)
{
	enum qosconf_format first = QOSCONF_FORMAT_AUTO;
	const char *s = text, *eol;
	char line[256];
	size_t n;

	for (; *s; s = *eol ? eol + 1 : eol) {
		eol = s + strcspn(s, "\n");
		n = (size_t)(eol - s) < sizeof(line) ? (size_t)(eol - s) : sizeof(line) - 1;
		memcpy(line, s, n);
		line[n] = '\0';
		qosconf_lex_trim_end(line);
		if (qosconf_smp_detect(qosconf_lex_skip_space(line)))
			return QOSCONF_FORMAT_SMPQUERY;
		if (first == QOSCONF_FORMAT_AUTO && *qosconf_lex_strip_comment(line))
			first = detect_line(qosconf_lex_strip_comment(line));
	}
	return first;
}

typedef int (*line_fn)(struct qosconf_parser *p, char *s);

static line_fn format_line_fn(enum qosconf_format format)
{
	switch (format) {
	case QOSCONF_FORMAT_OPENSM:
		return qosconf_opensm_line;
	case QOSCONF_FORMAT_SMPQUERY:
		return qosconf_smp_line;
	case QOSCONF_FORMAT_TABLE:
		return qosconf_table_line;
	default:
		return qosconf_ets_line;
	}
}

/* Feed every line of one source; smpquery lines keep their '#' headers. */
static int parse_source(struct qosconf_parser *p, const char *text,
			enum qosconf_format format)
{
	line_fn fn = format_line_fn(format);
	char *buf = strdup(text), *s, *eol;
	char *body;
	int err = 0;

	if (!buf)
		return err_set(p->err, "%s: out of memory", p->name);
	p->line = 0;
	for (s = buf; !err && *s; s = eol) {
		eol = s + strcspn(s, "\n");
		if (*eol)
			*eol++ = '\0';
		p->line++;
		body = format == QOSCONF_FORMAT_SMPQUERY ? qosconf_lex_skip_space(s) :
			qosconf_lex_strip_comment(s);
		if (*body && *body != '#')
			p->n_items++;
		if (*body)
			err = fn(p, body);
	}
	if (!p->line)
		p->line = 1;
	free(buf);
	if (!err && format == QOSCONF_FORMAT_SMPQUERY)
		err = qosconf_smp_file_end(p);
	return err;
}

static int parse_finish(struct qosconf_parser *p, enum qosconf_format format)
{
	if (!p->n_items)
		return qosconf_lex_error(p, "empty: no %s configuration found",
				format_names[format]);
	switch (format) {
	case QOSCONF_FORMAT_OPENSM:
		return qosconf_opensm_finish(p);
	case QOSCONF_FORMAT_SMPQUERY:
		return qosconf_smp_finish(p);
	case QOSCONF_FORMAT_TABLE:
		return qosconf_table_finish(p);
	default:
		return qosconf_ets_finish(p);
	}
}

static int source_format(const struct qosconf_source *src,
			 const struct qosconf_opts *opts,
			 enum qosconf_format *format, struct qosconf_err *err)
{
	enum qosconf_format f = opts->format;

	if (f == QOSCONF_FORMAT_AUTO)
		f = qosconf_detect(src->text);
	if (f == QOSCONF_FORMAT_AUTO && !*qosconf_lex_skip_space(src->text))
		return err_set(err, "%s:1: empty file", src->name);
	if (f == QOSCONF_FORMAT_AUTO)
		return err_set(err, "%s:1: cannot tell the format (opensm, "
			       "smpquery, table or ets): give it with --format",
			       src->name);
	if (*format != QOSCONF_FORMAT_AUTO && f != *format)
		return err_set(err, "%s:1: %s input, but the earlier files are %s",
			       src->name, format_names[f], format_names[*format]);
	*format = f;
	return 0;
}

static void parser_init(struct qosconf_parser *p, const struct qosconf_opts *opts,
			struct arb_config *cfg, struct qosconf_err *err)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->opts = opts;
	p->cfg = cfg;
	p->err = err;
	p->vl_row_count = -1;
	for (i = 0; i <= QOSCONF_NODE_COUNT; i++)
		p->sets[i].high_limit = -1;
}

int qosconf_parse(const struct qosconf_source *src, int n_src,
		  const struct qosconf_opts *opts, struct arb_config *cfg,
		  enum qosconf_format *format_out, struct qosconf_err *err)
{
	enum qosconf_format format = QOSCONF_FORMAT_AUTO;
	struct qosconf_parser *p;
	int i, rc = 0;

	err->msg[0] = '\0';
	for (i = 0; !rc && i < n_src; i++)
		rc = source_format(&src[i], opts, &format, err);
	if (rc || !n_src)
		return rc ? rc : err_set(err, "no input");
	p = malloc(sizeof(*p));
	if (!p)
		return err_set(err, "out of memory");
	parser_init(p, opts, cfg, err);
	arb_config_init(cfg, format == QOSCONF_FORMAT_ETS ? ARB_KIND_ETS :
			ARB_KIND_VLARB);
	for (i = 0; !rc && i < n_src; i++) {
		p->name = src[i].name;
		rc = parse_source(p, src[i].text, format);
	}
	if (!rc)
		rc = parse_finish(p, format);
	free(p);
	*format_out = format;
	return rc;
}

int qosconf_read_file(const char *path, char **text, struct qosconf_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;
	int rc = 0;

	if (!f) {
		rc = -errno;
		err_set(err, "'%s': %s", path, strerror(-rc));
		return rc;
	}
	buf = malloc(QOSCONF_MAX_FILE_BYTES + 1);
	if (!buf)
		rc = -ENOMEM;
	else
		n = fread(buf, 1, QOSCONF_MAX_FILE_BYTES + 1, f);
	if (!rc && ferror(f))
		rc = -EIO;
	else if (!rc && n > QOSCONF_MAX_FILE_BYTES)
		rc = -EFBIG;
	fclose(f);
	if (rc) {
		free(buf);
		err_set(err, "'%s': %s", path, rc == -EFBIG ?
			"larger than the 4 MiB accepted" : strerror(-rc));
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}
