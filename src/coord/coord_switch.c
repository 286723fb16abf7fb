/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The switch's side of a step, read as the window starts and as it ends
 * on the coordinator's clock, each class's share of what the port sent
 * going beside the share the destination received. Two sources:
 * - Ethernet: the scenario's switch_counters command prints the
 *   destination port's per-band byte counters (tc -s -j qdisc show dev
 *   PORT invisible);
 * - InfiniBand: switch_counters = pma:LID:PORT reads PortXmitDataSL of
 *   the switch's egress port to the destination, cleared at the start;
 *   pma-vl:LID:PORT reads PortVLOpData, the data received per VL, of the
 *   destination's own port (the far end of the same link), where the
 *   switch's PMA lacks PortXmitDataSL.
 * Apart from the session because it talks to no agent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/units.h"
#include "coord/coord.h"
#include "qos/qosconf_tc.h"

#define COORD_SWITCH_MAX_BYTES	(1 << 20)

/* Run the command; its whole output into a malloc'ed string, or NULL with @err. */
static char *coord_switch_run(const char *cmd, char *err, size_t errlen)
{
	FILE *f = popen(cmd, "r");
	char *buf = malloc(COORD_SWITCH_MAX_BYTES + 1);
	size_t n = 0;
	int st;

	if (!f || !buf) {
		snprintf(err, errlen, "switch_counters '%.120s': cannot run it", cmd);
		free(buf);
		if (f)
			pclose(f);
		return NULL;
	}
	n = fread(buf, 1, COORD_SWITCH_MAX_BYTES, f);
	buf[n] = '\0';
	st = pclose(f);
	if (st) {
		snprintf(err, errlen, "switch_counters '%.120s': exit status %d", cmd, st);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The PMA's counters into c->sw_bytes[@i]; cleared first at the start. */
static void coord_switch_read_pma(struct coord *c, int i)
{
	const struct scenario *sc = &c->sc;
	char ca[64] = "", err[200];
	const char *colon = strchr(sc->arb_ca, ':');
	uint64_t ca_port = 0;
	int j, rc;

	snprintf(ca, sizeof(ca), "%.*s", colon ? (int)(colon - sc->arb_ca) : (int)strlen(sc->arb_ca),
		 sc->arb_ca);
	if (colon && units_parse_u64(colon + 1, 1, 254, &ca_port)) {
		snprintf(c->sw_error, sizeof(c->sw_error), "switch_counters: arbitration_ca "
			 "'%s': bad port", sc->arb_ca);
		return;
	}
	rc = mad_pma_read(ca[0] ? ca : NULL, (int)ca_port, sc->switch_pma_lid, sc->switch_pma_port,
			  sc->switch_pma_counter, i == 0, c->sw_bytes[i], err, sizeof(err));
	if (rc) {
		snprintf(c->sw_error, sizeof(c->sw_error), "switch_counters: %s", err);
		return;
	}
	c->sw_bands = MAD_PMA_COUNTERS;
	for (j = 0; j < MAD_PMA_COUNTERS; j++)
		if (c->sw_bytes[i][j] >= MAD_PMA_SATURATED) {
			snprintf(c->sw_error, sizeof(c->sw_error), "switch_counters: %s %s %d "
				 "stopped at its 32-bit limit (16 GiB) %s the window: shorten the "
				 "window", mad_pma_counter_name(sc->switch_pma_counter),
				 sc->switch_pma_counter == MAD_PMA_XMIT_DATA_SL ? "SL" : "VL", j,
				 i ? "within" : "before");
			return;
		}
}

/* One read, [0] at the window's start or [1] at its end. */
static void coord_switch_read(struct coord *c, int i)
{
	char err[200] = "", *text;
	int n = 0;

	c->sw_read[i] = true;
	if (c->sc.switch_pma) {
		coord_switch_read_pma(c, i);
		return;
	}
	text = coord_switch_run(c->sc.switch_counters, err, sizeof(err));
	if (text && qosconf_tc_band_bytes(text, c->sw_bytes[i], &n, err, sizeof(err)))
		snprintf(c->sw_error, sizeof(c->sw_error), "switch_counters: %s", err);
	else if (!text)
		snprintf(c->sw_error, sizeof(c->sw_error), "%s", err);
	else if (i && n != c->sw_bands)
		snprintf(c->sw_error, sizeof(c->sw_error), "switch_counters: %d bands, then %d",
			 c->sw_bands, n);
	c->sw_bands = n;
	free(text);
}

int coord_switch_poll(struct coord *c, int max_ms)
{
	uint64_t now = ctl_now_ns(), next;
	int i;

	if (!c->sc.switch_counters[0] || !c->window_start_ns)
		return max_ms;
	for (i = 0; i < 2; i++) {
		next = i ? c->window_end_ns : c->window_start_ns;
		if (c->sw_read[i])
			continue;
		if (now >= next) {
			coord_switch_read(c, i);
			continue;
		}
		return (next - now) / 1000000u < (uint64_t)max_ms ? (int)((next - now) / 1000000u) :
									  max_ms;
	}
	return max_ms;
}

/*
 * An agent's result can come a few ms before our clock reaches the
 * window's end (the clocks agree within their sync), and the last one
 * ends the step: its flows have stopped, so the counters hold the window.
 */
void coord_switch_last(struct coord *c)
{
	if (c->sw_read[0] && !c->sw_read[1])	/* the start's read: counters, a window */
		coord_switch_read(c, 1);
}

/*
 * The counter a class is counted in: its band (tc), its SL (pma:), or
 * the VL its SL maps to (pma-vl:), -1 when that VL also carries another
 * measured class (the VL's share is then no one class's).
 */
static int coord_switch_counter(const struct coord *c, const struct converge_step *st,
				const struct converge_class *k)
{
	size_t j;
	int vl;

	if (!c->sc.switch_pma || c->sc.switch_pma_counter == MAD_PMA_XMIT_DATA_SL)
		return k->key;
	vl = c->cfg.sl2vl[k->key & 15];
	for (j = 0; j < st->n_classes; j++)
		if (&st->classes[j] != k && c->cfg.sl2vl[st->classes[j].key & 15] == vl)
			return -1;
	return vl;
}

/* Why the switch's counters cannot be set beside these classes, or NULL. */
static const char *coord_switch_mismatch(const struct coord *c)
{
	if (!c->sc.switch_pma)
		return c->cfg.kind == ARB_KIND_ETS ? NULL : "the tc counters are per ETS band, "
			"and the arbitration is not ETS";
	if (!c->have_cfg && c->sc.switch_pma_counter == MAD_PMA_RCV_DATA_VL)
		return "per-VL counters need the port's SL2VL: give an arbitration";
	if (c->have_cfg && c->cfg.kind == ARB_KIND_ETS)
		return "PerfMgt counters are per SL or VL, and the arbitration is ETS";
	return NULL;
}

void coord_switch_results(struct coord *c, struct converge_step *st)
{
	struct converge_class *k;
	uint64_t total = 0, d;
	const char *why;
	size_t j;
	int b;

	if (!c->sc.switch_counters[0])
		return;
	why = coord_switch_mismatch(c);
	snprintf(st->switch_error, sizeof(st->switch_error), "%s",
		 c->sw_error[0] ? c->sw_error : !c->sw_read[1] ? "switch_counters: the window "
		 "did not end" : why ? why : "");
	st->switch_read = !st->switch_error[0];
	if (!st->switch_read)
		return;
	for (b = 0; b < c->sw_bands; b++)
		total += c->sw_bytes[1][b] - c->sw_bytes[0][b];
	for (j = 0; total && j < st->n_classes; j++) {
		k = &st->classes[j];
		b = coord_switch_counter(c, st, k);
		if (b < 0 || b >= c->sw_bands)
			continue;
		d = c->sw_bytes[1][b] - c->sw_bytes[0][b];
		k->has_switch = true;
		k->switch_share_pct = 100.0 * (double)d / (double)total;
		k->switch_diff_pp = k->switch_share_pct - k->share_pct;
	}
}
