/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The plain table reader: "high,VL,WEIGHT" and "low,VL,WEIGHT" lines, the
 * simplest way to write down a port's VLArb tables by hand. Its own file
 * like every reader, so the dispatcher only lists it.
 */
#include <string.h>
#include <strings.h>

#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

/* "high," or "low," opens the line (any prefix of the word, in any case). */
bool qosconf_table_detect(const char *s)
{
	size_t word = strcspn(s, " \t,");

	return s[word] == ',' && (!strncasecmp(s, "high", word) ||
				  !strncasecmp(s, "low", word));
}

int qosconf_table_line(struct qosconf_parser *p, char *s)
{
	char *f[4], *save;
	long vl, weight;
	int n = 0, err;
	struct arb_table *t;

	for (f[n] = strtok_r(s, ",", &save); f[n] && n < 3;)
		f[++n] = strtok_r(NULL, ",", &save);
	if (n != 3 || f[3])
		return qosconf_lex_error(p, "malformed line: expected high|low,VL,WEIGHT");
	qosconf_lex_trim_end(f[0]);
	f[0] = qosconf_lex_skip_space(f[0]);
	if (!strcasecmp(f[0], "high"))
		t = &p->cfg->high;
	else if (!strcasecmp(f[0], "low"))
		t = &p->cfg->low;
	else
		return qosconf_lex_error(p, "unknown table '%s': expected high or low",
					 f[0]);
	err = qosconf_lex_number(p, "VL", f[1], 0, ARB_VL15, &vl);
	if (!err)
		err = qosconf_lex_number(p, "weight", f[2], 0, ARB_MAX_WEIGHT, &weight);
	if (!err)
		err = qosconf_lex_table_add(p, t, t == &p->cfg->high ? "high" : "low",
					    vl, weight);
	return err;
}

int qosconf_table_finish(struct qosconf_parser *p)
{
	if (!p->cfg->high.n_entries && !p->cfg->low.n_entries)
		return qosconf_lex_error(p, "no high or low entries");
	return 0;
}
