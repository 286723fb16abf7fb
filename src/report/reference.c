/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The references a run is compared with, read back from the documents
 * rperf wrote (reference.h): lat --reference (a lat document, and the
 * differences) and mesh --reference (a mesh document's pairs). Each read
 * takes its keys from doc_keys.h, which the code that writes them uses
 * too, its states' words from value.h, and no file larger than
 * REF_MAX_FILE_BYTES.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>

#include "base/errbuf.h"
#include "coord/mesh.h"
#include "report/doc_keys.h"
#include "report/reference.h"
#include "report/value.h"

const char *const ref_pct_keys[REF_N_PCTS] = { "p50", "p90", "p99" };

/* The oldest lat document with percentile states and intervals. */
#define REF_MIN_SCHEMA 2
/* A time no lat document holds (about 11 days in ns): refused above. */
#define REF_MAX_NS 1e15

void ref_diff(const struct ref_pct *m, const struct ref_pct *r, struct ref_diff *d)
{
	memset(d, 0, sizeof(*d));
	if (m->state != HIST_Q_RESOLVED || r->state != HIST_Q_RESOLVED) {
		d->by_reference = m->state == HIST_Q_RESOLVED;
		d->state = d->by_reference ? r->state : m->state;
		return;
	}
	d->state = HIST_Q_RESOLVED;
	d->value_ns = m->value_ns - r->value_ns;
	d->has_lo = m->has_lo && r->has_hi;
	d->lo_ns = d->has_lo ? m->lo_ns - r->hi_ns : 0;
	d->has_hi = m->has_hi && r->has_lo;
	d->hi_ns = d->has_hi ? m->hi_ns - r->lo_ns : 0;
}

/* A time in ns: a finite number from 0 to REF_MAX_NS. */
static bool ref_time(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return isfinite(*out) && *out >= 0 && *out <= REF_MAX_NS;
}

/* @v, "resolved" and its kin, into @state; false when it is none of them. */
static bool ref_state(const json_t *v, enum hist_q_state *state)
{
	static const enum hist_q_state all[] = { HIST_Q_RESOLVED, HIST_Q_UNRESOLVED,
						 HIST_Q_TOO_FEW, HIST_Q_EMPTY };
	size_t i;

	for (i = 0; json_is_string(v) && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(json_string_value(v), report_state_word(all[i]))) {
			*state = all[i];
			return true;
		}
	return false;
}

/* A side of an interval: null (open), or a time. False when it is neither. */
static bool ref_side(const json_t *v, bool *has, double *out)
{
	*has = !json_is_null(v);
	*out = 0;
	return !*has || ref_time(v, out);
}

/*
 * One percentile object ({"state", "value_ns", "ci_low_ns", "ci_high_ns"})
 * into @p: a value exactly when resolved, and an interval around it. 0 or
 * -EPROTO with what is wrong in @err.
 */
static int ref_pct_parse(const json_t *o, struct ref_pct *p, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, REPORT_PCT_VALUE_NS);

	memset(p, 0, sizeof(*p));
	if (!json_is_object(o) || !ref_state(json_object_get(o, REPORT_PCT_STATE), &p->state))
		return errbuf_set(err, errlen, -EPROTO, "no percentile state");
	if (!ref_side(json_object_get(o, REPORT_PCT_CI_LOW_NS), &p->has_lo, &p->lo_ns) ||
	    !ref_side(json_object_get(o, REPORT_PCT_CI_HIGH_NS), &p->has_hi, &p->hi_ns))
		return errbuf_set(err, errlen, -EPROTO, "an interval side that is not a time");
	if (p->state != HIST_Q_RESOLVED)
		return json_is_null(v) ? 0 : errbuf_set(err, errlen, -EPROTO,
							"a value for a percentile that is not resolved");
	if (!ref_time(v, &p->value_ns))
		return errbuf_set(err, errlen, -EPROTO, "a resolved percentile without a time");
	if ((p->has_lo && p->lo_ns > p->value_ns) || (p->has_hi && p->hi_ns < p->value_ns))
		return errbuf_set(err, errlen, -EPROTO, "an interval that does not hold its value");
	return 0;
}

/* One of "results": its size and RTT percentiles into @s. 0 or -EPROTO. */
static int ref_size_parse(const json_t *o, struct ref_size *s, char *err, size_t errlen)
{
	const json_t *size = json_object_get(o, "size_bytes"), *pcts;
	char why[128];
	size_t i;

	if (!json_is_integer(size) || json_integer_value(size) < 1 ||
	    (uint64_t)json_integer_value(size) > FLOW_MAX_MSG_BYTES)
		return errbuf_set(err, errlen, -EPROTO, "a result without a size_bytes from 1 up");
	s->size_bytes = (size_t)json_integer_value(size);
	if (!json_is_true(json_object_get(o, "complete")))
		return errbuf_set(err, errlen, -EPROTO, "size %zu did not complete", s->size_bytes);
	pcts = json_object_get(json_object_get(o, "rtt_ns"), "percentiles");
	for (i = 0; i < REF_N_PCTS; i++)
		if (ref_pct_parse(json_object_get(pcts, ref_pct_keys[i]), &s->pct[i], why,
				  sizeof(why)))
			return errbuf_set(err, errlen, -EPROTO, "size %zu, RTT %s: %s", s->size_bytes,
					  ref_pct_keys[i], why);
	return 0;
}

/* The head: a complete lat document of a schema with percentile states. */
static int ref_head_parse(const json_t *root, struct ref_doc *d, char *err, size_t errlen)
{
	const json_t *cmd = json_object_get(root, REPORT_KEY_COMMAND);
	const json_t *ver = json_object_get(root, "schema_version");
	const json_t *src = json_object_get(json_object_get(root, "clock"), "source");

	if (!json_is_string(cmd) || strcmp(json_string_value(cmd), "lat"))
		return errbuf_set(err, errlen, -EPROTO, "not an rperf lat document (command %s%s%s)",
				  json_is_string(cmd) ? "'" : "", json_is_string(cmd) ?
				  json_string_value(cmd) : "missing", json_is_string(cmd) ? "'" : "");
	if (!json_is_integer(ver) || json_integer_value(ver) < REF_MIN_SCHEMA ||
	    json_integer_value(ver) > REPORT_SCHEMA_VERSION)
		return errbuf_set(err, errlen, -EPROTO, "schema_version not from %d to %d",
				  REF_MIN_SCHEMA, REPORT_SCHEMA_VERSION);
	if (!json_is_true(json_object_get(root, "complete")))
		return errbuf_set(err, errlen, -EPROTO, "the run did not complete");
	if (!json_is_string(src) || !json_string_length(src) ||
	    json_string_length(src) >= sizeof(d->clock))
		return errbuf_set(err, errlen, -EPROTO, "no clock source");
	snprintf(d->clock, sizeof(d->clock), "%s", json_string_value(src));
	return 0;
}

/* @root into @d: the head, then every size, each size once. */
static int ref_doc_parse(const json_t *root, struct ref_doc *d, char *err, size_t errlen)
{
	const json_t *res = json_object_get(root, "results");
	size_t i;

	if (!json_is_object(root))
		return errbuf_set(err, errlen, -EPROTO, "not a JSON object");
	if (ref_head_parse(root, d, err, errlen))
		return -EPROTO;
	if (!json_is_array(res) || !json_array_size(res))
		return errbuf_set(err, errlen, -EPROTO, "no results");
	if (json_array_size(res) > RUN_MAX_SIZES)
		return errbuf_set(err, errlen, -EPROTO, "more than %d results", RUN_MAX_SIZES);
	for (d->n = 0; d->n < json_array_size(res); d->n++) {
		if (ref_size_parse(json_array_get(res, d->n), &d->sizes[d->n], err, errlen))
			return -EPROTO;
		for (i = 0; i < d->n; i++)
			if (d->sizes[i].size_bytes == d->sizes[d->n].size_bytes)
				return errbuf_set(err, errlen, -EPROTO, "size %zu twice",
						  d->sizes[i].size_bytes);
	}
	return 0;
}

/* 0 when @path is a file of at most REF_MAX_FILE_BYTES; -EFBIG when it is
 * larger or no plain file; -errno when it cannot be looked at. */
static int ref_file_fits(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return S_ISREG(st.st_mode) && st.st_size <= REF_MAX_FILE_BYTES ? 0 : -EFBIG;
}

int ref_doc_load(const char *path, struct ref_doc *d, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root;
	char why[200];
	int ret;

	memset(d, 0, sizeof(*d));
	d->path = path;
	ret = ref_file_fits(path);
	if (ret == -EFBIG)
		return errbuf_set(err, errlen, -EPROTO, "reference '%s': not a file of at most %u "
				  "bytes", path, REF_MAX_FILE_BYTES);
	if (ret)
		return errbuf_set(err, errlen, ret, "reference '%s': %s", path, strerror(-ret));
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return errbuf_set(err, errlen, -EPROTO, "reference '%s': not JSON: %s (line %d)",
				  path, jerr.text, jerr.line);
	ret = ref_doc_parse(root, d, why, sizeof(why));
	json_decref(root);
	if (ret)
		return errbuf_set(err, errlen, ret, "reference '%s': %s", path, why);
	return 0;
}

const struct ref_size *ref_doc_find(const struct ref_doc *d, size_t size_bytes)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->sizes[i].size_bytes == size_bytes)
			return &d->sizes[i];
	return NULL;
}

int ref_doc_check(const struct ref_doc *d, const char *clock, const size_t *sizes, size_t n,
		  char *missing, size_t missinglen, char *err, size_t errlen)
{
	size_t i, common = 0, len = 0;

	if (missing && missinglen)
		missing[0] = '\0';
	if (strcmp(d->clock, clock))
		return errbuf_set(err, errlen, -EINVAL, "reference '%s': measured with clock '%s', "
				  "this run with '%s': figures of two clocks do not subtract", d->path,
				  d->clock, clock);
	for (i = 0; i < n; i++) {
		if (ref_doc_find(d, sizes[i])) {
			common++;
			continue;
		}
		if (missing && len < missinglen)
			len += (size_t)snprintf(missing + len, missinglen - len, "%s%zu",
						len ? ", " : "", sizes[i]);
	}
	if (!common)
		return errbuf_set(err, errlen, -EINVAL, "reference '%s': none of this run's sizes",
				  d->path);
	return 0;
}

int ref_doc_check_run(const struct ref_doc *d, const struct run_lat *r, char *warn,
		      size_t warnlen, char *err, size_t errlen)
{
	char missing[256];

	warn[0] = '\0';
	if (ref_doc_check(d, clock_source_name(r->c.clk.source), r->sizes, r->n_sizes, missing,
			  sizeof(missing), err, errlen))
		return -EINVAL;
	if (missing[0])
		snprintf(warn, warnlen, "reference '%s' has no size %s: %s compared without it",
			 d->path, missing, strchr(missing, ',') ? "those sizes are" : "that size is");
	return 0;
}

/* ------------------------------------------------------------------ */
/* mesh --reference                                                    */
/* ------------------------------------------------------------------ */

/* One pair of an earlier mesh document into @r: false when its p50 is no figure. */
static bool mesh_ref_pair(const json_t *p, struct mesh_ref *r)
{
	const json_t *q = json_object_get(p, MESH_KEY_P50);
	const json_t *v = json_object_get(q, REPORT_PCT_VALUE_NS),
		     *lo = json_object_get(q, REPORT_PCT_CI_LOW_NS),
		     *hi = json_object_get(q, REPORT_PCT_CI_HIGH_NS);
	const char *src = json_string_value(json_object_get(p, MESH_KEY_SRC)),
		   *dst = json_string_value(json_object_get(p, MESH_KEY_DST));

	if (!src || !dst || !json_is_number(v) || !json_is_number(lo) || !json_is_number(hi))
		return false;
	snprintf(r->src, sizeof(r->src), "%s", src);
	snprintf(r->dst, sizeof(r->dst), "%s", dst);
	r->sl = (int)json_integer_value(json_object_get(p, MESH_KEY_SL));
	r->tclass = (int)json_integer_value(json_object_get(p, MESH_KEY_TCLASS));
	r->p50_ns = json_number_value(v);
	r->ci_low_ns = json_number_value(lo);
	r->ci_high_ns = json_number_value(hi);
	return true;
}

int report_mesh_ref_load(const char *path, struct mesh_ref **refs, size_t *n, char *err,
			 size_t errlen)
{
	json_error_t je;
	json_t *doc, *pairs, *p;
	size_t i;

	*refs = NULL;
	*n = 0;
	if (ref_file_fits(path) == -EFBIG)
		return errbuf_set(err, errlen, -EINVAL, "--reference '%s': not a file of at most "
				  "%u bytes", path, REF_MAX_FILE_BYTES);
	doc = json_load_file(path, 0, &je);
	if (!doc)
		return errbuf_set(err, errlen, -EINVAL, "--reference '%s': %s", path, je.text);
	pairs = json_object_get(doc, MESH_KEY_PAIRS);
	if (strcmp(json_string_value(json_object_get(doc, REPORT_KEY_COMMAND)) ?: "",
		   MESH_COMMAND) || !json_is_array(pairs)) {
		json_decref(doc);
		return errbuf_set(err, errlen, -EINVAL, "--reference '%s': not an rperf mesh "
				  "document", path);
	}
	*refs = calloc(json_array_size(pairs) + 1, sizeof(**refs));
	if (!*refs) {
		json_decref(doc);
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	json_array_foreach(pairs, i, p)
		*n += mesh_ref_pair(p, &(*refs)[*n]);
	json_decref(doc);
	return 0;
}
