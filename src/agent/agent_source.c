/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The sources' side of a step: each flow a source of the run engine
 * (engine/run.h) on the step's device and clock, its workers' lat probe
 * or bw QPs connected to its destination's sink, all started by the
 * step's gate at one instant; then each flow's result (bytes, errors, a
 * lat flow's RTTs) for the coordinator.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/agent_int.h"
#include "flow/figures.h"
#include "engine/load.h"
#include "engine/run.h"
#include "rdma/conn.h"
#include "base/errbuf.h"

/* One request a post list, as bw's default; the window is load's. */
#define AGENT_BATCH		1

/* ------------------------------------------------------------------ */
/* Source: setup                                                       */
/* ------------------------------------------------------------------ */

/*
 * run_src_cfg's connect hook for flow @arg: a lat worker's wire QP, or
 * each of a bw worker's QPs, a flow to the destination's sink.
 */
static int agent_connect(void *arg, struct probe *p, struct load *l, char *err, size_t errlen)
{
	struct agent_flow *f = arg;
	struct load_qp *q;
	unsigned i;
	int ret;

	if (p)
		return conn_client_flow(f->dest, f->dest_port, &p->wire, &f->path,
					f->spec.size_bytes, f->secret, NULL, AGENT_MSG_MS, err,
					errlen);
	for (i = 0; i < l->n_qps; i++) {
		q = &l->qps[i];
		q->ctl_fd = conn_client_flow(f->dest, f->dest_port, &q->qp, &f->path,
					     f->spec.size_bytes, f->secret, NULL, AGENT_MSG_MS, err,
					     errlen);
		if (q->ctl_fd < 0)
			return q->ctl_fd;
		/* SENDs, but the run ends with a zero-length WRITE to the sink's
		 * buffer: without it a paced QP's last requests never report. */
		ret = load_qp_ask_mr(q, f->spec.size_bytes, f->dest, AGENT_MSG_MS, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* Flow @i's source on the step's device, clock, gate and stop flag. */
static void agent_src_cfg(struct agent_step *st, size_t i, int first_cpu)
{
	struct agent_flow *f = &st->flows[i];

	st->src_cfg[i] = (struct run_src_cfg){
		.dev = &st->dev,
		.clk = &st->clk,
		.spec = &f->spec,
		.path = &f->path,
		.ops = f->bw ? &run_src_bw_ops : &run_src_lat_ops,
		.peer = f->dest,
		.tx_depth = LOAD_TX_DEPTH_DEFAULT,
		.batch = AGENT_BATCH,
		.cq_mod = LOAD_CQ_MOD_DEFAULT,
		.tail_ns = AGENT_TAIL_NS,
		.first_cpu = first_cpu,
		.connect = agent_connect,
		.arg = f,
		.gate = &st->gate,
		.stop = &st->stop,
		.yield = st->yield,
	};
}

/* Flow @f's data connections, by their local address, into @conns. */
static void agent_conns_json(const struct run_src *r, const struct agent_flow *f, json_t *conns)
{
	int fds[FLOW_MAX_THREADS * (FLOW_MAX_QPS + 1)];
	char name[128];
	size_t k, n;
	json_t *c;

	n = run_src_fds(r, fds, sizeof(fds) / sizeof(fds[0]));
	for (k = 0; k < n; k++) {
		conn_sock_name(fds[k], name, sizeof(name));
		c = json_object();
		json_object_set_new(c, "flow", json_string(f->name));
		json_object_set_new(c, "local", json_string(name));
		json_array_append_new(conns, c);
	}
}

/* Every worker of every flow: its thread, which pins itself, connects
 * and waits for the start; fill the ready message. */
int agent_source_setup(struct agent_step *st, json_t *conns, const char **bad_flow, char *err,
		       size_t errlen)
{
	uint64_t end_ns = ctl_now_ns() + (uint64_t)AGENT_READY_MS * 1000000u, now_ns;
	size_t i;
	int ret;

	ret = run_gate_init(&st->gate, err, errlen);
	for (i = 0; !ret && i < st->n_flows; i++) {
		agent_src_cfg(st, i, (int)st->n_w);
		now_ns = ctl_now_ns();
		st->src_cfg[i].ready_ms = now_ns < end_ns ? (unsigned)((end_ns - now_ns) / 1000000u) : 0;
		*bad_flow = st->flows[i].name;
		st->n_src = i + 1;
		ret = run_src_prepare(&st->src[i], &st->src_cfg[i], err, errlen);
		st->n_w += st->src[i].n_w;
		if (ret)
			return ret;
		agent_conns_json(&st->src[i], &st->flows[i], conns);
	}
	*bad_flow = NULL;
	return ret;
}

void agent_source_release(struct agent_step *st)
{
	size_t i;

	run_gate_quit(&st->gate);
	for (i = 0; i < st->n_src; i++)
		run_src_release(&st->src[i]);
	run_gate_destroy(&st->gate);
	st->n_src = 0;
	st->n_w = 0;
}

/* ------------------------------------------------------------------ */
/* Source: results                                                     */
/* ------------------------------------------------------------------ */

/* Flow @f's result from its source @r, run through and finished. */
static json_t *agent_flow_result(const struct agent_step *st, const struct agent_flow *f,
				 const struct run_src *r)
{
	const struct flow_result *sum = &r->total;
	json_t *o = json_object(), *rtt;
	const char *error = r->error;

	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "type", json_string(f->bw ? "bw" : "lat"));
	json_object_set_new(o, "samples", json_integer((json_int_t)sum->samples));
	json_object_set_new(o, "msgs", json_integer((json_int_t)sum->msgs));
	json_object_set_new(o, "bytes", json_integer((json_int_t)sum->bytes));
	/* How long its bw workers ran: what its bytes were sent in. */
	if (f->bw)
		json_object_set_new(o, "elapsed_ns", json_integer((json_int_t)
				    figures_ns(&st->clk, (double)sum->elapsed_ticks)));
	if (r->started)
		json_object_set_new(o, "start_late_ns", json_integer((json_int_t)r->late_ns));
	/* In ticks with their rate (see ctl.c): exact, whatever this host's clock. */
	if (!f->bw && (rtt = hist_wire_pack(sum->rtt))) {
		json_object_set_new(o, "rtt", rtt);
		json_object_set_new(o, "ticks_per_ns", json_real(st->clk.ticks_per_ns));
	}
	/* Stopped by the coordinator or a signal: say why, not just "interrupted". */
	if (error && r->stopped && st->stop_reason[0])
		json_object_set_new(o, "error", json_sprintf("stopped: %s", st->stop_reason));
	else if (error)
		json_object_set_new(o, "error", json_string(error));
	return o;
}

/* ------------------------------------------------------------------ */
/* Source: the step                                                    */
/* ------------------------------------------------------------------ */

void agent_source_start(struct agent_step *st)
{
	run_gate_open(&st->gate, st->at_ns, st->warmup_ns, st->duration_ns);
}

bool agent_source_reap(struct agent_step *st)
{
	bool done = true;
	size_t i;

	for (i = 0; i < st->n_src; i++)
		done = run_src_reap(&st->src[i]) && done;
	return done;
}

json_t *agent_source_results(struct agent_step *st)
{
	json_t *flows = json_array();
	size_t i;

	for (i = 0; i < st->n_src; i++) {
		run_src_finish(&st->src[i]);
		json_array_append_new(flows, agent_flow_result(st, &st->flows[i], &st->src[i]));
	}
	return flows;
}
