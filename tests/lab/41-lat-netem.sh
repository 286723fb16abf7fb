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

# The RTT medians when both are resolved; when one is not (more than half
# the samples had the loopback complete after the wire SEND), the rise of
# the wire medians (T_W - T_P, never unresolved), which the same delay adds.
q=rtt_ns
[ "$(lat_pct base rtt_ns 64 p50)" != unresolved ] && [ "$(lat_pct delayed rtt_ns 64 p50)" != unresolved ] || {
	echo "RTT median unresolved (base $(lat_pct base rtt_ns 64 p50), delayed $(lat_pct delayed rtt_ns 64 p50)): the wire medians' rise instead"
	q=wire_ns
}
base=$(lat_us base .$q.p50 64)
delayed=$(lat_us delayed .$q.p50 64)
rise=$(awk -v a="$base" -v b="$delayed" 'BEGIN { printf "%.0f", b - a }')
echo "rperf lat median $q: ${base} us; with ${D_US} us on each egress: ${delayed} us; rise ${rise} us (2D = $((2 * D_US)) us)"
lat_figures delayed 64
within_pct "$rise" $((2 * D_US)) 10 ||
	fail "median RTT rose by ${rise} us, not within 10 % of $((2 * D_US)) us"
