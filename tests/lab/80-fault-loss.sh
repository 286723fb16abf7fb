#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# 1 % loss on the switch port toward the server: RC retransmits what the
# switch drops, so rperf lat still measures every sample it was asked for
# and rperf bw still reports what arrived, both with complete JSON and a
# bounded run time. The short ACK timeout (--qp-timeout 14: 67 ms) keeps
# each retransmission from stalling the run for seconds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
"$LAB" egress h2 loss=1%

t0=$(date +%s)
lat_run h1 loss -n 2000 --warmup 10 -s 64,4096 --qp-timeout 14 h2 ||
	{ cat "$WORK/loss.out" >&2; fail "rperf lat failed under 1 % loss"; }
t1=$(date +%s)
jq -e '.complete and (.results | length == 2) and
	all(.results[]; .complete and .samples == 2000)' "$WORK/loss.json" >/dev/null ||
	{ cat "$WORK/loss.json" >&2; fail "rperf lat under 1 % loss: incomplete JSON"; }
retrans=$(jq '[.results[].retransmissions] | add' "$WORK/loss.json")
echo "rperf lat, 1 % loss: 2 x 2000 samples in $((t1 - t0)) s, $retrans retransmissions"
[ "$retrans" -gt 0 ] || fail "no retransmission counted: did the switch drop anything?"
lat_figures loss 64
lat_figures loss 4096

rc=0
rperf_run bw h1 bwloss -D 6 -s 4096 --qp-timeout 14 h2 || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/bwloss.out" >&2; fail "rperf bw failed under 1 % loss (exit $rc)"; }
jq -e '.complete and .total.received.bytes > 0 and .total.sent.bytes >= .total.received.bytes' \
	"$WORK/bwloss.json" >/dev/null || { cat "$WORK/bwloss.json" >&2; fail "rperf bw under 1 % loss: bad totals"; }
echo "rperf bw, 1 % loss: $(jq '.total.received.bytes' "$WORK/bwloss.json") bytes received in 6 s"
server_signal h2 INT
wait "${BG_PIDS[0]}" || fail "the server did not exit 0 on SIGINT"
no_sanitizer_reports
