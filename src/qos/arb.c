/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The dispatcher of the arbitration models (see arb.h for the contract):
 * one table lists the models, and arb_analyze() runs the one the
 * parameters name on a configuration of the kind it fits. Above the
 * models (arb_models.h: InfiniBand in arb_ib.c, ETS in arb_ets.c), which
 * only call down into what they share (arb_common.h). A new model is one
 * file and one row.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qos/arb.h"
#include "qos/arb_models.h"

/* The models, in the order help lists them. */
static const struct arb_model_row arb_models[] = {
	{
		.model = ARB_MODEL_IB_FLUID, .name = "ib-fluid",
		.kind = ARB_KIND_VLARB, .analyze = arb_ib_analyze,
		.options = "--limit, --sl2vl, --load SL:GBPS, --link-gbps",
	},
	{
		.model = ARB_MODEL_IB_PACKET, .name = "ib-packet",
		.kind = ARB_KIND_VLARB, .analyze = arb_ib_analyze,
		.options = "--semantics, --limit, --sl2vl, --packet-size, "
			   "--load SL:GBPS, --link-gbps",
	},
	{
		.model = ARB_MODEL_ETS, .name = "ets",
		.kind = ARB_KIND_ETS, .analyze = arb_ets_analyze,
		.options = "--load PRIO:GBPS and bBAND:GBPS, --link-gbps",
	},
	{
		.model = ARB_MODEL_DTABLE, .name = "dtable",
		.kind = ARB_KIND_VLARB, .analyze = arb_ib_analyze,
		.options = "the high table's entries name SLs; --packet-size "
			   "(per-SL MTU), --load SL:GBPS, --link-gbps",
	},
};

#define ARB_N_MODELS	(int)(sizeof(arb_models) / sizeof(arb_models[0]))

/* The row of @model; NULL for an unknown value. */
static const struct arb_model_row *arb_model_find(enum arb_model model)
{
	int i;

	for (i = 0; i < ARB_N_MODELS; i++)
		if (arb_models[i].model == model)
			return &arb_models[i];
	return NULL;
}

void arb_config_init(struct arb_config *cfg, enum arb_kind kind)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = kind;
	for (i = 0; i < ARB_NUM_SLS; i++)
		cfg->sl2vl[i] = i;
	memset(cfg->dscp_band, -1, sizeof(cfg->dscp_band));
	memset(cfg->prio_band, -1, sizeof(cfg->prio_band));
	cfg->default_band = -1;
}

void arb_params_init(struct arb_params *params)
{
	int i;

	memset(params, 0, sizeof(*params));
	params->model = ARB_MODEL_IB_PACKET;
	params->runs = ARB_DEFAULT_RUNS;
	params->semantics = arb_ib_semantics_nth(0);
	params->compare_semantics = true;
	params->range_pct = ARB_DEFAULT_RANGE_PCT;
	params->link_gbps = ARB_DEFAULT_LINK_GBPS;
	for (i = 0; i < ARB_NUM_SLS; i++) {
		params->load_gbps[i] = -1.0;
		params->packet_bytes[i] = ARB_DEFAULT_PACKET_BYTES;
	}
}

const char *arb_model_name(enum arb_model model)
{
	const struct arb_model_row *m = arb_model_find(model);

	return m ? m->name : "unknown";
}

int arb_model_parse(const char *name, enum arb_model *model)
{
	int i;

	for (i = 0; i < ARB_N_MODELS; i++) {
		if (!strcmp(name, arb_models[i].name)) {
			*model = arb_models[i].model;
			return 0;
		}
	}
	return -EINVAL;
}

const char *arb_model_options(enum arb_model model)
{
	const struct arb_model_row *m = arb_model_find(model);

	return m ? m->options : NULL;
}

bool arb_model_fits(enum arb_model model, enum arb_kind kind)
{
	const struct arb_model_row *m = arb_model_find(model);

	return m && m->kind == kind;
}

enum arb_model arb_model_default(enum arb_kind kind)
{
	return kind == ARB_KIND_ETS ? ARB_MODEL_ETS : ARB_MODEL_IB_PACKET;
}

/* The words of each semantics option, as --semantics spells them. */
static const char *const arb_low_words[ARB_N_LOW_TURNS] = {
	"entry", "packet", "continue"
};
static const char *const arb_limit0_words[] = { "alternate", "bytes" };

void arb_semantics_format(const struct arb_semantics *sem, char *buf,
			  size_t len)
{
	snprintf(buf, len, "carry=%s,low=%s,limit0=%s%s", sem->carry ? "yes" : "no",
		 arb_low_words[sem->low_turn], arb_limit0_words[sem->limit0],
		 sem->deficit_per_table ? ",deficit=table" : "");
}

/* One KEY=VALUE of --semantics into @sem. */
static int arb_semantics_word(const char *key, const char *val,
			      struct arb_semantics *sem)
{
	int i;

	if (!strcmp(key, "carry") && (!strcmp(val, "yes") || !strcmp(val, "no"))) {
		sem->carry = !strcmp(val, "yes");
		return 0;
	}
	if (!strcmp(key, "deficit") && (!strcmp(val, "vl") || !strcmp(val, "table"))) {
		sem->deficit_per_table = !strcmp(val, "table");
		return 0;
	}
	for (i = 0; i < ARB_N_LOW_TURNS; i++) {
		if (!strcmp(key, "low") && !strcmp(val, arb_low_words[i])) {
			sem->low_turn = i;
			return 0;
		}
		if (i < 2 && !strcmp(key, "limit0") && !strcmp(val, arb_limit0_words[i])) {
			sem->limit0 = i;
			return 0;
		}
	}
	return -EINVAL;
}

int arb_semantics_parse(const char *text, struct arb_semantics *sem)
{
	char buf[128], *save = NULL, *tok, *eq;
	struct arb_semantics out = *sem;

	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (!eq)
			return -EINVAL;
		*eq = '\0';
		if (arb_semantics_word(tok, eq + 1, &out))
			return -EINVAL;
	}
	*sem = out;
	return 0;
}

static void arb_result_init(struct arb_result *res, const struct arb_config *cfg,
			    const struct arb_params *params)
{
	memset(res, 0, sizeof(*res));
	res->kind = cfg->kind;
	res->model = params->model;
	res->runs = params->runs;
	res->limit = cfg->limit;
	res->link_gbps = params->link_gbps;
}

static int arb_params_check(const struct arb_params *params)
{
	int i;

	if (params->runs < 1 || params->link_gbps <= 0 || params->range_pct < 0)
		return -EINVAL;
	for (i = 0; i < ARB_NUM_SLS; i++)
		if (params->packet_bytes[i] < 1)
			return -EINVAL;
	return 0;
}

int arb_analyze(const struct arb_config *cfg, const struct arb_params *params,
		struct arb_result *res)
{
	const struct arb_model_row *m = arb_model_find(params->model);
	int err = arb_params_check(params);

	if (err)
		return err;
	arb_result_init(res, cfg, params);
	if (!m || m->kind != cfg->kind)
		return -EINVAL;
	return m->analyze(cfg, params, res);
}

bool arb_warning_is_note(const char *code)
{
	/* Routine on almost any real table, or shown by the tables already. */
	static const char *const notes[] = {
		"weight-0", "below-packet", "sl-shared-vl", "reading-left-out",
		"readings-disagree", "opensm-max-vls-unused",
	};
	size_t i;

	for (i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		if (!strcmp(code, notes[i]))
			return true;
	return false;
}
