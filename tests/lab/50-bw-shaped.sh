#!/usr/bin/env bash
# rperf bw through a switch egress shaped to 10 Mbit/s: the server's
# received counters show the shaped rate, within 5 %, once the queue is
# full (the first seconds fill HTB's bucket and queue, and are skipped).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

"$LAB" egress h2 rate=10mbit
server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
bw_run h1 shaped -D 25 -s 4096 --tx-depth 128 h2 ||
	{ cat "$WORK/shaped.out" >&2; fail "rperf bw failed"; }
got=$(bw_mbps shaped 5 25)
want=$(roce_goodput_mbps 10)
echo "received $got Mbit/s of RoCE payload through a 10 Mbit/s egress (payload share of the frames: $want Mbit/s)"
within_pct "$got" "$want" 5 || fail "received $got Mbit/s, want $want +- 5 %"
jq -e '.complete and .total.received.bytes > 0 and .total.sent.bytes >= .total.received.bytes' \
	"$WORK/shaped.json" >/dev/null || fail "bad totals in the JSON"
