/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The mesh's located hops, as the fabric's localization gave them
 * (fabric/locate.h): each class's hops, its fit and its findings in the
 * JSON document and in the table, and the outputs of --replay.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coord/mesh.h"
#include "report/mesh_int.h"
#include "report/report_mesh_locate.h"
#include "report/value.h"

/* @v in ns, or null where it is no figure (not identifiable: NAN; unbounded). */
static json_t *mesh_ns_or_null(double v)
{
	return isfinite(v) ? json_real(round(v * 10) / 10) : json_null();
}

/* One hop of class @k, as the fabric's localization gave it. */
static json_t *mesh_hop_json(const struct mesh_run *m, size_t k, const struct locate_hop *h)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(m->o->topo->links[h->link].name));
	json_object_set_new(o, "sl", json_integer(m->o->classes[k].sl));
	json_object_set_new(o, "tclass", json_integer(m->o->classes[k].tclass));
	json_object_set_new(o, "est_ns", mesh_ns_or_null(h->est_ns));
	json_object_set_new(o, "ci_low_ns", mesh_ns_or_null(h->ci_low_ns));
	json_object_set_new(o, "ci_high_ns", mesh_ns_or_null(h->ci_high_ns));
	json_object_set_new(o, "identifiable", json_boolean(h->identifiable));
	json_object_set_new(o, "group", json_integer(h->group));
	json_object_set_new(o, "group_est_ns", mesh_ns_or_null(h->group_est_ns));
	json_object_set_new(o, "group_ci_low_ns", mesh_ns_or_null(h->group_ci_low_ns));
	json_object_set_new(o, "group_ci_high_ns", mesh_ns_or_null(h->group_ci_high_ns));
	json_object_set_new(o, "crossed", json_boolean(h->crossed));
	json_object_set_new(o, "slow", json_boolean(h->slow));
	json_object_set_new(o, "why", json_string(h->why));
	return o;
}

static const char *const mesh_finding_kind[] = {
	[LOCATE_SWITCH] = "switch", [LOCATE_GROUP] = "group", [LOCATE_HOP] = "hop",
	[LOCATE_MISFIT] = "misfit",
};

/* Where class @k's paths came from. */
static const char *mesh_routes_source(const struct mesh_run *m)
{
	return m->o->paths ? m->o->paths->source : "shortest";
}

/* Class @k's findings: what to act on. */
static json_t *mesh_findings_json(const struct mesh_locate *l)
{
	json_t *a = json_array();

	for (size_t i = 0; l->ok && i < l->res.n_findings; i++) {
		const struct locate_finding *f = &l->res.findings[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:s}", "kind",
			mesh_finding_kind[f->kind], "name", f->name, "est_ns",
			mesh_ns_or_null(f->est_ns), "ci_low_ns", mesh_ns_or_null(f->ci_low_ns),
			"ci_high_ns", mesh_ns_or_null(f->ci_high_ns), "why", f->why));
	}
	return a;
}

/* Class @k's fit: the locate object of schema/mesh.schema.json. */
static json_t *mesh_fit_json(const struct mesh_run *m, size_t k)
{
	const struct mesh_locate *l = &m->loc[k];
	json_t *o = json_pack("{s:i, s:i, s:o, s:I, s:I, s:I, s:I, s:b, s:o}", "sl",
			      m->o->classes[k].sl, "tclass", m->o->classes[k].tclass,
			      "residual_rms_ns", l->ok ? mesh_ns_or_null(l->res.residual_rms_ns) :
			      json_null(), "used", (json_int_t)l->res.n_used, "unresolved",
			      (json_int_t)l->res.n_unresolved, "no_reference",
			      (json_int_t)l->n_no_ref, "rank", (json_int_t)l->res.rank, "ecmp",
			      l->res.ecmp, "error", l->ok ? json_null() : json_string(l->error));

	json_object_set_new(o, "ecmp_unknown", json_integer((json_int_t)l->res.n_ecmp));
	json_object_set_new(o, "ecmp_undecided", json_integer((json_int_t)l->res.n_ecmp_undecided));
	json_object_set_new(o, "routes", json_string(mesh_routes_source(m)));
	json_object_set_new(o, "misfit", json_boolean(l->ok && l->res.misfit));
	json_object_set_new(o, "interval_sd_ns", l->ok ? mesh_ns_or_null(l->res.interval_sd_ns) :
			    json_null());
	json_object_set_new(o, "floor_ns", m->o->n_refs ? mesh_ns_or_null(l->floor_ns) :
			    json_null());
	json_object_set_new(o, "findings", mesh_findings_json(l));
	return o;
}

/* "hops", "locate" and "locate_by_sl" into @o: null without a topology. */
void report_mesh_locate_json(json_t *o, const struct mesh_run *m)
{
	json_t *hops = json_array(), *by = json_array();
	size_t k, i;

	if (!m->o->topo || !m->loc) {
		json_decref(hops);
		json_decref(by);
		json_object_set_new(o, "hops", json_null());
		json_object_set_new(o, "locate", json_null());
		json_object_set_new(o, "locate_by_sl", json_null());
		return;
	}
	for (k = 0; k < m->o->n_classes; k++) {
		for (i = 0; m->loc[k].ok && i < m->loc[k].res.n_hops; i++)
			json_array_append_new(hops, mesh_hop_json(m, k, &m->loc[k].res.hops[i]));
		json_array_append_new(by, mesh_fit_json(m, k));
	}
	json_object_set_new(o, "hops", hops);
	json_object_set(o, "locate", json_array_get(by, 0));
	json_object_set_new(o, "locate_by_sl", by);
}

static void mesh_us(char *buf, size_t len, double ns)
{
	if (isfinite(ns))
		snprintf(buf, len, "%.3f", report_us(ns));
	else
		snprintf(buf, len, "%s", isnan(ns) ? "-" : "inf");
}

/* Class @k's located hops: those some pair crosses, then the fit. */
void report_mesh_hops_table(FILE *out, const struct mesh_run *m, size_t k)
{
	const struct mesh_locate *l = &m->loc[k];
	const struct locate_hop *h;
	char est[24], lo[24], hi[24];
	size_t i;

	fprintf(out, "\nhops, sl %d (round-trip share, us [95 %% interval]):\n",
		m->o->classes[k].sl);
	if (!l->ok) {
		fprintf(out, "  not located: %s\n", l->error);
		return;
	}
	for (i = 0; i < l->res.n_hops; i++) {
		h = &l->res.hops[i];
		if (!h->crossed)
			continue;
		mesh_us(est, sizeof(est), h->est_ns);
		mesh_us(lo, sizeof(lo), h->ci_low_ns);
		mesh_us(hi, sizeof(hi), h->ci_high_ns);
		fprintf(out, "  %-32s %9s [%s, %s]%s  %s\n", m->o->topo->links[h->link].name, est,
			lo, hi, h->slow ? " SLOW" : "", h->why);
	}
	fprintf(out, "residual %.3f us RMS over %zu pairs (%zu unresolved left out%s), rank %zu; "
		"paths: %s\n", report_us(l->res.residual_rms_ns), l->res.n_used,
		l->res.n_unresolved, m->o->n_refs ? ", as the change since the reference" : "",
		l->res.rank, mesh_routes_source(m));
	if (l->res.n_ecmp)
		fprintf(out, "ECMP: %zu pairs' paths are not known (several equal-cost paths): each "
			"fitted to the one its figure fits best, %zu left the mean of them\n",
			l->res.n_ecmp, l->res.n_ecmp_undecided);
	if (m->o->n_refs)
		fprintf(out, "a change must pass %.3f us (%s)\n", report_us(l->floor_ns),
			isnan(m->o->min_change_ns) ? "from the reference's spread" : "--min-change");
	fprintf(out, "found:%s\n", l->res.n_findings ? "" : " nothing slow");
	for (i = 0; i < l->res.n_findings; i++)
		fprintf(out, "  %s %s: %s\n", mesh_finding_kind[l->res.findings[i].kind],
			l->res.findings[i].name, l->res.findings[i].why);
}

void report_mesh_replay_table(FILE *out, const struct mesh_report_info *info,
			      const struct mesh_run *m)
{
	size_t k, i, n = 0;

	for (i = 0; i < m->n_pairs; i++)
		n += m->pairs[i].p50.state == HIST_Q_RESOLVED;
	fprintf(out, "rperf mesh --replay %s: %zu hosts, %zu classes, %zu pairs with a p50 and "
		"its interval%s\n", info->source, m->o->n_hosts, m->o->n_classes, n,
		m->complete ? "" : " (the saved mesh was incomplete)");
	for (k = 0; m->loc && k < m->o->n_classes; k++)
		report_mesh_hops_table(out, m, k);
}

json_t *report_mesh_replay_json(const json_t *doc, const struct mesh_report_info *info,
				const struct mesh_run *m)
{
	json_t *o = json_deep_copy(doc);

	report_mesh_locate_json(o, m);
	json_object_set_new(json_object_get(o, "config"), "reference", info->reference ?
			    json_string(info->reference) : json_null());
	return o;
}
