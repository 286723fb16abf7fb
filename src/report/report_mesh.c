/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh's results in every format: the matrices as text, the JSON
 * document and its stream's events, CSV, OpenMetrics text and gnuplot
 * heatmaps. Every percentile comes from the pair's sketch through
 * report_quantile_figure() (and report_pct_json() for JSON), as a
 * histogram's do through report_hist_figure(), so a figure the method
 * cannot resolve, or that the count cannot support, is said as such in
 * every format.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/doc_keys.h"
#include "coord/mesh.h"
#include "report/mesh_int.h"
#include "report/report_mesh.h"
#include "report/report_int.h"
#include "report/value.h"
#include "base/errbuf.h"
#include "base/jsonfile.h"
#include "base/log.h"
#include "coord/mesh_sample.h"

/* The mesh's sketches are in ns already. */
static const struct clock_cal mesh_ns_clk = { .source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1,
					      .method = "ns" };

/* The three percentiles a pair reports: their keys in report_hist_fields(). */
static const char *const mesh_pcts[] = { MESH_KEY_P50, "p99", "p99_9" };
#define MESH_N_PCTS (sizeof(mesh_pcts) / sizeof(mesh_pcts[0]))

/* Percentile @key of pair @p from its sketch (an empty figure when nothing came). */
static void mesh_figure(const struct mesh_pair *p, const char *key, struct report_figure *fig)
{
	struct hist_quantile q;

	memset(fig, 0, sizeof(*fig));
	fig->state = fig->q.state = HIST_Q_EMPTY;
	if (p->rtt_ns) {
		sketch_quantile(p->rtt_ns, report_hist_field(key)->pct, &q);
		report_quantile_figure(&q, &mesh_ns_clk, fig);
	}
	if (p->rtt_ns && !sketch_totals(p->rtt_ns)->count)
		fig->state = HIST_Q_EMPTY;
}

static const char *mesh_kind_name(enum mesh_outlier_kind k)
{
	return k == MESH_OUT_PAIR ? "pair" : k == MESH_OUT_HOST ? "host" : "sl";
}

/* ------------------------------------------------------------------ */
/* A pair's figures: one description for the JSON, CSV and OpenMetrics  */
/* ------------------------------------------------------------------ */

/* Pair @p of run @m. */
struct mesh_row {
	const struct mesh_run *m;
	const struct mesh_pair *p;
};

#define CLS(w)		(&(w)->m->o->classes[(w)->p->cls])

/* Pair row @row's figure @arg: its key (or CSV column) in the pairs list. */
static void get_pair(const void *row, const char *arg, struct report_value *v)
{
	const struct mesh_row *w = row;
	const struct sketch_totals *t = w->p->rtt_ns ? sketch_totals(w->p->rtt_ns) : NULL;

	if (!strcmp(arg, MESH_KEY_SRC))
		rv_str(v, w->m->o->hosts[w->p->src]);
	else if (!strcmp(arg, MESH_KEY_DST))
		rv_str(v, w->m->o->hosts[w->p->dst]);
	else if (!strcmp(arg, "why"))
		rv_str(v, w->p->outlier ? w->p->why : NULL);
	else if (!strcmp(arg, "error"))
		rv_str(v, w->p->error);
	else if (!strcmp(arg, "outlier"))
		rv_bool(v, w->p->outlier);
	else if (!strcmp(arg, "pass"))
		rv_int(v, w->m->pass);
	else if (!strcmp(arg, MESH_KEY_SL))
		rv_int(v, CLS(w)->sl);
	else if (!strcmp(arg, MESH_KEY_TCLASS))
		rv_int(v, CLS(w)->tclass);
	else
		rv_int(v, !t ? 0 : (long long)(!strcmp(arg, "samples") ? t->count : t->zeros));
}

/* Percentile @pct as the JSON's object; a pair without samples has "no_samples". */
static void get_pct_json(const void *row, const char *pct, struct report_value *v)
{
	const struct mesh_row *w = row;
	struct report_figure fig;

	v->type = RV_JSON;
	mesh_figure(w->p, pct, &fig);
	if (w->p->rtt_ns)
		v->json = report_pct_json(&fig, sketch_totals(w->p->rtt_ns)->zeros,
					  sketch_totals(w->p->rtt_ns)->count);
	else
		v->json = json_pack("{s:s, s:n, s:i, s:n, s:n, s:[ii], s:i, s:s}", "state",
				    "no_samples", "value_ns", "rank", 0, "ci_low_ns", "ci_high_ns",
				    "ci_ranks", 0, 0, "samples_needed", 0, "reason",
				    "no result came from its agents");
}

static void get_pct_state(const void *row, const char *pct, struct report_value *v)
{
	const struct mesh_row *w = row;
	struct report_figure fig;

	mesh_figure(w->p, pct, &fig);
	rv_str(v, report_state_word(fig.q.state));
}

/* The figure, where it is resolved. */
static void get_pct_ns(const void *row, const char *pct, struct report_value *v)
{
	const struct mesh_row *w = row;
	struct report_figure fig;

	mesh_figure(w->p, pct, &fig);
	rv_real_or_null(v, fig.state == HIST_Q_RESOLVED && fig.q.state != HIST_Q_EMPTY, fig.ns);
}

/* Its interval's ends, where the ranks fall among resolved samples. */
static void get_pct_lo(const void *row, const char *pct, struct report_value *v)
{
	const struct mesh_row *w = row;
	struct report_figure fig;

	mesh_figure(w->p, pct, &fig);
	rv_real_or_null(v, fig.q.state != HIST_Q_EMPTY && fig.q.lo_rank && !fig.q.lo_unresolved,
			fig.lo_ns);
}

static void get_pct_hi(const void *row, const char *pct, struct report_value *v)
{
	const struct mesh_row *w = row;
	const struct sketch_totals *t = w->p->rtt_ns ? sketch_totals(w->p->rtt_ns) : NULL;
	struct report_figure fig;

	mesh_figure(w->p, pct, &fig);
	rv_real_or_null(v, t && fig.q.state != HIST_Q_EMPTY && fig.q.hi_rank <= t->count &&
			fig.q.hi_rank > t->zeros, fig.hi_ns);
}

#undef CLS

/* A figure @k of the pair itself. */
#define PAIR(k)		.arg = (k), .get = get_pair
/* A percentile's JSON object and its four CSV columns. */
#define PCT(k)	\
	{ .key = k, .arg = k, .get = get_pct_json }, \
	{ .csv = k "_state", .csv_prec = 1, .arg = k, .get = get_pct_state }, \
	{ .csv = k "_ns", .csv_prec = 1, .arg = k, .get = get_pct_ns }, \
	{ .csv = k "_ci_low_ns", .csv_prec = 1, .arg = k, .get = get_pct_lo }, \
	{ .csv = k "_ci_high_ns", .csv_prec = 1, .arg = k, .get = get_pct_hi }

static const struct report_field pair_fields[] = {
	{ .csv = "pass", PAIR("pass") },
	{ .key = MESH_KEY_SRC, .csv = MESH_KEY_SRC, .label = true, PAIR(MESH_KEY_SRC) },
	{ .key = MESH_KEY_DST, .csv = MESH_KEY_DST, .label = true, PAIR(MESH_KEY_DST) },
	{ .key = MESH_KEY_SL, .csv = MESH_KEY_SL, .label = true, PAIR(MESH_KEY_SL) },
	{ .key = MESH_KEY_TCLASS, .csv = MESH_KEY_TCLASS, .label = true, PAIR(MESH_KEY_TCLASS) },
	{ .key = "samples", .csv = "samples", PAIR("samples") },
	{ .key = "unresolved", .csv = "unresolved", PAIR("unresolved") },
	PCT(MESH_KEY_P50),
	PCT("p99"),
	PCT("p99_9"),
	{ .key = "outlier", .csv = "outlier", PAIR("outlier") },
	{ .key = "why", PAIR("why") },
	{ .key = "error", PAIR("error") },
};

#undef PCT
#undef PAIR

#define N_PAIR_FIELDS	(sizeof(pair_fields) / sizeof(pair_fields[0]))

const struct report_field *report_mesh_fields(size_t *n)
{
	*n = N_PAIR_FIELDS;
	return pair_fields;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

static json_t *mesh_pair_json(const struct mesh_run *m, const struct mesh_pair *p)
{
	const struct mesh_row w = { m, p };

	return report_fields_json(pair_fields, N_PAIR_FIELDS, &w, 0);
}

static json_t *mesh_outliers_json(const struct mesh_run *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->n_outliers; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:s}", "kind",
			mesh_kind_name(m->outliers[i].kind), "name", m->outliers[i].name, "sl",
			m->o->classes[m->outliers[i].cls].sl, "why", m->outliers[i].why));
	return a;
}

static json_t *mesh_config_json(const struct mesh_report_info *info, const struct mesh_run *m)
{
	json_t *o = json_object(), *cls = json_array();
	size_t i;

	for (i = 0; i < m->o->n_classes; i++)
		json_array_append_new(cls, json_pack("{s:i, s:i}", "sl", m->o->classes[i].sl,
						     "tclass", m->o->classes[i].tclass));
	json_object_set_new(o, "source", json_string(info->source));
	json_object_set_new(o, "classes", cls);
	json_object_set_new(o, "duration_s", json_real(m->o->duration_s));
	json_object_set_new(o, "warmup_s", json_real(m->o->warmup_s));
	json_object_set_new(o, "size_bytes", json_integer((json_int_t)m->o->size_bytes));
	json_object_set_new(o, "mad_k", json_real(m->o->mad_k));
	json_object_set_new(o, "interval_s", json_real(info->interval_s));
	json_object_set_new(o, "reference", info->reference ? json_string(info->reference) :
			    json_null());
	return o;
}

/* Whether pair @p is reported: a sampled pass's pairs it did not run are not. */
static bool mesh_pair_shown(const struct mesh_run *m, const struct mesh_pair *p)
{
	return !m->sample || p->measured;
}

/* {"name", "k", "leaves", "rotation", "passes"}: the schedule that ran. */
static json_t *mesh_schedule_json(const struct mesh_run *m)
{
	const struct mesh_sample *s = m->sample;
	size_t passes = s ? mesh_sample_n_passes(s) : 1;

	return json_pack("{s:s, s:o, s:o, s:I, s:I}", "name", s ? "sampled" : "tournament",
			 "k", s ? json_integer((json_int_t)s->k) : json_null(),
			 "leaves", s ? json_integer((json_int_t)s->n_leaves) : json_null(),
			 "rotation", (json_int_t)((m->pass ? m->pass - 1 : 0) % passes),
			 "passes", (json_int_t)passes);
}

json_t *report_mesh_json(const struct mesh_report_info *info, const struct mesh_run *m)
{
	json_t *o = report_doc_new(MESH_COMMAND), *hosts = json_array(), *pairs = json_array();
	size_t i;

	for (i = 0; i < m->o->n_hosts; i++)
		json_array_append_new(hosts, json_string(m->o->hosts[i]));
	for (i = 0; i < m->n_pairs; i++)
		if (mesh_pair_shown(m, &m->pairs[i]))
			json_array_append_new(pairs, mesh_pair_json(m, &m->pairs[i]));
	json_object_set_new(o, "config", mesh_config_json(info, m));
	json_object_set_new(o, "schedule", mesh_schedule_json(m));
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "pass", json_integer(m->pass));
	json_object_set_new(o, "rounds", json_integer((json_int_t)m->rounds));
	json_object_set_new(o, "steps", json_integer((json_int_t)m->steps));
	json_object_set_new(o, "steps_done", json_integer((json_int_t)m->steps_done));
	json_object_set_new(o, "duration_s", json_real(m->duration_s));
	json_object_set_new(o, "connect_ms", json_real(m->connect_ms));
	json_object_set_new(o, "authenticated", json_boolean(m->authenticated));
	json_object_set_new(o, MESH_KEY_PAIRS, pairs);
	json_object_set_new(o, "outliers", mesh_outliers_json(m));
	report_mesh_locate_json(o, m);
	report_end_set(o, m->complete, m->error[0] ? m->error : NULL);
	return o;
}

/* {"schema_version", "event": @name, "command"}: the head of mesh's events. */
static json_t *mesh_event_new(const char *name)
{
	const struct report_head h = { .event = name, .command = MESH_COMMAND };

	return report_head_set(report_schema_stamp(json_object()), &h, RH_EVENT | RH_COMMAND);
}

json_t *report_mesh_event_step(const struct mesh_run *m, const struct mesh_step_info *s)
{
	json_t *o = mesh_event_new("step"), *pairs = json_array();
	size_t i;

	for (i = 0; i < s->n_pairs; i++)
		json_array_append_new(pairs, mesh_pair_json(m, &m->pairs[s->pairs[i]]));
	json_object_set_new(o, "pass", json_integer(s->pass));
	json_object_set_new(o, "round", json_integer((json_int_t)s->round));
	json_object_set_new(o, "half", json_integer((json_int_t)s->half));
	json_object_set_new(o, "sl", json_integer(m->o->classes[s->cls].sl));
	json_object_set_new(o, "tclass", json_integer(m->o->classes[s->cls].tclass));
	json_object_set_new(o, "index", json_integer((json_int_t)s->index));
	json_object_set_new(o, "steps", json_integer((json_int_t)m->steps));
	json_object_set_new(o, "cut_short", json_boolean(s->cut_short));
	json_object_set_new(o, MESH_KEY_PAIRS, pairs);
	return o;
}

json_t *report_mesh_event_end(const struct mesh_run *m)
{
	json_t *o = mesh_event_new("end");

	json_object_set_new(o, "pass", json_integer(m->pass));
	json_object_set_new(o, "steps_done", json_integer((json_int_t)m->steps_done));
	json_object_set_new(o, "duration_s", json_real(m->duration_s));
	json_object_set_new(o, "outliers", mesh_outliers_json(m));
	report_end_set(o, m->complete, m->error[0] ? m->error : NULL);
	return o;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

/* A cell of the matrix: the figure in us, or what it is instead. */
static void mesh_cell(FILE *out, const struct mesh_run *m, const struct mesh_pair *p,
		      const char *key)
{
	struct report_figure fig;
	char cell[24];

	mesh_figure(p, key, &fig);
	if (!mesh_pair_shown(m, p))
		snprintf(cell, sizeof(cell), "not run");
	else if (fig.state == HIST_Q_RESOLVED)
		snprintf(cell, sizeof(cell), "%.2f%s", report_us(fig.ns),
			 p->outlier && !strcmp(key, "p50") ? "*" : "");
	else
		snprintf(cell, sizeof(cell), "%s", fig.state == HIST_Q_UNRESOLVED ? "unres" :
			 fig.state == HIST_Q_TOO_FEW ? "few" : p->error ? "error" : "none");
	fprintf(out, " %9s", cell);
}

/* Percentile @key of class @k as a matrix, rows the sources. */
static void mesh_matrix(FILE *out, const struct mesh_run *m, size_t k, const char *key)
{
	size_t n = m->o->n_hosts, s, d;

	fprintf(out, "%s, us (row: source, column: destination)\n%-12s", key, "");
	for (d = 0; d < n; d++)
		fprintf(out, " %9.9s", m->o->hosts[d]);
	fputc('\n', out);
	for (s = 0; s < n; s++) {
		fprintf(out, "%-12.12s", m->o->hosts[s]);
		for (d = 0; d < n; d++) {
			if (s == d)
				fprintf(out, " %9s", "-");
			else
				mesh_cell(out, m, &m->pairs[mesh_pair_index(n, (int)s, (int)d, k)], key);
		}
		fputc('\n', out);
	}
}

/* The pairs that failed or measured nothing, once each. */
static void mesh_table_errors(FILE *out, const struct mesh_run *m)
{
	const struct mesh_pair *p;
	char text[1024];
	size_t i;

	for (i = 0; i < m->n_pairs; i++) {
		p = &m->pairs[i];
		if (!p->error)
			continue;
		/* An agent's words: no control character reaches the terminal. */
		log_escape(p->error, text, sizeof(text));
		fprintf(out, "%s -> %s, sl %d: %s\n", m->o->hosts[p->src], m->o->hosts[p->dst],
			m->o->classes[p->cls].sl, text);
	}
}

/* A figure in us for the table, or what it is instead. */
void report_mesh_table(FILE *out, const struct mesh_report_info *info, const struct mesh_run *m)
{
	char text[4 * sizeof(m->error)];	/* an agent's words among it, escaped */
	size_t k, i;

	fprintf(out, "rperf mesh: %zu hosts, %zu rounds, %zu of %zu steps in %.1f s (pass %u)\n",
		m->o->n_hosts, m->rounds, m->steps_done, m->steps, m->duration_s, m->pass);
	if (m->sample)
		fprintf(out, "sampled: every pair under each of %zu leaves, %zu a host across them, "
			"rotation %u of %zu (not run: left to another rotation)\n",
			m->sample->n_leaves, m->sample->k,
			(unsigned)((m->pass ? m->pass - 1 : 0) % mesh_sample_n_passes(m->sample)) + 1,
			mesh_sample_n_passes(m->sample));
	for (k = 0; k < m->o->n_classes; k++) {
		fprintf(out, "\nsl %d, tclass %d\n", m->o->classes[k].sl, m->o->classes[k].tclass);
		for (i = 0; i < MESH_N_PCTS; i++)
			mesh_matrix(out, m, k, mesh_pcts[i]);
	}
	fprintf(out, "\n(*: an outlier; unres: its rank falls among samples %s; few: too few "
		"samples for it)\n", "not above 0 (the loopback SEND completed at or after the wire SEND)");
	mesh_table_errors(out, m);
	fprintf(out, "\noutliers (median + %g x 1.4826 x MAD of each class's pairs): %s\n",
		m->o->mad_k, m->n_outliers ? "" : "none");
	for (i = 0; i < m->n_outliers; i++)
		fprintf(out, "  %s %s, sl %d: %s\n", mesh_kind_name(m->outliers[i].kind),
			m->outliers[i].name, m->o->classes[m->outliers[i].cls].sl, m->outliers[i].why);
	for (k = 0; m->o->topo && m->loc && k < m->o->n_classes; k++)
		report_mesh_hops_table(out, m, k);
	if (!m->complete) {
		log_escape(m->error[0] ? m->error : "stopped", text, sizeof(text));
		fprintf(out, "\nincomplete: %s\n", text);
	}
}

/* ------------------------------------------------------------------ */
/* CSV                                                                 */
/* ------------------------------------------------------------------ */

void report_mesh_csv(FILE *out, const struct mesh_run *m)
{
	struct mesh_row w = { m, NULL };
	size_t i;

	report_fields_csv(out, pair_fields, N_PAIR_FIELDS, NULL, 0);
	for (i = 0; i < m->n_pairs; i++) {
		w.p = &m->pairs[i];
		if (mesh_pair_shown(m, w.p))
			report_fields_csv(out, pair_fields, N_PAIR_FIELDS, &w, 0);
	}
}

/* report_mesh_csv() as a textfile_write() filler. */
static int mesh_csv_fill(FILE *f, void *m)
{
	report_mesh_csv(f, m);
	return ferror(f) ? -1 : 0;
}

int report_mesh_csv_write(const char *path, const struct mesh_run *m, char *err, size_t errlen)
{
	return textfile_write(path, mesh_csv_fill, (void *)m, err, errlen);
}

/* ------------------------------------------------------------------ */
/* OpenMetrics                                                         */
/* ------------------------------------------------------------------ */

/* A label value, escaped as the exposition format says (\\, \", \n). */
static void om_label(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

/* {src="..",dst="..",sl="..",tclass=".." (the pair's label fields) and @more (may be ""). */
static void om_labels(FILE *out, const struct mesh_run *m, const struct mesh_pair *p,
		      const char *more)
{
	const struct report_num plain = { .scale = 1, .prec = 0, .plus = false };
	const struct mesh_row w = { m, p };
	struct report_value v;
	const char *sep = "{";
	char text[256];
	size_t k;

	for (k = 0; k < N_PAIR_FIELDS; k++) {
		if (!pair_fields[k].label)
			continue;
		report_field_get(&pair_fields[k], &w, &v);
		report_value_text(&v, &plain, text, sizeof(text));
		fprintf(out, "%s%s=\"", sep, pair_fields[k].key);
		om_label(out, text);
		fputc('"', out);
		sep = ",";
	}
	fprintf(out, "%s}", more);
}

/* One pair's summary: its resolved quantiles, the count and sum of its resolved RTTs. */
static void om_summary(FILE *out, const struct mesh_run *m, const struct mesh_pair *p)
{
	static const char *const q[] = { "0.5", "0.99", "0.999" };
	const struct sketch_totals *t;
	struct report_figure fig;
	char more[32];
	uint64_t n;
	size_t j;

	if (!p->rtt_ns)
		return;
	for (j = 0; j < MESH_N_PCTS; j++) {
		mesh_figure(p, mesh_pcts[j], &fig);
		if (fig.state != HIST_Q_RESOLVED)
			continue;	/* not resolved: not a number */
		snprintf(more, sizeof(more), ",quantile=\"%s\"", q[j]);
		fputs("rperf_mesh_rtt_seconds", out);
		om_labels(out, m, p, more);
		fprintf(out, " %.9g\n", report_s(fig.ns));
	}
	t = sketch_totals(p->rtt_ns);
	n = t->count - t->zeros;
	fputs("rperf_mesh_rtt_seconds_count", out);
	om_labels(out, m, p, "");
	fprintf(out, " %" PRIu64 "\nrperf_mesh_rtt_seconds_sum", n);
	om_labels(out, m, p, "");
	fprintf(out, " %.9g\n", report_s((double)t->sum));
}

/* A gauge per pair: @what of each. */
static void om_gauge(FILE *out, const struct mesh_run *m, const char *name, const char *help,
		     bool outlier)
{
	const struct mesh_pair *p;
	size_t i;

	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (i = 0; i < m->n_pairs; i++) {
		p = &m->pairs[i];
		if (!mesh_pair_shown(m, p))
			continue;
		fputs(name, out);
		om_labels(out, m, p, "");
		fprintf(out, " %" PRIu64 "\n", outlier ? (uint64_t)p->outlier :
			p->rtt_ns ? sketch_totals(p->rtt_ns)->zeros : 0);
	}
}

/* The located hops: each identifiable one's round-trip share, and which are slow. */
static void om_hops(FILE *out, const struct mesh_run *m)
{
	const struct locate_hop *h;
	size_t k, i, pass;

	if (!m->o->topo || !m->loc)
		return;
	for (pass = 0; pass < 2; pass++) {
		fprintf(out, pass ? "# HELP rperf_mesh_hop_slow 1 when the hop is named slow\n"
			"# TYPE rperf_mesh_hop_slow gauge\n" :
			"# HELP rperf_mesh_hop_seconds A hop's round-trip share, where the pairs "
			"identify it\n# TYPE rperf_mesh_hop_seconds gauge\n");
		for (k = 0; k < m->o->n_classes; k++)
			for (i = 0; m->loc[k].ok && i < m->loc[k].res.n_hops; i++) {
				h = &m->loc[k].res.hops[i];
				if (!h->crossed || (!pass && !h->identifiable))
					continue;
				fputs(pass ? "rperf_mesh_hop_slow{link=\"" :
				      "rperf_mesh_hop_seconds{link=\"", out);
				om_label(out, m->o->topo->links[h->link].name);
				fprintf(out, "\",sl=\"%d\",tclass=\"%d\"} ", m->o->classes[k].sl,
					m->o->classes[k].tclass);
				if (pass)
					fprintf(out, "%d\n", h->slow);
				else
					fprintf(out, "%.9g\n", report_s(h->est_ns));
			}
	}
}

int report_mesh_openmetrics(FILE *out, const struct mesh_run *m)
{
	size_t i;

	fprintf(out, "# HELP rperf_mesh_rtt_seconds RTT of each ordered pair, its host's "
		"loopback subtracted (rperf mesh); unresolved quantiles left out\n"
		"# TYPE rperf_mesh_rtt_seconds summary\n");
	for (i = 0; i < m->n_pairs; i++)
		om_summary(out, m, &m->pairs[i]);
	om_gauge(out, m, "rperf_mesh_rtt_unresolved_samples",
		 "RTT samples not above 0 (the loopback SEND completed at or after the wire SEND)",
		 false);
	om_gauge(out, m, "rperf_mesh_pair_outlier",
		 "1 when the pair's p50 is an outlier of its SL (median + k MADs)", true);
	om_hops(out, m);
	fprintf(out, "# HELP rperf_mesh_complete 1 when every step of the mesh ran\n"
		"# TYPE rperf_mesh_complete gauge\nrperf_mesh_complete %d\n"
		"# HELP rperf_mesh_duration_seconds How long the mesh's pass took\n"
		"# TYPE rperf_mesh_duration_seconds gauge\nrperf_mesh_duration_seconds %.3f\n"
		"# EOF\n", m->complete, m->duration_s);
	return ferror(out) ? -1 : 0;
}

/* report_mesh_openmetrics() as a textfile_write() filler. */
static int mesh_om_fill(FILE *f, void *m)
{
	return report_mesh_openmetrics(f, m);
}

int report_mesh_openmetrics_write(const char *path, const struct mesh_run *m, char *err,
				  size_t errlen)
{
	return textfile_write(path, mesh_om_fill, (void *)m, err, errlen);
}

/* ------------------------------------------------------------------ */
/* gnuplot                                                             */
/* ------------------------------------------------------------------ */

/* The matrix of class @k's p50s in us, one row per source; NaN: no figure. */
static int mesh_plot_fill_dat(FILE *f, void *arg)
{
	const void *const *a = arg;
	const struct mesh_run *m = a[0];
	size_t k = *(const size_t *)a[1], n = m->o->n_hosts, s, d;
	struct report_figure fig;

	for (s = 0; s < n; s++) {
		for (d = 0; d < n; d++) {
			if (s != d)
				mesh_figure(&m->pairs[mesh_pair_index(n, (int)s, (int)d, k)], "p50",
					    &fig);
			if (s == d || fig.state != HIST_Q_RESOLVED)
				fprintf(f, "%sNaN", d ? " " : "");
			else
				fprintf(f, "%s%.3f", d ? " " : "", report_us(fig.ns));
		}
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

/* The script that draws the matrix @a[2] (a base name) as a heatmap. */
static int mesh_plot_fill_gp(FILE *f, void *arg)
{
	const void *const *a = arg;
	const struct mesh_run *m = a[0];
	size_t k = *(const size_t *)a[1], i;
	const char *base = a[2];

	fprintf(f, "# rperf mesh: p50 RTT per ordered pair, sl %d tclass %d (gnuplot %s.gp)\n"
		"set terminal pngcairo size 900,760 noenhanced font \",10\"\n"
		"set output \"%s.png\"\nset title \"rperf mesh: p50 RTT (us), sl %d\"\n"
		"set xlabel \"destination\"\nset ylabel \"source\"\nset yrange [] reverse\n"
		"set cblabel \"RTT (us)\"\nset palette defined (0 \"white\", 1 \"yellow\", "
		"2 \"red\")\nset xtics rotate by 45 right (", m->o->classes[k].sl,
		m->o->classes[k].tclass, base, base, m->o->classes[k].sl);
	for (i = 0; i < m->o->n_hosts; i++)
		fprintf(f, "%s\"%s\" %zu", i ? ", " : "", m->o->hosts[i], i);
	fprintf(f, ")\nset ytics (");
	for (i = 0; i < m->o->n_hosts; i++)
		fprintf(f, "%s\"%s\" %zu", i ? ", " : "", m->o->hosts[i], i);
	fprintf(f, ")\n# NaN: no figure (the diagonal, unresolved, too few samples)\n"
		"plot \"%s.dat\" matrix with image notitle\n", base);
	return ferror(f) ? -1 : 0;
}

int report_mesh_plot(const char *prefix, const struct mesh_run *m, char *err, size_t errlen)
{
	char base[1024], path[1100];
	const void *arg[3];
	size_t k;
	int ret;

	for (k = 0; k < m->o->n_classes; k++) {
		if (m->o->classes[k].tclass)
			snprintf(base, sizeof(base), "%s-sl%d-tc%d", prefix, m->o->classes[k].sl,
				 m->o->classes[k].tclass);
		else
			snprintf(base, sizeof(base), "%s-sl%d", prefix, m->o->classes[k].sl);
		arg[0] = m;
		arg[1] = &k;
		arg[2] = base;
		snprintf(path, sizeof(path), "%s.dat", base);
		ret = textfile_write(path, mesh_plot_fill_dat, arg, err, errlen);
		snprintf(path, sizeof(path), "%s.gp", base);
		if (!ret)
			ret = textfile_write(path, mesh_plot_fill_gp, arg, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
