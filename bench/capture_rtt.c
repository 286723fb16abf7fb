/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * capture_rtt: the wire round trips in a pcap capture of RoCE v2 RC
 * traffic, the ground truth the accuracy benchmark holds latency tools
 * against. See capture.h for what is matched with what.
 *
 * usage: capture_rtt [-a ADDR] [-p] [-w N] [-l] [-j FAR.pcap] FILE.pcap
 *   -a ADDR  only requests sent from ADDR (the capturing host's address)
 *   -j FAR   FILE and FAR captured at two points of one path on one clock
 *            (a switch's port toward the requester, and toward the
 *            responder): each message's RTT in FILE minus its RTT in FAR,
 *            what the path between the points adds (see cap_join)
 *   -p       one RTT per request packet instead of per message
 *   -w N     leave out the first N messages (a tool's warm-up)
 *   -l       list every RTT: send time, RTT (ns) and payload bytes
 *
 * Without -l it prints one line of key=value pairs (times in ns).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "base/errbuf.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: capture_rtt [-a ADDR] [-p] [-w N] [-l] [-j FAR.pcap] FILE.pcap\n");
}

/* Replace @r by what lies between it and the capture at @path. */
static int join_far(const char *path, const struct cap_opts *o, struct cap_result *r, char *err,
		    size_t errlen)
{
	struct cap_result far, joined;
	int ret;

	ret = cap_parse_file(path, o, &far, err, errlen);
	if (ret)
		return ret;
	ret = cap_join(r, &far, &joined);
	cap_result_free(&far);
	if (ret)
		return errbuf_set(err, errlen, ret, "out of memory");
	joined.packets = r->packets;
	joined.roce = r->roce;
	joined.requests = r->requests;
	joined.acks = r->acks;
	joined.retransmitted = r->retransmitted;
	cap_result_free(r);
	*r = joined;
	return 0;
}

int main(int argc, char **argv)
{
	struct cap_opts o = { 0 };
	struct cap_result r;
	unsigned long long skip = 0;
	bool list = false;
	const char *far_path = NULL;
	char err[256], *end;
	double sum = 0;
	uint64_t min = UINT64_MAX, max = 0;
	size_t i, n;
	int c;

	while ((c = getopt(argc, argv, "a:pw:lj:h")) != -1) {
		switch (c) {
		case 'a':
			if (cap_addr_parse(optarg, o.src)) {
				fprintf(stderr, "capture_rtt: -a '%s': not an IP address\n", optarg);
				return 2;
			}
			o.have_src = true;
			break;
		case 'p':
			o.per_packet = true;
			break;
		case 'w':
			errno = 0;
			skip = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-') {
				fprintf(stderr, "capture_rtt: -w '%s': not a count\n", optarg);
				return 2;
			}
			break;
		case 'l':
			list = true;
			break;
		case 'j':
			far_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (cap_parse_file(argv[optind], &o, &r, err, sizeof(err)) ||
	    (far_path && join_far(far_path, &o, &r, err, sizeof(err)))) {
		fprintf(stderr, "capture_rtt: %s\n", err);
		return 1;
	}
	for (i = skip; i < r.n; i++) {
		if (list)
			printf("%llu %llu %u\n", (unsigned long long)r.rtt[i].t_send_ns,
			       (unsigned long long)r.rtt[i].rtt_ns, r.rtt[i].bytes);
		sum += (double)r.rtt[i].rtt_ns;
		min = r.rtt[i].rtt_ns < min ? r.rtt[i].rtt_ns : min;
		max = r.rtt[i].rtt_ns > max ? r.rtt[i].rtt_ns : max;
	}
	n = r.n > skip ? r.n - skip : 0;
	if (!list)
		printf("messages=%zu p50_ns=%llu p99_ns=%llu min_ns=%llu max_ns=%llu mean_ns=%.0f "
		       "packets=%llu roce=%llu requests=%llu acks=%llu acks_unmatched=%llu "
		       "retransmitted=%llu unacked=%llu\n",
		       n, (unsigned long long)cap_percentile(&r, skip, 50),
		       (unsigned long long)cap_percentile(&r, skip, 99),
		       (unsigned long long)(n ? min : 0), (unsigned long long)max,
		       n ? sum / (double)n : 0.0, (unsigned long long)r.packets,
		       (unsigned long long)r.roce, (unsigned long long)r.requests,
		       (unsigned long long)r.acks, (unsigned long long)r.acks_unmatched,
		       (unsigned long long)r.retransmitted, (unsigned long long)r.unacked);
	cap_result_free(&r);
	return n ? 0 : 1;
}
