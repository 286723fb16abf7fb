/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf bw's report (see report_bw.h): its document (config, the intervals,
 * the total), its table (a header, a line an interval, the total and the
 * receiver's side) and its CSV. A rate's figures (msgs, bytes, Gb/s,
 * Mpps) are described once, in bw_rate_fields, which the JSON, the CSV
 * and the table all read.
 */
#include <inttypes.h>
#include <string.h>

#include "report/report_bw_int.h"
#include "report/report_int.h"
#include "report/report_lat_int.h"
#include "flow/figures.h"

static double gbps(uint64_t bytes, double s)
{
	return s > 0 ? report_bps_gbps((double)bytes * 8 / s) : 0;
}

static double mpps(uint64_t msgs, double s)
{
	return s > 0 ? (double)msgs / s / 1e6 : 0;	/* millions of messages a second */
}

/* A rate's row: @msgs and @bytes over @s seconds; !@valid: not known. */
struct bw_rate_row {
	bool valid;
	uint64_t msgs, bytes;
	double s;
};

/* Figure @arg (a field's key) of rate @row. */
static void bw_rate_get(const void *row, const char *arg, struct report_value *v)
{
	const struct bw_rate_row *w = row;

	if (!w->valid)
		rv_null(v, NULL);
	else if (!strcmp(arg, "msgs") || !strcmp(arg, "bytes"))
		rv_int(v, (long long)(arg[0] == 'm' ? w->msgs : w->bytes));
	else
		rv_real(v, !strcmp(arg, "gbps") ? gbps(w->bytes, w->s) : mpps(w->msgs, w->s));
}

/* A rate's figures (bw.schema.json's rate), in the order of the JSON, the
 * CSV and the table, which all take them from here. */
#define RATE(k)		.key = (k), .csv = (k), .arg = (k), .get = bw_rate_get
static const struct report_field bw_rate_fields[] = {
	{ RATE("msgs") },
	{ RATE("bytes") },
	{ RATE("gbps"), .csv_prec = 9, .head = { "Gb/s" }, .width = 12, .num = { .prec = 6 } },
	{ RATE("mpps"), .csv_prec = 9, .head = { "Mpps" }, .width = 10, .num = { .prec = 6 } },
};
#undef RATE

#define N_RATE_FIELDS (sizeof(bw_rate_fields) / sizeof(bw_rate_fields[0]))

const char *report_bw_rate_key(size_t i)
{
	return i < N_RATE_FIELDS ? bw_rate_fields[i].key : NULL;
}

/* {msgs, bytes, gbps, mpps} over @s seconds. */
static json_t *bw_rate_json(uint64_t msgs, uint64_t bytes, double s)
{
	const struct bw_rate_row w = { true, msgs, bytes, s };

	return report_fields_json(bw_rate_fields, N_RATE_FIELDS, &w, 0);
}

/* The CSV's columns of a rate (",msgs,bytes,gbps,mpps"), empty when unknown. */
static void bw_rate_csv(FILE *out, bool valid, uint64_t msgs, uint64_t bytes, double s)
{
	const struct bw_rate_row w = { valid, msgs, bytes, s };
	struct report_value v;
	size_t i;

	for (i = 0; i < N_RATE_FIELDS; i++) {
		report_field_get(&bw_rate_fields[i], &w, &v);
		fputc(',', out);
		report_value_csv(out, &v, bw_rate_fields[i].csv_prec);
	}
}

/* "PREFIX_msgs,PREFIX_bytes,...": the CSV header of a rate. */
static void bw_rate_csv_head(FILE *out, const char *prefix)
{
	size_t i;

	for (i = 0; i < N_RATE_FIELDS; i++)
		fprintf(out, ",%s_%s", prefix, bw_rate_fields[i].key);
}

/* How the sender waited for completions: "event", "yield" or "poll". */
static const char *bw_completion(const struct bw_report_info *in)
{
	return in->event ? "event" : in->yield ? "yield" : "poll";
}

void report_bw_info(struct bw_report_info *info, const struct run_bw *r)
{
	const struct run_bw_cfg *o = r->cfg;
	const struct flow_opts *f = o->flow;

	*info = (struct bw_report_info){
		.flow = {
			.server = f->host, .device = r->c.dev.name, .port = r->c.dev.port,
			.gid_index = r->c.dev.gid_index, .roce = r->c.dev.roce,
			.mtu = verbs_mtu_str(r->c.dev.port_attr.active_mtu), .path = r->c.path,
			.clk = &r->c.clk, .threads = f->spec.threads, .rdma_cm = f->rdma_cm,
			.authenticated = f->token_file != NULL,
			.hugepages = f->hugepages && r->c.got_huge, .duration_s = o->duration_s,
			.env = &r->c.env, .criteria = &r->crit,
		},
		.write = o->write, .size_bytes = f->spec.size_bytes, .qps = f->spec.qps,
		.tx_depth = o->tx_depth, .batch = o->batch, .cq_mod = o->cq_mod,
		.yield = f->yield, .event = o->event, .rate_bps = f->spec.rate_bps,
		.hw_rate_bps = o->hw_rate_bps, .hw_rate_applied_bps = r->hw_rate_applied_bps,
		.duration_s = o->duration_s,
		.interval_s = o->interval_s,
	};
}

/* ------------------------------------------------------------------ */
/* The config and the total, each described once                       */
/* ------------------------------------------------------------------ */

#define INFO(m)		REPORT_MEMBER(NULL, struct bw_report_info, m)
/* Null where it is 0 (none). */
#define INFO_SET(m)	REPORT_MEMBER_GATED(NULL, struct bw_report_info, m, RG_POSITIVE)

static void get_op(const void *row, const char *arg, struct report_value *v)
{
	rv_str(v, ((const struct bw_report_info *)row)->write ? "write" : "send");
}

static void get_completion(const void *row, const char *arg, struct report_value *v)
{
	rv_str(v, bw_completion(row));
}

/* How --hw-rate was applied: the address vector's static rate; null without it. */
static void get_hw_rate_method(const void *row, const char *arg, struct report_value *v)
{
	rv_str(v, ((const struct bw_report_info *)row)->hw_rate_bps ? "static_rate" : NULL);
}

/* What bw's config adds to the flow's (bw.schema.json's config). */
static const struct report_field bw_config_fields[] = {
	{ .key = "op", .get = get_op },
	{ .key = "size_bytes", INFO(size_bytes) },
	{ .key = "qps", INFO(qps) },
	{ .key = "tx_depth", INFO(tx_depth) },
	{ .key = "batch", INFO(batch) },
	{ .key = "cq_mod", INFO(cq_mod) },
	{ .key = "completion", .get = get_completion },
	{ .key = "rate_bps", INFO_SET(rate_bps) },
	{ .key = "hw_rate_bps", INFO_SET(hw_rate_bps) },
	{ .key = "hw_rate_applied_bps", INFO_SET(hw_rate_applied_bps) },
	{ .key = "hw_rate_method", .get = get_hw_rate_method },
	{ .key = "duration_s", INFO(duration_s) },
	{ .key = "interval_s", INFO(interval_s) },
};

#undef INFO
#undef INFO_SET

/* The total's row: the run's merged result and the clock of its ticks. */
struct bw_total_row {
	const struct flow_result *r;
	const struct clock_cal *clk;
};

static double bw_total_s(const struct bw_total_row *w)
{
	return figures_s(w->clk, (double)w->r->elapsed_ticks);
}

static void get_elapsed(const void *row, const char *arg, struct report_value *v)
{
	rv_real(v, bw_total_s(row));
}

/* The rate sent (@arg "sent") or received (null: the server was not asked). */
static void get_total_rate(const void *row, const char *arg, struct report_value *v)
{
	const struct bw_total_row *w = row;
	const struct flow_result *r = w->r;

	v->type = RV_JSON;
	if (!strcmp(arg, "sent"))
		v->json = bw_rate_json(r->msgs, r->bytes, bw_total_s(w));
	else
		v->json = r->rx_valid ? bw_rate_json(r->rx_msgs, r->rx_bytes, bw_total_s(w)) :
					json_null();
}

static void get_total_receiver(const void *row, const char *arg, struct report_value *v)
{
	v->type = RV_JSON;
	v->json = report_receiver_json(((const struct bw_total_row *)row)->r);
}

static const void *bw_total_of(const void *row)
{
	return ((const struct bw_total_row *)row)->r;
}

/* The run's total (bw.schema.json's total). */
static const struct report_field bw_total_fields[] = {
	{ .key = "elapsed_s", .get = get_elapsed },
	{ .key = "sent", .arg = "sent", .get = get_total_rate },
	{ .key = "received", .arg = "received", .get = get_total_rate },
	{ .key = "retransmissions", REPORT_MEMBER(bw_total_of, struct flow_result, retrans) },
	{ .key = "receiver", .get = get_total_receiver },
};


const struct report_field *report_bw_fields(enum report_bw_list l, size_t *n)
{
	*n = l == RB_CONFIG ? N_OF(bw_config_fields) : N_OF(bw_total_fields);
	return l == RB_CONFIG ? bw_config_fields : bw_total_fields;
}

json_t *report_bw_config_json(const struct bw_report_info *in)
{
	return report_fields_json_add(report_flow_config_json(&in->flow), bw_config_fields,
				      N_OF(bw_config_fields), in, 0);
}

json_t *report_bw_interval_json(const struct bw_interval *iv)
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

json_t *report_bw_total_json(const struct flow_result *r, const struct clock_cal *clk)
{
	const struct bw_total_row w = { r, clk };

	return report_fields_json(bw_total_fields, N_OF(bw_total_fields), &w, 0);
}

json_t *report_bw_json(const struct bw_report_info *info, const struct flow_result *total,
		       const struct bw_interval *iv, size_t n_iv, const char *error)
{
	json_t *root = report_doc_new("bw"), *arr = json_array();
	size_t i;

	json_object_set_new(root, "config", report_bw_config_json(info));
	/* Connected with a token: each end proved it to the other. */
	json_object_set_new(root, "authenticated", json_boolean(info->flow.authenticated));
	json_object_set_new(root, "clock", report_clock_json(info->flow.clk));
	for (i = 0; i < n_iv; i++)
		json_array_append_new(arr, report_bw_interval_json(&iv[i]));
	json_object_set_new(root, "intervals", arr);
	json_object_set_new(root, "total", report_bw_total_json(total, info->flow.clk));
	json_object_set_new(root, "environment", run_env_json(info->flow.env));
	json_object_set_new(root, "criteria", report_criteria_json(info->flow.criteria));
	report_end_set(root, !error, error);
	return root;
}

void report_bw_header(FILE *out, const struct bw_report_info *info)
{
	const struct lat_report_info *f = &info->flow;

	fprintf(out, "rperf bw to %s: %s port %u, %s, MTU %s, SL %u (%s), tclass %u (%s), %s of "
		"%zu bytes, %u thread%s x %u QP%s, window %u, %s\n", f->server, f->device,
		f->port, f->roce ? "RoCE" : "InfiniBand", f->mtu, f->path.sl,
		verbs_path_source_name(f->path.sl_source), f->path.tclass,
		verbs_path_source_name(f->path.tclass_source),
		info->write ? "RDMA WRITE" : "SEND", info->size_bytes, f->threads,
		f->threads == 1 ? "" : "s", info->qps, info->qps == 1 ? "" : "s", info->tx_depth,
		info->event ? "waits for completion events" :
		info->yield ? "polls completions, yielding" : "busy-polls completions");
	fprintf(out, "\n%17s %12s %10s %12s %10s\n", "interval, s", "sent Gb/s", "Mpps",
		"recv Gb/s", "Mpps");
	fflush(out);
}

/* The table's columns of a rate ("  12.345678   0.123456"), "-" when unknown. */
static void bw_cols(FILE *out, bool valid, uint64_t msgs, uint64_t bytes, double s)
{
	const struct bw_rate_row w = { valid, msgs, bytes, s };
	struct report_value v;
	char cell[48];
	size_t i;

	for (i = 0; i < N_RATE_FIELDS; i++) {
		if (!bw_rate_fields[i].head[0])
			continue;
		report_field_get(&bw_rate_fields[i], &w, &v);
		report_value_text(&v, &bw_rate_fields[i].num, cell, sizeof(cell));
		fprintf(out, " %*s", bw_rate_fields[i].width, cell);
	}
}

/* How a line writes a rate: the table's columns (bw_cols) or the CSV's (bw_rate_csv). */
typedef void bw_rate_out(FILE *out, bool valid, uint64_t msgs, uint64_t bytes, double s);

/* The rest of an interval's line: its sent and received rates by @put, then the line's end. */
static void bw_interval_rates(FILE *out, const struct bw_interval *iv, bw_rate_out *put)
{
	double s = iv->end_s - iv->start_s;

	put(out, true, iv->msgs, iv->bytes, s);
	put(out, iv->rx_valid, iv->rx_msgs, iv->rx_bytes, s);
	fputc('\n', out);
	fflush(out);
}

void report_bw_interval(FILE *out, const struct bw_interval *iv)
{
	fprintf(out, "%7.2f - %7.2f", iv->start_s, iv->end_s);
	bw_interval_rates(out, iv, bw_cols);
}

/* "-" for a counter the receiver's port does not have. */
static void counter_str(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRId64, v);
}

/* The receiver's side of the total: its RNR NAKs and drops, and what they mean. */
static void bw_receiver_line(FILE *out, const struct flow_result *r)
{
	char rnr[24], oob[24];

	counter_str(rnr, sizeof(rnr), r->rx_rnr_naks_sent);
	counter_str(oob, sizeof(oob), r->rx_out_of_buffer);
	fprintf(out, "receiver's port: %s RNR NAKs sent, %s out-of-buffer drops%s\n", rnr, oob,
		r->rx_rnr_naks_sent < 0 && r->rx_out_of_buffer < 0 ? " (not counted there)" : "");
	if (r->rx_rnr_naks_sent > 0 || r->rx_out_of_buffer > 0)
		fprintf(out, "the receiver fell behind: its RECVs ran out, so these rates are "
			"its CPU's or ring's (see rperf server --ring, --busy-poll), not the "
			"fabric's\n");
}

void report_bw_total(FILE *out, const struct flow_result *r, const struct clock_cal *clk)
{
	double s = figures_s(clk, (double)r->elapsed_ticks);

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
	bw_receiver_line(out, r);
}

void report_bw_csv_header(FILE *out)
{
	fprintf(out, "start_s,end_s");
	bw_rate_csv_head(out, "sent");
	bw_rate_csv_head(out, "recv");
	fputc('\n', out);
}

void report_bw_csv_row(FILE *out, const struct bw_interval *iv)
{
	fprintf(out, "%.6f,%.6f", iv->start_s, iv->end_s);
	bw_interval_rates(out, iv, bw_rate_csv);
}
