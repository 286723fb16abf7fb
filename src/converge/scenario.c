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
#include "converge/ctl.h"
#include "base/errbuf.h"
#include "engine/flow_opts.h"
#include "qos/qosconf.h"
#include "converge/scenario.h"

struct scen_parse {
	struct scenario *sc;
	const char *dir;
	char err[256];			/* the first error, without file:line */
};

const char *scenario_flow_type_name(enum scen_flow_type t)
{
	return t == SCEN_FLOW_LAT ? "lat" : "bw";
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

int scenario_parse_rate(const char *s, double *gbps)
{
	static const struct { const char *unit; double gbps; } units[] = {
		{ "", 1 }, { "g", 1 }, { "gbit", 1 }, { "t", 1e3 }, { "tbit", 1e3 },
		{ "m", 1e-3 }, { "mbit", 1e-3 }, { "k", 1e-6 }, { "kbit", 1e-6 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcasecmp(end, units[i].unit)) {
			*gbps = v * units[i].gbps;
			return 0;
		}
	}
	return -EINVAL;
}

int scenario_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (v > 86400)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return end == s || *end || errno || *out < lo || *out > hi ? -EINVAL : 0;
}

static bool bool_value(const char *s, bool *out)
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
static bool copy_str(char *dst, size_t cap, const char *s)
{
	if (!*s || strlen(s) >= cap)
		return false;
	memcpy(dst, s, strlen(s) + 1);
	return true;
}

/* ------------------------------------------------------------------ */
/* [global]                                                            */
/* ------------------------------------------------------------------ */

/* "a.conf, b.txt": each path, relative ones taken from the file's folder. */
static int global_arbitration(struct scen_parse *p, const char *v)
{
	struct scenario *sc = p->sc;
	char buf[SCEN_PATH_MAX * 2], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", v);
	sc->n_arb_files = 0;
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (sc->n_arb_files == SCEN_MAX_ARB_FILES)
			return snprintf(p->err, sizeof(p->err), "at most %d arbitration files",
					SCEN_MAX_ARB_FILES), -EINVAL;
		if (tok[0] != '/' && p->dir)
			snprintf(sc->arb_files[sc->n_arb_files], SCEN_PATH_MAX, "%s/%s", p->dir, tok);
		else
			snprintf(sc->arb_files[sc->n_arb_files], SCEN_PATH_MAX, "%s", tok);
		sc->n_arb_files++;
	}
	if (!sc->n_arb_files)
		return snprintf(p->err, sizeof(p->err), "arbitration: no file given"), -EINVAL;
	return 0;
}

static int global_num(struct scen_parse *p, const char *k, const char *v)
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
		return snprintf(p->err, sizeof(p->err), "unknown key '%s' in [global]", k), -EINVAL;
	if (parse_long(v, keys[i].lo, keys[i].hi, &n))
		return snprintf(p->err, sizeof(p->err), "%s '%s': expected an integer from %ld to %ld",
				k, v, keys[i].lo, keys[i].hi), -EINVAL;
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

static int global_key(struct scen_parse *p, const char *k, const char *v)
{
	struct scenario *sc = p->sc;
	double d;

	if (!strcmp(k, "destination")) {
		if (!copy_str(sc->dest, sizeof(sc->dest), v))
			return snprintf(p->err, sizeof(p->err), "destination: bad host name"), -EINVAL;
	} else if (!strcmp(k, "duration") || !strcmp(k, "warmup")) {
		if (scenario_parse_seconds(v, &d) || (k[0] == 'd' && d <= 0))
			return snprintf(p->err, sizeof(p->err), "%s '%s': expected seconds (10, 10s, 500ms)%s",
					k, v, k[0] == 'd' ? " above 0" : ""), -EINVAL;
		*(k[0] == 'd' ? &sc->duration_s : &sc->warmup_s) = d;
	} else if (!strcmp(k, "link_rate")) {
		if (scenario_parse_rate(v, &sc->link_gbps) || sc->link_gbps <= 0)
			return snprintf(p->err, sizeof(p->err), "link_rate '%s': expected a rate such as 10mbit or 100g", v), -EINVAL;
	} else if (!strcmp(k, "arbitration")) {
		return global_arbitration(p, v);
	} else if (!strcmp(k, "model")) {
		if (arb_model_parse(v, &sc->model))
			return snprintf(p->err, sizeof(p->err), "model '%s': expected ib-fluid, ib-packet or ets", v), -EINVAL;
		sc->model_set = true;
	} else if (!strcmp(k, "device")) {
		if (!copy_str(sc->device, sizeof(sc->device), v))
			return snprintf(p->err, sizeof(p->err), "device: bad name"), -EINVAL;
	} else if (!strcmp(k, "clock")) {
		if (clock_source_parse(v, &sc->clock))
			return snprintf(p->err, sizeof(p->err), "clock '%s': expected tsc or monotonic", v), -EINVAL;
	} else if (!strcmp(k, "switch_counters")) {
		if (!copy_str(sc->switch_counters, sizeof(sc->switch_counters), v) || !*v)
			return snprintf(p->err, sizeof(p->err), "switch_counters: expected a command"), -EINVAL;
	} else if (!strcmp(k, "yield")) {
		if (!bool_value(v, &sc->yield))
			return snprintf(p->err, sizeof(p->err), "yield '%s': expected yes or no", v), -EINVAL;
	} else {
		return global_num(p, k, v);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Flow sections                                                       */
/* ------------------------------------------------------------------ */

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) >= SCEN_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

static struct scen_flow *flow_get(struct scen_parse *p, const char *section)
{
	struct scenario *sc = p->sc;
	struct scen_flow *f;
	size_t i;

	for (i = 0; i < sc->n_flows; i++)
		if (!strcmp(sc->flows[i].name, section))
			return &sc->flows[i];
	if (!name_ok(section)) {
		snprintf(p->err, sizeof(p->err),
			 "[%s]: a flow's name is letters, digits, '_', '.' and '-' (at most %d)",
			 section, SCEN_NAME_MAX - 1);
		return NULL;
	}
	if (sc->n_flows == SCEN_MAX_FLOWS) {
		snprintf(p->err, sizeof(p->err), "at most %d flows", SCEN_MAX_FLOWS);
		return NULL;
	}
	f = &sc->flows[sc->n_flows++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", section);
	f->threads = f->qps = 1;
	return f;
}

static int flow_num(struct scen_parse *p, struct scen_flow *f, const char *k, const char *v)
{
	static const struct { const char *key; long lo, hi; } keys[] = {
		{ "sl", 0, 15 }, { "tclass", 0, 255 }, { "threads", 1, 64 }, { "qps", 1, 64 },
	};
	long n;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[i].key, k); i++)
		;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return snprintf(p->err, sizeof(p->err), "[%s]: unknown key '%s'", f->name, k), -EINVAL;
	if (parse_long(v, keys[i].lo, keys[i].hi, &n))
		return snprintf(p->err, sizeof(p->err), "[%s] %s '%s': expected an integer from %ld to %ld",
				f->name, k, v, keys[i].lo, keys[i].hi), -EINVAL;
	switch (i) {
	case 0: f->sl = (uint8_t)n; break;
	case 1: f->tclass = (uint8_t)n; break;
	case 2: f->threads = (unsigned)n; break;
	default: f->qps = (unsigned)n; break;
	}
	return 0;
}

static int flow_key(struct scen_parse *p, const char *section, const char *k, const char *v)
{
	struct scen_flow *f = flow_get(p, section);

	if (!f)
		return -EINVAL;
	if (!strcmp(k, "host")) {
		if (!copy_str(f->host, sizeof(f->host), v))
			return snprintf(p->err, sizeof(p->err), "[%s] host: bad host name", f->name), -EINVAL;
	} else if (!strcmp(k, "type")) {
		if (strcmp(v, "lat") && strcmp(v, "bw"))
			return snprintf(p->err, sizeof(p->err), "[%s] type '%s': expected lat or bw",
					f->name, v), -EINVAL;
		f->type = v[0] == 'l' ? SCEN_FLOW_LAT : SCEN_FLOW_BW;
		f->has_type = true;
	} else if (!strcmp(k, "size")) {
		if (flow_parse_size(v, &f->size_bytes) || !f->size_bytes || f->size_bytes > (1u << 30))
			return snprintf(p->err, sizeof(p->err), "[%s] size '%s': expected 1 to 1g bytes (64, 4k)",
					f->name, v), -EINVAL;
	} else if (!strcmp(k, "rate")) {
		if (scenario_parse_rate(v, &f->rate_gbps))
			return snprintf(p->err, sizeof(p->err), "[%s] rate '%s': expected a rate such as 5mbit or 0",
					f->name, v), -EINVAL;
	} else {
		return flow_num(p, f, k, v);
	}
	return 0;
}

static int on_key(void *user, const char *section, const char *k, const char *v)
{
	struct scen_parse *p = user;
	int ret;

	if (p->err[0])
		return 1;	/* keep the first error only */
	if (!*section)
		ret = (snprintf(p->err, sizeof(p->err), "'%s' outside any section", k), -EINVAL);
	else if (!strcmp(section, "global"))
		ret = global_key(p, k, v);
	else
		ret = flow_key(p, section, k, v);
	return ret ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* The whole file                                                      */
/* ------------------------------------------------------------------ */

/* The line of "[@section]" in @text, 0 when not found. */
static int section_line(const char *text, const char *section)
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

static void defaults(struct scenario *sc, const char *name)
{
	memset(sc, 0, sizeof(*sc));
	snprintf(sc->name, sizeof(sc->name), "%s", name);
	sc->duration_s = 10;
	sc->warmup_s = 1;
	sc->ib_port = 1;
	sc->gid_index = -1;
	sc->agent_port = CTL_DEFAULT_PORT;
	sc->data_port = CONN_DEFAULT_PORT + 20;
	sc->clock = CLOCK_SRC_TSC;
	sc->qp_timeout = 20;
	sc->retry = 7;
}

/* What a flow must have once its section is read; fills its defaults. */
static int flow_finish(struct scenario *sc, struct scen_flow *f, const char *text,
		       char *err, size_t errlen)
{
	f->line = section_line(text, f->name);
	if (!f->host[0])
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: 'host' is missing", sc->name,
				  f->line, f->name);
	if (!f->has_type)
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [%s]: 'type' is missing (lat or bw)",
				  sc->name, f->line, f->name);
	if (!strcmp(f->host, sc->dest))
		return errbuf_set(err, errlen, -EINVAL,
				  "%s:%d: [%s]: the flow starts on the destination '%s'", sc->name,
				  f->line, f->name, sc->dest);
	if (!f->size_bytes)
		f->size_bytes = f->type == SCEN_FLOW_LAT ? 64 : 4096;
	if (f->type == SCEN_FLOW_LAT && f->rate_gbps > 0)
		return errbuf_set(err, errlen, -EINVAL,
				  "%s:%d: [%s]: a lat flow has no rate (one message in flight)",
				  sc->name, f->line, f->name);
	if (f->type == SCEN_FLOW_LAT && f->qps != 1)
		return errbuf_set(err, errlen, -EINVAL,
				  "%s:%d: [%s]: a lat flow has one QP per thread (use threads)",
				  sc->name, f->line, f->name);
	return 0;
}

int scenario_parse(const char *name, const char *text, const char *dir, struct scenario *sc,
		   char *err, size_t errlen)
{
	struct scen_parse p = { .sc = sc, .dir = dir };
	size_t i;
	int line, ret;

	defaults(sc, name);
	line = ini_parse_string(text, on_key, &p);
	if (line)
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: %s", name, line,
				  p.err[0] ? p.err : "not an INI line ([section] or key = value)");
	if (!sc->dest[0])
		return errbuf_set(err, errlen, -EINVAL, "%s:%d: [global]: 'destination' is missing",
				  name, section_line(text, "global"));
	if (!sc->n_flows)
		return errbuf_set(err, errlen, -EINVAL, "%s: no flow sections", name);
	for (i = 0; i < sc->n_flows; i++) {
		ret = flow_finish(sc, &sc->flows[i], text, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	char dir[SCEN_PATH_MAX], *slash, *text;
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
