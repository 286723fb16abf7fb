#!/usr/bin/env bash
# rperf lat from h1 to an rperf server on h2 across the switch, 64 B and
# 4 KiB: every sample measured, sane figures, and the server counted them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

N=500
WARMUP=100
server_bg h2 "$WORK/srv.out" --json '$RPERF_LAB_RESULTS/server.json'
lat_run h1 lat -n $N --warmup $WARMUP -s 64,4k h2 || { cat "$WORK/lat.out" "$WORK/srv.out" >&2; fail "rperf lat failed"; }
server_signal h2 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv.out" >&2; fail "rperf server did not exit cleanly"; }

echo "rperf lat h1 -> h2 through the switch (clock $CLOCK):"
lat_figures lat 64
lat_figures lat 4096
jq -e '.complete and (.results | length == 2)' "$WORK/lat.json" >/dev/null || fail "JSON incomplete"
for s in 64 4096; do
	jq -e --argjson s $s --argjson n $N '.results[] | select(.size_bytes == $s) |
		.samples == $n and .rtt_ns.count == $n and .rtt_ns.p50 > 0 and
		.wire_ns.p50 >= .rtt_ns.p50 and .loopback_ns.p50 > 0 and
		.rtt_ns.p50 <= .rtt_ns.p99 and .rtt_ns.p99 <= .rtt_ns.max' "$WORK/lat.json" >/dev/null ||
		fail "implausible figures for $s B"
done
in_vm h2 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
jq -e --argjson m $((2 * (N + WARMUP))) --argjson b $(((N + WARMUP) * (64 + 4096))) \
	'.flows | length == 1 and .[0].msgs == $m and .[0].bytes == $b' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "server counts do not match what the client sent"; }
echo "server counted $(jq '.flows[0].msgs' "$WORK/server.json") messages, as sent"
