/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the agents sent, into a step: the flows that ran, their
 * destinations' ports and their classes (SL, or ETS band) at each, the
 * sources' latency and errors, what each destination received per flow
 * and class, the shares, and the share the arbitration's analysis
 * predicts for that traffic, port by port. Apart from the session
 * because none of it talks to an agent, but for coord_run_step(), which
 * runs a step through the session and then reads it here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coord/coord.h"
#include "base/log.h"
#include "base/order.h"
#include "flow/figures.h"

/* ------------------------------------------------------------------ */
/* Results into a step                                                 */
/* ------------------------------------------------------------------ */

static int coord_class_key(const struct coord *c, int sl, int tclass)
{
	if (c->have_cfg && c->cfg.kind == ARB_KIND_ETS)
		return arb_ets_dscp_band(&c->cfg, arb_tclass_to_dscp(tclass));
	return sl;
}

/* The step's port of destination @host, added if new; -1 when full. */
static int coord_port(struct converge_step *st, const char *host)
{
	size_t i;

	for (i = 0; i < st->n_ports; i++)
		if (!strcmp(st->ports[i].host, host))
			return (int)i;
	if (st->n_ports == CONVERGE_MAX_PORTS)
		return -1;
	st->ports[st->n_ports] = (struct converge_port){ .host = host };
	return (int)st->n_ports++;
}

/* Class @key at port @port, added if new; NULL when full. */
static struct converge_class *coord_class(struct converge_step *st, int port, int key)
{
	struct converge_class *k;
	size_t i;

	if (port < 0)
		return NULL;
	for (i = 0; i < st->n_classes; i++)
		if (st->classes[i].key == key && st->classes[i].port == port)
			return &st->classes[i];
	if (st->n_classes == CONVERGE_MAX_CLASSES)
		return NULL;
	k = &st->classes[st->n_classes++];
	memset(k, 0, sizeof(*k));
	k->port = port;
	k->dest = st->ports[port].host;
	k->key = key;
	return k;
}

void coord_step_flows(struct coord *c, struct converge_step *st)
{
	const struct scenario_flow *f;
	struct converge_flow *cf;
	struct converge_class *k;
	size_t i;

	st->n_flows = c->sc.n_flows;
	st->n_ports = 0;
	for (i = 0; i < c->sc.n_flows; i++) {
		f = &c->sc.flows[i];
		cf = &st->flows[i];
		*cf = (struct converge_flow){ .name = f->name, .host = f->host, .dest = f->dest,
			.type = scenario_flow_type_name(f->type), .sl = f->spec.sl, .tclass = f->spec.tclass,
			.dscp = arb_tclass_to_dscp(f->spec.tclass),
			.class_key = coord_class_key(c, f->spec.sl, f->spec.tclass), .port = -1,
			.rate_bps = f->spec.rate_bps, .duty_cycle = f->spec.on_ns ? (double)f->spec.on_ns /
				(double)(f->spec.on_ns + f->spec.off_ns) : 1,
			.ran = coord_flow_active(c, i, st), .host_retrans = -1 };
		if (!cf->ran)
			continue;
		cf->port = coord_port(st, f->dest);
		k = coord_class(st, cf->port, cf->class_key);
		if (!k)
			continue;
		k->dscp = cf->dscp;
		if (f->type == SCENARIO_FLOW_LAT) {
			k->n_lat++;
		} else {
			k->n_bw++;
			/* A bursty flow leaves its queue empty while off. */
			k->saturating = k->saturating || (f->spec.rate_bps == 0 && f->spec.on_ns == 0);
		}
	}
}

/* The flow named @name of the index @ids (name or peer -> flow index + 1), or NULL. */
static struct converge_flow *coord_step_flow(struct converge_step *st, const json_t *ids,
					     const char *name)
{
	json_int_t i = name ? json_integer_value(json_object_get(ids, name)) : 0;

	return i > 0 ? &st->flows[i - 1] : NULL;
}

/*
 * The step's flows by name, and by the local address of each of their
 * data connections as the sources' ready messages gave them (what the
 * sinks call their peers): one pass each, so that matching what every
 * agent sent is linear in flows and connections.
 */
static void coord_flow_index(struct converge_step *st, json_t *conns[], size_t n_agents,
			     json_t *by_name, json_t *by_peer)
{
	const json_t *cn, *id;
	size_t i, j;

	for (i = 0; i < st->n_flows; i++)
		json_object_set_new(by_name, st->flows[i].name, json_integer((json_int_t)i + 1));
	for (i = 0; i < n_agents; i++)
		json_array_foreach(conns[i], j, cn) {
			id = json_object_get(by_name, json_string_value(json_object_get(cn, "flow")));
			if (id)
				json_object_set(by_peer, json_string_value(json_object_get(cn, "local")),
						(json_t *)id);
		}
}

/*
 * A lat flow's RTTs, as its agent sent them (ticks of its clock, ctl.c),
 * into @cf with the clock that turns them into our ns (@rate: its agent's
 * clock against ours), then into its class's histogram in ns. A class
 * gathers flows of hosts whose ticks differ, so each joins it scaled; the
 * merge is exact when the ticks already are our ns.
 */
void coord_flow_rtt(struct converge_flow *cf, struct converge_class *k, const json_t *r,
		    double rate)
{
	char err[256];

	if (cf->rtt)
		return;	/* a flow has one source: a second result is not added */
	cf->rtt = hist_new();
	if (!cf->rtt || hist_wire_unpack(json_object_get(r, "rtt"), cf->rtt, err, sizeof(err))) {
		hist_free(cf->rtt);
		cf->rtt = NULL;
		return;
	}
	cf->rtt_clk = (struct clock_cal){ .source = CLOCK_SRC_MONOTONIC, .method = "agent",
		.ticks_per_ns = json_number_value(json_object_get(r, "ticks_per_ns")) * rate };
	if (!k)
		return;
	if (!k->lat_ns)
		k->lat_ns = hist_new();
	if (k->lat_ns && figures_hist_add_ns(k->lat_ns, cf->rtt, &cf->rtt_clk))
		log_warn("flow %s: its RTTs do not fit its class's histogram", cf->name);
}

/* A bw flow's sent rate over its run, and its host's retransmissions. */
static void coord_sent(struct converge_flow *cf, const json_t *agent_res, const json_t *r,
		      double rate)
{
	const json_t *rt = json_object_get(agent_res, "retrans");
	double ns = (double)json_integer_value(json_object_get(r, "elapsed_ns")) / rate;

	cf->sent_gbps = ns > 0 ? (double)cf->sent_bytes * 8 / ns : 0;
	cf->host_retrans = rt ? (int64_t)json_integer_value(rt) : -1;
}

/* When @cf began, if its agent @a said (start_late_ns, on @a's clock). */
static void coord_started(struct converge_flow *cf, const json_t *r, const struct coord_agent *a)
{
	const json_t *late = json_object_get(r, "start_late_ns");

	cf->has_start = late != NULL;
	if (!late)
		return;
	cf->start_late_us = (double)json_integer_value(late) / a->rate / 1e3;
	cf->sync_us = (double)a->rtt_ns / 2 / 1e3;
}

/* The step's start figures over its flows that said when they began. */
static void coord_start_figures(struct converge_step *st)
{
	struct converge_start *s = &st->start;
	double late[CONVERGE_MAX_FLOWS];
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < st->n_flows; i++) {
		if (!st->flows[i].ran || !st->flows[i].has_start)
			continue;
		late[s->n++] = st->flows[i].start_late_us;
		s->sync_max_us = fmax(s->sync_max_us, st->flows[i].sync_us);
	}
	if (!s->n)
		return;
	order_doubles(late, s->n);
	s->late_max_us = late[s->n - 1];
	/* nearest rank */
	s->late_p99_us = late[(size_t)ceil(0.99 * (double)s->n) - 1];
}

/*
 * A sent rate no port of @cf's path could carry (its source @a's word
 * only): not counted, its flow and c->error say why. -EPROTO, else 0.
 */
static int coord_sent_check(struct coord *c, const struct converge_step *st,
			    struct converge_flow *cf, const struct coord_agent *a)
{
	const struct coord_agent *dest = cf->port >= 0 && (size_t)cf->port < st->n_ports ?
					 coord_agent_of(c, st->ports[cf->port].host) : NULL;
	char why[200];

	if (!coord_rate_check(dest, a, c->sc.link_gbps, cf->sent_gbps, why, sizeof(why)))
		return 0;
	snprintf(cf->error, sizeof(cf->error), "sent: %s", why);
	if (!c->error[0])
		snprintf(c->error, sizeof(c->error), "agent '%s', flow '%s': sent: %s", a->addr,
			 cf->name, why);
	cf->sent_bytes = 0;
	cf->sent_gbps = 0;
	return -EPROTO;
}

/*
 * What the sources said about their flows: latency, errors, their start.
 * -EPROTO when a sent rate was impossible (not counted), else 0.
 */
static int coord_source_results(struct coord *c, struct converge_step *st, const json_t *by_name)
{
	struct converge_flow *cf;
	const json_t *r, *e;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < c->n_agents; i++) {
		if (!c->agents[i].result)
			continue;
		json_array_foreach(json_object_get(c->agents[i].result, "flows"), j, r) {
			cf = coord_step_flow(st, by_name, json_string_value(json_object_get(r, "name")));
			if (!cf)
				continue;
			cf->sent_bytes = (uint64_t)json_integer_value(json_object_get(r, "bytes"));
			coord_sent(cf, c->agents[i].result, r, c->agents[i].rate);
			e = json_object_get(r, "error");
			if (e)
				snprintf(cf->error, sizeof(cf->error), "%s", json_string_value(e));
			if (coord_sent_check(c, st, cf, &c->agents[i]))
				ret = -EPROTO;
			coord_started(cf, r, &c->agents[i]);
			if (json_object_get(r, "rtt") && json_object_get(r, "ticks_per_ns"))
				coord_flow_rtt(cf, coord_class(st, cf->port, cf->class_key), r,
					      c->agents[i].rate);
		}
	}
	return ret;
}

/*
 * A flow's bytes in each interval (@iv, which ctl_validate() passed) into
 * its class @k; the port's intervals are those every flow it received
 * reported (a flow that came after the window began reports none).
 */
static void coord_sink_intervals(struct converge_port *p, struct converge_class *k,
				 const json_t *iv)
{
	size_t j, n = json_array_size(iv);

	if (n > CONVERGE_INTERVALS)
		n = CONVERGE_INTERVALS;
	p->n_iv = !p->iv_seen || n < p->n_iv ? (unsigned)n : p->n_iv;
	p->iv_seen = true;
	for (j = 0; j < n; j++)
		k->iv_bytes[j] += (uint64_t)json_integer_value(json_array_get(iv, j));
}

/*
 * What destination agent @a received, per flow and per class, at its
 * port; a rate no port of the path could carry is not counted (its flow
 * says why, and so does c->error). -EPROTO when one was not, else 0.
 */
static int coord_sink_result(struct coord *c, struct converge_step *st, const json_t *by_peer,
			     const struct coord_agent *a)
{
	const json_t *res = a->result, *s;
	struct converge_class *k;
	struct converge_flow *cf;
	struct converge_port *p;
	uint64_t bytes;
	char why[256];
	size_t i;
	int port, ret = 0;

	for (port = 0; port < (int)st->n_ports && strcmp(st->ports[port].host, a->addr); port++)
		;
	if (!res || port == (int)st->n_ports)
		return 0;
	p = &st->ports[port];
	p->window_s = (double)json_integer_value(json_object_get(res, "window_ns")) / 1e9 / a->rate;
	p->refused_conns = (uint64_t)json_integer_value(json_object_get(res, "refused"));
	if (p->refused_conns)
		log_warn("agent %s: its sink refused %" PRIu64 " data connection(s) that were "
			 "no flow's of the step (none counted)", a->addr, p->refused_conns);
	json_array_foreach(json_object_get(res, "sink"), i, s) {
		bytes = (uint64_t)json_integer_value(json_object_get(s, "bytes"));
		cf = coord_step_flow(st, by_peer, json_string_value(json_object_get(s, "peer")));
		if (cf && p->window_s > 0 &&
		    coord_rate_check(a, coord_agent_of(c, cf->host), c->sc.link_gbps,
				     (double)bytes * 8 / p->window_s / 1e9, why, sizeof(why))) {
			snprintf(cf->error, sizeof(cf->error), "%s", why);
			if (!c->error[0])
				snprintf(c->error, sizeof(c->error), "agent '%s', flow '%s': %s",
					 a->addr, cf->name, why);
			ret = -EPROTO;
			continue;
		}
		k = coord_class(st, port, coord_class_key(c,
				(int)json_integer_value(json_object_get(s, "sl")),
				(int)json_integer_value(json_object_get(s, "tclass"))));
		if (k)
			k->bytes += bytes;
		if (k && bytes)
			coord_sink_intervals(p, k, json_object_get(s, "intervals"));
		if (cf && cf->port == port) {
			cf->bytes += bytes;
			cf->gbps = p->window_s > 0 ? (double)cf->bytes * 8 / p->window_s / 1e9 : 0;
		}
	}
	return ret;
}

/*
 * What every destination received; the step's window is its shortest.
 * -EPROTO when a rate was impossible (not counted), else 0.
 */
static int coord_sink_results(struct coord *c, struct converge_step *st, const json_t *by_peer)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < c->n_agents; i++)
		ret = coord_sink_result(c, st, by_peer, &c->agents[i]) ?: ret;
	st->window_s = 0;
	for (i = 0; i < st->n_ports; i++)
		if (st->ports[i].window_s > 0 && (st->window_s <= 0 ||
						  st->ports[i].window_s < st->window_s))
			st->window_s = st->ports[i].window_s;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Analysis                                                            */
/* ------------------------------------------------------------------ */

/*
 * Class @k's share in each interval of its port that carried anything,
 * and their interval (converge_share_ci); none when too few or too correlated.
 */
static void coord_share_ci(const struct converge_step *st, struct converge_class *k)
{
	const struct converge_port *p = &st->ports[k->port];
	double pct[CONVERGE_INTERVALS];
	uint64_t total;
	unsigned j, n = 0;
	size_t i;

	for (j = 0; j < p->n_iv; j++) {
		for (total = 0, i = 0; i < st->n_classes; i++)
			if (st->classes[i].port == k->port)
				total += st->classes[i].iv_bytes[j];
		if (total)
			pct[n++] = 100.0 * (double)k->iv_bytes[j] / (double)total;
	}
	k->has_ci = converge_share_ci(pct, n, &k->ci_low_pct, &k->ci_high_pct, &k->share_rho);
}

/* Class @k's verdict against its analyzed share, with tolerance @tol (pp). */
static void coord_class_verdict(struct converge_class *k, double tol)
{
	k->verdict = converge_judge(k->has_ci, k->ci_low_pct, k->ci_high_pct, k->analyzed_pct, tol);
	k->within = k->verdict == CONVERGE_WITHIN;
}

/* Each port's total and each class's share of it. */
static void coord_shares(struct converge_step *st)
{
	struct converge_class *k;
	struct converge_port *p;
	uint64_t total[CONVERGE_MAX_PORTS] = { 0 };
	size_t i;

	for (i = 0; i < st->n_classes; i++)
		total[st->classes[i].port] += st->classes[i].bytes;
	st->total_gbps = 0;
	for (i = 0; i < st->n_ports; i++) {
		p = &st->ports[i];
		p->total_gbps = p->window_s > 0 ? (double)total[i] * 8 / p->window_s / 1e9 : 0;
		st->total_gbps += p->total_gbps;
	}
	for (i = 0; i < st->n_classes; i++) {
		k = &st->classes[i];
		p = &st->ports[k->port];
		k->gbps = p->window_s > 0 ? (double)k->bytes * 8 / p->window_s / 1e9 : 0;
		k->share_pct = total[k->port] ? 100.0 * (double)k->bytes / (double)total[k->port] : 0;
		coord_share_ci(st, k);
	}
}

/*
 * Which reading the measured shares fit, over every compared class of
 * every port: each reading's largest and RMS difference. The best has
 * the smallest largest difference; the first of equals wins (the
 * configured reading comes first).
 */
static void coord_fit(struct converge_step *st)
{
	struct converge_fit *fit = &st->fit;
	const struct converge_class *k;
	double sum, d;
	size_t j;
	int i, n;

	fit->has = st->compared && fit->n > 0;
	for (i = 0; fit->has && i < fit->n; i++) {
		fit->readings[i].max_diff_pp = 0;
		for (sum = 0, n = 0, j = 0; j < st->n_classes; j++) {
			k = &st->classes[j];
			if (!k->has_analyzed || !st->ports[k->port].compared)
				continue;
			d = fabs(k->share_pct - k->reading_pct[i]);
			fit->readings[i].max_diff_pp = fmax(fit->readings[i].max_diff_pp, d);
			sum += d * d;
			n++;
		}
		fit->readings[i].rms_diff_pp = n ? sqrt(sum / n) : 0;
		if (fit->readings[i].max_diff_pp < fit->readings[fit->best].max_diff_pp)
			fit->best = i;
	}
}

/*
 * The readings one port's analysis evaluated (every semantics of
 * ib-packet, the configured one first; or the model's one), and what
 * each gives the port's classes. Every port of a step has the same
 * model, so the same readings.
 */
static void coord_readings(const struct arb_result *res, struct converge_step *st, int port)
{
	struct converge_fit *fit = &st->fit;
	bool per_sem = res->model == ARB_MODEL_IB_PACKET && res->n_semantics;
	struct converge_class *k;
	int i;
	size_t j;

	fit->n = !per_sem ? 1 : res->n_semantics < CONVERGE_MAX_READINGS ? res->n_semantics :
								       CONVERGE_MAX_READINGS;
	for (i = 0; i < fit->n; i++) {
		if (per_sem)
			arb_semantics_format(&res->per_semantics[i].semantics,
					     fit->readings[i].name,
					     sizeof(fit->readings[i].name));
		else
			snprintf(fit->readings[i].name, sizeof(fit->readings[i].name), "%s",
				 arb_model_name(res->model));
		for (j = 0; j < st->n_classes; j++) {
			k = &st->classes[j];
			if (k->port == port && k->has_analyzed)
				k->reading_pct[i] = per_sem ? res->per_semantics[i].share_pct[k->key] :
							      k->analyzed_pct;
		}
	}
}

/* The step's verdict: the worst of its compared ports' (within when none is). */
static void coord_step_verdict(struct converge_step *st)
{
	size_t i;

	st->verdict = CONVERGE_WITHIN;
	for (i = 0; i < st->n_ports; i++)
		if (st->ports[i].compared)
			st->verdict = converge_worse(st->verdict, st->ports[i].verdict);
	st->within = st->verdict == CONVERGE_WITHIN;
}

/* --fit best: compare each class with the best-fitting reading instead. */
static void coord_follow_best(struct converge_step *st, double tol)
{
	struct converge_class *k;
	size_t j;

	if (!st->fit.has || st->fit.best == st->fit.configured)
		return;
	for (j = 0; j < st->n_ports; j++)
		st->ports[j].verdict = CONVERGE_WITHIN;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		if (!k->has_analyzed)
			continue;
		k->analyzed_pct = k->reading_pct[st->fit.best];
		k->diff_pp = k->share_pct - k->analyzed_pct;
		coord_class_verdict(k, tol);
		if (st->ports[k->port].compared)
			st->ports[k->port].verdict = converge_worse(st->ports[k->port].verdict,
								    k->verdict);
	}
	for (j = 0; j < st->n_ports; j++)
		st->ports[j].within = st->ports[j].verdict == CONVERGE_WITHIN;
	coord_step_verdict(st);
}

/*
 * What the arbitration predicts for the traffic at port @port: classes
 * with a bw flow without a rate are saturating; every other class offers
 * what it was measured to carry (a lat flow has one message in flight).
 * When something saturates, the port ran full, and the link of the
 * analysis is what the destination received in all.
 */
static int coord_analyze_port(struct coord *c, struct converge_step *st, int port, double tol)
{
	struct converge_port *p = &st->ports[port];
	struct arb_params params;
	struct arb_result res;
	struct converge_class *k;
	bool ets = c->cfg.kind == ARB_KIND_ETS;
	int band, i;
	size_t j;

	arb_params_init(&params);
	params.model = c->sc.model_set ? c->sc.model : ets ? ARB_MODEL_ETS : arb_model_default(ARB_KIND_VLARB);
	params.semantics = c->sc.semantics;
	for (i = 0; i < ARB_NUM_SLS; i++)
		params.load_gbps[i] = 0;
	p->compared = false;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		if (k->port != port)
			continue;
		p->compared = p->compared || k->saturating;
		if (ets) {
			params.band_load_set[k->key] = true;
			params.band_load_gbps[k->key] = k->saturating ? -1.0 : k->gbps;
		} else {
			params.load_gbps[k->key] = k->saturating ? -1.0 : k->gbps;
		}
	}
	p->analysis_link_gbps = p->compared && p->total_gbps > 0 ? p->total_gbps :
				c->sc.link_gbps > 0 ? c->sc.link_gbps : p->total_gbps;
	params.link_gbps = p->analysis_link_gbps > 0 ? p->analysis_link_gbps : 1;
	if (arb_analyze(&c->cfg, &params, &res)) {
		p->compared = false;
		if (!c->error[0])
			snprintf(c->error, sizeof(c->error), "the %s model does not fit %.300s",
				 arb_model_name(params.model), c->arb_name);
		return -EINVAL;
	}
	p->verdict = CONVERGE_WITHIN;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		if (k->port != port)
			continue;
		k->has_analyzed = ets ? !arb_ets_dscp_share(&c->cfg, &res, k->dscp, &band,
							    &k->analyzed_pct) :
					(k->analyzed_pct = res.sls[k->key].share_pct, true);
		k->diff_pp = k->share_pct - k->analyzed_pct;
		coord_class_verdict(k, tol);
		if (p->compared && k->has_analyzed)
			p->verdict = converge_worse(p->verdict, k->verdict);
	}
	p->within = p->verdict == CONVERGE_WITHIN;
	coord_readings(&res, st, port);
	return 0;
}

/*
 * Every port on its own; the step's verdict is all of theirs. 0, or
 * -EINVAL when the step's traffic could not be analyzed (c->error says why).
 */
static int coord_analyze(struct coord *c, struct converge_step *st, double tol)
{
	size_t i;
	int ret;

	memset(&st->fit, 0, sizeof(st->fit));
	st->compared = false;
	for (i = 0; i < st->n_ports; i++) {
		if (st->ports[i].window_s <= 0)
			continue;
		ret = coord_analyze_port(c, st, (int)i, tol);
		if (ret)
			return ret;
		st->compared = st->compared || st->ports[i].compared;
	}
	coord_step_verdict(st);
	st->analysis_link_gbps = st->n_ports ? st->ports[0].analysis_link_gbps : 0;
	coord_fit(st);
	if (c->o->fit_best)
		coord_follow_best(st, tol);
	return 0;
}

/* Was the flow at @i the first of its host among @k's flows? */
static bool coord_first_of_host(const struct converge_step *st, size_t i,
				const struct converge_class *k)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (st->flows[j].ran && st->flows[j].class_key == k->key &&
		    st->flows[j].port == k->port && !strcmp(st->flows[j].host, st->flows[i].host))
			return false;
	return true;
}

/*
 * A class the analysis took as saturating that fell short of its share:
 * what its flows sent and their hosts' retransmissions, for the report.
 */
static void coord_backlog(struct converge_step *st, double tol)
{
	struct converge_class *k;
	const struct converge_flow *f;
	size_t i, j;

	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		k->not_backlogged = st->ports[k->port].compared && k->saturating &&
				    k->has_analyzed && k->diff_pp < -tol;
		k->has_retrans = true;
		for (i = 0; i < st->n_flows; i++) {
			f = &st->flows[i];
			if (!f->ran || f->class_key != k->key || f->port != k->port)
				continue;
			k->sent_gbps += f->sent_gbps;
			if (!coord_first_of_host(st, i, k))
				continue;
			k->has_retrans = k->has_retrans && f->host_retrans >= 0;
			k->retrans += f->host_retrans > 0 ? (uint64_t)f->host_retrans : 0;
		}
	}
}

/*
 * @v's percentile @pct over @base's (both RTTs in ns, unresolved at 0):
 * NULL with the ratio in @out, or why there is none when either
 * percentile is not resolved (@out then 0).
 */
static const char *coord_ratio(const struct hist *v, const struct hist *base, double pct,
			       double *out)
{
	static const char *const why[2][2] = {
		{ "unresolved alone", "too few samples alone" },
		{ "unresolved loaded", "too few samples loaded" },
	};
	struct hist_quantile qb, qv;

	*out = 0;
	hist_quantile(base, pct, hist_zeros(base), &qb);
	hist_quantile(v, pct, hist_zeros(v), &qv);
	if (qb.state != HIST_Q_RESOLVED)
		return why[0][qb.state != HIST_Q_UNRESOLVED];
	if (qv.state != HIST_Q_RESOLVED)
		return why[1][qv.state != HIST_Q_UNRESOLVED];
	*out = (double)qv.value / (double)qb.value;
	return NULL;
}

/*
 * Congestion impact, in a loaded step after the baseline steps: each
 * class's RTT percentiles over those of its lat flows run alone, and each
 * bw flow's rate over its own alone.
 */
static void coord_impact(const struct coord *c, struct converge_step *st)
{
	const struct converge_step *b;
	struct converge_class *k;
	struct hist *base;
	size_t i, j, m;

	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		if (!k->lat_ns || !hist_count(k->lat_ns) || !(base = hist_new()))
			continue;
		for (i = 0; i < c->n_steps; i++)
			for (b = &c->steps[i], m = 0; b->baseline && m < b->n_classes; m++)
				if (b->classes[m].key == k->key && b->classes[m].lat_ns &&
				    !strcmp(b->classes[m].dest, k->dest) &&
				    hist_merge(base, b->classes[m].lat_ns))
					log_warn("class %d: its baseline RTTs do not merge", k->key);
		k->has_impact = hist_count(base) > 0;
		k->impact_why[0] = coord_ratio(k->lat_ns, base, 50, &k->impact_p50);
		k->impact_why[1] = coord_ratio(k->lat_ns, base, 99, &k->impact_p99);
		k->impact_why[2] = coord_ratio(k->lat_ns, base, 99.9, &k->impact_p99_9);
		hist_free(base);
	}
	for (i = 0; i < st->n_flows; i++)
		for (j = 0; st->flows[i].ran && c->sc.flows[i].type == SCENARIO_FLOW_BW &&
			    j < c->n_steps; j++)
			if (c->steps[j].baseline && c->steps[j].alone == i &&
			    c->steps[j].window_s > 0) {
				st->flows[i].has_isolated = true;
				st->flows[i].isolated_gbps = c->steps[j].flows[i].gbps;
			}
}

int coord_step_results(struct coord *c, struct converge_step *st, json_t *conns[])
{
	json_t *by_name = json_object(), *by_peer = json_object();
	int impossible, sent;

	coord_flow_index(st, conns, c->n_agents, by_name, by_peer);
	sent = coord_source_results(c, st, by_name);
	impossible = coord_sink_results(c, st, by_peer);
	json_decref(by_name);
	json_decref(by_peer);
	coord_start_figures(st);
	coord_shares(st);
	st->within = true;
	st->verdict = CONVERGE_WITHIN;
	if (c->have_cfg && st->window_s > 0) {
		if (coord_analyze(c, st, c->o->tolerance_pp))
			return -EINVAL;
		coord_backlog(st, c->o->tolerance_pp);
	}
	st->tolerance_pp = c->o->tolerance_pp;
	converge_step_judged(st, c->have_cfg && st->window_s > 0);
	coord_switch_results(c, st);
	if (!st->baseline)
		coord_impact(c, st);
	coord_judge(c, st);
	return impossible ?: sent;
}

/* ------------------------------------------------------------------ */
/* A step, whole                                                       */
/* ------------------------------------------------------------------ */

int coord_run_step(struct coord *c, unsigned active_bw, bool baseline, size_t alone)
{
	struct converge_step *st = &c->steps[c->n_steps];
	json_t **conns = calloc(c->n_agents + 1, sizeof(*conns));
	uint64_t t0;
	size_t i;
	int ret, rres;

	memset(st, 0, sizeof(*st));
	st->active_bw = active_bw;
	st->baseline = baseline;
	st->alone = alone;
	coord_step_flows(c, st);
	t0 = ctl_now_ns();
	if (!conns) {
		snprintf(c->error, sizeof(c->error), "out of memory");
		st->cut_short = true;
		c->n_steps++;
		return -ENOMEM;
	}
	ret = coord_setup(c, st, conns);
	st->setup_ms = (double)(ctl_now_ns() - t0) / 1e6;
	if (!ret)
		ret = coord_start(c);
	if (!ret)
		ret = coord_collect(c);
	st->cut_short = ret != 0;
	rres = coord_step_results(c, st, conns);
	ret = ret ? ret : rres;
	c->n_steps++;
	for (i = 0; i < c->n_agents; i++) {
		json_decref(conns[i]);
		json_decref(c->agents[i].result);
		c->agents[i].result = NULL;
	}
	free(conns);
	return ret;
}
