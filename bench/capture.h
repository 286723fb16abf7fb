/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Ground truth from a packet capture: the wire round trip of each RC
 * request in a pcap file of RoCE v2 traffic (UDP port 4791), from the
 * request leaving the NIC to the ACK that covers it arriving.
 *
 * A request packet is any RC opcode that is not a response (SEND, WRITE,
 * READ request, ...). A message spans the packets from a FIRST (or ONLY)
 * opcode to its LAST (or ONLY). An RC ACK (opcode 0x11, AETH syndrome
 * "ACK") with PSN p travelling the other way between the same two
 * addresses acknowledges every outstanding PSN up to p (ACKs coalesce).
 * ACK and request name different QPs in their BTH (each carries only its
 * destination QPN), so a responder QP is paired with a request stream the
 * first time one of its ACKs matches an outstanding PSN of that stream
 * exactly; initial PSNs are random, so a false pairing is negligible.
 *
 * A message's RTT runs from its first packet to the ACK covering its last
 * PSN (per packet: from each packet to the ACK covering it). Messages with
 * a retransmitted packet are left out (the capture cannot tell which copy
 * an ACK answers) and counted.
 */
#ifndef RPERF_BENCH_CAPTURE_H
#define RPERF_BENCH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cap_opts {
	bool per_packet;	/* one RTT per request packet, not per message */
	bool have_src;		/* only requests sent from src */
	uint8_t src[16];	/* IPv4 as ::ffff:a.b.c.d, or IPv6 */
};

struct cap_rtt {
	uint64_t t_send_ns;	/* capture time of the (first) request packet */
	uint64_t rtt_ns;
	uint32_t bytes;		/* payload bytes of the message (or packet) */
	uint32_t dqpn;		/* the responder's QP (the requests' BTH) */
	uint32_t psn_first;	/* the PSN of its (first) packet */
};

struct cap_result {
	struct cap_rtt *rtt;	/* in order of sending */
	size_t n, cap;
	uint64_t packets;	/* records in the file */
	uint64_t roce;		/* RoCE v2 packets among them */
	uint64_t requests;	/* request packets (after the source filter) */
	uint64_t acks;		/* positive ACKs */
	uint64_t acks_unmatched;	/* ACKs that covered nothing outstanding */
	uint64_t retransmitted;	/* messages left out for a retransmission */
	uint64_t unacked;	/* messages still outstanding at the end */
};

/* Parse @len bytes of pcap data; fills @r (cap_result_free it). 0 or -errno. */
int cap_parse(const uint8_t *buf, size_t len, const struct cap_opts *o,
	      struct cap_result *r, char *err, size_t errlen);
int cap_parse_file(const char *path, const struct cap_opts *o, struct cap_result *r,
		   char *err, size_t errlen);
void cap_result_free(struct cap_result *r);

/*
 * The same messages captured at two points of one path, both on one
 * clock (two ports of one switch): @near on the side of the requester,
 * @far on the side of the responder. Each message of @near that @far has
 * too (same responder QP and first PSN) goes to @out with rtt_ns =
 * its RTT at @near minus its RTT at @far: what the path between the two
 * points adds to the round trip, one way for the request's first packet
 * and back for the ACK that covers the message (for a message of several
 * packets, the rest of them wait in @far's RTT). @out->unacked counts the
 * messages of @near that @far lacks. @out is cap_result_free'd by the
 * caller. 0 or -ENOMEM.
 */
int cap_join(const struct cap_result *near, const struct cap_result *far, struct cap_result *out);

/* Parse a dotted IPv4 or an IPv6 address into the 16-byte form. 0 or -EINVAL. */
int cap_addr_parse(const char *s, uint8_t addr[16]);

/*
 * Nearest-rank percentile @p (0..100) of the RTTs of messages @skip.. in
 * sending order, in ns; 0 when there are none.
 */
uint64_t cap_percentile(const struct cap_result *r, size_t skip, double p);

#endif
