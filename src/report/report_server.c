/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server's report (see report.h): what the sink received, flow by
 * flow and summed per SL, with the side connections and flows it
 * refused and the connections closed without a hello, as JSON
 * and as a table. A flow's and an SL's figures are described once
 * (flow_fields, sl_fields), so the table and the JSON say the same
 * things. It reads the sink's counters as they stand when the server
 * stops; nothing here is measured in ticks.
 */
#include <inttypes.h>
#include <string.h>

#include "report/report.h"
#include "engine/sink.h"

/* Per-SL totals over every flow, closed ones included. */
struct sl_total {
	uint64_t flows, msgs, bytes;
};

/* A row of the server's report: flow @f, or SL @sl's totals @t. */
struct server_row {
	const struct sink_flow *f;
	unsigned sl;
	const struct sl_total *t;
};

static void server_sl_totals(const struct sink *s, struct sl_total t[16])
{
	const struct sink_flow *f;
	size_t i;

	memset(t, 0, 16 * sizeof(*t));
	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		t[f->path.sl & 15].flows++;
		t[f->path.sl & 15].msgs += f->msgs;
		t[f->path.sl & 15].bytes += f->bytes;
	}
}

/* ------------------------------------------------------------------ */
/* The rows' figures                                                   */
/* ------------------------------------------------------------------ */

static void get_id(const struct server_row *w, struct report_value *v)
{
	rv_int(v, w->f->id);
}

static void get_peer(const struct server_row *w, struct report_value *v)
{
	rv_str(v, w->f->peer);
}

static void get_flow_sl(const struct server_row *w, struct report_value *v)
{
	rv_int(v, w->f->path.sl);
}

static void get_tclass(const struct server_row *w, struct report_value *v)
{
	rv_int(v, w->f->path.tclass);
}

static void get_gid_index(const struct server_row *w, struct report_value *v)
{
	if (w->f->gid_index < 0)
		rv_null(v, NULL);
	else
		rv_int(v, w->f->gid_index);
}

static void get_flow_msgs(const struct server_row *w, struct report_value *v)
{
	rv_int(v, (long long)w->f->msgs);
}

static void get_flow_bytes(const struct server_row *w, struct report_value *v)
{
	rv_int(v, (long long)w->f->bytes);
}

static void get_errors(const struct server_row *w, struct report_value *v)
{
	rv_int(v, (long long)w->f->errors);
}

static void get_active(const struct server_row *w, struct report_value *v)
{
	rv_bool(v, w->f->active);
}

static void get_sl(const struct server_row *w, struct report_value *v)
{
	rv_int(v, w->sl);
}

static void get_sl_flows(const struct server_row *w, struct report_value *v)
{
	rv_int(v, (long long)w->t->flows);
}

static void get_sl_msgs(const struct server_row *w, struct report_value *v)
{
	rv_int(v, (long long)w->t->msgs);
}

static void get_sl_bytes(const struct server_row *w, struct report_value *v)
{
	rv_int(v, (long long)w->t->bytes);
}

/* A flow: its keys in schema/server.schema.json's flows, its columns. */
static const struct report_server_field flow_fields[] = {
	{ "id", "flow", 5, get_id },
	{ "peer", "peer", -24, get_peer },
	{ "sl", "sl", 3, get_flow_sl },
	{ "tclass", "tclass", 6, get_tclass },
	{ "gid_index", "gid", 4, get_gid_index },
	{ "msgs", "msgs", 12, get_flow_msgs },
	{ "bytes", "bytes", 14, get_flow_bytes },
	{ "errors", "errors", 7, get_errors },
	{ "active", "active", 6, get_active },
};

/* An SL's totals: its keys in schema/server.schema.json's sls, its columns. */
static const struct report_server_field sl_fields[] = {
	{ "sl", "sl", 3, get_sl },
	{ "flows", "flows", 6, get_sl_flows },
	{ "msgs", "msgs", 12, get_sl_msgs },
	{ "bytes", "bytes", 14, get_sl_bytes },
};

#define N_OF(a)		(sizeof(a) / sizeof((a)[0]))

const struct report_server_field *report_server_fields(enum report_server_list l, size_t *n)
{
	*n = l == RS_FLOWS ? N_OF(flow_fields) : N_OF(sl_fields);
	return l == RS_FLOWS ? flow_fields : sl_fields;
}

/* ------------------------------------------------------------------ */
/* The formats                                                         */
/* ------------------------------------------------------------------ */

/* Row @w of list @l as its JSON object. */
static json_t *server_row_json(enum report_server_list l, const struct server_row *w)
{
	const struct report_server_field *f;
	struct report_value v;
	json_t *o = json_object();
	size_t n, k;

	f = report_server_fields(l, &n);
	for (k = 0; k < n; k++) {
		memset(&v, 0, sizeof(v));
		f[k].get(w, &v);
		json_object_set_new(o, f[k].key, report_value_json(&v));
	}
	return o;
}

/* Row @w of list @l as the table's line (@w NULL: the heading). */
static void server_row_table(FILE *out, enum report_server_list l, const struct server_row *w)
{
	static const struct report_num plain = { 0 };
	const struct report_server_field *f;
	struct report_value v;
	char cell[80];
	size_t n, k;

	f = report_server_fields(l, &n);
	for (k = 0; k < n; k++) {
		if (w) {
			memset(&v, 0, sizeof(v));
			f[k].get(w, &v);
			report_value_text(&v, &plain, cell, sizeof(cell));
		}
		fprintf(out, "%s%*s", k ? " " : "", f[k].width, w ? cell : f[k].head);
	}
	fprintf(out, "\n");
}

json_t *report_server_json(const struct sink *s, double elapsed_s)
{
	json_t *root = report_doc_new("server"), *flows = json_array(), *sls = json_array();
	struct server_row w = { 0 };
	struct sl_total t[16];
	size_t i;

	for (i = 0; i < s->n_flows; i++) {
		w.f = s->flows[i];
		json_array_append_new(flows, server_row_json(RS_FLOWS, &w));
	}
	server_sl_totals(s, t);
	for (i = 0; i < 16; i++) {
		if (!t[i].flows)
			continue;
		w = (struct server_row){ .sl = (unsigned)i, .t = &t[i] };
		json_array_append_new(sls, server_row_json(RS_SLS, &w));
	}
	json_object_set_new(root, "device", json_string(s->dev->name));
	json_object_set_new(root, "elapsed_s", json_real(elapsed_s));
	json_object_set_new(root, "flows", flows);
	json_object_set_new(root, "sls", sls);
	/* Side connections to rdma_cm flows from the wrong address or secret. */
	json_object_set_new(root, "side_connections_refused",
			    json_integer((json_int_t)s->attach_refused));
	/* Flows refused at the caps (--max-clients, --max-pinned). */
	json_object_set_new(root, "flows_refused", json_integer((json_int_t)s->admit_refused));
	/* With --token-file every flow's client proved the token; refusals for it. */
	json_object_set_new(root, "authenticated", json_boolean(s->token != NULL));
	json_object_set_new(root, "clients_refused_token",
			    json_integer((json_int_t)s->auth_refused));
	/* Connections closed before a whole hello: idle, slow, crowded out. */
	json_object_set_new(root, "connections_without_hello",
			    json_integer((json_int_t)s->gate.dropped));
	return root;
}

void report_server_table(FILE *out, const struct sink *s, double elapsed_s)
{
	struct server_row w = { 0 };
	struct sl_total t[16];
	size_t i;

	fprintf(out, "rperf server on %s: %zu flow%s in %.1f s\n\n", s->dev->name, s->n_flows,
		s->n_flows == 1 ? "" : "s", elapsed_s);
	server_row_table(out, RS_FLOWS, NULL);
	for (i = 0; i < s->n_flows; i++) {
		w.f = s->flows[i];
		server_row_table(out, RS_FLOWS, &w);
	}
	server_sl_totals(s, t);
	fprintf(out, "\n");
	server_row_table(out, RS_SLS, NULL);
	for (i = 0; i < 16; i++) {
		if (!t[i].flows)
			continue;
		w = (struct server_row){ .sl = (unsigned)i, .t = &t[i] };
		server_row_table(out, RS_SLS, &w);
	}
	if (s->attach_refused)
		fprintf(out, "\n%" PRIu64 " side connection%s refused (wrong address or secret)\n",
			s->attach_refused, s->attach_refused == 1 ? "" : "s");
	if (s->admit_refused)
		fprintf(out, "%" PRIu64 " flow%s refused (--max-clients, --max-pinned)\n",
			s->admit_refused, s->admit_refused == 1 ? "" : "s");
	if (s->auth_refused)
		fprintf(out, "%" PRIu64 " client%s refused for the token (none, or a wrong one)\n",
			s->auth_refused, s->auth_refused == 1 ? "" : "s");
	if (s->gate.dropped)
		fprintf(out, "%" PRIu64 " connection%s closed without a hello\n", s->gate.dropped,
			s->gate.dropped == 1 ? "" : "s");
}
