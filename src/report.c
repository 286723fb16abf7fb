/*
 * Formatting of every result: see report.h. Sections follow the commands.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arb.h"
#include "config.h"
#include "errbuf.h"
#include "report.h"
#include "sink.h"

/* ================================================================== */
/* Common                                                              */
/* ================================================================== */

/* Why writing @path failed: errno when the C library left one (ENOSPC). */
static int write_error(const char *path, char *err, size_t errlen)
{
	int e = errno ? errno : EIO;

	return errbuf_set(err, errlen, -e, "'%s': %s", path, strerror(e));
}

/* Create @path's temporary sibling: its fd, with its malloc'ed name in *tmp. */
static int json_tmp_open(const char *path, char **tmp, char *err, size_t errlen)
{
	size_t len = strlen(path) + 8;
	int fd, ret;

	*tmp = malloc(len);
	if (!*tmp)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	snprintf(*tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		ret = errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	return fd;
}

int report_json_check(const char *path, char *err, size_t errlen)
{
	char *tmp;
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	fd = json_tmp_open(path, &tmp, err, errlen);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int report_json_write(json_t *root, const char *path, char *err, size_t errlen)
{
	char *tmp;
	int fd, ret = 0;
	FILE *f;

	if (!strcmp(path, "-")) {
		if (json_dumpf(root, stdout, JSON_INDENT(2)) || fputc('\n', stdout) == EOF ||
		    fflush(stdout))
			return errbuf_set(err, errlen, -EIO, "cannot write JSON to stdout");
		return 0;
	}
	fd = json_tmp_open(path, &tmp, err, errlen);
	if (fd < 0)
		return fd;
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	errno = 0;
	if (!f || json_dumpf(root, f, JSON_INDENT(2)) || fputc('\n', f) == EOF ||
	    fflush(f) || fsync(fd))
		ret = write_error(path, err, errlen);
	if ((f ? fclose(f) : close(fd)) && !ret)
		ret = write_error(path, err, errlen);
	if (!ret && rename(tmp, path))
		ret = errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

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
	json_t *root = json_object(), *arr = json_array();
	size_t i;

	json_object_set_new(root, "command", json_string("lat"));
	json_object_set_new(root, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "config", lat_config_json(info));
	json_object_set_new(root, "clock", clock_json(info->clk));
	for (i = 0; i < n; i++)
		json_array_append_new(arr, lat_result_json(&res[i], info->clk));
	json_object_set_new(root, "results", arr);
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
	json_t *root = json_object(), *flows = json_array(), *sls = json_array(), *o;
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
	json_object_set_new(root, "command", json_string("server"));
	json_object_set_new(root, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "device", json_string(s->dev->name));
	json_object_set_new(root, "elapsed_s", json_real(elapsed_s));
	json_object_set_new(root, "flows", flows);
	json_object_set_new(root, "sls", sls);
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
	json_t *root = json_object(), *arr = json_array();
	size_t i;

	json_object_set_new(root, "command", json_string("bw"));
	json_object_set_new(root, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "config", bw_config_json(info));
	json_object_set_new(root, "clock", clock_json(info->flow.clk));
	for (i = 0; i < n_iv; i++)
		json_array_append_new(arr, bw_interval_json(&iv[i]));
	json_object_set_new(root, "intervals", arr);
	json_object_set_new(root, "total", bw_total_json(total, info->flow.clk));
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
/* analyze                                                             */
/* ================================================================== */

static json_t *analyze_distance(bool has, double v)
{
	return has ? json_real(v) : json_null();
}

static json_t *analyze_offered(double gbps)
{
	return gbps < 0 ? json_string("saturate") : json_real(gbps);
}

/* The fields every SL and VL object has; returns @o. */
static json_t *analyze_rates(json_t *o, double share_pct, double gbps,
			     bool has_distance, double mean, double max)
{
	json_object_set_new(o, "share_pct", json_real(share_pct));
	json_object_set_new(o, "gbps", json_real(gbps));
	json_object_set_new(o, "mean_distance", analyze_distance(has_distance, mean));
	json_object_set_new(o, "max_distance", analyze_distance(has_distance, max));
	return o;
}

static json_t *analyze_sl_json(const struct arb_result *res,
			       const struct arb_params *params, int i)
{
	const struct arb_sl_result *r = &res->sls[i];
	json_t *o = json_object();

	json_object_set_new(o, "sl", json_integer(r->sl));
	json_object_set_new(o, "vl", json_integer(r->vl));
	if (res->kind == ARB_KIND_ETS)
		json_object_set_new(o, "band", json_integer(r->vl));
	else
		json_object_set_new(o, "packet_bytes",
				    json_integer(params->packet_bytes[i]));
	json_object_set_new(o, "offered_gbps", analyze_offered(r->offered_gbps));
	return analyze_rates(o, r->share_pct, r->gbps, r->has_distance,
			     r->mean_distance, r->max_distance);
}

/* SLs (or priorities) whose traffic lands in VL (or band) @vl. */
static json_t *analyze_members(const struct arb_result *res, int vl)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < res->n_sls; i++)
		if (res->sls[i].vl == vl)
			json_array_append_new(a, json_integer(res->sls[i].sl));
	return a;
}

static json_t *analyze_vl_json(const struct arb_result *res, int i)
{
	const struct arb_vl_result *v = &res->vls[i];
	json_t *o = json_object();

	json_object_set_new(o, "vl", json_integer(v->vl));
	if (res->kind == ARB_KIND_VLARB) {
		json_object_set_new(o, "high_weight", json_integer(v->high_weight));
		json_object_set_new(o, "low_weight", json_integer(v->low_weight));
	}
	json_object_set_new(o, "sls", analyze_members(res, v->vl));
	return analyze_rates(o, v->share_pct, v->gbps, v->has_distance,
			     v->mean_distance, v->max_distance);
}

static json_t *analyze_band_json(const struct arb_config *cfg,
				 const struct arb_result *res, int b)
{
	const struct arb_vl_result *v = &res->vls[b];
	json_t *o = json_object(), *dscp = json_array();
	int d;

	for (d = 0; d < ARB_NUM_DSCPS; d++)
		if (cfg->dscp_band[d] == b)
			json_array_append_new(dscp, json_integer(d));
	json_object_set_new(o, "band", json_integer(b));
	json_object_set_new(o, "strict", json_boolean(v->strict));
	json_object_set_new(o, "quantum_bytes", v->strict ? json_null() :
			    json_integer(v->quantum_bytes));
	json_object_set_new(o, "share_pct", json_real(v->share_pct));
	json_object_set_new(o, "gbps", json_real(v->gbps));
	json_object_set_new(o, "dscp", dscp);
	json_object_set_new(o, "prios", analyze_members(res, b));
	json_object_set_new(o, "default", json_boolean(cfg->default_band == b));
	return o;
}

static json_t *analyze_strings(const char *const *s, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
}

static json_t *analyze_lists_json(const struct arb_config *cfg,
				  const struct arb_params *params,
				  const struct arb_result *res, json_t *root)
{
	json_t *sls = json_array(), *vls = json_array(), *bands;
	int i;

	for (i = 0; i < res->n_sls; i++)
		json_array_append_new(sls, analyze_sl_json(res, params, i));
	for (i = 0; i < res->n_vls; i++)
		json_array_append_new(vls, analyze_vl_json(res, i));
	json_object_set_new(root, "sls", sls);
	json_object_set_new(root, "vls", vls);
	if (res->kind == ARB_KIND_ETS) {
		bands = json_array();
		for (i = 0; i < res->n_vls; i++)
			json_array_append_new(bands, analyze_band_json(cfg, res, i));
		json_object_set_new(root, "bands", bands);
	}
	return root;
}

json_t *report_analyze_json(const struct analyze_report_info *info,
			    const struct arb_config *cfg,
			    const struct arb_params *params,
			    const struct arb_result *res)
{
	json_t *root = json_object(), *warnings = json_array();
	bool ib = res->kind == ARB_KIND_VLARB;
	int i;

	for (i = 0; i < res->n_warnings; i++)
		json_array_append_new(warnings, json_string(res->warnings[i]));
	json_object_set_new(root, "command", json_string("analyze"));
	json_object_set_new(root, "version", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "model", json_string(arb_model_name(res->model)));
	json_object_set_new(root, "runs", ib ? json_integer(res->runs) : json_null());
	json_object_set_new(root, "limit", ib ? json_integer(res->limit) : json_null());
	json_object_set_new(root, "link_gbps", json_real(res->link_gbps));
	json_object_set_new(root, "format", json_string(info->format));
	json_object_set_new(root, "node_type", info->node_type ?
			    json_string(info->node_type) : json_null());
	json_object_set_new(root, "source",
			    analyze_strings(info->sources, info->n_sources));
	analyze_lists_json(cfg, params, res, root);
	json_object_set_new(root, "warnings", warnings);
	return root;
}

static void analyze_header(FILE *out, const struct analyze_report_info *info,
			   const struct arb_result *res)
{
	int i;

	fprintf(out, "rperf analyze:");
	for (i = 0; i < info->n_sources; i++)
		fprintf(out, " %s", info->sources[i]);
	fprintf(out, " (%s%s%s)\nmodel %s", info->format,
		info->node_type ? ", node type " : "",
		info->node_type ? info->node_type : "", arb_model_name(res->model));
	if (res->kind == ARB_KIND_VLARB)
		fprintf(out, ", %d runs, limit %d%s", res->runs, res->limit,
			res->limit == ARB_LIMIT_NONE ? " (none)" : "");
	fprintf(out, ", link %.6g Gb/s\n\n", res->link_gbps);
}

static void analyze_distance_cols(FILE *out, bool has, double mean, double max)
{
	if (has)
		fprintf(out, " %9.2f %8.0f\n", mean, max);
	else
		fprintf(out, " %9s %8s\n", "-", "-");
}

static void analyze_sl_rows(FILE *out, const struct arb_result *res)
{
	const char *unit = res->kind == ARB_KIND_ETS ? "prio" : "SL";
	const struct arb_sl_result *r;
	char offered[16];
	int i, rows = 0;

	fprintf(out, "%4s %4s %9s %8s %8s %9s %8s\n", unit,
		res->kind == ARB_KIND_ETS ? "band" : "VL", "offered",
		"share %", "Gb/s", "mean dist", "max dist");
	for (i = 0; i < res->n_sls; i++) {
		r = &res->sls[i];
		if (r->share_pct <= 0 && r->offered_gbps <= 0)
			continue;
		rows++;
		if (r->offered_gbps < 0)
			snprintf(offered, sizeof(offered), "saturate");
		else
			snprintf(offered, sizeof(offered), "%.6g", r->offered_gbps);
		fprintf(out, "%4d %4d %9s %8.2f %8.2f", r->sl, r->vl, offered,
			r->share_pct, r->gbps);
		analyze_distance_cols(out, r->has_distance, r->mean_distance,
				      r->max_distance);
	}
	if (!rows)
		fprintf(out, "   (none gets traffic)\n");
}

static void analyze_vl_rows(FILE *out, const struct arb_result *res)
{
	const struct arb_vl_result *v;
	bool ets = res->kind == ARB_KIND_ETS;
	char a[16], b[16];
	int i;

	fprintf(out, "\n%4s %6s %7s %8s %8s %9s %8s\n", ets ? "band" : "VL",
		ets ? "kind" : "high", ets ? "quantum" : "low", "share %", "Gb/s",
		"mean dist", "max dist");
	for (i = 0; i < res->n_vls; i++) {
		v = &res->vls[i];
		if (!ets && !v->high_weight && !v->low_weight && v->share_pct <= 0)
			continue;
		snprintf(a, sizeof(a), "%s", v->strict ? "strict" : "drr");
		if (!ets)
			snprintf(a, sizeof(a), "%d", v->high_weight);
		snprintf(b, sizeof(b), "%d", ets ? (int)v->quantum_bytes : v->low_weight);
		if (ets && v->strict)
			snprintf(b, sizeof(b), "-");
		fprintf(out, "%4d %6s %7s %8.2f %8.2f", v->vl, a, b, v->share_pct,
			v->gbps);
		analyze_distance_cols(out, v->has_distance, v->mean_distance,
				      v->max_distance);
	}
}

void report_analyze_table(FILE *out, const struct analyze_report_info *info,
			  const struct arb_config *cfg,
			  const struct arb_params *params,
			  const struct arb_result *res)
{
	analyze_header(out, info, res);
	analyze_sl_rows(out, res);
	analyze_vl_rows(out, res);
	fprintf(out, "\n%s not listed get nothing; distances are in entries "
		"served (%d warning%s)\n", res->kind == ARB_KIND_ETS ?
		"Priorities" : "SLs and VLs", res->n_warnings,
		res->n_warnings == 1 ? "" : "s");
}

/* ================================================================== */
/* converge                                                            */
/* ================================================================== */

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

/* Latency histograms of converge are rebuilt in ns: one tick is one ns. */
static const struct clock_cal converge_ns_clock = {
	.source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1.0, .method = "ns",
};

static const char *converge_class_kind(const struct converge_report_info *info)
{
	return info->ets ? "band" : "sl";
}

static json_t *json_or_null(bool has, double v)
{
	return has ? json_real(v) : json_null();
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
	json_object_set_new(o, "analyzed_pct", json_or_null(c->has_analyzed, c->analyzed_pct));
	json_object_set_new(o, "diff_pp", json_or_null(cmp, c->diff_pp));
	json_object_set_new(o, "within", cmp ? json_boolean(c->within) : json_null());
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
	json_object_set_new(o, "rtt_ns", f->rtt_ns ? json_incref(f->rtt_ns) : json_null());
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
	json_object_set_new(o, "link_gbps", json_or_null(info->link_gbps > 0, info->link_gbps));
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
