/*
 * `rperf bw` command line -> struct bw_opts. Kept apart from cmd_bw.c so
 * the unit tests exercise every rule without a device.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/bw.h"
#include "base/errbuf.h"
#include "engine/load.h"

enum {
	OPT_INTERVAL = FLOW_OPT_END,
	OPT_TX_DEPTH,
	OPT_BATCH,
	OPT_CQ_MOD,
	OPT_QPS,
	OPT_RATE,
	OPT_HW_RATE,
	OPT_WRITE,
	OPT_EVENT,
};

static const struct option bw_long_opts[] = {
	FLOW_LONG_OPTS,
	{ "size", required_argument, NULL, 's' },
	{ "duration", required_argument, NULL, 'D' },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "tx-depth", required_argument, NULL, OPT_TX_DEPTH },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "cq-mod", required_argument, NULL, OPT_CQ_MOD },
	{ "qps", required_argument, NULL, OPT_QPS },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "hw-rate", required_argument, NULL, OPT_HW_RATE },
	{ "write", no_argument, NULL, OPT_WRITE },
	{ "event", no_argument, NULL, OPT_EVENT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int bw_parse_rate(const char *s, uint64_t *bps)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{ "", 1 }, { "bit", 1 }, { "k", 1e3 }, { "kbit", 1e3 }, { "m", 1e6 },
		{ "mbit", 1e6 }, { "g", 1e9 }, { "gbit", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		v *= units[i].mult;
		if (v < 1 || v > 1e13)
			return -EINVAL;
		*bps = (uint64_t)(v + 0.5);
		return 0;
	}
	return -EINVAL;
}

static void bw_opts_defaults(struct bw_opts *o)
{
	memset(o, 0, sizeof(*o));
	flow_opts_defaults(&o->flow);
	o->size_bytes = 65536;
	o->duration_s = 10;
	o->interval_s = 1;
	o->tx_depth = 128;
	o->batch = 1;
	o->qps = 1;
}

static int rate_opt(const char *opt, const char *arg, uint64_t *bps, char *err, size_t errlen)
{
	if (bw_parse_rate(arg, bps))
		return errbuf_set(err, errlen, -EINVAL,
				  "%s '%s': expected a rate such as 10m, 2.5g or 800kbit", opt, arg);
	return 0;
}

/* One of bw's own options; the shared ones go to flow_opt_one(). */
static int bw_opt_one(int c, const char *arg, struct bw_opts *o, char *err, size_t errlen)
{
	uint64_t v = 0;
	int ret;

	switch (c) {
	case 's':
		if (flow_parse_size(arg, &o->size_bytes))
			return errbuf_set(err, errlen, -EINVAL,
					  "--size '%s': expected bytes from 1 to 4g (k, m, g suffixes)",
					  arg);
		return 0;
	case 'D':
		return flow_parse_seconds("--duration", arg, &o->duration_s, err, errlen);
	case OPT_INTERVAL:
		return flow_parse_seconds("--interval", arg, &o->interval_s, err, errlen);
	case OPT_TX_DEPTH:
		ret = flow_parse_num("--tx-depth", arg, 1, LOAD_MAX_DEPTH, &v, err, errlen);
		o->tx_depth = (uint32_t)v;
		return ret;
	case OPT_BATCH:
		ret = flow_parse_num("--batch", arg, 1, LOAD_MAX_BATCH, &v, err, errlen);
		o->batch = (uint32_t)v;
		return ret;
	case OPT_CQ_MOD:
		ret = flow_parse_num("--cq-mod", arg, 1, LOAD_MAX_DEPTH, &v, err, errlen);
		o->cq_mod = (uint32_t)v;
		return ret;
	case OPT_QPS:
		ret = flow_parse_num("--qps", arg, 1, BW_MAX_QPS, &v, err, errlen);
		o->qps = (unsigned)v;
		return ret;
	case OPT_RATE:
		return rate_opt("--rate", arg, &o->rate_bps, err, errlen);
	case OPT_HW_RATE:
		return rate_opt("--hw-rate", arg, &o->hw_rate_bps, err, errlen);
	case OPT_WRITE:
		o->write = true;
		return 0;
	case OPT_EVENT:
		o->event = true;
		return 0;
	}
	return flow_opt_one(c, arg, &o->flow, err, errlen) ? -EINVAL : 0;
}

/* Rules between bw's options, once all are known. */
static int bw_opts_check(struct bw_opts *o, char *err, size_t errlen)
{
	if (!o->cq_mod)
		o->cq_mod = o->tx_depth < 16 ? o->tx_depth : 16;
	if (o->batch > o->tx_depth)
		return errbuf_set(err, errlen, -EINVAL, "--batch %u above --tx-depth %u", o->batch,
				  o->tx_depth);
	if (o->cq_mod > o->tx_depth)
		return errbuf_set(err, errlen, -EINVAL, "--cq-mod %u above --tx-depth %u",
				  o->cq_mod, o->tx_depth);
	if (o->event && o->flow.yield)
		return errbuf_set(err, errlen, -EINVAL,
				  "give --event (sleep until a completion) or --yield (poll, "
				  "yielding between polls), not both");
	if (o->rate_bps && o->hw_rate_bps)
		return errbuf_set(err, errlen, -EINVAL, "give --rate or --hw-rate, not both");
	if (o->hw_rate_bps && (o->hw_rate_bps < 1000 || o->hw_rate_bps / 1000 > UINT32_MAX))
		return errbuf_set(err, errlen, -EINVAL,
				  "--hw-rate: the NIC takes rates from 1 kbit/s to 4 Tbit/s");
	if (o->interval_s > o->duration_s)
		return errbuf_set(err, errlen, -EINVAL, "--interval %g s longer than -D %g s",
				  o->interval_s, o->duration_s);
	if (o->write && o->flow.rdma_cm)
		return errbuf_set(err, errlen, -EINVAL,
				  "--write needs the TCP exchange (the server's MR travels on it), "
				  "not --rdma-cm");
	if (o->flow.rdma_cm && (o->flow.threads > 1 || o->qps > 1))
		return errbuf_set(err, errlen, -EINVAL, "--rdma-cm runs one thread with one QP");
	return 0;
}

int bw_opts_parse(int argc, char **argv, struct bw_opts *o, char *err, size_t errlen)
{
	int c;

	bw_opts_defaults(o);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" FLOW_SHORT_OPTS "s:D:h", bw_long_opts,
				NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return 0;
		}
		if (flow_opt_bad(c, argv, err, errlen) < 0 || bw_opt_one(c, optarg, o, err, errlen))
			return -EINVAL;
	}
	if (flow_opts_finish(argc, argv, &o->flow, err, errlen))
		return -EINVAL;
	return bw_opts_check(o, err, errlen);
}
