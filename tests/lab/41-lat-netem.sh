#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A netem delay D on the switch's egress toward both hosts raises rperf's
# median RTT by 2D, within 10 %. D is large against the few ms of noise a
# loaded TCG lab adds to a median.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

D_US=50000
server_bg h2 "$WORK/srv.out" -D 300
lat_run h1 base -n 200 -s 64 h2 || { cat "$WORK/base.out" >&2; fail "rperf lat failed"; }
"$LAB" egress h1 "delay=${D_US}us" >/dev/null
"$LAB" egress h2 "delay=${D_US}us" >/dev/null
lat_run h1 delayed -n 100 -s 64 h2 || { cat "$WORK/delayed.out" >&2; fail "rperf lat failed with delay"; }
server_signal h2 TERM

base=$(lat_us base .rtt_ns.p50 64)
delayed=$(lat_us delayed .rtt_ns.p50 64)
rise=$(awk -v a="$base" -v b="$delayed" 'BEGIN { printf "%.0f", b - a }')
echo "rperf lat median RTT: ${base} us; with ${D_US} us on each egress: ${delayed} us; rise ${rise} us (2D = $((2 * D_US)) us)"
lat_figures delayed 64
within_pct "$rise" $((2 * D_US)) 10 ||
	fail "median RTT rose by ${rise} us, not within 10 % of $((2 * D_US)) us"
