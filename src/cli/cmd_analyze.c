/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf analyze: predict, offline, the share of a port's bandwidth each
 * service level gets and how long it waits between turns, from the port's
 * arbitration configuration (opensm.conf, smpquery captures, a plain
 * table, or an ETS description). No RDMA hardware is needed; converge
 * compares its measurements with this prediction.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos/arb.h"
#include "qos/arb_common.h"
#include "cli/arb_source.h"
#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/units.h"
#include "qos/qosconf.h"
#include "qos/qosconf_lex.h"
#include "report/report.h"

#define ANALYZE_MAX_FILES	ARB_SOURCE_MAX_FILES

struct analyze_opts {
	struct qosconf_opts conf;
	struct arb_source src;		/* files (below) or a live port */
	struct arb_params params;
	bool model_given;
	bool semantics_given;
	int limit;			/* -1: from the input */
	const char *sl2vl;		/* NULL: from the input */
	const char *load;		/* NULL: every SL saturating */
	const char *packet_size;
	const char *json_path;		/* --json; "-": stdout */
	const char *csv_path;		/* --csv; "-": stdout */
	const char *files[ANALYZE_MAX_FILES];
	int n_files;
};

/* ------------------------------------------------------------------ */
/* Option values                                                       */
/* ------------------------------------------------------------------ */

/* A whole-string integer in [lo, hi] of option @opt. */
static int analyze_int(const char *opt, const char *s, long lo, long hi, long *out, char *err,
		       size_t errlen)
{
	uint64_t v;

	if (units_parse_u64(s, (uint64_t)lo, (uint64_t)hi, &v))
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected an integer from %ld to %ld",
				  opt, s, lo, hi);
	*out = (long)v;
	return 0;
}

/* A rate of option @opt (bare: Gb/s, as everywhere) -> Gb/s. */
static int analyze_gbps(const char *opt, const char *s, double *out, char *err, size_t errlen)
{
	uint64_t bps;

	if (units_parse_bps(s, &bps))
		return opts_bad_value(err, errlen, opt, s, "a rate such as 100, 25g, 25Gbps or 800m (bare: Gb/s)");
	*out = (double)bps / 1e9;
	return 0;
}

/* "4096" for every SL, or "SL:BYTES,SL:BYTES". */
static int analyze_packet_size(const char *s, struct arb_params *params, char *err,
			       size_t errlen)
{
	char buf[256], *tok, *save, *colon;
	long sl = 0, bytes = 0;
	int i;

	if (!strchr(s, ':')) {
		if (analyze_int("--packet-size", s, 1, 1 << 20, &bytes, err, errlen))
			return -EINVAL;
		for (i = 0; i < ARB_NUM_SLS; i++)
			params->packet_bytes[i] = bytes;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			return opts_bad_value(err, errlen, "--packet-size", tok, "SL:BYTES");
		*colon = '\0';
		if (analyze_int("--packet-size SL", tok, 0, ARB_NUM_SLS - 1, &sl, err, errlen) ||
		    analyze_int("--packet-size", colon + 1, 1, 1 << 20, &bytes, err, errlen))
			return -EINVAL;
		params->packet_bytes[sl] = bytes;
	}
	return 0;
}

/* One "KEY:GBPS" of --load; KEY is an SL (priority), or bN for an ETS band. */
static int analyze_load_item(char *tok, const struct arb_config *cfg,
			     struct arb_params *params, char *err, size_t errlen)
{
	char *colon = strchr(tok, ':');
	bool band = tok[0] == 'b';
	long key = 0, max;
	double gbps = -1.0;

	if (!colon)
		return opts_bad_value(err, errlen, "--load", tok, "SL:GBPS");
	*colon = '\0';
	if (band && cfg->kind != ARB_KIND_ETS)
		return errbuf_set(err, errlen, -EINVAL, "--load: band '%s' needs an ETS input", tok);
	max = band ? cfg->n_bands - 1 :
	      cfg->kind == ARB_KIND_ETS ? ARB_NUM_PRIOS - 1 : ARB_NUM_SLS - 1;
	if (analyze_int("--load", tok + band, 0, max, &key, err, errlen))
		return -EINVAL;
	if (strcmp(colon + 1, "sat") && analyze_gbps("--load", colon + 1, &gbps, err, errlen))
		return -EINVAL;
	if (band) {
		params->band_load_set[key] = true;
		params->band_load_gbps[key] = gbps;
	} else {
		params->load_gbps[key] = gbps;
	}
	return 0;
}

/* Whether @band of an ETS input gets load from --load: its own, or a
 * listed priority's. */
static bool analyze_band_loaded(const struct arb_config *cfg, const struct arb_params *params,
				int band)
{
	int prio, b;

	if (params->band_load_set[band])
		return params->band_load_gbps[band] != 0;
	for (prio = 0; prio < ARB_NUM_PRIOS; prio++) {
		b = cfg->prio_band[prio] >= 0 ? cfg->prio_band[prio] : cfg->default_band;
		if (b == band && params->load_gbps[prio] != 0)
			return true;
	}
	return false;
}

/*
 * --load as a list gives every class it does not name no load at all:
 * said at the default level, naming the classes that the arbitration
 * would otherwise serve (ETS bands; SLs whose VL has a weight).
 */
static void analyze_warn_unloaded(const struct analyze_opts *o, const struct arb_config *cfg,
				  struct arb_result *res)
{
	char list[160] = "";
	size_t len = 0;
	int i, vl, n = 0;
	bool ets = cfg->kind == ARB_KIND_ETS;

	if (!o->load || !strcmp(o->load, "saturate"))
		return;
	for (i = 0; i < (ets ? cfg->n_bands : ARB_NUM_SLS) && len < sizeof(list); i++) {
		vl = ets ? 0 : cfg->sl2vl[i];
		if (ets ? analyze_band_loaded(cfg, &o->params, i) :
		    o->params.load_gbps[i] != 0 || vl == ARB_VL15 ||
		    (!res->vls[vl].high_weight && !res->vls[vl].low_weight))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s%d", n++ ? ", " : "",
					ets ? "band " : "SL", i);
	}
	if (n)
		arb_common_warn(res, "load-unlisted", "--load '%s' gives %s no load: %s 0 %% "
				"(name %s, with 'sat' to saturate)", o->load, list,
				n == 1 ? "it gets" : "they get", n == 1 ? "it" : "them");
}

/* "saturate", or a list: listed SLs offer that much, the others nothing. */
static int analyze_load(const char *s, const struct arb_config *cfg, struct arb_params *params,
			char *err, size_t errlen)
{
	char buf[512], *tok, *save;
	int i;

	if (!strcmp(s, "saturate"))
		return 0;
	for (i = 0; i < ARB_NUM_SLS; i++)
		params->load_gbps[i] = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (analyze_load_item(tok, cfg, params, err, errlen))
			return -EINVAL;
	return 0;
}

/* --limit and --sl2vl override what the input says (InfiniBand only). */
static int apply_ib_overrides(const struct analyze_opts *o, struct arb_config *cfg)
{
	char err[256];
	uint8_t vls[ARB_NUM_SLS];
	int n, i;

	if (cfg->kind == ARB_KIND_ETS) {
		if (o->limit >= 0 || o->sl2vl || o->packet_size)
			return log_error("--limit, --sl2vl and --packet-size apply "
					 "to InfiniBand inputs, not to ETS");
		return 0;
	}
	if (o->limit >= 0) {
		cfg->limit = o->limit;
		cfg->limit_known = true;
	}
	if (!o->sl2vl)
		return 0;
	if (qosconf_lex_list(o->sl2vl, 0, ARB_VL15, ARB_NUM_SLS, vls, &n, err,
			     sizeof(err)))
		return log_error("--sl2vl: %s", err);
	for (i = 0; i < n; i++)
		cfg->sl2vl[i] = vls[i];
	cfg->sl2vl_explicit = true;
	return 0;
}

/*
 * Options that do not apply to the input read are refused, named, with
 * what they apply to, rather than ignored: --in-port (a switch's
 * smpquery sl2vl capture, or a live port) and --node-type (an
 * opensm.conf).
 */
static int check_applies(const struct analyze_opts *o, const struct arb_source_info *src)
{
	const char *what = src->live ? "a live port's tables" : qosconf_format_name(src->format);

	if (o->conf.in_port >= 0 && !o->src.port && src->format != QOSCONF_FORMAT_SMPQUERY)
		return log_error("--in-port applies to a switch's smpquery sl2vl capture "
				 "or --port (the input port's row), not to %s input", what);
	if (o->src.node_type_given && !src->live && src->format != QOSCONF_FORMAT_OPENSM)
		return log_error("--node-type applies to an opensm.conf (its key set), "
				 "not to %s input", what);
	return 0;
}

/* The model must fit the input: ets for ETS, an ib- model for VLArb. */
static int choose_model(struct analyze_opts *o, const struct arb_config *cfg,
			enum qosconf_format format)
{
	bool ets_input = cfg->kind == ARB_KIND_ETS;

	if (o->semantics_given && (ets_input || (o->model_given &&
						 o->params.model != ARB_MODEL_IB_PACKET)))
		return log_error("--semantics applies to ib-packet, the model of the "
				 "specification's readings");

	if (!o->model_given) {
		o->params.model = ets_input ? ARB_MODEL_ETS : arb_model_default(ARB_KIND_VLARB);
		return 0;
	}
	if (ets_input != (o->params.model == ARB_MODEL_ETS))
		return log_error("model '%s' does not fit %s input: use %s",
				 arb_model_name(o->params.model),
				 qosconf_format_name(format),
				 ets_input ? "ets" : "ib-fluid or ib-packet");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Running                                                             */
/* ------------------------------------------------------------------ */

/* The inputs into @cfg; errors are reported here. */
static int load_config(struct analyze_opts *o, struct arb_config *cfg,
		       struct arb_source_info *info)
{
	char err[512];
	int i, rc;

	for (i = 0; i < o->n_files; i++)
		o->src.files[i] = o->files[i];
	o->src.n_files = o->n_files;
	rc = arb_source_load(&o->src, &o->conf, cfg, info, err, sizeof(err));
	if (rc)
		return log_errno(rc, "%s", err);
	return 0;
}

/* What report_analyze_csv() writes, for textfile_write(). */
struct analyze_csv_arg {
	const struct arb_config *cfg;
	const struct arb_params *params;
	const struct arb_result *res;
};

static int analyze_fill_csv(FILE *f, void *arg)
{
	const struct analyze_csv_arg *a = arg;

	report_analyze_csv(f, a->cfg, a->params, a->res);
	return ferror(f) ? -1 : 0;
}

static int emit(const struct analyze_opts *o, const struct arb_config *cfg,
		const struct arb_source_info *src, const struct arb_result *res)
{
	const char *port_name = src->port_name;
	struct analyze_report_info info = {
		.format = src->live ? "mad" : qosconf_format_name(src->format),
		.node_type = src->format == QOSCONF_FORMAT_OPENSM ?
			     qosconf_node_type_name(src->node_type) : NULL,
		.sources = src->live ? &port_name : o->files,
		.n_sources = src->live ? 1 : o->n_files,
		.port = src->live || !src->port_name[0] ? NULL : src->port_name,
	};
	char err[256];
	json_t *root;
	int i, rc;

	for (i = 0; i < res->n_warnings; i++) {
		if (!arb_warning_is_note(res->warning_codes[i])) {
			log_warn("%s", res->warnings[i]);
			info.n_warnings++;
		} else if (log_get_level() >= LOG_LEVEL_INFO) {
			log_info("%s", res->warnings[i]);
			info.n_notes++;
		} else {
			info.n_hidden++;
		}
	}
	info.quiet = log_get_level() < LOG_LEVEL_WARN;
	if (!o->json_path && !o->csv_path) {
		report_analyze_table(stdout, &info, cfg, &o->params, res);
		return fflush(stdout) ? log_error("cannot write to stdout") : 0;
	}
	if (o->csv_path) {
		struct analyze_csv_arg a = { cfg, &o->params, res };

		rc = textfile_write(o->csv_path, analyze_fill_csv, &a, err, sizeof(err));
		if (rc)
			return log_errno(rc, "%s", err);
	}
	if (!o->json_path)
		return 0;
	root = report_analyze_json(&info, cfg, &o->params, res);
	rc = jsonfile_write(root, o->json_path, err, sizeof(err));
	json_decref(root);
	return rc ? log_errno(rc, "%s", err) : 0;
}

/* The reader's warnings come first, then the model's, in one list. */
static void merge_config_warnings(const struct arb_config *cfg,
				  struct arb_result *res)
{
	int n = cfg->n_warnings, keep = res->n_warnings;

	if (n > ARB_MAX_WARNINGS)
		n = ARB_MAX_WARNINGS;
	if (keep > ARB_MAX_WARNINGS - n)
		keep = ARB_MAX_WARNINGS - n;
	memmove(res->warnings[n], res->warnings[0], sizeof(res->warnings[0]) * keep);
	memcpy(res->warnings[0], cfg->warnings[0], sizeof(res->warnings[0]) * n);
	memmove(res->warning_codes[n], res->warning_codes[0], sizeof(res->warning_codes[0]) * keep);
	memcpy(res->warning_codes[0], cfg->warning_codes[0], sizeof(res->warning_codes[0]) * n);
	res->n_warnings = n + keep;
}

/* A failure before the results, said already: its JSON document (with
 * --json) and the exit status @status. */
static int analyze_failed(const struct analyze_opts *o, int status)
{
	return cmd_failed_json(o->json_path, "analyze", NULL, status);
}

static int run(struct analyze_opts *o)
{
	struct arb_source_info src;
	struct arb_config cfg;
	struct arb_result *res;
	char err[256];
	int rc;

	if (load_config(o, &cfg, &src))
		return analyze_failed(o, src.fabric_error ? RPERF_EXIT_FAILURE : RPERF_EXIT_USAGE);
	if (check_applies(o, &src) || apply_ib_overrides(o, &cfg) ||
	    choose_model(o, &cfg, src.format))
		return analyze_failed(o, RPERF_EXIT_USAGE);
	if (o->load && analyze_load(o->load, &cfg, &o->params, err, sizeof(err))) {
		log_error("%s", err);
		return analyze_failed(o, RPERF_EXIT_USAGE);
	}
	res = malloc(sizeof(*res));
	if (!res) {
		log_error("out of memory");
		return analyze_failed(o, RPERF_EXIT_FAILURE);
	}
	rc = arb_analyze(&cfg, &o->params, res);
	if (rc) {
		free(res);
		log_error("cannot analyze this configuration with model '%s'",
			  arb_model_name(o->params.model));
		return analyze_failed(o, RPERF_EXIT_USAGE);
	}
	analyze_warn_unloaded(o, &cfg, res);
	merge_config_warnings(&cfg, res);
	rc = emit(o, &cfg, &src, res);
	free(res);
	return rc ? RPERF_EXIT_FAILURE : RPERF_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */

/* -f, -n: the input's format and opensm node type. */
static int analyze_opt_format(void *dst, const char *name, const char *value, char *err,
			      size_t errlen)
{
	if (qosconf_format_parse(value, dst))
		return opts_bad_value(err, errlen, name, value,
				      "auto, opensm, smpquery, table, ets, tc or dcb");
	return 0;
}

static int analyze_opt_node_type(void *dst, const char *name, const char *value, char *err,
				 size_t errlen)
{
	struct analyze_opts *o = dst;

	o->src.node_type_given = true;
	if (qosconf_node_type_parse(value, &o->conf.node_type))
		return opts_bad_value(err, errlen, name, value, "ca, swe, sw0, sw2sw or rtr");
	return 0;
}

/* -P, --port: checked here, read once the command line is whole. */
static int analyze_opt_port(void *dst, const char *name, const char *value, char *err,
			    size_t errlen)
{
	struct analyze_opts *o = dst;

	o->src.port = value;
	return arb_source_port_check(name, value, err, errlen);
}

static int analyze_opt_model(void *dst, const char *name, const char *value, char *err,
			     size_t errlen)
{
	struct analyze_opts *o = dst;

	o->model_given = true;
	if (arb_model_parse(value, &o->params.model))
		return opts_bad_value(err, errlen, name, value, "ib-packet, ib-fluid, dtable or ets");
	return 0;
}

/* --semantics: ib-packet's reading, for the figures and distances shown. */
static int analyze_opt_semantics(void *dst, const char *name, const char *value, char *err,
				 size_t errlen)
{
	struct analyze_opts *o = dst;

	o->semantics_given = true;
	if (arb_semantics_parse(value, &o->params.semantics))
		return opts_bad_value(err, errlen, name, value,
				      "KEY=VALUE,... of carry=yes|no, low=entry|packet|continue, "
				      "limit0=alternate|bytes, deficit=vl|table");
	return 0;
}

static int analyze_opt_packet_size(void *dst, const char *name, const char *value, char *err,
				   size_t errlen)
{
	struct analyze_opts *o = dst;

	(void)name;
	o->packet_size = value;
	return analyze_packet_size(value, &o->params, err, errlen);
}

static int analyze_opt_link(void *dst, const char *name, const char *value, char *err,
			    size_t errlen)
{
	double *gbps = dst;

	if (analyze_gbps(name, value, gbps, err, errlen))
		return -EINVAL;
	if (*gbps <= 0)
		return opts_bad_value(err, errlen, name, value, "a rate above 0");
	return 0;
}

#define ANALYZE_STR_(x) #x
#define ANALYZE_STR(x) ANALYZE_STR_(x)

static const struct opts_entry analyze_opts_table[] = {
	OPT_CALLBACK('f', "format", "FMT", "auto, opensm, smpquery, table, ets, tc or dcb",
		     struct analyze_opts, conf.format, analyze_opt_format),
	OPT_CALLBACK_ALL('n', "node-type", "TYPE", "opensm key set: ca, swe (default), sw0,\n"
			 "sw2sw or rtr (default with --port: the port's)", analyze_opt_node_type),
	OPT_CALLBACK_ALL('P', "port", "LID:PORT", "read the port's tables live over SMP MADs\n"
			 "(or PATH:PORT, a directed route such as\n0,1,3:2); with an opensm.conf: its caps\n"
			 "and operational VLs", analyze_opt_port),
	OPT_STRING(0, "ca", "NAME[:PORT]", "with --port: the local device the MADs\nleave from "
		   "(default: the first)", struct analyze_opts, src.ca),
	OPT_UINT(0, "in-port", "N", "smpquery sl2vl: the input port's row\n(default: the first)",
		 struct analyze_opts, conf.in_port, 0, 254),
	OPT_CALLBACK_ALL('m', "model", "MODEL",
			 "ib-packet (default for VLArb), ib-fluid,\ndtable, or ets (default for ETS)",
			 analyze_opt_model),
	OPT_CALLBACK_ALL(0, "semantics", "SEM", "ib-packet's reading (default carry=yes,\n"
			 "low=entry,limit0=alternate,deficit=vl);\n"
			 "see rperf-analyze(1)",
			 analyze_opt_semantics),
	{ .kind = OPTS_NUMBER, .long_name = "range-pct", .arg = "PP",
	  .help = "readings disagreeing by more: shown as a range\n(default 1 point)",
	  .off = offsetof(struct analyze_opts, params.range_pct), .max = 100,
	  .expect = "0 to 100 points" },
	OPT_UINT('r', "runs", "N", "accepted and reported in the JSON; changes\n"
		 "nothing (periods are exact, windows fixed)",
		 struct analyze_opts, params.runs, 1, 1000000),
	OPT_UINT('l', "limit", "N", "LimitOfHighPriority 0-255 (overrides input)",
		 struct analyze_opts, limit, 0, ARB_MAX_LIMIT),
	OPT_STRING('s', "sl2vl", "LIST", "VL of SL0, SL1, ... (overrides input)",
		   struct analyze_opts, sl2vl),
	OPT_CALLBACK_ALL('p', "packet-size", "SPEC", "bytes, for every SL or per SL as\n"
			 "SL:BYTES,... (default " ANALYZE_STR(ARB_DEFAULT_PACKET_BYTES) ")",
			 analyze_opt_packet_size),
	OPT_STRING('L', "load", "SPEC", "'saturate' (default) or SL:GBPS,...; GBPS\n"
		   "may be 'sat'; ETS: bN:GBPS for a band", struct analyze_opts, load),
	OPT_CALLBACK('g', "link-gbps", "G", "link rate, Gb/s (default 100)", struct analyze_opts,
		     params.link_gbps, analyze_opt_link),
	OPT_STRING('j', "json", "FILE", "write the results as JSON ('-': stdout)",
		   struct analyze_opts, json_path),
	OPT_STRING(0, "csv", "FILE", "write one row per SL, VL and band as CSV\n('-': stdout)",
		   struct analyze_opts, csv_path),
	OPT_END(),
};

static const struct opts_usage analyze_opts_usage = {
	.cmd = "analyze",
	.args = "FILE... | --port LID:PORT [OPENSM.CONF]",
	.about = "Predict each SL's share of a port's bandwidth and its wait between\n"
		 "turns from the port's arbitration configuration.\n"
		 "\n"
		 "Inputs (format detected, all files of one format):\n"
		 "  opensm.conf qos_* keys; smpquery vlarb/sl2vl/portinfo text;\n"
		 "  a table of 'high,VL,WEIGHT' / 'low,VL,WEIGHT' lines; an ETS file;\n"
		 "  tc -j or dcb -j output; or a live InfiniBand port (--port: needs\n"
		 "  umad access, root or read/write on /dev/infiniband/umad*).",
	.table = analyze_opts_table,
	.more = "Rates (GBPS, G) take k, m, g, t (bit/s; bare: Gb/s), alone or with bit,\n"
		"bps, b/s or bit/s (25g, 25Gbps, 25Gb/s). Bad input is bad usage (2).\n"
		"See rperf-analyze(1).",
};

void cmd_analyze_usage(FILE *out)
{
	opts_usage(out, &analyze_opts_usage);
}

static void analyze_opts_init(struct analyze_opts *o)
{
	memset(o, 0, sizeof(*o));
	qosconf_opts_init(&o->conf);
	arb_params_init(&o->params);
	o->limit = -1;
}

/* The command line into @o: 0, OPTS_HELP, or -EINVAL with the reason. */
static int analyze_opts_parse(int argc, char **argv, struct analyze_opts *o, char *err,
			      size_t errlen)
{
	int ret;

	analyze_opts_init(o);
	ret = opts_parse(analyze_opts_table, o, argc, argv, o->files, ANALYZE_MAX_FILES,
			 &o->n_files, err, errlen);
	if (ret)
		return ret;
	if (!o->n_files && !o->src.port)
		return errbuf_set(err, errlen, -EINVAL, "no input file (or --port)");
	if (o->src.ca && !o->src.port)
		return errbuf_set(err, errlen, -EINVAL, "--ca applies with --port (the local "
				  "device the MADs leave from): files are read as they are");
	if (o->n_files > ANALYZE_MAX_FILES)
		return errbuf_set(err, errlen, -EINVAL, "at most %d input files",
				  ANALYZE_MAX_FILES);
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o;
	char err[256];
	int ret;

	ret = analyze_opts_parse(argc, argv, &o, err, sizeof(err));
	if (ret == OPTS_HELP) {
		cmd_analyze_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (ret) {
		opts_report(&analyze_opts_usage, err);
		return RPERF_EXIT_USAGE;
	}
	return run(&o);
}
