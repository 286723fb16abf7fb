/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * analyze's logic (see analyze.h): the option values a request is made
 * of, then the run itself, which reads the configuration (arb_source.c),
 * applies the overrides, refuses what does not apply to the input read,
 * chooses the model, turns --load into offered loads and runs the model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/opts.h"
#include "base/units.h"
#include "qos/analyze.h"
#include "qos/arb.h"
#include "qos/arb_common.h"
#include "qos/qosconf.h"
#include "qos/qosconf_lex.h"

void analyze_req_init(struct analyze_req *r)
{
	memset(r, 0, sizeof(*r));
	qosconf_opts_init(&r->conf);
	arb_params_init(&r->params);
	r->limit = -1;
}

const char *analyze_format_choices(void)
{
	static char buf[128];

	if (!buf[0])
		qosconf_format_list(buf, sizeof(buf), "auto");
	return buf;
}

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
		return opts_bad_value(err, errlen, opt, s, "a rate such as "
				      UNITS_BPS_SPELLINGS);
	*out = (double)bps / 1e9;
	return 0;
}

int analyze_opt_format(void *dst, const char *name, const char *value, char *err,
		       size_t errlen)
{
	struct analyze_req *r = dst;

	if (qosconf_format_parse(value, &r->conf.format))
		return opts_bad_value(err, errlen, name, value, analyze_format_choices());
	return 0;
}

int analyze_opt_node_type(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	struct analyze_req *r = dst;

	r->src.node_type_given = true;
	if (qosconf_node_type_parse(value, &r->conf.node_type))
		return opts_bad_value(err, errlen, name, value, "ca, swe, sw0, sw2sw or rtr");
	return 0;
}

/* Checked here, read once the command line is whole. */
int analyze_opt_port(void *dst, const char *name, const char *value, char *err,
		     size_t errlen)
{
	struct analyze_req *r = dst;

	r->src.port = value;
	return arb_source_port_check(name, value, err, errlen);
}

int analyze_opt_model(void *dst, const char *name, const char *value, char *err,
		      size_t errlen)
{
	struct analyze_req *r = dst;

	r->model_given = true;
	if (arb_model_parse(value, &r->params.model))
		return opts_bad_value(err, errlen, name, value, "ib-packet, ib-fluid, dtable or ets");
	return 0;
}

int analyze_opt_semantics(void *dst, const char *name, const char *value, char *err,
			  size_t errlen)
{
	struct analyze_req *r = dst;

	r->semantics_given = true;
	if (arb_semantics_parse(value, &r->params.semantics))
		return opts_bad_value(err, errlen, name, value,
				      "KEY=VALUE,... of carry=yes|no, low=entry|packet|continue, "
				      "limit0=alternate|bytes, deficit=vl|table");
	return 0;
}

/* "4096" for every SL, or "SL:BYTES,SL:BYTES". */
int analyze_opt_packet_size(void *dst, const char *name, const char *value, char *err,
			    size_t errlen)
{
	struct analyze_req *r = dst;
	char buf[256], *tok, *save, *colon;
	long sl = 0, bytes = 0;
	int i;

	(void)name;
	r->packet_size = value;
	if (!strchr(value, ':')) {
		if (analyze_int("--packet-size", value, 1, 1 << 20, &bytes, err, errlen))
			return -EINVAL;
		for (i = 0; i < ARB_NUM_SLS; i++)
			r->params.packet_bytes[i] = bytes;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			return opts_bad_value(err, errlen, "--packet-size", tok, "SL:BYTES");
		*colon = '\0';
		if (analyze_int("--packet-size SL", tok, 0, ARB_NUM_SLS - 1, &sl, err, errlen) ||
		    analyze_int("--packet-size", colon + 1, 1, 1 << 20, &bytes, err, errlen))
			return -EINVAL;
		r->params.packet_bytes[sl] = bytes;
	}
	return 0;
}

int analyze_opt_link(void *dst, const char *name, const char *value, char *err,
		     size_t errlen)
{
	struct analyze_req *r = dst;

	if (analyze_gbps(name, value, &r->params.link_gbps, err, errlen))
		return -EINVAL;
	if (r->params.link_gbps <= 0)
		return opts_bad_value(err, errlen, name, value, "a rate above 0");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Offered loads                                                       */
/* ------------------------------------------------------------------ */

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
static void analyze_warn_unloaded(const struct analyze_req *r, const struct arb_config *cfg,
				  const struct arb_params *params, struct arb_result *res)
{
	char list[160] = "";
	size_t len = 0;
	int i, vl, n = 0;
	bool ets = cfg->kind == ARB_KIND_ETS;

	if (!r->load || !strcmp(r->load, "saturate"))
		return;
	for (i = 0; i < (ets ? cfg->n_bands : ARB_NUM_SLS) && len < sizeof(list); i++) {
		vl = ets ? 0 : cfg->sl2vl[i];
		if (ets ? analyze_band_loaded(cfg, params, i) :
		    params->load_gbps[i] != 0 || vl == ARB_VL15 ||
		    (!res->vls[vl].high_weight && !res->vls[vl].low_weight))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s%d", n++ ? ", " : "",
					ets ? "band " : "SL", i);
	}
	if (n)
		arb_common_warn(res, "load-unlisted", "--load '%s' gives %s no load: %s 0 %% "
				"(name %s, with 'sat' to saturate)", r->load, list,
				n == 1 ? "it gets" : "they get", n == 1 ? "it" : "them");
}

/* The smallest packet of an SL on @vl; 0: no SL uses it. */
static uint32_t analyze_vl_packet(const struct arb_config *cfg, const struct arb_params *params,
			       int vl)
{
	uint32_t min = 0;
	int sl;

	for (sl = 0; sl < ARB_NUM_SLS; sl++)
		if (cfg->sl2vl[sl] == vl && (!min || params->packet_bytes[sl] < min))
			min = params->packet_bytes[sl];
	return min;
}

/* Whether every weighted entry of both tables is below one packet of
 * its VL (@packet: the largest such packet), so the weights set nothing. */
static bool analyze_all_below_packet(const struct arb_config *cfg, const struct arb_params *params,
				  uint32_t *packet)
{
	const struct arb_table *t[2] = { &cfg->high, &cfg->low };
	const struct arb_entry *e;
	uint32_t bytes;
	int i, k, n = 0;

	*packet = 0;
	for (k = 0; k < 2; k++)
		for (i = 0; i < t[k]->n_entries; i++) {
			e = &t[k]->entries[i];
			bytes = e->vl == ARB_VL15 ? 0 : analyze_vl_packet(cfg, params, e->vl);
			if (!e->weight || !bytes)
				continue;
			if ((uint32_t)e->weight * ARB_UNIT_BYTES >= bytes)
				return false;
			if (bytes > *packet)
				*packet = bytes;
			n++;
		}
	return n > 1;
}

/*
 * Every weight below one packet: each turn sends one whole packet, so
 * the weights set nothing, whatever their ratios. Said at the default
 * level, once (the per-table notes say how each table reads).
 */
static void analyze_warn_weights(const struct arb_config *cfg, const struct arb_params *params,
				 struct arb_result *res)
{
	uint32_t packet;

	if (cfg->kind == ARB_KIND_ETS || !analyze_all_below_packet(cfg, params, &packet))
		return;
	arb_common_warn(res, "weights-below-packet", "every weight is below one %u-byte packet: "
			"each turn sends one whole packet, so the weights do not set the shares "
			"(a weight of %u or more does)", packet, packet / ARB_UNIT_BYTES);
}

/* ------------------------------------------------------------------ */
/* The input and the model                                             */
/* ------------------------------------------------------------------ */

/* --limit and --sl2vl override what the input says (InfiniBand only). */
static int apply_ib_overrides(const struct analyze_req *r, struct arb_config *cfg, char *err,
			      size_t errlen)
{
	char why[256];
	uint8_t vls[ARB_NUM_SLS];
	int n, i;

	if (cfg->kind == ARB_KIND_ETS) {
		if (r->limit >= 0 || r->sl2vl || r->packet_size)
			return errbuf_set(err, errlen, -EINVAL, "--limit, --sl2vl and --packet-size "
					  "apply to InfiniBand inputs, not to ETS");
		return 0;
	}
	if (r->limit >= 0) {
		cfg->limit = r->limit;
		cfg->limit_known = true;
	}
	if (!r->sl2vl)
		return 0;
	if (qosconf_lex_list(r->sl2vl, 0, ARB_VL15, ARB_NUM_SLS, vls, &n, why, sizeof(why)))
		return errbuf_set(err, errlen, -EINVAL, "--sl2vl: %s", why);
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
static int check_applies(const struct analyze_req *r, const struct arb_source_info *src,
			 char *err, size_t errlen)
{
	const char *what = src->live ? "a live port's tables" : qosconf_format_name(src->format);

	if (r->conf.in_port >= 0 && !r->src.port && src->format != QOSCONF_FORMAT_SMPQUERY)
		return errbuf_set(err, errlen, -EINVAL, "--in-port applies to a switch's smpquery "
				  "sl2vl capture or --port (the input port's row), not to %s "
				  "input", what);
	if (r->src.node_type_given && !src->live && src->format != QOSCONF_FORMAT_OPENSM)
		return errbuf_set(err, errlen, -EINVAL, "--node-type applies to an opensm.conf "
				  "(its key set), not to %s input", what);
	return 0;
}

/* The model must fit the input: ets for ETS, an ib- model for VLArb. */
static int choose_model(const struct analyze_req *r, const struct arb_config *cfg,
			enum qosconf_format format, struct arb_params *params, char *err,
			size_t errlen)
{
	bool ets_input = cfg->kind == ARB_KIND_ETS;

	if (r->semantics_given && (ets_input || (r->model_given &&
						 params->model != ARB_MODEL_IB_PACKET)))
		return errbuf_set(err, errlen, -EINVAL, "--semantics applies to ib-packet, the "
				  "model of the specification's readings");
	if (!r->model_given) {
		params->model = ets_input ? ARB_MODEL_ETS : arb_model_default(ARB_KIND_VLARB);
		return 0;
	}
	if (ets_input != (params->model == ARB_MODEL_ETS))
		return errbuf_set(err, errlen, -EINVAL, "model '%s' does not fit %s input: use %s",
				  arb_model_name(params->model), qosconf_format_name(format),
				  ets_input ? "ets" : "ib-fluid or ib-packet");
	return 0;
}

/* The reader's warnings come first, then the model's, in one list. */
static void merge_config_warnings(const struct arb_config *cfg, struct arb_result *res)
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

/* The configuration, checked and overridden, and the parameters for it. */
static int analyze_input(const struct analyze_req *r, struct analyze_out *out, char *err,
			 size_t errlen)
{
	int rc;

	rc = arb_source_load(&r->src, &r->conf, &out->cfg, &out->src, err, errlen);
	if (rc) {
		out->usage = !out->src.fabric_error;
		return rc;
	}
	out->usage = true;
	rc = check_applies(r, &out->src, err, errlen);
	if (!rc)
		rc = apply_ib_overrides(r, &out->cfg, err, errlen);
	if (!rc)
		rc = choose_model(r, &out->cfg, out->src.format, &out->params, err, errlen);
	if (!rc && r->load)
		rc = analyze_load(r->load, &out->cfg, &out->params, err, errlen);
	return rc;
}

int analyze_run(const struct analyze_req *r, struct analyze_out *out, char *err,
		size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->params = r->params;
	rc = analyze_input(r, out, err, errlen);
	if (rc)
		return rc;
	out->res = malloc(sizeof(*out->res));
	if (!out->res) {
		out->usage = false;
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	if (arb_analyze(&out->cfg, &out->params, out->res))
		return errbuf_set(err, errlen, -EINVAL, "cannot analyze this configuration with "
				  "model '%s'", arb_model_name(out->params.model));
	analyze_warn_weights(&out->cfg, &out->params, out->res);
	analyze_warn_unloaded(r, &out->cfg, &out->params, out->res);
	merge_config_warnings(&out->cfg, out->res);
	out->usage = false;
	return 0;
}

void analyze_out_release(struct analyze_out *out)
{
	free(out->res);
	out->res = NULL;
}
