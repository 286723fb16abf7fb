/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server's report (see report_server.h): what the sink received, flow by
 * flow and summed per SL, with the side connections and flows it
 * refused and the connections closed without a hello, as JSON
 * and as a table. A flow's and an SL's figures are described once
 * (flow_fields, sl_fields), so the table and the JSON say the same
 * things. It reads the sink's counters as they stand when the server
 * stops; nothing here is measured in ticks.
 */
#include <inttypes.h>
#include <string.h>

#include "report/report_int.h"
#include "report/report_server.h"
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

/* Flow row @row's figure @arg: its key in the flows list. */
static void get_flow(const void *row, const char *arg, struct report_value *v)
{
	const struct sink_flow *f = ((const struct server_row *)row)->f;

	if (!strcmp(arg, "peer"))
		rv_str(v, f->peer);
	else if (!strcmp(arg, "active"))
		rv_bool(v, f->active);
	else if (!strcmp(arg, "gid_index") && f->gid_index < 0)
		rv_null(v, NULL);
	else if (!strcmp(arg, "gid_index"))
		rv_int(v, f->gid_index);
	else if (!strcmp(arg, "id"))
		rv_int(v, f->id);
	else if (!strcmp(arg, "sl"))
		rv_int(v, f->path.sl);
	else if (!strcmp(arg, "tclass"))
		rv_int(v, f->path.tclass);
	else
		rv_int(v, (long long)(!strcmp(arg, "msgs") ? f->msgs : !strcmp(arg, "bytes") ?
				      f->bytes : f->errors));
}

/* SL total row @row's figure @arg: its key in the sls list. */
static void get_total(const void *row, const char *arg, struct report_value *v)
{
	const struct server_row *w = row;

	rv_int(v, !strcmp(arg, "sl") ? (long long)w->sl : !strcmp(arg, "flows") ?
		  (long long)w->t->flows : (long long)(!strcmp(arg, "msgs") ? w->t->msgs :
						       w->t->bytes));
}

/* A figure @k read by its row's getter. */
#define FLOW(k)		.key = (k), .arg = (k), .get = get_flow
#define TOTAL(k)	.key = (k), .arg = (k), .get = get_total

/* A flow: its keys in schema/server.schema.json's flows, its columns. */
static const struct report_field flow_fields[] = {
	{ FLOW("id"), .head = REPORT_HEADS("flow"), .width = 5 },
	{ FLOW("peer"), .head = REPORT_HEADS("peer"), .width = -24 },
	{ FLOW("sl"), .head = REPORT_HEADS("sl"), .width = 3 },
	{ FLOW("tclass"), .head = REPORT_HEADS("tclass"), .width = 6 },
	{ FLOW("gid_index"), .head = REPORT_HEADS("gid"), .width = 4 },
	{ FLOW("msgs"), .head = REPORT_HEADS("msgs"), .width = 12 },
	{ FLOW("bytes"), .head = REPORT_HEADS("bytes"), .width = 14 },
	{ FLOW("errors"), .head = REPORT_HEADS("errors"), .width = 7 },
	{ FLOW("active"), .head = REPORT_HEADS("active"), .width = 6 },
};

/* An SL's totals: its keys in schema/server.schema.json's sls, its columns. */
static const struct report_field sl_fields[] = {
	{ TOTAL("sl"), .head = REPORT_HEADS("sl"), .width = 3 },
	{ TOTAL("flows"), .head = REPORT_HEADS("flows"), .width = 6 },
	{ TOTAL("msgs"), .head = REPORT_HEADS("msgs"), .width = 12 },
	{ TOTAL("bytes"), .head = REPORT_HEADS("bytes"), .width = 14 },
};

#undef FLOW
#undef TOTAL


const struct report_field *report_server_fields(enum report_server_list l, size_t *n)
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
	const struct report_field *f;
	size_t n;

	f = report_server_fields(l, &n);
	return report_fields_json(f, n, w, 0);
}

/* Row @w of list @l as the table's line (@w NULL: the heading). */
static void server_row_table(FILE *out, enum report_server_list l, const struct server_row *w)
{
	const struct report_field *f;
	size_t n;

	f = report_server_fields(l, &n);
	report_fields_table(out, f, n, w, 0, false);
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
