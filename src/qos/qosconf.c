/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The dispatcher of the arbitration configuration readers (see
 * qosconf.h): one table lists the readers, and the dispatcher detects the
 * format and feeds each file line by line to that format's reader. Above
 * the readers (qosconf_readers.h), which only call down into the shared
 * lexing (qosconf_lex.h). A new format is one reader file and one row.
 *
 * Each reader has a line parser working on one struct qosconf_parser
 * (qosconf_parser.h); a finish step checks what only the whole input can
 * tell (a missing table, a truncated capture, a band used but never
 * defined). Every error names the file and the line it was found on, and
 * the value that is wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "base/errbuf.h"
#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

/*
 * The readers, in detection order: smpquery's lines are told apart
 * anywhere in a file, the others by the first line one of them knows,
 * tried from the top (an ETS "band 0 strict" line would also pass for an
 * opensm.conf key).
 */
static const struct qosconf_reader qosconf_readers[] = {
	{
		.format = QOSCONF_FORMAT_SMPQUERY, .name = "smpquery",
		.kind = ARB_KIND_VLARB, .keeps_hash = true, .detect_any_line = true,
		.detect = qosconf_smp_detect, .start = qosconf_smp_start,
		.line = qosconf_smp_line, .file_end = qosconf_smp_file_end,
		.finish = qosconf_smp_finish,
	},
	{
		.format = QOSCONF_FORMAT_TABLE, .name = "table",
		.kind = ARB_KIND_VLARB, .detect = qosconf_table_detect,
		.line = qosconf_table_line, .finish = qosconf_table_finish,
	},
	{
		.format = QOSCONF_FORMAT_ETS, .name = "ets",
		.kind = ARB_KIND_ETS, .detect = qosconf_ets_detect,
		.line = qosconf_ets_line, .finish = qosconf_ets_finish,
	},
	{
		.format = QOSCONF_FORMAT_TC, .name = "tc", .kind = ARB_KIND_ETS,
		.detect = qosconf_tc_detect, .text = qosconf_tc_text,
		.finish = qosconf_tc_finish,
	},
	{
		.format = QOSCONF_FORMAT_DCB, .name = "dcb", .kind = ARB_KIND_ETS,
		.detect = qosconf_dcb_detect, .start = qosconf_dcb_start,
		.text = qosconf_dcb_text,
		.finish = qosconf_dcb_finish,
	},
	{
		.format = QOSCONF_FORMAT_OPENSM, .name = "opensm",
		.kind = ARB_KIND_VLARB, .detect = qosconf_opensm_detect,
		.start = qosconf_opensm_start, .line = qosconf_opensm_line,
		.finish = qosconf_opensm_finish,
	},
};

#define QOSCONF_N_READERS \
	(int)(sizeof(qosconf_readers) / sizeof(qosconf_readers[0]))

/* The reader of @format; NULL for AUTO or an unknown value. */
static const struct qosconf_reader *reader_find(enum qosconf_format format)
{
	int i;

	for (i = 0; i < QOSCONF_N_READERS; i++)
		if (qosconf_readers[i].format == format)
			return &qosconf_readers[i];
	return NULL;
}

void qosconf_opts_init(struct qosconf_opts *opts)
{
	opts->format = QOSCONF_FORMAT_AUTO;
	opts->node_type = QOSCONF_NODE_SWE;
	opts->in_port = -1;
	opts->port = NULL;
}

const char *qosconf_format_name(enum qosconf_format format)
{
	const struct qosconf_reader *r = reader_find(format);

	if (format == QOSCONF_FORMAT_AUTO)
		return "auto";
	return r ? r->name : "unknown";
}

int qosconf_format_parse(const char *name, enum qosconf_format *format)
{
	int i;

	if (!strcmp(name, "auto")) {
		*format = QOSCONF_FORMAT_AUTO;
		return 0;
	}
	for (i = 0; i < QOSCONF_N_READERS; i++) {
		if (!strcmp(qosconf_readers[i].name, name)) {
			*format = qosconf_readers[i].format;
			return 0;
		}
	}
	return -EINVAL;
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

/*
 * The first reader (in table order) whose detect() knows @s and whose
 * detect_any_line is @any_line; NULL if none.
 */
static const struct qosconf_reader *detect_by(const char *s, bool any_line)
{
	int i;

	for (i = 0; i < QOSCONF_N_READERS; i++)
		if (qosconf_readers[i].detect_any_line == any_line &&
		    qosconf_readers[i].detect(s))
			return &qosconf_readers[i];
	return NULL;
}

enum qosconf_format qosconf_detect(const char *text)
{
	const struct qosconf_reader *first = NULL, *any;
	const char *s = text, *eol;
	char line[256], *body;
	size_t n;

	for (; *s; s = *eol ? eol + 1 : eol) {
		eol = s + strcspn(s, "\n");
		n = (size_t)(eol - s) < sizeof(line) ? (size_t)(eol - s) : sizeof(line) - 1;
		memcpy(line, s, n);
		line[n] = '\0';
		qosconf_lex_trim_end(line);
		any = detect_by(qosconf_lex_skip_space(line), true);
		if (any)
			return any->format;
		body = qosconf_lex_strip_comment(line);
		if (!first && *body)
			first = detect_by(body, false);
	}
	return first ? first->format : QOSCONF_FORMAT_AUTO;
}

/* Feed every line of one source; '#' lines reach readers that keep them. */
static int parse_lines(struct qosconf_parser *p, const char *text,
		       const struct qosconf_reader *r)
{
	char *buf = strdup(text), *s, *eol;
	char *body;
	int err = 0;

	if (!buf)
		return errbuf_set(p->err, p->errlen, -EINVAL, "%s: out of memory",
				  p->name);
	p->line = 0;
	for (s = buf; !err && *s; s = eol) {
		eol = s + strcspn(s, "\n");
		if (*eol)
			*eol++ = '\0';
		p->line++;
		body = r->keeps_hash ? qosconf_lex_skip_space(s) :
			qosconf_lex_strip_comment(s);
		if (*body && *body != '#')
			p->n_items++;
		if (*body)
			err = r->line(p, body);
	}
	if (!p->line)
		p->line = 1;
	free(buf);
	return err;
}

/* One source, by lines or (JSON formats) whole, then the reader's check. */
static int parse_source(struct qosconf_parser *p, const char *text,
			const struct qosconf_reader *r)
{
	int err;

	if (r->text) {
		p->line = 1;
		p->n_items += !!*qosconf_lex_skip_space(text);
		err = r->text(p, text);
	} else {
		err = parse_lines(p, text, r);
	}
	if (!err && r->file_end)
		err = r->file_end(p);
	return err;
}

static int parse_finish(struct qosconf_parser *p, const struct qosconf_reader *r)
{
	if (!p->n_items)
		return qosconf_lex_error(p, "empty: no %s configuration found",
					 r->name);
	return r->finish(p);
}

void qosconf_format_list(char *buf, size_t len, const char *first)
{
	const char *sep = "";
	size_t at = 0;
	int f;

	buf[0] = '\0';
	if (first) {
		at += (size_t)snprintf(buf, len, "%s", first);
		sep = ", ";
	}
	for (f = QOSCONF_FORMAT_AUTO + 1; f < QOSCONF_FORMAT_COUNT && at < len; f++) {
		at += (size_t)snprintf(buf + at, len - at, "%s%s", sep, qosconf_format_name(f));
		sep = f + 2 < QOSCONF_FORMAT_COUNT ? ", " : " or ";
	}
}

/* The line of a "[global]" section header in @text (a converge
 * scenario), 0 when none. */
static int qosconf_scenario_line(const char *text)
{
	const char *p = text;
	size_t n;
	int line = 1;

	for (;;) {
		p += strspn(p, " \t");
		n = strcspn(p, "\n");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (n == 8 && !strncmp(p, "[global]", 8))
			return line;
		p = strchr(p, '\n');
		if (!p)
			return 0;
		p++;
		line++;
	}
}

/* The reader of @src: given, or detected. */
static int source_reader(const struct qosconf_source *src,
			 const struct qosconf_opts *opts,
			 const struct qosconf_reader **reader,
			 char *err, size_t errlen)
{
	enum qosconf_format f = opts->format;
	int line = qosconf_scenario_line(src->text);
	char formats[128];

	if (line)
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: a converge scenario ([global]), "
				  "not an arbitration configuration: give it to rperf converge",
				  src->name, line);
	if (f == QOSCONF_FORMAT_AUTO)
		f = qosconf_detect(src->text);
	*reader = reader_find(f);
	if (!*reader && !*qosconf_lex_skip_space(src->text))
		return errbuf_set(err, errlen, -EINVAL, "%s:1: empty file",
				  src->name);
	if (!*reader) {
		qosconf_format_list(formats, sizeof(formats), NULL);
		return errbuf_set(err, errlen, -EINVAL, "%s:1: cannot tell the "
				  "format (%s): give it with --format",
				  src->name, formats);
	}
	return 0;
}

/*
 * The readers of all sources: one format, except that an opensm.conf may
 * come with the smpquery portinfo capture of the port it is read for
 * (port[i] true for those sources).
 */
static int sources_readers(const struct qosconf_source *src, int n_src,
			   const struct qosconf_opts *opts,
			   const struct qosconf_reader **main, bool *port,
			   char *err, size_t errlen)
{
	const struct qosconf_reader *r[QOSCONF_MAX_SOURCES] = { NULL };
	bool opensm;
	int i, rc;

	*main = NULL;
	for (i = 0; i < n_src; i++) {
		rc = source_reader(&src[i], opts, &r[i], err, errlen);
		if (rc)
			return rc;
		if (r[i]->format == QOSCONF_FORMAT_OPENSM)
			*main = r[i];
	}
	opensm = *main != NULL;
	if (!opensm)
		*main = r[0];
	for (i = 0; i < n_src; i++) {
		port[i] = opensm && r[i]->format == QOSCONF_FORMAT_SMPQUERY;
		if (r[i] != *main && !port[i])
			return errbuf_set(err, errlen, -EINVAL, "%s:1: %s input, but "
					  "the other files are %s", src[i].name,
					  r[i]->name, (*main)->name);
	}
	return 0;
}

static void parser_init(struct qosconf_parser *p, const struct qosconf_opts *opts,
			struct arb_config *cfg, char *err, size_t errlen,
			const struct qosconf_reader *r)
{
	memset(p, 0, sizeof(*p));
	p->opts = opts;
	p->cfg = cfg;
	p->err = err;
	p->errlen = errlen;
	if (r->start)
		r->start(p);
}

/* Parse the sources marked in @use with @r into p->cfg, finish() if @finish. */
static int parse_with(struct qosconf_parser *p, const struct qosconf_source *src,
		      int n_src, const bool *use, const struct qosconf_reader *r,
		      bool finish)
{
	int i, rc = 0, n = 0;

	arb_config_init(p->cfg, r->kind);
	for (i = 0; !rc && i < n_src; i++) {
		if (!use[i])
			continue;
		p->name = src[i].name;
		rc = parse_source(p, src[i].text, r);
		n++;
	}
	if (!rc && n && finish)
		rc = parse_finish(p, r);
	return rc;
}

/*
 * The portinfo captures that come with an opensm.conf: the port OpenSM
 * programs (caps and operational VLs), into *port. Tables are refused:
 * they would be a second description of the port.
 */
static int parse_port_captures(const struct qosconf_source *src, int n_src,
			       const bool *use, const struct qosconf_opts *opts,
			       struct qosconf_port *port, char *err, size_t errlen)
{
	const struct qosconf_reader *r = reader_find(QOSCONF_FORMAT_SMPQUERY);
	struct qosconf_parser *p = malloc(sizeof(*p));
	struct arb_config *cfg = malloc(sizeof(*cfg));
	int rc = -EINVAL;

	if (p && cfg) {
		parser_init(p, opts, cfg, err, errlen, r);
		rc = parse_with(p, src, n_src, use, r, false);
		if (!rc && (p->vlarb_seen || p->sl2vl_seen || p->sl2vl_header))
			rc = qosconf_lex_error(p, "with an opensm.conf, give the "
					       "port's portinfo capture only, "
					       "not its tables");
		else if (!rc && !p->port.known)
			rc = qosconf_lex_error(p, "no portinfo fields in the "
					       "capture given with the opensm.conf");
		*port = p->port;
		port->lid = p->id_seen ? p->id_lid : -1;
		port->port_num = p->id_seen ? p->id_port : -1;
	} else {
		errbuf_set(err, errlen, -EINVAL, "out of memory");
	}
	free(p);
	free(cfg);
	return rc;
}

int qosconf_parse(const struct qosconf_source *src, int n_src,
		  const struct qosconf_opts *opts, struct arb_config *cfg,
		  enum qosconf_format *format_out, char *err, size_t errlen)
{
	const struct qosconf_reader *r = NULL;
	bool port_src[QOSCONF_MAX_SOURCES], main_src[QOSCONF_MAX_SOURCES];
	struct qosconf_opts with_port = *opts;
	struct qosconf_port port = { 0 };
	struct qosconf_parser *p;
	int i, rc, n_port = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!n_src || n_src > QOSCONF_MAX_SOURCES)
		return errbuf_set(err, errlen, -EINVAL, n_src ? "more than %d inputs" :
				  "no input", QOSCONF_MAX_SOURCES);
	rc = sources_readers(src, n_src, opts, &r, port_src, err, errlen);
	if (rc)
		return rc;
	for (i = 0; i < n_src; i++) {
		main_src[i] = !port_src[i];
		n_port += port_src[i];
	}
	if (n_port && (rc = parse_port_captures(src, n_src, port_src, opts, &port,
						 err, errlen)))
		return rc;
	if (n_port && !(opts->port && opts->port->known))
		with_port.port = &port;
	p = malloc(sizeof(*p));
	if (!p)
		return errbuf_set(err, errlen, -EINVAL, "out of memory");
	parser_init(p, &with_port, cfg, err, errlen, r);
	rc = parse_with(p, src, n_src, main_src, r, true);
	free(p);
	*format_out = r->format;
	return rc;
}

/*
 * Whether @text is a document rperf wrote (--json): an object with
 * "command" and "schema_version". Such a file is an output, never a
 * configuration; the caller refuses it by name.
 */
static const char *qosconf_rperf_json(const char *text)
{
	static char cmd[32];
	json_t *root, *c;

	text += strspn(text, " \t\r\n");
	if (*text != '{')
		return NULL;
	root = json_loads(text, 0, NULL);
	c = json_object_get(root, "command");
	cmd[0] = '\0';
	if (json_is_string(c) && json_is_integer(json_object_get(root, "schema_version")))
		snprintf(cmd, sizeof(cmd), "%s", json_string_value(c));
	json_decref(root);
	return cmd[0] ? cmd : NULL;
}

int qosconf_read_file(const char *path, char **text, char *err, size_t errlen)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "r");
	const char *cmd;
	char *buf = NULL;
	size_t n = 0;
	int rc = 0;

	if (!f) {
		rc = -errno;
		return errbuf_set(err, errlen, rc, "'%s': %s", path, strerror(-rc));
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
	if (!in)
		fclose(f);
	if (rc) {
		free(buf);
		return errbuf_set(err, errlen, rc, "'%s': %s", path, rc == -EFBIG ?
				  "larger than the 4 MiB accepted" : strerror(-rc));
	}
	buf[n] = '\0';
	cmd = qosconf_rperf_json(buf);
	if (cmd) {
		free(buf);
		return errbuf_set(err, errlen, -EINVAL, "'%s': rperf's own JSON output (rperf %s "
				  "--json), not an input: give the files it was made from", path, cmd);
	}
	*text = buf;
	return 0;
}
