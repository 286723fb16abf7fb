/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf server's report (see report.h): what the sink received, flow by
 * flow and summed per SL, with the side connections and flows it
 * refused and the connections closed without a hello, as JSON
 * and as a table. It reads the sink's counters as they stand when the
 * server stops; nothing here is measured in ticks.
 */
#include <inttypes.h>
#include <string.h>

#include "report/report.h"
#include "engine/sink.h"

/* Per-SL totals over every flow, closed ones included. */
struct sl_total {
	uint64_t flows, msgs, bytes;
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

json_t *report_server_json(const struct sink *s, double elapsed_s)
{
	json_t *root = report_doc_new("server"), *flows = json_array(), *sls = json_array(), *o;
	const struct sink_flow *f;
	struct sl_total t[16];
	size_t i;

	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		o = json_object();
		json_object_set_new(o, "id", json_integer(f->id));
		json_object_set_new(o, "peer", json_string(f->peer));
		json_object_set_new(o, "sl", json_integer(f->path.sl));
		json_object_set_new(o, "tclass", json_integer(f->path.tclass));
		json_object_set_new(o, "gid_index", f->gid_index < 0 ? json_null() :
						    json_integer(f->gid_index));
		json_object_set_new(o, "msgs", json_integer((json_int_t)f->msgs));
		json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
		json_object_set_new(o, "errors", json_integer((json_int_t)f->errors));
		json_object_set_new(o, "active", json_boolean(f->active));
		json_array_append_new(flows, o);
	}
	server_sl_totals(s, t);
	for (i = 0; i < 16; i++) {
		if (!t[i].flows)
			continue;
		o = json_object();
		json_object_set_new(o, "sl", json_integer((json_int_t)i));
		json_object_set_new(o, "flows", json_integer((json_int_t)t[i].flows));
		json_object_set_new(o, "msgs", json_integer((json_int_t)t[i].msgs));
		json_object_set_new(o, "bytes", json_integer((json_int_t)t[i].bytes));
		json_array_append_new(sls, o);
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
	/* Connections closed before a whole hello: idle, slow, crowded out. */
	json_object_set_new(root, "connections_without_hello",
			    json_integer((json_int_t)s->gate.dropped));
	return root;
}

void report_server_table(FILE *out, const struct sink *s, double elapsed_s)
{
	const struct sink_flow *f;
	struct sl_total t[16];
	size_t i;

	fprintf(out, "rperf server on %s: %zu flow%s in %.1f s\n\n%5s %-24s %3s %6s %12s %14s %7s\n",
		s->dev->name, s->n_flows, s->n_flows == 1 ? "" : "s", elapsed_s, "flow", "peer",
		"sl", "tclass", "msgs", "bytes", "errors");
	for (i = 0; i < s->n_flows; i++) {
		f = s->flows[i];
		fprintf(out, "%5u %-24s %3u %6u %12" PRIu64 " %14" PRIu64 " %7" PRIu64 "\n", f->id,
			f->peer, f->path.sl, f->path.tclass, f->msgs, f->bytes, f->errors);
	}
	server_sl_totals(s, t);
	fprintf(out, "\n%3s %6s %12s %14s\n", "sl", "flows", "msgs", "bytes");
	for (i = 0; i < 16; i++)
		if (t[i].flows)
			fprintf(out, "%3zu %6" PRIu64 " %12" PRIu64 " %14" PRIu64 "\n", i, t[i].flows,
				t[i].msgs, t[i].bytes);
	if (s->attach_refused)
		fprintf(out, "\n%" PRIu64 " side connection%s refused (wrong address or secret)\n",
			s->attach_refused, s->attach_refused == 1 ? "" : "s");
	if (s->admit_refused)
		fprintf(out, "%" PRIu64 " flow%s refused (--max-clients, --max-pinned)\n",
			s->admit_refused, s->admit_refused == 1 ? "" : "s");
	if (s->gate.dropped)
		fprintf(out, "%" PRIu64 " connection%s closed without a hello\n", s->gate.dropped,
			s->gate.dropped == 1 ? "" : "s");
}
