/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf bw` command line -> struct bw_opts. Kept apart from cmd_bw.c so
 * the unit tests exercise every rule without a device. The options are
 * one table (base/opts.h): the shared flow options, bw's flow settings
 * (-s, --qps, --rate, made from the flow table), then bw's own.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/bw.h"
#include "base/errbuf.h"
#include "engine/load.h"

static const struct opts_entry bw_opts_table[] = {
	OPT_INCLUDE(struct bw_opts, flow, flow_opts_table),
	OPT_INCLUDE(struct bw_opts, flow, flow_opts_bw_table),
	OPT_VALUE(OPTS_SECONDS, 'D', "duration", "TIME", "how long to send (default 10)",
		  struct bw_opts, duration_s, 0, 1000000ull * 1000000000ull),
	OPT_VALUE(OPTS_SECONDS, 0, "interval", "TIME", "report every TIME (default 1)",
		  struct bw_opts, interval_s, 0, 1000000ull * 1000000000ull),
	OPT_FLAG(0, "write", "RDMA WRITE (with immediate) instead of SEND", struct bw_opts, write),
	OPT_UINT(0, "tx-depth", "N", "requests outstanding per QP (default "
		 OPTS_STR(LOAD_TX_DEPTH_DEFAULT) ")", struct bw_opts,
		 tx_depth, 1, LOAD_MAX_DEPTH),
	OPT_UINT(0, "batch", "N", "requests per post list (default 1)", struct bw_opts, batch, 1,
		 LOAD_MAX_BATCH),
	OPT_UINT(0, "cq-mod", "N", "a completion every N requests (default "
		 OPTS_STR(LOAD_CQ_MOD_DEFAULT) ")", struct bw_opts,
		 cq_mod, 1, LOAD_MAX_DEPTH),
	OPT_VALUE(OPTS_BPS, 0, "hw-rate", "RATE", "limit each QP to RATE with the NIC's rate limiter",
		  struct bw_opts, hw_rate_bps, 1, FLOW_MAX_RATE_BPS),
	OPT_VALUE(OPTS_BPS, 0, "min-gbps", "RATE", "fail (exit 3) when the total is below RATE\n"
		  "(received when the server says, else sent)", struct bw_opts, min_bps, 1,
		  FLOW_MAX_RATE_BPS),
	OPT_FLAG(0, "event", "sleep until a completion event when nothing can be\n"
		 "posted, instead of polling (software NICs such as\n"
		 "Soft-RoCE on few CPUs)", struct bw_opts, event),
	OPT_STRING(0, "csv", "FILE", "write one row per interval ('-': stdout)", struct bw_opts,
		   flow.csv_path),
	OPT_END(),
};

const struct opts_usage bw_opts_usage = {
	.cmd = "bw",
	.args = "HOST",
	.about = "Load the fabric with open-loop RC traffic to an 'rperf server' on HOST, on\n"
		 "any SL or traffic class; report Gb/s and Mpps as sent and as received.",
	.table = bw_opts_table,
	.more = "Rates take k, m, g, t (bit/s; bare: Gb/s), alone or with bit, bps, b/s\n"
		"or bit/s (10g, 10Gbps, 10Gb/s); sizes k, m, g (binary); times ns, us,\n"
		"ms, s, m or min (bare: seconds).",
	.tolerance = true,
	.exit3 = "the --min-gbps criterion failed",
};

static void bw_opts_defaults(struct bw_opts *o)
{
	memset(o, 0, sizeof(*o));
	flow_opts_defaults(&o->flow);
	o->flow.spec.size_bytes = FLOW_SIZE_DEFAULT_BW_CLI;
	o->duration_s = 10;
	o->interval_s = 1;
	o->tx_depth = LOAD_TX_DEPTH_DEFAULT;
	o->batch = 1;
}

/* Rules between bw's options, once all are known. */
static int bw_opts_check(struct bw_opts *o, char *err, size_t errlen)
{
	if (!o->cq_mod)
		o->cq_mod = o->tx_depth < LOAD_CQ_MOD_DEFAULT ? o->tx_depth : LOAD_CQ_MOD_DEFAULT;
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
	if (o->flow.spec.rate_bps && o->hw_rate_bps)
		return errbuf_set(err, errlen, -EINVAL, "give --rate or --hw-rate, not both");
	if (o->hw_rate_bps && (o->hw_rate_bps < 1000 || o->hw_rate_bps / 1000 > UINT32_MAX))
		return errbuf_set(err, errlen, -EINVAL,
				  "--hw-rate: the NIC takes rates from 1 kbit/s to 4 Tbit/s");
	if (o->interval_s > o->duration_s)
		return errbuf_set(err, errlen, -EINVAL, "--interval %g s longer than -D %g s",
				  o->interval_s, o->duration_s);
	if (flow_spec_check(&o->flow.spec, true, err, errlen))
		return errbuf_set(err, errlen, -EINVAL, "--rate %" PRIu64 ": below 1 bit/s for "
				  "each of the %u QPs it is split over", o->flow.spec.rate_bps,
				  o->flow.spec.threads * o->flow.spec.qps);
	return 0;
}

int bw_opts_parse(int argc, char **argv, struct bw_opts *o, char *err, size_t errlen)
{
	const char *args[2];
	int n_args, ret;

	bw_opts_defaults(o);
	ret = opts_parse(bw_opts_table, o, argc, argv, args, 2, &n_args, err, errlen);
	if (ret == OPTS_HELP) {
		o->help = true;
		return 0;
	}
	if (ret)
		return ret;
	if (flow_opts_finish(n_args, args, &o->flow, err, errlen))
		return -EINVAL;
	if (o->flow.rtt_clock != FLOW_RTT_HOST)
		return errbuf_set(err, errlen, -EINVAL, "--clock %s times lat's round trips: bw "
				  "takes tsc or monotonic", o->flow.rtt_clock == FLOW_RTT_NIC ?
				  "hw" : "both");
	return bw_opts_check(o, err, errlen);
}
