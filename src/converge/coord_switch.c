/*
 * The switch's side of a step: the scenario's switch_counters command
 * prints the destination port's per-band byte counters (tc -s -j qdisc
 * show dev PORT invisible); the coordinator runs it as the window starts
 * and as it ends, on its own clock, and each band's share of what the
 * port sent goes beside the share the destination received. Apart from
 * the session because it talks to no agent, only to that command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "converge/coord.h"
#include "qos/qosconf.h"

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

/* One read, [0] at the window's start or [1] at its end. */
static void coord_switch_read(struct coord *c, int i)
{
	char err[200] = "", *text;
	int n = 0;

	c->sw_read[i] = true;
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

/* Each class's share of what the port sent in the window, beside the destination's. */
void coord_switch_results(struct coord *c, struct converge_step *st)
{
	struct converge_class *k;
	uint64_t total = 0, d;
	size_t j;
	int b;

	if (!c->sc.switch_counters[0])
		return;
	snprintf(st->switch_error, sizeof(st->switch_error), "%s",
		 c->sw_error[0] ? c->sw_error : !c->sw_read[1] ? "switch_counters: the window "
		 "did not end" : "");
	st->switch_read = !st->switch_error[0];
	if (!st->switch_read || c->cfg.kind != ARB_KIND_ETS)
		return;
	for (b = 0; b < c->sw_bands; b++)
		total += c->sw_bytes[1][b] - c->sw_bytes[0][b];
	for (j = 0; total && j < st->n_classes; j++) {
		k = &st->classes[j];
		if (k->key < 0 || k->key >= c->sw_bands)
			continue;
		d = c->sw_bytes[1][k->key] - c->sw_bytes[0][k->key];
		k->has_switch = true;
		k->switch_share_pct = 100.0 * (double)d / (double)total;
		k->switch_diff_pp = k->switch_share_pct - k->share_pct;
	}
}
