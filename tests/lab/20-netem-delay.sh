#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A netem delay D on the switch's egress ports toward both hosts raises the
# verbs round trip by 2D. perftest's ib_read_lat times an RDMA READ, a whole
# round trip with no software on the remote side, like rperf's method.
#
# The fastest round trips are compared: netem holds each packet D at
# least, and its timer in the switch guest fires late, never early, by as
# much as the busy machine keeps the guest from running. The medians rose
# by 44070 us for 2D = 40000 there (4 ms of late timers); the fastest of
# 200 round trips carries the least of that lateness.
. "$(dirname "$0")/lib.sh"

D_US=20000
base=$(perftest_lat_us ib_read_lat h2 h1 64 200 min)
"$LAB" egress h1 "delay=${D_US}us"
"$LAB" egress h2 "delay=${D_US}us"
delayed=$(perftest_lat_us ib_read_lat h2 h1 64 200 min)
rise_us=$(awk -v a="$base" -v b="$delayed" 'BEGIN { printf "%.0f", b - a }')
echo "ib_read_lat fastest RTT: ${base} us; with ${D_US} us on each egress: ${delayed} us; rise ${rise_us} us (2D = $((2 * D_US)) us)"
within_pct "$rise_us" $((2 * D_US)) 10 ||
	fail "RTT rose by ${rise_us} us, not within 10 % of $((2 * D_US)) us"
