/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * lat's and bw's --json-stream events (schema/lat-event.schema.json,
 * bw-event.schema.json), each made of the same parts as the document
 * (report_int.h), and lat's progress line on a terminal.
 */
#include "report/report_bw_int.h"
#include "report/report_int.h"
#include "report/report_lat_int.h"

/* {"event": @name, "command", "schema_version"}, and the rest of the
 * document's head (@keys: RH_VERSION): the head of every event. */
static json_t *event_head(const char *name, const char *command, unsigned keys)
{
	const struct report_head h = { .event = name, .command = command };

	return report_head_set(json_object(), &h, RH_EVENT | RH_COMMAND | RH_SCHEMA_VERSION | keys);
}

/* "start": the document's head, @config and @clk. */
static json_t *event_start(const char *command, json_t *config, const struct clock_cal *clk)
{
	json_t *o = event_head("start", command, RH_VERSION);

	json_object_set_new(o, "config", config);
	json_object_set_new(o, "clock", report_clock_json(clk));
	return o;
}

/* "end": how many @key came, the criteria and how the run ended. */
static json_t *event_end(const char *command, const char *key, size_t n,
			 const struct criteria *cs, const char *error)
{
	json_t *o = event_head("end", command, 0);

	json_object_set_new(o, key, json_integer((json_int_t)n));
	json_object_set_new(o, "criteria", report_criteria_json(cs));
	report_end_set(o, !error, error);
	return o;
}

json_t *report_lat_event_start(const struct lat_report_info *info)
{
	return event_start("lat", report_lat_config_json(info), info->clk);
}

json_t *report_lat_event_size(const struct lat_report_info *info, size_t index,
			      const struct flow_result *r)
{
	json_t *o = event_head("size", "lat", 0);

	json_object_set_new(o, "index", json_integer((json_int_t)index));
	json_object_set_new(o, "result", report_lat_size_json(info, r));
	return o;
}

json_t *report_lat_event_end(const struct lat_report_info *info, size_t n, const char *error)
{
	return event_end("lat", "sizes", n, info->criteria, error);
}

json_t *report_bw_event_start(const struct bw_report_info *info)
{
	return event_start("bw", report_bw_config_json(info), info->flow.clk);
}

json_t *report_bw_event_interval(size_t index, const struct bw_interval *iv)
{
	json_t *o = event_head("interval", "bw", 0);

	json_object_set_new(o, "index", json_integer((json_int_t)index));
	json_object_set_new(o, "interval", report_bw_interval_json(iv));
	return o;
}

json_t *report_bw_event_end(const struct bw_report_info *info, const struct flow_result *total,
			    size_t n_iv, const char *error)
{
	json_t *o = event_end("bw", "intervals", n_iv, info->flow.criteria, error);

	json_object_set_new(o, "total", total ? report_bw_total_json(total, info->flow.clk) :
						json_null());
	return o;
}

/* " p50 1.234 us" for figure @f of @r's RTT, or what it is instead. */
static void progress_figure(FILE *out, const struct flow_result *r, const struct report_field *f,
			    const struct clock_cal *clk)
{
	struct report_figure fig;

	report_hist_figure(r->rtt, hist_zeros(r->rtt), f, clk, &fig);
	if (fig.state == HIST_Q_RESOLVED)
		fprintf(out, "  %s %.3f us", f->head[0], report_us(fig.ns));
	else
		fprintf(out, "  %s %s", f->head[0], report_state_word(fig.state));
}

/* The progress line of size @index of @n: " so far" after the samples
 * when @sofar. One locked write: another thread's line never cuts in. */
static void lat_progress_line(FILE *out, size_t index, size_t n, const struct flow_result *r,
			      const struct clock_cal *clk, bool sofar)
{
	const struct report_field *fields;
	size_t i, nf;

	fields = report_hist_fields(&nf);
	flockfile(out);
	fprintf(out, "size %zu/%zu, %zu bytes: %llu samples%s", index + 1, n, r->size_bytes,
		(unsigned long long)r->samples, sofar ? " so far" : "");
	for (i = 0; i < nf; i++)
		if (fields[i].stat == RF_PCT && (fields[i].pct == 50 || fields[i].pct == 99))
			progress_figure(out, r, &fields[i], clk);
	fputc('\n', out);
	fflush(out);
	funlockfile(out);
}

void report_lat_progress(FILE *out, size_t index, size_t n, const struct flow_result *r,
			 const struct clock_cal *clk)
{
	lat_progress_line(out, index, n, r, clk, false);
}

void report_lat_progress_sofar(FILE *out, size_t index, size_t n, const struct flow_result *r,
			       const struct clock_cal *clk)
{
	lat_progress_line(out, index, n, r, clk, true);
}
