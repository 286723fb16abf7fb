#!/usr/bin/env bash
# rperf bw --rate 5m on an unshaped path: the server receives 5 Mbit/s
# within 5 %, and the pacing does not drift over the run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
bw_run h1 paced -D 20 -s 1024 --rate 5m h2 || { cat "$WORK/paced.out" >&2; fail "rperf bw failed"; }
got=$(bw_mbps paced 0 20)
first=$(bw_mbps paced 0 5)
last=$(bw_mbps paced 15 20)
total=$(jq -r '.total.received.gbps * 1000' "$WORK/paced.json")
echo "paced at 5 Mbit/s: received $got Mbit/s over the intervals (first 5 s $first, last 5 s $last), $total in total"
within_pct "$got" 5 5 || fail "received $got Mbit/s, want 5 +- 5 %"
within_pct "$last" "$first" 2 || fail "pace drifted: $first Mbit/s at the start, $last at the end"
