/*
 * Formatting of results (see report.h): the histogram objects every
 * report shares, and the lat, server and bw reports. The analyze and converge reports have files of their own.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "report/report.h"
#include "engine/sink.h"

/* ================================================================== */
/* lat and server                                                      */
/* ================================================================== */

static const struct {
	const char *key;
	double pct;
} lat_pcts[] = {
	{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p99_9", 99.9 }, { "p99_99", 99.99 },
};

#define N_PCTS (sizeof(lat_pcts) / sizeof(lat_pcts[0]))

static double ns(const struct clock_cal *clk, uint64_t ticks)
{
	return clock_ticks_to_ns(clk, ticks);
}

/* Rounded to 0.1 ns: finer digits only repeat the clock's noise. */
static json_t *json_ns(double v)
{
	return json_real((double)(int64_t)(v * 10 + (v < 0 ? -0.5 : 0.5)) / 10);
}

json_t *report_schema_stamp(json_t *o)
{
	json_object_set_new(o, "schema_version", json_integer(REPORT_SCHEMA_VERSION));
	return o;
}

json_t *report_doc_new(const char *command)
{
	json_t *o = json_object();

	json_object_set_new(o, "command", json_string(command));
	report_schema_stamp(o);
	json_object_set_new(o, "version", json_string(PACKAGE_VERSION));
	return o;
}

json_t *report_failed_json(const char *command, const char *error)
{
	json_t *o = report_doc_new(command);

	json_object_set_new(o, "complete", json_false());
	json_object_set_new(o, "error", json_string(error && error[0] ? error : "failed"));
	return o;
}

json_t *report_real_or_null(bool has, double v)
{
	return has ? json_real(v) : json_null();
}


json_t *report_hist_json(const struct hist *h, const struct clock_cal *clk)
{
	double tpn = clk->ticks_per_ns;
	json_t *o = json_object();
	size_t i;

	json_object_set_new(o, "count", json_integer((json_int_t)hist_count(h)));
	json_object_set_new(o, "min", json_ns(ns(clk, hist_min(h))));
	json_object_set_new(o, "max", json_ns(ns(clk, hist_max(h))));
	json_object_set_new(o, "mean", json_ns(hist_mean(h) / tpn));
	json_object_set_new(o, "stdev", json_ns(hist_stdev(h) / tpn));
	for (i = 0; i < N_PCTS; i++)
		json_object_set_new(o, lat_pcts[i].key,
				    json_ns(ns(clk, hist_percentile(h, lat_pcts[i].pct))));
	return o;
}

static void bucket_json(uint64_t value, uint64_t count, void *arg)
{
	json_t *pair = json_array();
	const struct clock_cal *clk = ((void **)arg)[1];

	json_array_append_new(pair, json_ns(ns(clk, value)));
	json_array_append_new(pair, json_integer((json_int_t)count));
	json_array_append_new(((void **)arg)[0], pair);
}

json_t *report_hist_buckets_json(const struct hist *h, const struct clock_cal *clk)
{
	json_t *arr = json_array();
	void *arg[2] = { arr, (void *)clk };

	hist_foreach(h, bucket_json, arg);
	return arr;
}

/* The config keys every client command reports: where and how it sent. */
static json_t *flow_config_json(const struct lat_report_info *in)
{
	json_t *o = json_object();

	json_object_set_new(o, "server", json_string(in->server));
	json_object_set_new(o, "device", json_string(in->device));
	json_object_set_new(o, "port", json_integer(in->port));
	json_object_set_new(o, "link_layer", json_string(in->roce ? "Ethernet" : "InfiniBand"));
	json_object_set_new(o, "gid_index", in->gid_index < 0 ? json_null() :
					     json_integer(in->gid_index));
	json_object_set_new(o, "mtu", json_string(in->mtu));
	json_object_set_new(o, "sl", json_integer(in->path.sl));
	json_object_set_new(o, "tclass", json_integer(in->path.tclass));
	json_object_set_new(o, "qp_timeout", json_integer(in->path.timeout));
	json_object_set_new(o, "retry", json_integer(in->path.retry));
	json_object_set_new(o, "threads", json_integer(in->threads));
	json_object_set_new(o, "connection", json_string(in->rdma_cm ? "rdma_cm" : "tcp"));
	json_object_set_new(o, "hugepages", json_boolean(in->hugepages));
	return o;
}

static json_t *lat_config_json(const struct lat_report_info *in)
{
	json_t *o = flow_config_json(in);

	json_object_set_new(o, "iterations", json_integer((json_int_t)in->iterations));
	json_object_set_new(o, "duration_s", json_real(in->duration_s));
	json_object_set_new(o, "warmup", json_integer((json_int_t)in->warmup));
	return o;
}

static json_t *clock_json(const struct clock_cal *clk)
{
	json_t *o = json_object();

	json_object_set_new(o, "source", json_string(clock_source_name(clk->source)));
	json_object_set_new(o, "ticks_per_ns", json_real(clk->ticks_per_ns));
	json_object_set_new(o, "uncertainty_ppm", json_real(clk->uncertainty_ppm));
	json_object_set_new(o, "method", json_string(clk->method ? clk->method : ""));
	return o;
}

static json_t *lat_result_json(const struct flow_result *r, const struct clock_cal *clk)
{
	json_t *o = json_object();

	json_object_set_new(o, "size_bytes", json_integer((json_int_t)r->size_bytes));
	json_object_set_new(o, "samples", json_integer((json_int_t)r->samples));
	json_object_set_new(o, "complete", json_boolean(!r->status));
	json_object_set_new(o, "rtt_ns", report_hist_json(r->rtt, clk));
	json_object_set_new(o, "wire_ns", report_hist_json(r->wire, clk));
	json_object_set_new(o, "loopback_ns", report_hist_json(r->loop, clk));
	json_object_set_new(o, "loopback_after_wire", json_integer((json_int_t)r->loop_after_wire));
	json_object_set_new(o, "negative_rtt_ns", report_hist_json(r->rtt_neg, clk));
	json_object_set_new(o, "retransmissions", json_integer((json_int_t)r->retrans));
	return o;
}

json_t *report_lat_json(const struct lat_report_info *info, const struct flow_result *res,
			size_t n, const char *error)
{
	json_t *root = report_doc_new("lat"), *arr = json_array();
	size_t i;

	json_object_set_new(root, "config", lat_config_json(info));
	json_object_set_new(root, "clock", clock_json(info->clk));
	for (i = 0; i < n; i++)
		json_array_append_new(arr, lat_result_json(&res[i], info->clk));
	json_object_set_new(root, "results", arr);
	json_object_set_new(root, "environment", run_env_json(info->env));
	json_object_set_new(root, "criteria", report_criteria_json(info->criteria));
	json_object_set_new(root, "complete", json_boolean(!error));
	json_object_set_new(root, "error", error ? json_string(error) : json_null());
	return root;
}

static double us(const struct clock_cal *clk, uint64_t ticks)
{
	return clock_ticks_to_ns(clk, ticks) / 1e3;
}

enum lat_metric { LAT_RTT, LAT_WIRE, LAT_LOOP };

static const struct hist *lat_hist(const struct flow_result *r, enum lat_metric m)
{
	return m == LAT_RTT ? r->rtt : m == LAT_WIRE ? r->wire : r->loop;
}

static void lat_table_block(FILE *out, const char *title, const struct flow_result *res,
			    size_t n, enum lat_metric m, const struct clock_cal *clk)
{
	const struct hist *h;
	size_t i, j;

	fprintf(out, "%s, us\n%9s %9s", title, "bytes", "samples");
	for (j = 0; j < N_PCTS; j++)
		fprintf(out, " %9s", lat_pcts[j].key);
	fprintf(out, " %9s %9s %9s %9s\n", "min", "max", "mean", "stdev");
	for (i = 0; i < n; i++) {
		h = lat_hist(&res[i], m);
		fprintf(out, "%9zu %9" PRIu64, res[i].size_bytes, hist_count(h));
		for (j = 0; j < N_PCTS; j++)
			fprintf(out, " %9.3f", us(clk, hist_percentile(h, lat_pcts[j].pct)));
		fprintf(out, " %9.3f %9.3f %9.3f %9.3f\n", us(clk, hist_min(h)), us(clk, hist_max(h)),
			hist_mean(h) / clk->ticks_per_ns / 1e3,
			hist_stdev(h) / clk->ticks_per_ns / 1e3);
	}
}

void report_lat_table(FILE *out, const struct lat_report_info *info,
		      const struct flow_result *res, size_t n)
{
	size_t i;

	fprintf(out, "rperf lat to %s: %s port %u, %s, MTU %s, SL %u, tclass %u, %u thread%s, "
		"clock %s (%s)\n\n", info->server, info->device, info->port,
		info->roce ? "RoCE" : "InfiniBand", info->mtu, info->path.sl, info->path.tclass,
		info->threads, info->threads == 1 ? "" : "s", clock_source_name(info->clk->source),
		info->clk->method ? info->clk->method : "");
	lat_table_block(out, "RTT = T_W - T_L", res, n, LAT_RTT,
			info->clk);
	fputc('\n', out);
	lat_table_block(out, "wire = T_W - T_P", res, n, LAT_WIRE,
			info->clk);
	fputc('\n', out);
	lat_table_block(out, "loopback = T_L - T_P", res, n, LAT_LOOP,
			info->clk);
	fprintf(out, "\n%9s %19s %15s %9s\n", "bytes", "loopback_after_wire", "retransmissions",
		"complete");
	for (i = 0; i < n; i++)
		fprintf(out, "%9zu %19" PRIu64 " %15" PRIu64 " %9s\n", res[i].size_bytes,
			res[i].loop_after_wire, res[i].retrans, res[i].status ? "no" : "yes");
}

void report_lat_csv_header(FILE *out)
{
	fprintf(out, "thread,size_bytes,sample,t_p_ticks,t_l_ticks,t_w_ticks,wire_ns,"
		     "loopback_ns,rtt_ns\n");
}

void report_lat_csv_row(FILE *out, unsigned thread, size_t size_bytes, uint64_t warmup,
			const struct probe_sample *s, const struct clock_cal *clk)
{
	double rtt = s->t_w >= s->t_l ? ns(clk, s->t_w - s->t_l) : -ns(clk, s->t_l - s->t_w);

	/* One fprintf per line: stdio locks the stream, lines never mix. */
	fprintf(out, "%u,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%.1f\n",
		thread, size_bytes, s->index - warmup, s->t_p, s->t_l, s->t_w,
		ns(clk, s->t_w - s->t_p), ns(clk, s->t_l - s->t_p), rtt);
}

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
}

/* ================================================================== */
/* bw                                                                  */
/* ================================================================== */

static double gbps(uint64_t bytes, double s)
{
	return s > 0 ? (double)bytes * 8 / s / 1e9 : 0;
}

static double mpps(uint64_t msgs, double s)
{
	return s > 0 ? (double)msgs / s / 1e6 : 0;
}

/* {msgs, bytes, gbps, mpps} over @s seconds. */
static json_t *bw_rate_json(uint64_t msgs, uint64_t bytes, double s)
{
	json_t *o = json_object();

	json_object_set_new(o, "msgs", json_integer((json_int_t)msgs));
	json_object_set_new(o, "bytes", json_integer((json_int_t)bytes));
	json_object_set_new(o, "gbps", json_real(gbps(bytes, s)));
	json_object_set_new(o, "mpps", json_real(mpps(msgs, s)));
	return o;
}

/* How the sender waited for completions: "event", "yield" or "poll". */
static const char *bw_completion(const struct bw_report_info *in)
{
	return in->event ? "event" : in->yield ? "yield" : "poll";
}

static json_t *bw_config_json(const struct bw_report_info *in)
{
	json_t *o = flow_config_json(&in->flow);

	json_object_set_new(o, "op", json_string(in->write ? "write" : "send"));
	json_object_set_new(o, "size_bytes", json_integer((json_int_t)in->size_bytes));
	json_object_set_new(o, "qps", json_integer(in->qps));
	json_object_set_new(o, "tx_depth", json_integer(in->tx_depth));
	json_object_set_new(o, "batch", json_integer(in->batch));
	json_object_set_new(o, "cq_mod", json_integer(in->cq_mod));
	json_object_set_new(o, "completion", json_string(bw_completion(in)));
	json_object_set_new(o, "rate_bps", in->rate_bps ? json_integer((json_int_t)in->rate_bps) :
							  json_null());
	json_object_set_new(o, "hw_rate_bps", in->hw_rate_bps ?
			    json_integer((json_int_t)in->hw_rate_bps) : json_null());
	json_object_set_new(o, "duration_s", json_real(in->duration_s));
	json_object_set_new(o, "interval_s", json_real(in->interval_s));
	return o;
}

static json_t *bw_interval_json(const struct bw_interval *iv)
{
	double s = iv->end_s - iv->start_s;
	json_t *o = json_object();

	json_object_set_new(o, "start_s", json_real(iv->start_s));
	json_object_set_new(o, "end_s", json_real(iv->end_s));
	json_object_set_new(o, "sent", bw_rate_json(iv->msgs, iv->bytes, s));
	json_object_set_new(o, "received", iv->rx_valid ?
			    bw_rate_json(iv->rx_msgs, iv->rx_bytes, s) : json_null());
	return o;
}

static json_t *bw_total_json(const struct flow_result *r, const struct clock_cal *clk)
{
	double s = clock_ticks_to_ns(clk, r->elapsed_ticks) / 1e9;
	json_t *o = json_object();

	json_object_set_new(o, "elapsed_s", json_real(s));
	json_object_set_new(o, "sent", bw_rate_json(r->msgs, r->bytes, s));
	json_object_set_new(o, "received", r->rx_valid ? bw_rate_json(r->rx_msgs, r->rx_bytes, s) :
							  json_null());
	json_object_set_new(o, "retransmissions", json_integer((json_int_t)r->retrans));
	return o;
}

json_t *report_bw_json(const struct bw_report_info *info, const struct flow_result *total,
		       const struct bw_interval *iv, size_t n_iv, const char *error)
{
	json_t *root = report_doc_new("bw"), *arr = json_array();
	size_t i;

	json_object_set_new(root, "config", bw_config_json(info));
	json_object_set_new(root, "clock", clock_json(info->flow.clk));
	for (i = 0; i < n_iv; i++)
		json_array_append_new(arr, bw_interval_json(&iv[i]));
	json_object_set_new(root, "intervals", arr);
	json_object_set_new(root, "total", bw_total_json(total, info->flow.clk));
	json_object_set_new(root, "environment", run_env_json(info->flow.env));
	json_object_set_new(root, "criteria", report_criteria_json(info->flow.criteria));
	json_object_set_new(root, "complete", json_boolean(!error));
	json_object_set_new(root, "error", error ? json_string(error) : json_null());
	return root;
}

void report_bw_header(FILE *out, const struct bw_report_info *info)
{
	const struct lat_report_info *f = &info->flow;

	fprintf(out, "rperf bw to %s: %s port %u, %s, MTU %s, SL %u, tclass %u, %s of %zu bytes, "
		"%u thread%s x %u QP%s, window %u, %s\n", f->server, f->device,
		f->port, f->roce ? "RoCE" : "InfiniBand", f->mtu, f->path.sl, f->path.tclass,
		info->write ? "RDMA WRITE" : "SEND", info->size_bytes, f->threads,
		f->threads == 1 ? "" : "s", info->qps, info->qps == 1 ? "" : "s", info->tx_depth,
		info->event ? "waits for completion events" :
		info->yield ? "polls completions, yielding" : "busy-polls completions");
	fprintf(out, "\n%17s %12s %10s %12s %10s\n", "interval, s", "sent Gb/s", "Mpps",
		"recv Gb/s", "Mpps");
	fflush(out);
}

/* "  12.345   0.1234" or "       -        -" when unknown. */
static void bw_cols(FILE *out, bool valid, uint64_t msgs, uint64_t bytes, double s)
{
	if (valid)
		fprintf(out, " %12.6f %10.6f", gbps(bytes, s), mpps(msgs, s));
	else
		fprintf(out, " %12s %10s", "-", "-");
}

void report_bw_interval(FILE *out, const struct bw_interval *iv)
{
	double s = iv->end_s - iv->start_s;

	fprintf(out, "%7.2f - %7.2f", iv->start_s, iv->end_s);
	bw_cols(out, true, iv->msgs, iv->bytes, s);
	bw_cols(out, iv->rx_valid, iv->rx_msgs, iv->rx_bytes, s);
	fputc('\n', out);
	fflush(out);
}

void report_bw_total(FILE *out, const struct flow_result *r, const struct clock_cal *clk)
{
	double s = clock_ticks_to_ns(clk, r->elapsed_ticks) / 1e9;

	fprintf(out, "%7.2f s total  ", s);
	bw_cols(out, true, r->msgs, r->bytes, s);
	bw_cols(out, r->rx_valid, r->rx_msgs, r->rx_bytes, s);
	fprintf(out, "\n\n%" PRIu64 " messages sent, ", r->msgs);
	if (r->rx_valid)
		fprintf(out, "%" PRIu64 " received", r->rx_msgs);
	else
		fprintf(out, "received unknown");
	fprintf(out, ", %" PRIu64 " retransmissions%s\n", r->retrans,
		r->status ? " (incomplete)" : "");
}

void report_bw_csv_header(FILE *out)
{
	fprintf(out, "start_s,end_s,sent_msgs,sent_bytes,sent_gbps,sent_mpps,"
		     "recv_msgs,recv_bytes,recv_gbps,recv_mpps\n");
}

void report_bw_csv_row(FILE *out, const struct bw_interval *iv)
{
	double s = iv->end_s - iv->start_s;

	fprintf(out, "%.6f,%.6f,%" PRIu64 ",%" PRIu64 ",%.9f,%.9f", iv->start_s, iv->end_s,
		iv->msgs, iv->bytes, gbps(iv->bytes, s), mpps(iv->msgs, s));
	if (iv->rx_valid)
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.9f,%.9f\n", iv->rx_msgs, iv->rx_bytes,
			gbps(iv->rx_bytes, s), mpps(iv->rx_msgs, s));
	else
		fprintf(out, ",,,,\n");
	fflush(out);
}

/* ================================================================== */
/* Pass/fail criteria                                                  */
/* ================================================================== */

/* [{"name", "scope", "kind", "limit_UNIT", "value_UNIT" (null: none), "passed"}] */
json_t *report_criteria_json(const struct criteria *cs)
{
	json_t *arr = json_array(), *o;
	char key[32];
	int i;

	for (i = 0; cs && i < cs->n; i++) {
		const struct criterion *c = &cs->c[i];

		o = json_object();
		json_object_set_new(o, "name", json_string(c->name));
		json_object_set_new(o, "scope", json_string(c->scope));
		json_object_set_new(o, "kind", json_string(c->kind == CRITERION_MAX ?
							  "max" : "min"));
		snprintf(key, sizeof(key), "limit_%s", c->unit);
		json_object_set_new(o, key, json_real(c->limit));
		snprintf(key, sizeof(key), "value_%s", c->unit);
		json_object_set_new(o, key, report_real_or_null(c->measured, c->value));
		json_object_set_new(o, "passed", json_boolean(c->passed));
		json_array_append_new(arr, o);
	}
	return arr;
}

static const char *criterion_unit(const char *unit)
{
	return !strcmp(unit, "gbps") ? "Gb/s" : !strcmp(unit, "pct") ? "%" :
	       !strcmp(unit, "pp") ? "points" : !strcmp(unit, "ratio") ? "times" : unit;
}

void report_criterion_line(const struct criterion *c, char *buf, size_t len)
{
	const char *u = criterion_unit(c->unit);

	if (!c->measured)
		snprintf(buf, len, "%s (%s): not measured, limit %.6g %s", c->name, c->scope,
			 c->limit, u);
	else
		snprintf(buf, len, "%s (%s): %.6g %s, %s %.6g %s", c->name, c->scope,
			 c->value, u, c->passed ? (c->kind == CRITERION_MAX ? "within" :
						   "reaching") :
			 c->kind == CRITERION_MAX ? "above" : "below", c->limit, u);
}

void report_criteria_table(FILE *out, const struct criteria *cs)
{
	char line[256];
	int i;

	if (!cs || !cs->n)
		return;
	fprintf(out, "\ncriteria:\n");
	for (i = 0; i < cs->n; i++) {
		report_criterion_line(&cs->c[i], line, sizeof(line));
		fprintf(out, "  %s %s\n", cs->c[i].passed ? "PASS" : "FAIL", line);
	}
}
