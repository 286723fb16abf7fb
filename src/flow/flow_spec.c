/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A flow's settings and their field table, read by scenarios, the
 * control messages and the command lines alike: see flow_spec.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/units.h"
#include "flow/flow_spec.h"

#define FLOW_SPEC_FIELD(F, KEY, WIRE, KIND, UNIT, MIN, MAX, DEF, REQ, EXPECT, FLAG, ARG, \
			HELP) \
	{ .key = (KEY), .wire = (WIRE), .kind = (KIND), .unit = (UNIT), \
	  .off = offsetof(struct flow_spec, F), .width = sizeof(((struct flow_spec *)0)->F), \
	  .min = (MIN), .max = (MAX), .def = (DEF), .wire_required = (REQ), .expect = (EXPECT), \
	  .flag = (FLAG), .help = (HELP) },

const struct flow_spec_field flow_spec_fields[] = {
	FLOW_SPEC_TABLE(FLOW_SPEC_FIELD)
};

const size_t flow_spec_n_fields = sizeof(flow_spec_fields) / sizeof(flow_spec_fields[0]);

uint64_t flow_spec_get(const struct flow_spec *s, const struct flow_spec_field *f)
{
	const char *p = (const char *)s + f->off;

	switch (f->width) {
	case 1: return *(const uint8_t *)p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

void flow_spec_put(struct flow_spec *s, const struct flow_spec_field *f, uint64_t v)
{
	char *p = (char *)s + f->off;

	switch (f->width) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = v; break;
	}
}

void flow_spec_defaults(struct flow_spec *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < flow_spec_n_fields; i++)
		flow_spec_put(s, &flow_spec_fields[i], flow_spec_fields[i].def);
}

/* @value as @f's kind reads it; 0 or -EINVAL. */
static int flow_spec_read(const struct flow_spec_field *f, const char *value, uint64_t *v)
{
	switch (f->kind) {
	case FLOW_SPEC_INT: return units_parse_u64(value, f->min, f->max, v) ? -EINVAL : 0;
	case FLOW_SPEC_BYTES: if (units_parse_bytes(value, v)) return -EINVAL; break;
	case FLOW_SPEC_BPS: if (units_parse_bps(value, v)) return -EINVAL; break;
	case FLOW_SPEC_NS: if (units_parse_ns(value, v)) return -EINVAL; break;
	}
	return *v < f->min || *v > f->max ? -EINVAL : 0;
}

const struct flow_spec_field *flow_spec_field_find(const char *key)
{
	size_t i;

	for (i = 0; i < flow_spec_n_fields; i++)
		if (!strcmp(flow_spec_fields[i].key, key))
			return &flow_spec_fields[i];
	return NULL;
}

int flow_spec_read_field(const struct flow_spec_field *f, const char *name, const char *value,
			 uint64_t *v, char *err, size_t errlen)
{
	if (!flow_spec_read(f, value, v))
		return 0;
	if (f->kind != FLOW_SPEC_INT)
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected %s", name, value,
				  f->expect);
	return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected %s from %" PRIu64 " to %"
			  PRIu64, name, value, f->expect ? f->expect : "an integer", f->min, f->max);
}

int flow_spec_set(struct flow_spec *s, const char *key, const char *value, char *err,
		  size_t errlen)
{
	const struct flow_spec_field *f = flow_spec_field_find(key);
	uint64_t v;

	if (!f)
		return -ENOENT;
	if (flow_spec_read_field(f, key, value, &v, err, errlen))
		return -EINVAL;
	flow_spec_put(s, f, v);
	return 0;
}

int flow_spec_check(const struct flow_spec *s, bool bw, char *err, size_t errlen)
{
	uint64_t n_qps = (uint64_t)s->threads * s->qps;

	if (!bw && s->rate_bps > 0)
		return errbuf_set(err, errlen, -EINVAL, "a lat flow has no rate (one message in "
				  "flight)");
	if (!bw && s->qps != 1)
		return errbuf_set(err, errlen, -EINVAL, "a lat flow has one QP per thread (use "
				  "threads)");
	if (!bw && (s->on_ns || s->off_ns))
		return errbuf_set(err, errlen, -EINVAL, "on and off are for bw flows (a lat flow "
				  "probes all along)");
	if (!s->on_ns != !s->off_ns)
		return errbuf_set(err, errlen, -EINVAL, "a bursty flow needs both 'on' and 'off' "
				  "above 0");
	if (s->rate_bps && s->rate_bps < n_qps)
		return errbuf_set(err, errlen, -EINVAL, "a rate of %" PRIu64 " bit/s is below "
				  "1 bit/s for each of its %" PRIu64 " QPs (the rate is the "
				  "flow's whole)", s->rate_bps, n_qps);
	return 0;
}

size_t flow_spec_size_default(bool bw)
{
	return bw ? FLOW_SIZE_DEFAULT_BW : FLOW_SIZE_DEFAULT_LAT;
}

uint64_t flow_spec_qp_rate_bps(const struct flow_spec *s)
{
	uint64_t n_qps = (uint64_t)(s->threads ? s->threads : 1) * (s->qps ? s->qps : 1);

	return s->rate_bps / n_qps;
}
