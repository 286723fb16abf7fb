/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the agent's step setup (agent/agent_session.c).
 * The input is a control message body as the agent's channel delivers it
 * (ctl_parse(), which ctl_recv() calls after the frame); a setup message
 * it accepts is decoded by agent_setup_decode() into the step, as the
 * agent does before it opens anything.
 *
 * The decoded step must hold what the schema let through and nothing
 * else: at most CTL_MAX_FLOWS flows, each named, of its type, with its
 * SL, size, threads, QPs and destination as the message gave them and
 * within the schema's limits.
 */
#include <errno.h>

#include "agent/agent_int.h"
#include "wire/ctl.h"
#include "fuzz.h"

/* The integer @k of @o, as the message carries it. */
static json_int_t fuzz_setup_int(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* Flow @f, decoded from @j: abort unless it is @j, within the limits. */
static void fuzz_setup_flow(const struct agent_flow *f, const json_t *j)
{
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *dest = json_string_value(json_object_get(j, "dest"));

	if (!name || strcmp(f->name, name) || !*f->name || !dest || strcmp(f->dest, dest))
		abort();
	if (f->bw != !strcmp(json_string_value(json_object_get(j, "type")), "bw"))
		abort();
	if (f->path.sl > 15 || f->path.sl != fuzz_setup_int(j, "sl") ||
	    f->path.tclass != fuzz_setup_int(j, "tclass"))
		abort();
	if (f->spec.size_bytes < 1 || f->spec.size_bytes > (1u << 30) ||
	    (json_int_t)f->spec.size_bytes != fuzz_setup_int(j, "size"))
		abort();
	if (f->spec.threads < 1 || f->spec.threads > 64 || f->spec.qps < 1 || f->spec.qps > 64 ||
	    f->spec.threads != fuzz_setup_int(j, "threads") || f->spec.qps != fuzz_setup_int(j, "qps"))
		abort();
	if (!f->dest_port || f->dest_port != fuzz_setup_int(j, "dest_port"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agent_step st;
	const json_t *flows;
	char err[256];
	json_t *m;
	const char *bad_flow;
	size_t i;

	if (ctl_parse((const char *)data, size, &m, err, sizeof(err)))
		return 0;
	if (strcmp(ctl_type(m), "setup")) {
		json_decref(m);
		return 0;
	}
	memset(&st, 0, sizeof(st));
	if (agent_setup_decode(&st, m, &bad_flow, err, sizeof(err))) {
		json_decref(m);	/* a flow whose settings do not hold together */
		return 0;
	}
	flows = json_object_get(m, "flows");
	if (st.n_flows > CTL_MAX_FLOWS || st.n_flows != json_array_size(flows))
		abort();
	if (!st.data_port || st.data_port != fuzz_setup_int(m, "data_port") ||
	    st.sink_role != json_is_true(json_object_get(m, "sink")))
		abort();
	for (i = 0; i < st.n_flows; i++)
		fuzz_setup_flow(&st.flows[i], json_array_get(flows, i));
	json_decref(m);
	return 0;
}
