/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * capture_rtt: the wire round trips in a pcap capture of RoCE v2 RC
 * traffic, the ground truth the accuracy benchmark holds latency tools
 * against. See capture.h for what is matched with what.
 *
 * usage: capture_rtt [-a ADDR] [-p] [-w N] [-l] FILE.pcap
 *   -a ADDR  only requests sent from ADDR (the capturing host's address)
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

static void usage(FILE *f)
{
	fprintf(f, "usage: capture_rtt [-a ADDR] [-p] [-w N] [-l] FILE.pcap\n");
}

int main(int argc, char **argv)
{
	struct cap_opts o = { 0 };
	struct cap_result r;
	unsigned long long skip = 0;
	bool list = false;
	char err[256], *end;
	double sum = 0;
	uint64_t min = UINT64_MAX, max = 0;
	size_t i, n;
	int c;

	while ((c = getopt(argc, argv, "a:pw:lh")) != -1) {
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
	if (cap_parse_file(argv[optind], &o, &r, err, sizeof(err))) {
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
