/*
 * rperf analyze: predict, offline, the share of a port's bandwidth each
 * service level gets and how long it waits between turns, from the port's
 * arbitration configuration (opensm.conf, smpquery captures, a plain
 * table, or an ETS description). No RDMA hardware is needed; converge
 * compares its measurements with this prediction.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos/arb.h"
#include "cli/cmd.h"
#include "base/jsonfile.h"
#include "base/log.h"
#include "qos/qosconf.h"
#include "qos/qosconf_lex.h"
#include "report/report.h"

#define ANALYZE_MAX_FILES	16

struct analyze_opts {
	struct qosconf_opts conf;
	struct arb_params params;
	bool model_given;
	int limit;			/* -1: from the input */
	const char *sl2vl;		/* NULL: from the input */
	const char *load;		/* NULL: every SL saturating */
	const char *packet_size;
	bool json;
	const char *json_path;		/* "-": stdout */
	const char *files[ANALYZE_MAX_FILES];
	int n_files;
};

/* ------------------------------------------------------------------ */
/* Option values                                                       */
/* ------------------------------------------------------------------ */

static int parse_int(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	if (end == s || *end || errno || *out < lo || *out > hi)
		return log_errno(-EINVAL, "%s: '%s' is not a number in %ld-%ld",
				 opt, s, lo, hi);
	return 0;
}

static int parse_gbps(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*out) || *out < 0)
		return log_errno(-EINVAL, "%s: '%s' is not a rate in Gb/s", opt, s);
	return 0;
}

/* "4096" for every SL, or "SL:BYTES,SL:BYTES". */
static int parse_packet_size(const char *s, struct arb_params *params)
{
	char buf[256], *tok, *save, *colon;
	long sl, bytes;
	int i;

	if (!strchr(s, ':')) {
		if (parse_int("--packet-size", s, 1, 1 << 20, &bytes))
			return -EINVAL;
		for (i = 0; i < ARB_NUM_SLS; i++)
			params->packet_bytes[i] = bytes;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			return log_error("--packet-size: '%s' is not SL:BYTES", tok);
		*colon = '\0';
		if (parse_int("--packet-size SL", tok, 0, ARB_NUM_SLS - 1, &sl) ||
		    parse_int("--packet-size", colon + 1, 1, 1 << 20, &bytes))
			return -EINVAL;
		params->packet_bytes[sl] = bytes;
	}
	return 0;
}

/* One "KEY:GBPS" of --load; KEY is an SL (priority), or bN for an ETS band. */
static int parse_load_item(char *tok, const struct arb_config *cfg,
			   struct arb_params *params)
{
	char *colon = strchr(tok, ':');
	bool band = tok[0] == 'b';
	long key, max;
	double gbps = -1.0;

	if (!colon)
		return log_error("--load: '%s' is not SL:GBPS", tok);
	*colon = '\0';
	if (band && cfg->kind != ARB_KIND_ETS)
		return log_error("--load: band '%s' needs an ETS input", tok);
	max = band ? cfg->n_bands - 1 :
	      cfg->kind == ARB_KIND_ETS ? ARB_NUM_PRIOS - 1 : ARB_NUM_SLS - 1;
	if (parse_int("--load", tok + band, 0, max, &key))
		return -EINVAL;
	if (strcmp(colon + 1, "sat") && parse_gbps("--load", colon + 1, &gbps))
		return -EINVAL;
	if (band) {
		params->band_load_set[key] = true;
		params->band_load_gbps[key] = gbps;
	} else {
		params->load_gbps[key] = gbps;
	}
	return 0;
}

/* "saturate", or a list: listed SLs offer that much, the others nothing. */
static int parse_load(const char *s, const struct arb_config *cfg,
		      struct arb_params *params)
{
	char buf[512], *tok, *save;
	int i;

	if (!strcmp(s, "saturate"))
		return 0;
	for (i = 0; i < ARB_NUM_SLS; i++)
		params->load_gbps[i] = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (parse_load_item(tok, cfg, params))
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

/* The model must fit the input: ets for ETS, an ib- model for VLArb. */
static int choose_model(struct analyze_opts *o, const struct arb_config *cfg,
			enum qosconf_format format)
{
	bool ets_input = cfg->kind == ARB_KIND_ETS;

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

static void free_texts(char **texts, int n)
{
	while (n--)
		free(texts[n]);
}

/* Read and parse every input file into @cfg; errors are reported here. */
static int load_config(const struct analyze_opts *o, struct arb_config *cfg,
		       enum qosconf_format *format)
{
	struct qosconf_source src[ANALYZE_MAX_FILES];
	char *texts[ANALYZE_MAX_FILES];
	char err[256];
	int i, rc = 0;

	for (i = 0; i < o->n_files && !rc; i++) {
		rc = qosconf_read_file(o->files[i], &texts[i], err, sizeof(err));
		src[i].name = o->files[i];
		src[i].text = rc ? NULL : texts[i];
	}
	if (rc) {
		free_texts(texts, i - 1);
		return log_errno(rc, "%s", err);
	}
	rc = qosconf_parse(src, o->n_files, &o->conf, cfg, format, err,
			   sizeof(err));
	free_texts(texts, o->n_files);
	if (rc)
		return log_errno(rc, "%s", err);
	return 0;
}

static int emit(const struct analyze_opts *o, const struct arb_config *cfg,
		enum qosconf_format format, const struct arb_result *res)
{
	struct analyze_report_info info = {
		.format = qosconf_format_name(format),
		.node_type = format == QOSCONF_FORMAT_OPENSM ?
			     qosconf_node_type_name(o->conf.node_type) : NULL,
		.sources = o->files,
		.n_sources = o->n_files,
	};
	char err[256];
	json_t *root;
	int i, rc;

	for (i = 0; i < res->n_warnings; i++)
		log_warn("%s", res->warnings[i]);
	if (!o->json) {
		report_analyze_table(stdout, &info, cfg, &o->params, res);
		return fflush(stdout) ? log_error("cannot write to stdout") : 0;
	}
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
	res->n_warnings = n + keep;
}

static int run(struct analyze_opts *o)
{
	struct arb_config cfg;
	struct arb_result *res;
	enum qosconf_format format;
	int rc;

	if (load_config(o, &cfg, &format) || apply_ib_overrides(o, &cfg) ||
	    choose_model(o, &cfg, format) ||
	    (o->load && parse_load(o->load, &cfg, &o->params)))
		return RPERF_EXIT_USAGE;
	res = malloc(sizeof(*res));
	if (!res) {
		log_error("out of memory");
		return RPERF_EXIT_FAILURE;
	}
	rc = arb_analyze(&cfg, &o->params, res);
	if (rc) {
		free(res);
		log_error("cannot analyze this configuration with model '%s'",
			  arb_model_name(o->params.model));
		return RPERF_EXIT_USAGE;
	}
	merge_config_warnings(&cfg, res);
	rc = emit(o, &cfg, format, res);
	free(res);
	return rc ? RPERF_EXIT_FAILURE : RPERF_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */

void cmd_analyze_usage(FILE *out)
{
	fprintf(out,
		"usage: rperf analyze [OPTIONS] FILE...\n"
		"\n"
		"Predict each SL's share of a port's bandwidth and its wait between\n"
		"turns from the port's arbitration configuration.\n"
		"\n"
		"Inputs (format detected, all files of one format):\n"
		"  opensm.conf qos_* keys; smpquery vlarb/sl2vl/portinfo text;\n"
		"  a table of 'high,VL,WEIGHT' / 'low,VL,WEIGHT' lines; an ETS file.\n"
		"\n"
		"Options:\n"
		"  -f, --format FMT       auto, opensm, smpquery, table, ets, tc or dcb\n"
		"  -n, --node-type TYPE   opensm key set: ca, swe (default), sw0,\n"
		"                         sw2sw or rtr\n"
		"      --in-port N        smpquery sl2vl: the input port's row\n"
		"                         (default: the first)\n"
		"  -m, --model MODEL      ib-fluid (default), ib-packet, or ets\n"
		"  -r, --runs N           high-table cycles to simulate (default %d)\n"
		"  -l, --limit N          LimitOfHighPriority 0-255 (overrides input)\n"
		"  -s, --sl2vl LIST       VL of SL0, SL1, ... (overrides input)\n"
		"  -p, --packet-size SPEC bytes, for every SL or per SL as\n"
		"                         SL:BYTES,... (default %d)\n"
		"  -L, --load SPEC        'saturate' (default) or SL:GBPS,...; GBPS\n"
		"                         may be 'sat'; ETS: bN:GBPS for a band\n"
		"  -g, --link-gbps G      link rate (default %g)\n"
		"  -j, --json[=FILE]      JSON on stdout, or written to FILE\n"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input.\n"
		"See rperf-analyze(1).\n",
		ARB_DEFAULT_RUNS, ARB_DEFAULT_PACKET_BYTES, ARB_DEFAULT_LINK_GBPS);
}

enum {
	OPT_IN_PORT = 256,
};

static const struct option analyze_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "node-type", required_argument, NULL, 'n' },
	{ "in-port", required_argument, NULL, OPT_IN_PORT },
	{ "model", required_argument, NULL, 'm' },
	{ "runs", required_argument, NULL, 'r' },
	{ "limit", required_argument, NULL, 'l' },
	{ "sl2vl", required_argument, NULL, 's' },
	{ "packet-size", required_argument, NULL, 'p' },
	{ "load", required_argument, NULL, 'L' },
	{ "link-gbps", required_argument, NULL, 'g' },
	{ "json", optional_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_name_opt(struct analyze_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'f':
		if (qosconf_format_parse(arg, &o->conf.format))
			return log_error("unknown format '%s': use auto, opensm, "
					 "smpquery, table, ets, tc or dcb", arg);
		return 0;
	case 'n':
		if (qosconf_node_type_parse(arg, &o->conf.node_type))
			return log_error("unknown node type '%s': use ca, swe, "
					 "sw0, sw2sw or rtr", arg);
		return 0;
	default:
		o->model_given = true;
		if (arb_model_parse(arg, &o->params.model))
			return log_error("unknown model '%s': use ib-fluid, "
					 "ib-packet or ets", arg);
		return 0;
	}
}

static int parse_opt(struct analyze_opts *o, int opt, const char *arg)
{
	long v;

	switch (opt) {
	case 'f': case 'n': case 'm':
		return parse_name_opt(o, opt, arg);
	case OPT_IN_PORT:
		if (parse_int("--in-port", arg, 0, 254, &v))
			return -EINVAL;
		o->conf.in_port = v;
		return 0;
	case 'r':
		if (parse_int("--runs", arg, 1, 1000000, &v))
			return -EINVAL;
		o->params.runs = v;
		return 0;
	case 'l':
		if (parse_int("--limit", arg, 0, ARB_MAX_LIMIT, &v))
			return -EINVAL;
		o->limit = v;
		return 0;
	case 's':
		o->sl2vl = arg;
		return 0;
	case 'p':
		o->packet_size = arg;
		return parse_packet_size(arg, &o->params);
	case 'L':
		o->load = arg;
		return 0;
	case 'g':
		if (parse_gbps("--link-gbps", arg, &o->params.link_gbps))
			return -EINVAL;
		if (o->params.link_gbps <= 0)
			return log_error("--link-gbps: must be above 0");
		return 0;
	case 'j':
		o->json = true;
		o->json_path = arg ? arg : "-";
		return 0;
	default:
		return -EINVAL;
	}
}

static void opts_init(struct analyze_opts *o)
{
	memset(o, 0, sizeof(*o));
	qosconf_opts_init(&o->conf);
	arb_params_init(&o->params);
	o->limit = -1;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o;
	int opt;

	opts_init(&o);
	while ((opt = getopt_long(argc, argv, "f:n:m:r:l:s:p:L:g:jh",
				  analyze_options, NULL)) != -1) {
		if (opt == 'h') {
			cmd_analyze_usage(stdout);
			return RPERF_EXIT_OK;
		}
		if (opt == '?' || parse_opt(&o, opt, optarg)) {
			fprintf(stderr, "see 'rperf analyze --help'\n");
			return RPERF_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		log_error("no input file");
		cmd_analyze_usage(stderr);
		return RPERF_EXIT_USAGE;
	}
	if (argc - optind > ANALYZE_MAX_FILES) {
		log_error("at most %d input files", ANALYZE_MAX_FILES);
		return RPERF_EXIT_USAGE;
	}
	for (; optind < argc; optind++)
		o.files[o.n_files++] = argv[optind];
	return run(&o);
}
