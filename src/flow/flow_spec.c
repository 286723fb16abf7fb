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

#define FLOW_SPEC(KEY, WIRE, KIND, UNIT, F, MIN, MAX, DEF, REQ, EXPECT) \
	{ .key = (KEY), .wire = (WIRE), .kind = (KIND), .unit = (UNIT), \
	  .off = offsetof(struct flow_spec, F), .width = sizeof(((struct flow_spec *)0)->F), \
	  .min = (MIN), .max = (MAX), .def = (DEF), .wire_required = (REQ), .expect = (EXPECT) }

const struct flow_spec_field flow_spec_fields[] = {
	FLOW_SPEC("sl", "sl", FLOW_SPEC_INT, "", sl, 0, FLOW_MAX_SL, 0, true, NULL),
	FLOW_SPEC("tclass", "tclass", FLOW_SPEC_INT, "", tclass, 0, FLOW_MAX_TCLASS, 0, true,
		  NULL),
	FLOW_SPEC("size", "size", FLOW_SPEC_BYTES, "bytes", size_bytes, 1,
		  FLOW_SPEC_MAX_MSG_BYTES, 0, true, "1 to 1g bytes (64, 4k)"),
	FLOW_SPEC("rate", "rate_bps", FLOW_SPEC_BPS, "bit/s", rate_bps, 0, FLOW_MAX_RATE_BPS, 0,
		  false, "a rate such as 5mbit or 0, at most 10t"),
	FLOW_SPEC("threads", "threads", FLOW_SPEC_INT, "", threads, 1, FLOW_MAX_THREADS, 1, true,
		  NULL),
	FLOW_SPEC("qps", "qps", FLOW_SPEC_INT, "", qps, 1, FLOW_MAX_QPS, 1, true, NULL),
	FLOW_SPEC("on", "on_ns", FLOW_SPEC_NS, "ns", on_ns, 0, FLOW_MAX_BURST_NS, 0, false,
		  "a time (10ms, 1s) of at most an hour"),
	FLOW_SPEC("off", "off_ns", FLOW_SPEC_NS, "ns", off_ns, 0, FLOW_MAX_BURST_NS, 0, false,
		  "a time (10ms, 1s) of at most an hour"),
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

int flow_spec_set(struct flow_spec *s, const char *key, const char *value, char *err,
		  size_t errlen)
{
	const struct flow_spec_field *f;
	uint64_t v;
	size_t i;

	for (i = 0; i < flow_spec_n_fields && strcmp(flow_spec_fields[i].key, key); i++)
		;
	if (i == flow_spec_n_fields)
		return -ENOENT;
	f = &flow_spec_fields[i];
	if (flow_spec_read(f, value, &v)) {
		if (f->expect)
			return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected %s", key, value,
					  f->expect);
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected an integer from "
				  "%" PRIu64 " to %" PRIu64, key, value, f->min, f->max);
	}
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
	return bw ? 4096 : 64;
}

uint64_t flow_spec_qp_rate_bps(const struct flow_spec *s)
{
	uint64_t n_qps = (uint64_t)(s->threads ? s->threads : 1) * (s->qps ? s->qps : 1);

	return s->rate_bps / n_qps;
}
