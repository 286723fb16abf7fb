/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * analyze's diagnostics as stderr shows them. The analysis says each
 * thing once per SL, VL or table (the JSON keeps every message as it
 * is); a reader wants one line per thing, short enough to read, with
 * what to act on at the default level and the modelling detail behind
 * -v. Here: messages that differ only in an SL number become one line
 * naming the SLs (SL2-15), a long line is wrapped at its list's
 * separators, and a message's level is chosen by what it changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos/arb.h"
#include "qos/arb_types.h"
#include "report/report_analyze.h"

/* Modelling detail: the tables already show its effect. */
static const char *const diag_detail_codes[] = {
	"distances-differ",
};

/* The data VLs a port of 8 VLs (every ConnectX HCA) has: VL0-7. */
#define DIAG_COMMON_VLS		8

static bool diag_is_detail(const char *code)
{
	size_t i;

	for (i = 0; i < sizeof(diag_detail_codes) / sizeof(diag_detail_codes[0]); i++)
		if (!strcmp(code, diag_detail_codes[i]))
			return true;
	return arb_warning_is_note(code);
}

/* Whether traffic or a weight of @cfg is on a VL that a port of 8 data
 * VLs lacks: only then does the operational VL count assumed change a
 * figure. */
static bool diag_uses_high_vls(const struct arb_config *cfg)
{
	const struct arb_table *t[2] = { &cfg->high, &cfg->low };
	int i, k;

	for (i = 0; i < ARB_NUM_SLS; i++)
		if (cfg->sl2vl[i] != ARB_VL15 && cfg->sl2vl[i] >= DIAG_COMMON_VLS)
			return true;
	for (k = 0; k < 2; k++)
		for (i = 0; i < t[k]->n_entries; i++)
			if (t[k]->entries[i].weight && t[k]->entries[i].vl != ARB_VL15 &&
			    t[k]->entries[i].vl >= DIAG_COMMON_VLS)
				return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Grouping and wrapping                                               */
/* ------------------------------------------------------------------ */

/* The first "SL<n>" of @s: its offset and number; -1 when none. */
static int diag_sl_at(const char *s, int *sl, size_t *len)
{
	const char *p = s;
	char *end;

	while ((p = strstr(p, "SL"))) {
		if ((p == s || p[-1] == ' ') && p[2] >= '0' && p[2] <= '9') {
			*sl = (int)strtol(p + 2, &end, 10);
			*len = (size_t)(end - p);
			return (int)(p - s);
		}
		p += 2;
	}
	return -1;
}

/* Whether @a and @b read the same but for their first SL number. */
static bool diag_same_but_sl(const char *a, const char *b)
{
	size_t la, lb;
	int sa, sb, oa = diag_sl_at(a, &sa, &la), ob = diag_sl_at(b, &sb, &lb);

	return oa >= 0 && oa == ob && !strncmp(a, b, (size_t)oa) &&
	       !strcmp(a + oa + la, b + ob + lb);
}

/* "SL2-5,9" of the SLs set in @mask. */
static void diag_sl_list(unsigned mask, char *buf, size_t len)
{
	size_t off = 0;
	int sl, end;

	snprintf(buf, len, "SL");
	off = 2;
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		if (!(mask & (1u << sl)))
			continue;
		for (end = sl; end + 1 < ARB_NUM_SLS && (mask & (1u << (end + 1))); end++)
			;
		off += (size_t)snprintf(buf + off, len - off, "%s%d", off > 2 ? "," : "", sl);
		if (end > sl)
			off += (size_t)snprintf(buf + off, len - off, "-%d", end);
		sl = end;
		if (off >= len)
			return;
	}
}

/* "its" of one SL read as "their" of several (the first after ": "). */
static void diag_plural(char *s, size_t len)
{
	char *p = strstr(s, ": its "), tail[ARB_WARNING_LEN];

	if (!p)
		return;
	snprintf(tail, sizeof(tail), "%s", p + 6);
	snprintf(p, len - (size_t)(p - s), ": their %s", tail);
}

/* @msg with its first SL replaced by the list of @mask (" maps" read
 * as " map" for more than one). */
static void diag_grouped(const char *msg, unsigned mask, char *out, size_t len)
{
	char list[64];
	const char *rest;
	size_t l;
	int sl, at = diag_sl_at(msg, &sl, &l);

	diag_sl_list(mask, list, sizeof(list));
	rest = msg + at + l;
	if (!strncmp(rest, " maps ", 6))
		snprintf(out, len, "%.*s%s map %s", at, msg, list, rest + 6);
	else
		snprintf(out, len, "%.*s%s%s", at, msg, list, rest);
	diag_plural(out, len);
}

/*
 * @text wrapped into @out: the first line at most @first columns, the
 * others @cols with REPORT_DIAG_INDENT spaces before them; a break
 * goes after "; ", then ", ", then " ", the last that fits.
 */
static void diag_wrap(const char *text, int first, int cols, char *out, size_t len)
{
	const char *seps[] = { "; ", ", ", " " };
	size_t off = 0, n = strlen(text), width = (size_t)first, cut, i;
	const char *p;

	out[0] = '\0';
	while (n > width && off < len) {
		cut = 0;
		for (i = 0; i < 3 && !cut; i++)
			for (p = text; (p = strstr(p, seps[i])) && (size_t)(p - text) + 1 <= width;
			     p++)
				cut = (size_t)(p - text) + strlen(seps[i]) - 1;
		if (!cut)
			cut = width;
		off += (size_t)snprintf(out + off, len - off, "%.*s\n%*s", (int)cut, text,
					REPORT_DIAG_INDENT, "");
		text += cut;
		while (*text == ' ')
			text++;
		n = strlen(text);
		width = (size_t)(cols - REPORT_DIAG_INDENT);
	}
	if (off < len)
		snprintf(out + off, len - off, "%s", text);
}

/* One line of @out: @text at @note's level, wrapped for its prefix. */
static void diag_add(struct report_diag *d, bool note, const char *text)
{
	d->note = note;
	diag_wrap(text, REPORT_DIAG_COLS - (int)strlen(note ? REPORT_DIAG_NOTE :
							 REPORT_DIAG_WARN),
		  REPORT_DIAG_COLS, d->text, sizeof(d->text));
}

/* The level of warning @i of @res: a note (true) or a warning. */
static bool diag_level(const struct arb_config *cfg, const struct arb_result *res, int i)
{
	const char *code = res->warning_codes[i];

	if (!strcmp(code, "vlcap-unknown"))
		return !diag_uses_high_vls(cfg);
	return diag_is_detail(code);
}

int report_analyze_diags(const struct arb_config *cfg,
			 const struct arb_result *res, struct report_diag *out, int max)
{
	char text[sizeof(out->text)];
	bool done[ARB_MAX_WARNINGS] = { false };
	unsigned mask;
	size_t l;
	int i, j, sl, n = 0;

	for (i = 0; i < res->n_warnings && n < max; i++) {
		if (done[i])
			continue;
		mask = diag_sl_at(res->warnings[i], &sl, &l) >= 0 && sl < ARB_NUM_SLS ?
		       1u << sl : 0;
		for (j = i + 1; mask && j < res->n_warnings; j++)
			if (!done[j] && !strcmp(res->warning_codes[i], res->warning_codes[j]) &&
			    diag_same_but_sl(res->warnings[i], res->warnings[j]) &&
			    diag_sl_at(res->warnings[j], &sl, &l) >= 0 && sl < ARB_NUM_SLS) {
				mask |= 1u << sl;
				done[j] = true;
			}
		if (mask & (mask - 1))
			diag_grouped(res->warnings[i], mask, text, sizeof(text));
		else
			snprintf(text, sizeof(text), "%s", res->warnings[i]);
		diag_add(&out[n++], diag_level(cfg, res, i), text);
	}
	return n;
}
