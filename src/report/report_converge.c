/*
 * The converge report: per step, each class's tail latency, bandwidth and
 * measured share against the analyzed one, with the flows behind them, as
 * JSON, a table and CSV. Apart because steps, classes and the comparison
 * with the analysis are converge's alone.
 */
#include <inttypes.h>
#include <stdio.h>

#include "config.h"
#include "base/hist.h"
#include "report/report.h"

/* ================================================================== */
/* converge                                                            */
/* ================================================================== */

/* Latency histograms of converge are rebuilt in ns: one tick is one ns. */
static const struct clock_cal converge_ns_clock = {
	.source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1.0, .method = "ns",
};

static const char *converge_class_kind(const struct converge_report_info *info)
{
	return info->ets ? "band" : "sl";
}

static json_t *converge_class_json(const struct converge_report_info *info,
				   const struct converge_step *st,
				   const struct converge_class *c)
{
	json_t *o = json_object();
	bool cmp = st->compared && c->has_analyzed;

	json_object_set_new(o, converge_class_kind(info), json_integer(c->key));
	json_object_set_new(o, "dscp", info->ets ? json_integer(c->dscp) : json_null());
	json_object_set_new(o, "lat_flows", json_integer(c->n_lat));
	json_object_set_new(o, "bw_flows", json_integer(c->n_bw));
	json_object_set_new(o, "saturating", json_boolean(c->saturating));
	json_object_set_new(o, "rtt_ns", c->lat_ns ?
			    report_hist_json(c->lat_ns, &converge_ns_clock) : json_null());
	json_object_set_new(o, "rtt_cdf", c->lat_ns ?
			    report_hist_buckets_json(c->lat_ns, &converge_ns_clock) : json_null());
	json_object_set_new(o, "bytes", json_integer((json_int_t)c->bytes));
	json_object_set_new(o, "gbps", json_real(c->gbps));
	json_object_set_new(o, "share_pct", json_real(c->share_pct));
	json_object_set_new(o, "analyzed_pct",
			    report_real_or_null(c->has_analyzed, c->analyzed_pct));
	json_object_set_new(o, "diff_pp", report_real_or_null(cmp, c->diff_pp));
	json_object_set_new(o, "within", cmp ? json_boolean(c->within) : json_null());
	/* Taken as saturating but short of its share: not kept backlogged. */
	json_object_set_new(o, "backlogged", cmp && c->saturating ?
			    json_boolean(!c->not_backlogged) : json_null());
	json_object_set_new(o, "sent_gbps", json_real(c->sent_gbps));
	json_object_set_new(o, "retransmissions", c->has_retrans ?
			    json_integer((json_int_t)c->retrans) : json_null());
	/* The switch port's own counters of the band, when the scenario reads them. */
	json_object_set_new(o, "switch_share_pct",
			    report_real_or_null(c->has_switch, c->switch_share_pct));
	json_object_set_new(o, "switch_diff_pp",
			    report_real_or_null(c->has_switch, c->switch_diff_pp));
	return o;
}

static json_t *converge_flow_json(const struct converge_report_info *info,
				  const struct converge_flow *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "host", json_string(f->host));
	json_object_set_new(o, "type", json_string(f->type));
	json_object_set_new(o, "sl", json_integer(f->sl));
	json_object_set_new(o, "tclass", json_integer(f->tclass));
	json_object_set_new(o, "dscp", json_integer(f->dscp));
	json_object_set_new(o, converge_class_kind(info), json_integer(f->class_key));
	json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
	json_object_set_new(o, "gbps", json_real(f->gbps));
	json_object_set_new(o, "sent_bytes", json_integer((json_int_t)f->sent_bytes));
	json_object_set_new(o, "sent_gbps", report_real_or_null(f->sent_gbps > 0, f->sent_gbps));
	json_object_set_new(o, "host_retransmissions", f->host_retrans >= 0 ?
			    json_integer(f->host_retrans) : json_null());
	json_object_set_new(o, "rtt_ns", f->rtt ? report_hist_json(f->rtt, &f->rtt_clk) :
			    json_null());
	json_object_set_new(o, "error", f->error[0] ? json_string(f->error) : json_null());
	return o;
}

static json_t *converge_step_json(const struct converge_report_info *info,
				  const struct converge_step *st)
{
	json_t *o = json_object(), *classes = json_array(), *flows = json_array();
	size_t i;

	for (i = 0; i < st->n_classes; i++)
		json_array_append_new(classes, converge_class_json(info, st, &st->classes[i]));
	for (i = 0; i < st->n_flows; i++)
		if (st->flows[i].ran)
			json_array_append_new(flows, converge_flow_json(info, &st->flows[i]));
	json_object_set_new(o, "active_bw", json_integer(st->active_bw));
	json_object_set_new(o, "window_s", json_real(st->window_s));
	json_object_set_new(o, "total_gbps", json_real(st->total_gbps));
	json_object_set_new(o, "analysis_link_gbps", json_real(st->analysis_link_gbps));
	json_object_set_new(o, "compared", json_boolean(st->compared));
	json_object_set_new(o, "within", json_boolean(st->within));
	json_object_set_new(o, "cut_short", json_boolean(st->cut_short));
	json_object_set_new(o, "switch_counters", json_boolean(st->switch_read));
	json_object_set_new(o, "switch_error", st->switch_error[0] ?
			    json_string(st->switch_error) : json_null());
	json_object_set_new(o, "classes", classes);
	json_object_set_new(o, "flows", flows);
	return o;
}

static json_t *converge_config_json(const struct converge_report_info *info)
{
	json_t *o = json_object();

	json_object_set_new(o, "scenario", json_string(info->scenario));
	json_object_set_new(o, "destination", json_string(info->destination));
	json_object_set_new(o, "arbitration", info->arbitration ?
			    json_string(info->arbitration) : json_null());
	json_object_set_new(o, "model", info->model ? json_string(info->model) : json_null());
	json_object_set_new(o, "link_gbps",
			    report_real_or_null(info->link_gbps > 0, info->link_gbps));
	json_object_set_new(o, "duration_s", json_real(info->duration_s));
	json_object_set_new(o, "warmup_s", json_real(info->warmup_s));
	json_object_set_new(o, "tolerance_pp", json_real(info->tolerance_pp));
	json_object_set_new(o, "sweep", json_boolean(info->sweep));
	return o;
}

json_t *report_converge_json(const struct converge_report_info *info,
			     const struct converge_step *steps, size_t n, const char *error)
{
	json_t *root = json_object(), *arr = json_array();
	bool within = true;
	size_t i;

	for (i = 0; i < n; i++) {
		json_array_append_new(arr, converge_step_json(info, &steps[i]));
		within = within && steps[i].within;
	}
	json_object_set_new(root, "command", json_string("converge"));
	json_object_set_new(root, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "config", converge_config_json(info));
	json_object_set_new(root, "classify", json_string(info->ets ?
			    "ets band of the flow's DSCP (tclass >> 2)" : "service level"));
	json_object_set_new(root, "steps", arr);
	json_object_set_new(root, "within_tolerance", json_boolean(within));
	json_object_set_new(root, "complete", json_boolean(!error));
	json_object_set_new(root, "error", error ? json_string(error) : json_null());
	return root;
}

static double class_pct(const struct converge_class *c, double pct)
{
	return c->lat_ns ? (double)hist_percentile(c->lat_ns, pct) / 1000.0 : 0;
}

static void converge_class_row(FILE *out, const struct converge_step *st,
			       const struct converge_class *c)
{
	bool cmp = st->compared && c->has_analyzed;

	fprintf(out, "%5d %3u %3u ", c->key, c->n_lat, c->n_bw);
	if (c->lat_ns)
		fprintf(out, "%9.1f %9.1f %9.1f ", class_pct(c, 50), class_pct(c, 99),
			class_pct(c, 99.9));
	else
		fprintf(out, "%9s %9s %9s ", "-", "-", "-");
	fprintf(out, "%10.3f %8.1f ", c->gbps * 1000, c->share_pct);
	if (c->has_analyzed)
		fprintf(out, "%8.1f ", c->analyzed_pct);
	else
		fprintf(out, "%8s ", "-");
	if (cmp)
		fprintf(out, "%+7.1f  %s\n", c->diff_pp, c->within ? "ok" : "OUT");
	else
		fprintf(out, "%7s  %s\n", "-", "-");
}

/*
 * Why a class is OUT when the analysis took it as saturating and it fell
 * short: the analysis assumes a queue that never runs dry.
 */
static void converge_backlog_notes(FILE *out, const struct converge_report_info *info,
				   const struct converge_step *st)
{
	const struct converge_class *c;
	size_t k;

	for (k = 0; k < st->n_classes; k++) {
		c = &st->classes[k];
		if (!c->not_backlogged)
			continue;
		fprintf(out, "%s %d: taken as saturating, it was not kept backlogged: %.1f %% "
			"against %.1f %% analyzed (%+.1f points); its flows sent %.3f Mb/s over "
			"their run and it received %.3f Mb/s", info->ets ? "band" : "sl", c->key,
			c->share_pct, c->analyzed_pct, c->diff_pp, c->sent_gbps * 1000,
			c->gbps * 1000);
		if (c->has_retrans)
			fprintf(out, ", with %" PRIu64 " retransmission%s on their hosts' ports",
				c->retrans, c->retrans == 1 ? "" : "s");
		fprintf(out, " (a flow waiting out a retransmission timeout leaves its queue "
			"empty; the analysis assumes it never is)\n");
	}
}

/* The switch's shares beside the destination's, or why there are none. */
static void converge_switch_line(FILE *out, const struct converge_report_info *info,
				 const struct converge_step *st)
{
	const char *sep = "";
	size_t k;

	if (st->switch_error[0]) {
		fprintf(out, "%s\n", st->switch_error);
		return;
	}
	if (!st->switch_read)
		return;
	fprintf(out, "switch port counters, share%% (destination's, difference):");
	for (k = 0; k < st->n_classes; k++) {
		if (!st->classes[k].has_switch)
			continue;
		fprintf(out, "%s %s %d %.1f (%.1f, %+.1f)", sep, info->ets ? "band" : "sl",
			st->classes[k].key, st->classes[k].switch_share_pct,
			st->classes[k].share_pct, st->classes[k].switch_diff_pp);
		sep = ";";
	}
	fprintf(out, "\n");
}

static void converge_flow_errors(FILE *out, const struct converge_step *st)
{
	size_t k;

	for (k = 0; k < st->n_flows; k++)
		if (st->flows[k].ran && st->flows[k].error[0])
			fprintf(out, "flow %s on %s: %s\n", st->flows[k].name, st->flows[k].host,
				st->flows[k].error);
}

void report_converge_table(FILE *out, const struct converge_report_info *info,
			   const struct converge_step *steps, size_t n)
{
	const struct converge_step *st;
	size_t i, k;

	fprintf(out, "rperf converge %s -> %s, %.1f s (+%.1f s warm-up), tolerance %.1f pp\n",
		info->scenario, info->destination, info->duration_s, info->warmup_s,
		info->tolerance_pp);
	if (info->arbitration)
		fprintf(out, "compared with %s (model %s)%s\n", info->arbitration, info->model,
			info->ets ? "; classes are ETS bands, by the DSCP of each flow's tclass" :
				    "; classes are service levels");
	for (i = 0; i < n; i++) {
		st = &steps[i];
		fprintf(out, "\n");
		if (info->sweep)
			fprintf(out, "step %zu: %u bandwidth flow%s\n", i, st->active_bw,
				st->active_bw == 1 ? "" : "s");
		if (st->cut_short && st->window_s <= 0) {
			fprintf(out, "not measured: the step ended before its window began\n");
			converge_flow_errors(out, st);
			continue;
		}
		fprintf(out, "%5s %3s %3s %9s %9s %9s %10s %8s %8s %7s  %s\n",
			info->ets ? "band" : "sl", "lat", "bw", "p50_us", "p99_us", "p99.9_us",
			"Mb/s", "share%", "analyzd%", "diff", "within");
		for (k = 0; k < st->n_classes; k++)
			converge_class_row(out, st, &st->classes[k]);
		fprintf(out, "total %.3f Mb/s in %.2f s%s", st->total_gbps * 1000, st->window_s,
			st->cut_short ? " (cut short)" : "");
		if (!st->compared && info->arbitration)
			fprintf(out, "; not compared: no class saturates the port");
		fprintf(out, "\n");
		converge_switch_line(out, info, st);
		converge_backlog_notes(out, info, st);
		converge_flow_errors(out, st);
	}
}

void report_converge_csv(FILE *out, const struct converge_report_info *info,
			 const struct converge_step *steps, size_t n)
{
	const struct converge_class *c;
	size_t i, k;

	fprintf(out, "step,active_bw,%s,lat_flows,bw_flows,p50_ns,p99_ns,p99_9_ns,gbps,"
		     "share_pct,analyzed_pct,diff_pp,within,window_s,cut_short\n",
		info->ets ? "band" : "sl");
	for (i = 0; i < n; i++) {
		for (k = 0; k < steps[i].n_classes; k++) {
			c = &steps[i].classes[k];
			fprintf(out, "%zu,%u,%d,%u,%u,", i, steps[i].active_bw, c->key, c->n_lat,
				c->n_bw);
			if (c->lat_ns)
				fprintf(out, "%.1f,%.1f,%.1f,", class_pct(c, 50) * 1000,
					class_pct(c, 99) * 1000, class_pct(c, 99.9) * 1000);
			else
				fprintf(out, ",,,");
			fprintf(out, "%.6f,%.2f,", c->gbps, c->share_pct);
			if (steps[i].compared && c->has_analyzed)
				fprintf(out, "%.2f,%.2f,%d,", c->analyzed_pct, c->diff_pp, c->within);
			else if (c->has_analyzed)
				fprintf(out, "%.2f,,,", c->analyzed_pct);
			else
				fprintf(out, ",,,");
			fprintf(out, "%.3f,%d\n", steps[i].window_s, steps[i].cut_short);
		}
	}
}
