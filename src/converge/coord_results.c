/*
 * What the agents sent, into a step: the flows that ran and their
 * classes (SL, or ETS band), the sources' latency and errors, what the
 * destination received per flow and class, the shares, and the share the
 * arbitration's analysis predicts for that traffic. Apart from the
 * session because none of it talks to an agent.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "converge/coord.h"
#include "base/log.h"

/* ------------------------------------------------------------------ */
/* Results into a step                                                 */
/* ------------------------------------------------------------------ */

static int coord_class_key(const struct coord *c, int sl, int tclass)
{
	if (c->have_cfg && c->cfg.kind == ARB_KIND_ETS)
		return arb_ets_dscp_band(&c->cfg, arb_tclass_to_dscp(tclass));
	return sl;
}

static struct converge_class *coord_class(struct converge_step *st, int key)
{
	struct converge_class *k;
	size_t i;

	for (i = 0; i < st->n_classes; i++)
		if (st->classes[i].key == key)
			return &st->classes[i];
	if (st->n_classes == CONVERGE_MAX_CLASSES)
		return NULL;
	k = &st->classes[st->n_classes++];
	memset(k, 0, sizeof(*k));
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
	for (i = 0; i < c->sc.n_flows; i++) {
		f = &c->sc.flows[i];
		cf = &st->flows[i];
		*cf = (struct converge_flow){ .name = f->name, .host = f->host,
			.type = scenario_flow_type_name(f->type), .sl = f->sl, .tclass = f->tclass,
			.dscp = arb_tclass_to_dscp(f->tclass),
			.class_key = coord_class_key(c, f->sl, f->tclass),
			.ran = coord_flow_active(c, i, st), .host_retrans = -1 };
		if (!cf->ran)
			continue;
		k = coord_class(st, cf->class_key);
		if (!k)
			continue;
		k->dscp = cf->dscp;
		if (f->type == SCENARIO_FLOW_LAT) {
			k->n_lat++;
		} else {
			k->n_bw++;
			k->saturating = k->saturating || f->rate_bps == 0;
		}
	}
}

static struct converge_flow *coord_step_flow(struct converge_step *st, const char *name)
{
	size_t i;

	for (i = 0; name && i < st->n_flows; i++)
		if (!strcmp(st->flows[i].name, name))
			return &st->flows[i];
	return NULL;
}

/*
 * A lat flow's RTTs, as its agent sent them (ticks of its clock, ctl.c),
 * into @cf with the clock that turns them into our ns (@rate: its agent's
 * clock against ours), then into its class's histogram in ns. A class
 * gathers flows of hosts whose ticks differ, so each joins it scaled; the
 * merge is exact when the ticks already are our ns.
 */
static void coord_add_rtt(struct converge_flow *cf, struct converge_class *k,
			 const json_t *r, double rate)
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
	if (k->lat_ns && hist_merge_scaled(k->lat_ns, cf->rtt, 1.0 / cf->rtt_clk.ticks_per_ns))
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

/* What the sources said about their flows: latency, errors. */
static void coord_source_results(struct coord *c, struct converge_step *st)
{
	struct converge_flow *cf;
	const json_t *r, *e;
	size_t i, j;

	for (i = 1; i < c->n_agents; i++) {
		if (!c->agents[i].result)
			continue;
		json_array_foreach(json_object_get(c->agents[i].result, "flows"), j, r) {
			cf = coord_step_flow(st, json_string_value(json_object_get(r, "name")));
			if (!cf)
				continue;
			cf->sent_bytes = (uint64_t)json_integer_value(json_object_get(r, "bytes"));
			coord_sent(cf, c->agents[i].result, r, c->agents[i].rate);
			e = json_object_get(r, "error");
			if (e)
				snprintf(cf->error, sizeof(cf->error), "%s", json_string_value(e));
			if (json_object_get(r, "rtt") && json_object_get(r, "ticks_per_ns"))
				coord_add_rtt(cf, coord_class(st, cf->class_key), r,
					     c->agents[i].rate);
		}
	}
}

/* The flow whose data connection is @peer, from the sources' ready messages. */
static struct converge_flow *coord_flow_by_peer(struct converge_step *st, json_t *conns[],
					       size_t n_agents, const char *peer)
{
	const json_t *cn;
	size_t i, j;

	for (i = 1; i < n_agents; i++)
		json_array_foreach(conns[i], j, cn)
			if (!strcmp(json_string_value(json_object_get(cn, "local")), peer))
				return coord_step_flow(st,
					json_string_value(json_object_get(cn, "flow")));
	return NULL;
}

/* What the destination received, per flow and per class. */
static void coord_sink_results(struct coord *c, struct converge_step *st, json_t *conns[])
{
	const json_t *res = c->agents[0].result, *s;
	struct converge_class *k;
	struct converge_flow *cf;
	uint64_t bytes;
	size_t i;

	if (!res)
		return;
	st->window_s = (double)json_integer_value(json_object_get(res, "window_ns")) / 1e9 /
		       c->agents[0].rate;
	json_array_foreach(json_object_get(res, "sink"), i, s) {
		bytes = (uint64_t)json_integer_value(json_object_get(s, "bytes"));
		k = coord_class(st, coord_class_key(c, (int)json_integer_value(json_object_get(s, "sl")),
					(int)json_integer_value(json_object_get(s, "tclass"))));
		if (k)
			k->bytes += bytes;
		cf = coord_flow_by_peer(st, conns, c->n_agents,
				       json_string_value(json_object_get(s, "peer")));
		if (cf)
			cf->bytes += bytes;
	}
	for (i = 0; st->window_s > 0 && i < st->n_flows; i++)
		st->flows[i].gbps = (double)st->flows[i].bytes * 8 / st->window_s / 1e9;
}

/* ------------------------------------------------------------------ */
/* Analysis                                                            */
/* ------------------------------------------------------------------ */

static void coord_shares(struct converge_step *st)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < st->n_classes; i++)
		total += st->classes[i].bytes;
	st->total_gbps = st->window_s > 0 ? (double)total * 8 / st->window_s / 1e9 : 0;
	for (i = 0; i < st->n_classes; i++) {
		st->classes[i].gbps = st->window_s > 0 ?
			(double)st->classes[i].bytes * 8 / st->window_s / 1e9 : 0;
		st->classes[i].share_pct = total ? 100.0 * (double)st->classes[i].bytes /
						   (double)total : 0;
	}
}

/* Reading @name's differences from the measured shares @shares (per key). */
static void coord_reading(struct converge_fit *fit, const char *name,
			  const struct converge_step *st, const double *analyzed)
{
	struct converge_reading *r = &fit->readings[fit->n++];
	double sum = 0, d;
	size_t j;
	int n = 0;

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->max_diff_pp = 0;
	for (j = 0; j < st->n_classes; j++) {
		if (!st->classes[j].has_analyzed)
			continue;
		d = fabs(st->classes[j].share_pct - analyzed[st->classes[j].key]);
		r->max_diff_pp = fmax(r->max_diff_pp, d);
		sum += d * d;
		n++;
	}
	r->rms_diff_pp = n ? sqrt(sum / n) : 0;
}

/*
 * Which reading the measured shares fit: every semantics ib-packet
 * evaluated (the configured one first), or ETS's one. The best has the
 * smallest largest difference; the first of equals wins.
 */
static void coord_fit(const struct arb_result *res, struct converge_step *st)
{
	struct converge_fit *fit = &st->fit;
	double analyzed[ARB_MAX_BANDS > ARB_NUM_SLS ? ARB_MAX_BANDS : ARB_NUM_SLS] = { 0 };
	char name[64];
	size_t j;
	int i;

	memset(fit, 0, sizeof(*fit));
	if (!st->compared)
		return;
	fit->has = true;
	for (j = 0; j < st->n_classes; j++)
		if (st->classes[j].has_analyzed)
			analyzed[st->classes[j].key] = st->classes[j].analyzed_pct;
	if (res->model != ARB_MODEL_IB_PACKET || !res->n_semantics) {
		coord_reading(fit, arb_model_name(res->model), st, analyzed);
		return;
	}
	for (i = 0; i < res->n_semantics && i < CONVERGE_MAX_READINGS; i++) {
		arb_semantics_format(&res->per_semantics[i].semantics, name, sizeof(name));
		coord_reading(fit, name, st, res->per_semantics[i].share_pct);
		if (fit->readings[i].max_diff_pp < fit->readings[fit->best].max_diff_pp)
			fit->best = i;
	}
}

/* --fit best: compare each class with the best-fitting reading instead. */
static void coord_follow_best(const struct arb_result *res, struct converge_step *st, double tol)
{
	struct converge_class *k;
	size_t j;

	if (!st->fit.has || st->fit.best == st->fit.configured ||
	    res->model != ARB_MODEL_IB_PACKET)
		return;
	st->within = true;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		if (!k->has_analyzed)
			continue;
		k->analyzed_pct = res->per_semantics[st->fit.best].share_pct[k->key];
		k->diff_pp = k->share_pct - k->analyzed_pct;
		k->within = fabs(k->diff_pp) <= tol;
		st->within = st->within && k->within;
	}
}

/*
 * What the arbitration predicts for this step's traffic: classes with a
 * bw flow without a rate are saturating; every other class offers what
 * it was measured to carry (a lat flow has one message in flight). When
 * something saturates, the port ran full, and the link of the analysis
 * is what the destination received in all.
 */
static int coord_analyze(struct coord *c, struct converge_step *st, double tol)
{
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
	st->compared = false;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		st->compared = st->compared || k->saturating;
		if (ets) {
			params.band_load_set[k->key] = true;
			params.band_load_gbps[k->key] = k->saturating ? -1.0 : k->gbps;
		} else {
			params.load_gbps[k->key] = k->saturating ? -1.0 : k->gbps;
		}
	}
	st->analysis_link_gbps = st->compared && st->total_gbps > 0 ? st->total_gbps :
				 c->sc.link_gbps > 0 ? c->sc.link_gbps : st->total_gbps;
	params.link_gbps = st->analysis_link_gbps > 0 ? st->analysis_link_gbps : 1;
	if (arb_analyze(&c->cfg, &params, &res)) {
		st->compared = false;
		if (!c->error[0])
			snprintf(c->error, sizeof(c->error), "the %s model does not fit %.300s",
				 arb_model_name(params.model), c->arb_name);
		return -EINVAL;
	}
	st->within = true;
	for (j = 0; j < st->n_classes; j++) {
		k = &st->classes[j];
		k->has_analyzed = ets ? !arb_ets_dscp_share(&c->cfg, &res, k->dscp, &band,
							    &k->analyzed_pct) :
					(k->analyzed_pct = res.sls[k->key].share_pct, true);
		k->diff_pp = k->share_pct - k->analyzed_pct;
		k->within = fabs(k->diff_pp) <= tol;
		if (st->compared && k->has_analyzed && !k->within)
			st->within = false;
	}
	coord_fit(&res, st);
	if (c->o->fit_best)
		coord_follow_best(&res, st, tol);
	return 0;
}

/* Was the flow at @i the first of its host among @k's flows? */
static bool coord_first_of_host(const struct converge_step *st, size_t i, int key)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (st->flows[j].ran && st->flows[j].class_key == key &&
		    !strcmp(st->flows[j].host, st->flows[i].host))
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
		k->not_backlogged = st->compared && k->saturating && k->has_analyzed &&
				    k->diff_pp < -tol;
		k->has_retrans = true;
		for (i = 0; i < st->n_flows; i++) {
			f = &st->flows[i];
			if (!f->ran || f->class_key != k->key)
				continue;
			k->sent_gbps += f->sent_gbps;
			if (!coord_first_of_host(st, i, k->key))
				continue;
			k->has_retrans = k->has_retrans && f->host_retrans >= 0;
			k->retrans += f->host_retrans > 0 ? (uint64_t)f->host_retrans : 0;
		}
	}
}

/* 0, or -EINVAL when the step's traffic could not be analyzed (c->error says why). */
/* @v's percentile @pct over @base's, when both are above 0. */
static bool coord_ratio(const struct hist *v, const struct hist *base, double pct, double *out)
{
	uint64_t b = hist_percentile(base, pct);

	*out = b ? (double)hist_percentile(v, pct) / (double)b : 0;
	return b > 0;
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
				    hist_merge(base, b->classes[m].lat_ns))
					log_warn("class %d: its baseline RTTs do not merge", k->key);
		k->has_impact = hist_count(base) &&
				coord_ratio(k->lat_ns, base, 50, &k->impact_p50) &&
				coord_ratio(k->lat_ns, base, 99, &k->impact_p99) &&
				coord_ratio(k->lat_ns, base, 99.9, &k->impact_p99_9);
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

/* The class a step's flow @i belongs to. */
static const struct converge_class *coord_flow_class(const struct converge_step *st, size_t i)
{
	size_t j;

	for (j = 0; j < st->n_classes; j++)
		if (st->classes[j].key == st->flows[i].class_key)
			return &st->classes[j];
	return NULL;
}

static void coord_judge_one(struct criteria *cs, const char *name, enum criterion_kind kind,
			    const char *unit, double limit, const char *scope, bool measured,
			    double value)
{
	struct criterion *cr;

	if (limit <= 0)
		return;
	cr = criteria_add(cs, name, kind, unit, limit, scope);
	if (cr)
		criterion_judge(cr, measured, value);
}

/*
 * The scenario's criteria on every flow that ran in the step: latency
 * and shares are its class's, the rate its own at the destination.
 */
static void coord_judge(const struct coord *c, struct converge_step *st)
{
	const struct scenario_flow *f;
	const struct converge_class *k;
	struct criteria *cs = &st->criteria;
	char scope[64];
	bool lat;
	size_t i;

	cs->n = 0;
	for (i = 0; !st->baseline && i < st->n_flows; i++) {
		f = &c->sc.flows[i];
		if (!st->flows[i].ran)
			continue;
		k = coord_flow_class(st, i);
		lat = k && k->lat_ns && hist_count(k->lat_ns) > 0;
		snprintf(scope, sizeof(scope), "flow %.30s, %s %d", f->name,
			 c->cfg.kind == ARB_KIND_ETS ? "band" : "SL", st->flows[i].class_key);
		coord_judge_one(cs, "max_p99", CRITERION_MAX, "us", f->max_p99_us, scope, lat,
				lat ? (double)hist_percentile(k->lat_ns, 99) / 1e3 : 0);
		coord_judge_one(cs, "max_p99_9", CRITERION_MAX, "us", f->max_p99_9_us, scope, lat,
				lat ? (double)hist_percentile(k->lat_ns, 99.9) / 1e3 : 0);
		coord_judge_one(cs, "min_gbps", CRITERION_MIN, "gbps", f->min_gbps, scope,
				st->window_s > 0, st->flows[i].gbps);
		coord_judge_one(cs, "min_share", CRITERION_MIN, "pct", f->min_share_pct, scope,
				k && st->window_s > 0, k ? k->share_pct : 0);
		coord_judge_one(cs, "max_share_diff", CRITERION_MAX, "pp", f->max_share_diff_pp,
				scope, k && k->has_analyzed && st->compared,
				k ? fabs(k->diff_pp) : 0);
		coord_judge_one(cs, "max_impact_p99", CRITERION_MAX, "ratio", f->max_impact_p99,
				scope, k && k->has_impact, k ? k->impact_p99 : 0);
	}
}

int coord_step_results(struct coord *c, struct converge_step *st, json_t *conns[])
{
	coord_source_results(c, st);
	coord_sink_results(c, st, conns);
	coord_shares(st);
	st->within = true;
	if (c->have_cfg && st->window_s > 0) {
		if (coord_analyze(c, st, c->o->tolerance_pp))
			return -EINVAL;
		coord_backlog(st, c->o->tolerance_pp);
	}
	coord_switch_results(c, st);
	if (!st->baseline)
		coord_impact(c, st);
	coord_judge(c, st);
	return 0;
}
