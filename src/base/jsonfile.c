/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * JSON documents written to files atomically: see jsonfile.h. Kept in
 * base so that every layer (a command, an engine's pre-run check) can use
 * it without reaching up to the report.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "base/jsonfile.h"

/* Why writing @path failed: errno when the C library left one (ENOSPC). */
static int jsonfile_write_error(const char *path, char *err, size_t errlen)
{
	int e = errno ? errno : EIO;

	return errbuf_set(err, errlen, -e, "'%s': %s", path, strerror(e));
}

/* Create @path's temporary sibling: its fd, with its malloc'ed name in *tmp. */
static int jsonfile_tmp_open(const char *path, char **tmp, char *err, size_t errlen)
{
	size_t len = strlen(path) + 8;
	int fd, ret;

	*tmp = malloc(len);
	if (!*tmp)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	snprintf(*tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		ret = errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	return fd;
}

int jsonfile_check(const char *path, char *err, size_t errlen)
{
	char *tmp;
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	fd = jsonfile_tmp_open(path, &tmp, err, errlen);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int textfile_write(const char *path, int (*fill)(FILE *f, void *arg), void *arg, char *err,
		   size_t errlen)
{
	char *tmp;
	int fd, ret = 0;
	FILE *f;

	if (!strcmp(path, "-")) {
		if (fill(stdout, arg) || fflush(stdout))
			return errbuf_set(err, errlen, -EIO, "cannot write to stdout");
		return 0;
	}
	fd = jsonfile_tmp_open(path, &tmp, err, errlen);
	if (fd < 0)
		return fd;
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	errno = 0;
	if (!f || fill(f, arg) || fflush(f) || fsync(fd))
		ret = jsonfile_write_error(path, err, errlen);
	if ((f ? fclose(f) : close(fd)) && !ret)
		ret = jsonfile_write_error(path, err, errlen);
	if (!ret && rename(tmp, path))
		ret = errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* textfile_write()'s filler of a JSON document, indented, a newline after. */
static int jsonfile_fill(FILE *f, void *root)
{
	return json_dumpf(root, f, JSON_INDENT(2)) || fputc('\n', f) == EOF ? -1 : 0;
}

int jsonfile_write(json_t *root, const char *path, char *err, size_t errlen)
{
	int ret = textfile_write(path, jsonfile_fill, root, err, errlen);

	if (ret && !strcmp(path, "-"))
		return errbuf_set(err, errlen, -EIO, "cannot write JSON to stdout");
	return ret;
}

/* ------------------------------------------------------------------ */
/* JSON lines                                                          */
/* ------------------------------------------------------------------ */

struct jsonl {
	FILE *f;
	char path[256];
};

struct jsonl *jsonl_open(const char *path, char *err, size_t errlen)
{
	struct jsonl *s = calloc(1, sizeof(*s));

	if (!s) {
		errbuf_set(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!s->f) {
		errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
		free(s);
		return NULL;
	}
	return s;
}

int jsonl_write(struct jsonl *s, json_t *obj, char *err, size_t errlen)
{
	if (json_dumpf(obj, s->f, JSON_COMPACT) || fputc('\n', s->f) == EOF ||
	    fflush(s->f))
		return errbuf_set(err, errlen, -EIO, "'%s': cannot write: %s", s->path,
				  strerror(errno ? errno : EIO));
	return 0;
}

int jsonl_close(struct jsonl *s, char *err, size_t errlen)
{
	int ret = 0;

	if (!s)
		return 0;
	if (s->f != stdout && fclose(s->f))
		ret = errbuf_set(err, errlen, -errno, "'%s': %s", s->path, strerror(errno));
	free(s);
	return ret;
}

int jsonfile_each(const char *text, int (*fn)(void *ctx, int line, json_t *v), void *ctx,
		  int *bad_line, json_error_t *e)
{
	size_t len = strlen(text), off = 0, i;
	int line = 1, rc;
	json_t *v;

	*bad_line = 0;
	for (;;) {
		for (; off < len && isspace((unsigned char)text[off]); off++)
			line += text[off] == '\n';
		if (off == len)
			return 0;
		v = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, e);
		if (!v) {
			*bad_line = line + (e->line > 0 ? e->line - 1 : 0);
			return -EINVAL;
		}
		rc = fn(ctx, line, v);
		json_decref(v);
		if (rc)
			return rc;
		for (i = 0; i < (size_t)e->position && off + i < len; i++)
			line += text[off + i] == '\n';
		off += (size_t)e->position;
	}
}
