/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The ETS description reader: band, dscp, prio and default lines, the same
 * file the lab's switch feeds to tc-ets. Apart from the InfiniBand formats
 * because it fills the ETS half of struct arb_config.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

/* ------------------------------------------------------------------ */
/* ETS description                                                     */
/* ------------------------------------------------------------------ */

static int ets_band(struct qosconf_parser *p, char **tok, int n)
{
	struct arb_config *cfg = p->cfg;
	struct arb_band *b;
	long id, quantum;
	int err;

	if (n < 3)
		return qosconf_lex_error(p, "malformed band line: expected 'band N strict' "
				"or 'band N drr QUANTUM'");
	err = qosconf_lex_number(p, "band", tok[1], 0, ARB_MAX_BANDS - 1, &id);
	if (err)
		return err;
	if (id != cfg->n_bands)
		return qosconf_lex_error(p, "band %ld out of order: bands are numbered "
				"consecutively from 0, expected %d", id, cfg->n_bands);
	b = &cfg->bands[id];
	if (!strcmp(tok[2], "strict") && n == 3) {
		if (p->drr_seen)
			return qosconf_lex_error(p, "strict band %ld after a drr band: "
					"strict bands come first", id);
		b->strict = true;
	} else if (!strcmp(tok[2], "drr") && n == 4) {
		err = qosconf_lex_number(p, "quantum", tok[3], 1, INT32_MAX, &quantum);
		if (err)
			return err;
		b->quantum_bytes = quantum;
		p->drr_seen = true;
	} else {
		return qosconf_lex_error(p, "band %ld: expected 'strict' or 'drr QUANTUM'", id);
	}
	cfg->n_bands++;
	return 0;
}

/* "dscp D B", "prio P B": the band is checked once all bands are known. */
static int ets_map(struct qosconf_parser *p, char **tok, int n, long max,
		   int8_t *map, int *lines)
{
	long key, band;
	int err;

	if (n != 3)
		return qosconf_lex_error(p, "malformed %s line: expected '%s VALUE BAND'",
				tok[0], tok[0]);
	err = qosconf_lex_number(p, tok[0], tok[1], 0, max, &key);
	if (!err)
		err = qosconf_lex_number(p, "band", tok[2], 0, ARB_MAX_BANDS - 1, &band);
	if (err)
		return err;
	if (lines[key])
		return qosconf_lex_error(p, "%s %ld already mapped at line %d", tok[0],
				key, lines[key]);
	map[key] = band;
	lines[key] = p->line;
	return 0;
}

static int ets_default(struct qosconf_parser *p, char **tok, int n)
{
	long band;
	int err;

	if (n != 2)
		return qosconf_lex_error(p, "malformed default line: expected 'default BAND'");
	if (p->default_line)
		return qosconf_lex_error(p, "default given twice (first at line %d)",
				p->default_line);
	err = qosconf_lex_number(p, "band", tok[1], 0, ARB_MAX_BANDS - 1, &band);
	if (err)
		return err;
	p->cfg->default_band = band;
	p->default_line = p->line;
	return 0;
}

/* The line opens with a keyword (or a prefix of one). */
bool qosconf_ets_detect(const char *s)
{
	size_t word = strcspn(s, " \t,");

	return !strncmp(s, "band", word) || !strncmp(s, "dscp", word) ||
	       !strncmp(s, "prio", word) || !strncmp(s, "default", word);
}

int qosconf_ets_line(struct qosconf_parser *p, char *s)
{
	char *tok[6], *save;
	int n = 0;

	for (tok[n] = strtok_r(s, " \t", &save); tok[n] && n < 5;)
		tok[++n] = strtok_r(NULL, " \t", &save);
	if (n == 5)
		return qosconf_lex_error(p, "too many fields on a '%s' line", tok[0]);
	if (!strcmp(tok[0], "band"))
		return ets_band(p, tok, n);
	if (!strcmp(tok[0], "dscp"))
		return ets_map(p, tok, n, ARB_NUM_DSCPS - 1, p->cfg->dscp_band,
			       p->dscp_line);
	if (!strcmp(tok[0], "prio"))
		return ets_map(p, tok, n, ARB_NUM_PRIOS - 1, p->cfg->prio_band,
			       p->prio_line);
	if (!strcmp(tok[0], "default"))
		return ets_default(p, tok, n);
	return qosconf_lex_error(p, "unknown keyword '%s': expected band, dscp, prio "
			"or default", tok[0]);
}

static int ets_check_band(struct qosconf_parser *p, int band, int line,
			  const char *what)
{
	char msg[128];

	if (band < p->cfg->n_bands)
		return 0;
	snprintf(msg, sizeof(msg), "%s maps to band %d, but only %d bands are "
		 "defined", what, band, p->cfg->n_bands);
	return qosconf_lex_error_line(p, line, msg);
}

int qosconf_ets_finish(struct qosconf_parser *p)
{
	struct arb_config *cfg = p->cfg;
	int i, err = 0;

	if (!cfg->n_bands)
		return qosconf_lex_error(p, "no band lines");
	if (!p->default_line)
		return qosconf_lex_error(p, "no 'default BAND' line (it is required)");
	err = ets_check_band(p, cfg->default_band, p->default_line, "default");
	for (i = 0; !err && i < ARB_NUM_DSCPS; i++)
		if (p->dscp_line[i])
			err = ets_check_band(p, cfg->dscp_band[i],
					     p->dscp_line[i], "dscp");
	for (i = 0; !err && i < ARB_NUM_PRIOS; i++)
		if (p->prio_line[i])
			err = ets_check_band(p, cfg->prio_band[i],
					     p->prio_line[i], "prio");
	return err;
}
