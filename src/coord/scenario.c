/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Scenario files: see scenario.h. inih calls one handler per key; the
 * handler fills the scenario and keeps the first error, and inih tells
 * its line. What can only be checked once the whole file is read (a flow
 * without a host, no destination) is reported at its section's line,
 * which a small scan of the text finds.
 */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/conn.h"
#include "wire/ctl.h"
#include "base/errbuf.h"
#include "base/units.h"
#include "qos/qosconf.h"
#include "coord/scenario.h"

/* Every error of a key: the reason into the parser's buffer, -EINVAL. */
#define SCENARIO_FAIL(p, ...) errbuf_set((p)->err, sizeof((p)->err), -EINVAL, __VA_ARGS__)

/* Sections as read: flows, or patterns that expand into flows at the end. */
struct scenario_parser {
	struct scenario *sc;
	const char *dir;
	struct scenario_pattern_sec *secs;	/* SCENARIO_MAX_FLOWS of them */
	size_t n_secs;
	char err[256];			/* the first error, without file:line */
};

const char *scenario_flow_type_name(enum scenario_flow_type t)
{
	return t == SCENARIO_FLOW_LAT ? "lat" : "bw";
}

size_t scenario_dests(const struct scenario *sc, const char **out, size_t cap)
{
	size_t i, j, n = 0;

	for (i = 0; i < sc->n_flows; i++) {
		for (j = 0; j < n && strcmp(out[j], sc->flows[i].dest); j++)
			;
		if (j == n && n < cap)
			out[n++] = sc->flows[i].dest;
	}
	return n;
}

/*
 * An agent's address: HOST, HOST:PORT or [IPV6]:PORT; an IPv6 address
 * without brackets is a host. @port is 0 when none is given.
 */
int scenario_agent_addr(const char *addr, char *host, size_t len, uint16_t *port)
{
	const char *colon = strrchr(addr, ':'), *h = addr;
	size_t n = strlen(addr);
	char *end;
	long v;

	*port = 0;
	if (addr[0] == '[') {
		end = strchr(addr, ']');
		if (!end || end == addr + 1 || (end[1] && end[1] != ':'))
			return -EINVAL;
		h = addr + 1;
		n = (size_t)(end - h);
		colon = end[1] ? end + 1 : NULL;
	} else if (colon && strchr(addr, ':') != colon) {
		colon = NULL;	/* a bare IPv6 address */
	} else if (colon) {
		n = (size_t)(colon - addr);
	}
	if (!n || n >= len)
		return -EINVAL;
	if (colon) {
		errno = 0;
		v = strtol(colon + 1, &end, 10);
		if (!isdigit((unsigned char)colon[1]) || *end || errno || v < 1 || v > 65535)
			return -EINVAL;
		*port = (uint16_t)v;
	}
	memcpy(host, h, n);
	host[n] = '\0';
	return 0;
}

/*
 * @what ("host", "dest") of a flow checked as an agent's address, and
 * written as its one name: HOST:PORT at the scenario's agent port is HOST.
 */
static int scenario_agent_canon(const struct scenario *sc, const struct scenario_flow *f,
				char *addr, const char *what, char *err, size_t errlen)
{
	char host[SCENARIO_HOST_MAX];
	uint16_t port;

	if (scenario_agent_addr(addr, host, sizeof(host), &port))
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: %s '%s': expected HOST, "
				  "HOST:PORT or [IPV6]:PORT (the agent's control port)", sc->name,
				  f->line, f->section, what, addr);
	if (port == sc->agent_port)
		snprintf(addr, SCENARIO_HOST_MAX, "%s", host);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

/* A whole-string integer in [lo, hi]. */
static int scenario_long(const char *s, long lo, long hi, long *out)
{
	uint64_t v;

	if (units_parse_u64(s, (uint64_t)lo, (uint64_t)hi, &v))
		return -EINVAL;
	*out = (long)v;
	return 0;
}

/* A time (bare: seconds) -> seconds, at most a day. */
static int scenario_seconds(const char *s, double *out)
{
	uint64_t ns;

	if (units_parse_ns(s, &ns) || ns > 86400ull * 1000000000ull)
		return -EINVAL;
	*out = (double)ns / 1e9;
	return 0;
}

static bool scenario_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes")) {
		*out = true;
		return true;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no")) {
		*out = false;
		return true;
	}
	return false;
}

/* Copy @s into @dst of @cap bytes; false when it does not fit or is empty. */
static bool scenario_copy(char *dst, size_t cap, const char *s)
{
	if (!*s || strlen(s) >= cap)
		return false;
	memcpy(dst, s, strlen(s) + 1);
	return true;
}

/* ------------------------------------------------------------------ */
/* [global]                                                            */
/* ------------------------------------------------------------------ */

/*
 * switch_counters = pma:LID:PORT or pma-vl:LID:PORT: the PerfMgt agent of
 * that port is read, not a command run. PerfMgt MADs are LID-routed.
 */
static int scenario_switch_pma(struct scenario_parser *p, const char *v)
{
	struct scenario *sc = p->sc;
	const char *rest, *colon;
	uint64_t lid, port;
	char buf[16];

	sc->switch_pma = false;
	if (!strncmp(v, "pma:", 4))
		sc->switch_pma_counter = MAD_PMA_XMIT_DATA_SL, rest = v + 4;
	else if (!strncmp(v, "pma-vl:", 7))
		sc->switch_pma_counter = MAD_PMA_RCV_DATA_VL, rest = v + 7;
	else
		return 0;
	colon = strchr(rest, ':');
	if (!colon || (size_t)(colon - rest) >= sizeof(buf))
		return SCENARIO_FAIL(p, "switch_counters '%s': expected pma:LID:PORT or "
				     "pma-vl:LID:PORT", v);
	snprintf(buf, sizeof(buf), "%.*s", (int)(colon - rest), rest);
	if (units_parse_u64(buf, 1, 0xbfff, &lid) || units_parse_u64(colon + 1, 0, 254, &port))
		return SCENARIO_FAIL(p, "switch_counters '%s': expected a unicast LID (1-49151) "
				     "and a port (0-254)", v);
	sc->switch_pma = true;
	sc->switch_pma_lid = (int)lid;
	sc->switch_pma_port = (int)port;
	return 0;
}

/*
 * "a.conf, b.txt" or "port:LID:PORT [opensm.conf]": into @sc, relative
 * paths taken from @dir (NULL: as given). A live port's directed route
 * has commas, so "port:" items end at white space only.
 */
int scenario_set_arbitration(struct scenario *sc, const char *v, const char *dir, char *err,
			     size_t errlen)
{
	char buf[SCENARIO_PATH_MAX * 2], *tok, *save, *f, *save_f;
	size_t len;

	snprintf(buf, sizeof(buf), "%s", v);
	sc->n_arb_files = 0;
	sc->arb_port[0] = '\0';
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "port:", 5)) {
			for (len = strlen(tok); len > 5 && tok[len - 1] == ','; )
				tok[--len] = '\0';
			if (sc->arb_port[0])
				return errbuf_set(err, errlen, -EINVAL, "arbitration: one "
						  "live port at most ('%s' and '%s')",
						  sc->arb_port, tok + 5);
			if (len == 5 || len - 5 >= sizeof(sc->arb_port))
				return errbuf_set(err, errlen, -EINVAL, "arbitration '%s': "
						  "expected port:LID:PORT or port:PATH:PORT", tok);
			memcpy(sc->arb_port, tok + 5, len - 4);
			continue;
		}
		for (f = strtok_r(tok, ",", &save_f); f; f = strtok_r(NULL, ",", &save_f)) {
			if (sc->n_arb_files == SCENARIO_MAX_ARB_FILES)
				return errbuf_set(err, errlen, -EINVAL, "at most %d "
						  "arbitration files", SCENARIO_MAX_ARB_FILES);
			if (f[0] != '/' && dir)
				snprintf(sc->arb_files[sc->n_arb_files], SCENARIO_PATH_MAX,
					 "%s/%s", dir, f);
			else
				snprintf(sc->arb_files[sc->n_arb_files], SCENARIO_PATH_MAX,
					 "%s", f);
			sc->n_arb_files++;
		}
	}
	if (!sc->n_arb_files && !sc->arb_port[0])
		return errbuf_set(err, errlen, -EINVAL, "arbitration: no file or port given");
	return 0;
}

int scenario_baseline_parse(const char *s, enum scenario_baseline *b)
{
	static const char *const names[] = { "no", "lat", "all" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*b = (enum scenario_baseline)i;
			return 0;
		}
	return -EINVAL;
}

static int scenario_global_arbitration(struct scenario_parser *p, const char *v)
{
	return scenario_set_arbitration(p->sc, v, p->dir, p->err, sizeof(p->err));
}

static int scenario_global_num(struct scenario_parser *p, const char *k, const char *v)
{
	static const struct { const char *key; long lo, hi; } keys[] = {
		{ "ib_port", 1, 255 }, { "gid_index", 0, 255 }, { "agent_port", 1, 65535 },
		{ "data_port", 1, 65535 }, { "qp_timeout", 0, 31 }, { "retry", 0, 7 },
	};
	struct scenario *sc = p->sc;
	long n;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[i].key, k); i++)
		;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return SCENARIO_FAIL(p, "unknown key '%s' in [global]", k);
	if (scenario_long(v, keys[i].lo, keys[i].hi, &n))
		return SCENARIO_FAIL(p, "%s '%s': expected an integer from %ld to %ld",
				k, v, keys[i].lo, keys[i].hi);
	switch (i) {
	case 0: sc->ib_port = (int)n; break;
	case 1: sc->gid_index = (int)n; break;
	case 2: sc->agent_port = (uint16_t)n; break;
	case 3: sc->data_port = (uint16_t)n; break;
	case 4: sc->qp_timeout = (uint8_t)n; break;
	default: sc->retry = (uint8_t)n; break;
	}
	return 0;
}

static int scenario_global_key(struct scenario_parser *p, const char *k, const char *v)
{
	struct scenario *sc = p->sc;
	uint64_t bps;
	double d;

	if (!strcmp(k, "destination")) {
		if (!scenario_copy(sc->dest, sizeof(sc->dest), v))
			return SCENARIO_FAIL(p, "destination: bad host name");
	} else if (!strcmp(k, "duration") || !strcmp(k, "warmup")) {
		if (scenario_seconds(v, &d) || (k[0] == 'd' && d <= 0))
			return SCENARIO_FAIL(p, "%s '%s': expected a time%s (" UNITS_NS_SPELLINGS ")",
					k, v, k[0] == 'd' ? " above 0" : "");
		*(k[0] == 'd' ? &sc->duration_s : &sc->warmup_s) = d;
	} else if (!strcmp(k, "link_rate")) {
		if (units_parse_bps(v, &bps) || !bps)
			return SCENARIO_FAIL(p, "link_rate '%s': expected a rate above 0 such as "
					     UNITS_BPS_SPELLINGS, v);
		sc->link_gbps = (double)bps / 1e9;
	} else if (!strcmp(k, "arbitration")) {
		return scenario_global_arbitration(p, v);
	} else if (!strcmp(k, "model")) {
		if (arb_model_parse(v, &sc->model))
			return SCENARIO_FAIL(p, "model '%s': expected ib-fluid, ib-packet or ets", v);
		sc->model_set = true;
	} else if (!strcmp(k, "device")) {
		if (!scenario_copy(sc->device, sizeof(sc->device), v))
			return SCENARIO_FAIL(p, "device: bad name");
	} else if (!strcmp(k, "clock")) {
		if (clock_source_parse(v, &sc->clock))
			return SCENARIO_FAIL(p, "clock '%s': expected tsc or monotonic", v);
	} else if (!strcmp(k, "arbitration_ca")) {
		if (!scenario_copy(sc->arb_ca, sizeof(sc->arb_ca), v) || !*v)
			return SCENARIO_FAIL(p, "arbitration_ca: expected a device, such as mlx5_0:1");
	} else if (!strcmp(k, "switch_counters")) {
		if (!scenario_copy(sc->switch_counters, sizeof(sc->switch_counters), v) || !*v)
			return SCENARIO_FAIL(p, "switch_counters: expected a command");
		return scenario_switch_pma(p, v);
	} else if (!strcmp(k, "semantics")) {
		if (arb_semantics_parse(v, &sc->semantics))
			return SCENARIO_FAIL(p, "semantics '%s': expected KEY=VALUE,... of "
					"carry=yes|no, low=entry|packet|continue, limit0=alternate|bytes", v);
		sc->semantics_set = true;
	} else if (!strcmp(k, "baseline")) {
		if (scenario_baseline_parse(v, &sc->baseline))
			return SCENARIO_FAIL(p, "baseline '%s': expected no, lat or all", v);
	} else if (!strcmp(k, "yield")) {
		if (!scenario_bool(v, &sc->yield))
			return SCENARIO_FAIL(p, "yield '%s': expected yes or no", v);
	} else {
		return scenario_global_num(p, k, v);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Flow sections                                                       */
/* ------------------------------------------------------------------ */

static bool scenario_name_ok(const char *s)
{
	if (!*s || strlen(s) >= SCENARIO_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

static struct scenario_pattern_sec *scenario_sec_get(struct scenario_parser *p,
						     const char *section)
{
	struct scenario_pattern_sec *s;
	size_t i;

	for (i = 0; i < p->n_secs; i++)
		if (!strcmp(p->secs[i].tmpl.name, section))
			return &p->secs[i];
	if (!scenario_name_ok(section)) {
		errbuf_set(p->err, sizeof(p->err), -EINVAL,
			   "[%s]: a flow's name is letters, digits, '_', '.' and '-' (at most %d)",
			   section, SCENARIO_NAME_MAX - 1);
		return NULL;
	}
	if (p->n_secs == SCENARIO_MAX_FLOWS) {
		SCENARIO_FAIL(p, "at most %d flows", SCENARIO_MAX_FLOWS);
		return NULL;
	}
	s = &p->secs[p->n_secs++];
	memset(s, 0, sizeof(*s));
	snprintf(s->tmpl.name, sizeof(s->tmpl.name), "%s", section);
	snprintf(s->tmpl.section, sizeof(s->tmpl.section), "%s", section);
	flow_spec_defaults(&s->tmpl.spec);
	s->seed = 1;
	return s;
}

/* pattern, hosts, seed: the keys of a pattern section. */
static int scenario_pattern_key(struct scenario_parser *p, struct scenario_pattern_sec *s,
				const char *k, const char *v)
{
	const char *name = s->tmpl.name;

	if (!strcmp(k, "pattern")) {
		if (scenario_pattern_parse(v, &s->kind))
			return SCENARIO_FAIL(p, "[%s] pattern '%s': expected %s", name, v,
					     scenario_pattern_choices());
	} else if (!strcmp(k, "hosts")) {
		if (!scenario_copy(s->hosts, sizeof(s->hosts), v))
			return SCENARIO_FAIL(p, "[%s] hosts: expected host names, by commas or "
					"spaces (at most %d characters)", name, SCENARIO_HOSTS_MAX - 1);
		/* Slurm's compressed lists need Slurm's own expansion. */
		if (strpbrk(v, "[]"))
			return SCENARIO_FAIL(p, "[%s] hosts '%s': write the hosts out (`scontrol "
					"show hostnames` expands a Slurm host list)", name, v);
	} else {
		if (units_parse_u64(v, 0, UINT64_MAX, &s->seed))
			return SCENARIO_FAIL(p, "[%s] seed '%s': expected an integer", name, v);
	}
	return 0;
}

/* A flow setting (flow_spec_fields[]: sl, tclass, size, rate, threads, qps, on, off). */
static int scenario_flow_setting(struct scenario_parser *p, struct scenario_flow *f,
				 const char *k, const char *v)
{
	char why[192];
	int ret;

	ret = flow_spec_set(&f->spec, k, v, why, sizeof(why));
	if (ret == -ENOENT)
		return SCENARIO_FAIL(p, "[%s]: unknown key '%s'", f->name, k);
	if (ret)
		return SCENARIO_FAIL(p, "[%s] %s", f->name, why);
	return 0;
}

/* max_p99 = 50us, max_p99_9, min_gbps = 2g, min_share = 20, max_share_diff = 2. */
static int scenario_flow_criterion(struct scenario_parser *p, struct scenario_flow *f,
				   const char *k, const char *v)
{
	uint64_t n;
	double d;

	if (!strcmp(k, "max_p99") || !strcmp(k, "max_p99_9")) {
		if (units_parse_ns(v, &n) || !n)
			return SCENARIO_FAIL(p, "[%s] %s '%s': expected a time above 0 (50us, 1ms)",
					f->name, k, v);
		*(k[7] ? &f->max_p99_9_us : &f->max_p99_us) = (double)n / 1e3;
	} else if (!strcmp(k, "min_gbps")) {
		if (units_parse_bps(v, &n) || !n)
			return SCENARIO_FAIL(p, "[%s] min_gbps '%s': expected a rate above 0 "
					"(bare: Gb/s; 500m, 2.5g)", f->name, v);
		f->min_gbps = (double)n / 1e9;
	} else if (!strcmp(k, "max_impact_p99")) {
		if (units_parse_double(v, &d) || !(d > 0))
			return SCENARIO_FAIL(p, "[%s] max_impact_p99 '%s': expected a ratio above 0 "
					"(2: twice the p99 alone)", f->name, v);
		f->max_impact_p99 = d;
	} else if (!strcmp(k, "min_share") || !strcmp(k, "max_share_diff")) {
		if (units_parse_double(v, &d) || !(d >= 0 && d <= 100))
			return SCENARIO_FAIL(p, "[%s] %s '%s': expected %s from 0 to 100",
					f->name, k, v, k[1] == 'i' ? "a percentage" : "points");
		*(k[1] == 'i' ? &f->min_share_pct : &f->max_share_diff_pp) = d;
	} else {
		return SCENARIO_FAIL(p, "[%s]: unknown key '%s'", f->name, k);
	}
	return 0;
}

static int scenario_flow_key(struct scenario_parser *p, const char *section, const char *k, const char *v)
{
	struct scenario_pattern_sec *s = scenario_sec_get(p, section);
	struct scenario_flow *f = s ? &s->tmpl : NULL;

	if (!f)
		return -EINVAL;
	if (!strcmp(k, "pattern") || !strcmp(k, "hosts") || !strcmp(k, "seed")) {
		return scenario_pattern_key(p, s, k, v);
	} else if (!strcmp(k, "host")) {
		if (!scenario_copy(f->host, sizeof(f->host), v))
			return SCENARIO_FAIL(p, "[%s] host: bad host name", f->name);
	} else if (!strcmp(k, "dest")) {
		if (!scenario_copy(f->dest, sizeof(f->dest), v))
			return SCENARIO_FAIL(p, "[%s] dest: bad host name", f->name);
	} else if (!strcmp(k, "type")) {
		if (strcmp(v, "lat") && strcmp(v, "bw"))
			return SCENARIO_FAIL(p, "[%s] type '%s': expected lat or bw",
					f->name, v);
		f->type = v[0] == 'l' ? SCENARIO_FLOW_LAT : SCENARIO_FLOW_BW;
		f->has_type = true;
	} else if (!strncmp(k, "max_", 4) || !strncmp(k, "min_", 4)) {
		return scenario_flow_criterion(p, f, k, v);
	} else {
		return scenario_flow_setting(p, f, k, v);
	}
	return 0;
}

static int scenario_on_key(void *user, const char *section, const char *k, const char *v)
{
	struct scenario_parser *p = user;
	int ret;

	if (p->err[0])
		return 1;	/* keep the first error only */
	if (!*section)
		ret = SCENARIO_FAIL(p, "'%s' outside any section", k);
	else if (!strcmp(section, "global"))
		ret = scenario_global_key(p, k, v);
	else
		ret = scenario_flow_key(p, section, k, v);
	return ret ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* The whole file                                                      */
/* ------------------------------------------------------------------ */

/* The line of "[@section]" in @text, 0 when not found. */
static int scenario_section_line(const char *text, const char *section)
{
	const char *p = text, *b, *e;
	int line = 1;
	size_t n = strlen(section);

	for (; p && *p; line++) {
		b = p + strspn(p, " \t");
		e = b + 1 + n;
		if (*b == '[' && !strncmp(b + 1, section, n) && *e == ']')
			return line;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

void scenario_defaults(struct scenario *sc, const char *name)
{
	struct arb_params defaults;

	memset(sc, 0, sizeof(*sc));
	arb_params_init(&defaults);
	sc->semantics = defaults.semantics;
	snprintf(sc->name, sizeof(sc->name), "%s", name);
	sc->duration_s = 10;
	sc->warmup_s = 1;
	sc->ib_port = 1;
	sc->gid_index = -1;
	sc->agent_port = CTL_DEFAULT_PORT;
	sc->data_port = CONN_DEFAULT_PORT + 20;
	sc->clock = CLOCK_SRC_TSC;
	sc->qp_timeout = FLOW_QP_TIMEOUT_DEFAULT;
	sc->retry = FLOW_RETRY_DEFAULT;
}

/* What a flow must have once its section is read; fills its defaults. */
static int scenario_flow_finish(struct scenario *sc, struct scenario_flow *f, char *err,
				size_t errlen)
{
	const char *what = f->section;
	char why[192];

	if (!f->host[0])
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: 'host' is missing", sc->name,
				  f->line, what);
	if (!f->has_type)
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: 'type' is missing (lat or bw)",
				  sc->name, f->line, what);
	if (!f->dest[0] && !sc->dest[0])
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: no destination: give the flow "
				  "a 'dest' or [global] a 'destination'", sc->name, f->line, what);
	if (!f->dest[0])
		snprintf(f->dest, sizeof(f->dest), "%s", sc->dest);
	if (scenario_agent_canon(sc, f, f->host, "host", err, errlen) ||
	    scenario_agent_canon(sc, f, f->dest, "dest", err, errlen))
		return -EINVAL;
	if (!strcmp(f->host, f->dest))
		return errbuf_set(err, errlen, -EINVAL,
				  "%s:%d: [%s]: flow '%s' starts on its destination '%s'", sc->name,
				  f->line, what, f->name, f->dest);
	if (!f->spec.size_bytes)
		f->spec.size_bytes = flow_spec_size_default(f->type == SCENARIO_FLOW_BW);
	if (flow_spec_check(&f->spec, f->type == SCENARIO_FLOW_BW, why, sizeof(why)))
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: %s", sc->name, f->line, what,
				  why);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Patterns                                                            */
/* ------------------------------------------------------------------ */

/* A pattern section being expanded into the scenario's flows. */
struct scenario_expansion {
	struct scenario *sc;
	const struct scenario_pattern_sec *s;
};

/* One flow of a pattern: @src to @dst, named SECTION.SRC-DST. */
static int scenario_pattern_flow(void *arg, const char *src, const char *dst, char *err,
				 size_t errlen)
{
	const struct scenario_expansion *x = arg;
	const struct scenario_pattern_sec *s = x->s;
	struct scenario *sc = x->sc;
	struct scenario_flow *f;
	char *p;
	int n;

	if (sc->n_flows == SCENARIO_MAX_FLOWS)
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: the %s pattern makes more "
				  "than %d flows in all", sc->name, s->tmpl.line, s->tmpl.name,
				  scenario_pattern_name(s->kind), SCENARIO_MAX_FLOWS);
	f = &sc->flows[sc->n_flows];
	*f = s->tmpl;
	n = snprintf(f->name, sizeof(f->name), "%s.%s-%s", s->tmpl.name, src, dst);
	/* An agent's HOST:PORT names its flows as HOST_PORT. */
	for (p = f->name; p < f->name + sizeof(f->name) && *p; p++)
		*p = *p == ':' ? '_' : *p;
	if (n >= (int)sizeof(f->name) || !scenario_name_ok(f->name))
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: flow name '%s.%s-%s' is not "
				  "letters, digits, '_', '.' and '-' of at most %d", sc->name,
				  s->tmpl.line, s->tmpl.name, s->tmpl.name, src, dst,
				  SCENARIO_NAME_MAX - 1);
	snprintf(f->host, sizeof(f->host), "%s", src);
	snprintf(f->dest, sizeof(f->dest), "%s", dst);
	sc->n_flows++;
	return scenario_flow_finish(sc, f, err, errlen);
}

/*
 * hosts = @allocation: the current Slurm allocation's hosts, in its order,
 * into @buf (SCENARIO_HOSTS_MAX), by spaces. Slurm's compressed host list
 * is expanded by Slurm itself: scontrol show hostnames.
 */
static int scenario_allocation_hosts(const struct scenario *sc,
				     const struct scenario_pattern_sec *s, char *buf, char *err,
				     size_t errlen)
{
	char line[SCENARIO_HOST_MAX + 2];
	size_t n = 0;
	FILE *f;
	int st;

	if (!getenv("SLURM_JOB_NODELIST"))
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s] hosts @allocation: not inside "
				  "a Slurm allocation (no SLURM_JOB_NODELIST)", sc->name,
				  s->tmpl.line, s->tmpl.name);
	f = popen("scontrol show hostnames \"$SLURM_JOB_NODELIST\"", "r");
	if (!f)
		return errbuf_set(err, errlen, -errno, "scontrol: %s", strerror(errno));
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && n < SCENARIO_HOSTS_MAX)
			n += (size_t)snprintf(buf + n, SCENARIO_HOSTS_MAX - n, "%s%s", n ? " " : "",
					      line);
	}
	st = pclose(f);
	if (st || !n || n >= SCENARIO_HOSTS_MAX)
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s] hosts @allocation: `scontrol "
				  "show hostnames \"$SLURM_JOB_NODELIST\"` %s", sc->name,
				  s->tmpl.line, s->tmpl.name, st ? "failed" : n ? "gave too many "
				  "hosts" : "gave no host");
	return 0;
}

/* @s's hosts into @h (pointers into @buf); returns how many, or -EINVAL. */
static int scenario_pattern_hosts(const struct scenario *sc, const struct scenario_pattern_sec *s,
				  char *buf, const char **h, char *err, size_t errlen)
{
	char *tok, *save;
	int n = 0, i;

	if (!strcmp(s->hosts, SCENARIO_ALLOCATION)) {
		i = scenario_allocation_hosts(sc, s, buf, err, errlen);
		if (i)
			return i;
	} else {
		memcpy(buf, s->hosts, SCENARIO_HOSTS_MAX);
	}
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (strlen(tok) >= SCENARIO_HOST_MAX || n == SCENARIO_MAX_FLOWS)
			return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s] hosts: at most %d "
					  "hosts of at most %d characters", sc->name, s->tmpl.line,
					  s->tmpl.name, SCENARIO_MAX_FLOWS, SCENARIO_HOST_MAX - 1);
		for (i = 0; i < n; i++)
			if (!strcmp(h[i], tok))
				return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s] hosts: '%s' "
						  "twice", sc->name, s->tmpl.line, s->tmpl.name, tok);
		h[n++] = tok;
	}
	return n;
}

/* Pattern section @s into flows, appended to @sc's. */
static int scenario_expand(struct scenario *sc, const struct scenario_pattern_sec *s, char *err,
			   size_t errlen)
{
	const char *h[SCENARIO_MAX_FLOWS], *dst = s->tmpl.dest[0] ? s->tmpl.dest : sc->dest;
	struct scenario_expansion x = { .sc = sc, .s = s };
	struct scenario_pattern_sink to = { .flow = scenario_pattern_flow, .arg = &x };
	char buf[SCENARIO_HOSTS_MAX], where[SCENARIO_PATH_MAX + SCENARIO_NAME_MAX + 32];
	int n, ret;

	if (s->tmpl.host[0])
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: a pattern takes its sources "
				  "from 'hosts', not 'host'", sc->name, s->tmpl.line, s->tmpl.name);
	snprintf(where, sizeof(where), "%s:%d: [%s]", sc->name, s->tmpl.line, s->tmpl.name);
	ret = scenario_pattern_check(s->kind, s->tmpl.dest[0], where, err, errlen);
	if (ret)
		return ret;
	n = scenario_pattern_hosts(sc, s, buf, h, err, errlen);
	if (n < 0)
		return n;
	return scenario_pattern_expand(s->kind, h, n, dst, s->seed, where, &to, err, errlen);
}

/* Every section read into flows, patterns expanded in their place. */
static int scenario_finish(struct scenario *sc, struct scenario_pattern_sec *secs, size_t n,
			   const char *text, char *err, size_t errlen)
{
	struct scenario_pattern_sec *s;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		s = &secs[i];
		s->tmpl.line = scenario_section_line(text, s->tmpl.name);
		if (s->kind == SCENARIO_PATTERN_NONE && s->hosts[0])
			return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: 'hosts' without a "
					  "'pattern'", sc->name, s->tmpl.line, s->tmpl.name);
		if (s->kind != SCENARIO_PATTERN_NONE) {
			ret = scenario_expand(sc, s, err, errlen);
		} else if (sc->n_flows == SCENARIO_MAX_FLOWS) {
			ret = errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: more than %d flows in "
					 "all", sc->name, s->tmpl.line, s->tmpl.name,
					 SCENARIO_MAX_FLOWS);
		} else {
			sc->flows[sc->n_flows] = s->tmpl;
			ret = scenario_flow_finish(sc, &sc->flows[sc->n_flows++], err, errlen);
		}
		if (ret)
			return ret;
	}
	if (sc->switch_counters[0] && scenario_dests(sc, (const char *[2]){ NULL }, 2) > 1)
		return errbuf_set(err, errlen, -EINVAL, "%s: switch_counters reads one port, and "
				  "the flows go to more than one destination", sc->name);
	/* Flow names are keys: a pattern's must not take a section's. */
	for (i = 1; i < sc->n_flows; i++)
		for (n = 0; n < i; n++)
			if (!strcmp(sc->flows[i].name, sc->flows[n].name))
				return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: flow '%s' "
						  "twice", sc->name, sc->flows[i].line,
						  sc->flows[i].section, sc->flows[i].name);
	return 0;
}

int scenario_parse(const char *name, const char *text, const char *dir, struct scenario *sc,
		   char *err, size_t errlen)
{
	struct scenario_parser p = { .sc = sc, .dir = dir };
	int line, ret;

	scenario_defaults(sc, name);
	p.secs = calloc(SCENARIO_MAX_FLOWS, sizeof(*p.secs));
	if (!p.secs)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	line = ini_parse_string(text, scenario_on_key, &p);
	if (line)
		ret = errbuf_set(err, errlen, -EINVAL, "%s:%d: %s", name, line,
				 p.err[0] ? p.err : "not an INI line ([section] or key = value)");
	else if (!p.n_secs)
		ret = errbuf_set(err, errlen, -EINVAL, "%s: no flow sections", name);
	else
		ret = scenario_finish(sc, p.secs, p.n_secs, text, err, errlen);
	free(p.secs);
	return ret;
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	char dir[SCENARIO_PATH_MAX], *slash, *text;
	int ret;

	ret = qosconf_read_file(path, &text, err, errlen);
	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	ret = scenario_parse(path, text, slash ? dir : NULL, sc, err, errlen);
	free(text);
	return ret;
}
