#!/usr/bin/env bash
# rperf lat from h1 to an rperf server on h2 across the switch, 64 B and
# 4 KiB: every sample measured, sane figures, and the server counted them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

N=500
WARMUP=100
server_bg h2 "$WORK/srv.out" --json '$RPERF_LAB_RESULTS/server.json'
# Pass/fail criteria: a p99 limit no lab run reaches passes; a median of
# at most 1 ns, which no round trip meets, fails with exit 3 and names
# itself once per size.
rc=0
lat_run h1 lat -n $N --warmup $WARMUP -s 64,4k --max-p99 100s --max-p50 1ns h2 || rc=$?
[ "$rc" = 3 ] || { cat "$WORK/lat.out" "$WORK/srv.out" >&2; fail "rperf lat with a failing criterion exited $rc, want 3"; }
[ "$(grep -c '^rperf: error: criterion failed: max_p50 (size ' "$WORK/lat.out")" = 2 ] ||
	{ cat "$WORK/lat.out" >&2; fail "the failed criterion is not named once per size"; }
jq -e '[.criteria[] | select(.name == "max_p99" and .passed and .value_us > 0 and .limit_us == 1e8)] | length == 2' \
	"$WORK/lat.json" >/dev/null || fail "max_p99 not passed per size in the JSON: $(jq -c .criteria "$WORK/lat.json")"
jq -e '[.criteria[] | select(.name == "max_p50" and (.passed | not))] | length == 2' \
	"$WORK/lat.json" >/dev/null || fail "max_p50 not failed per size in the JSON"
# Where it ran, as the JSON records it: the guest's kernel, rdma-core,
# the rxe device and its port, the worker's CPU and the command line.
jq -e '.environment | (.kernel | test("^Linux 6\\.")) and (.rdma_core | length > 0) and
	.device == "rxe0" and .link_layer == "Ethernet" and (.command_line | test("(^|/)rperf lat ")) and
	(.workers | length == 1 and .[0].cpu != null) and .rperf_version != null' "$WORK/lat.json" >/dev/null ||
	fail "environment incomplete: $(jq -c .environment "$WORK/lat.json")"
echo "environment: $(jq -c '.environment | {kernel, rdma_core, device, firmware, port_gbps, device_numa_node, cpufreq_governor, workers}' "$WORK/lat.json")"
echo "criteria: $(jq -c '[.criteria[] | [.name, .scope, .value_us, .passed]]' "$WORK/lat.json"), exit $rc"
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
# The posting order alternates, so both orders have samples and the
# residual bias of the order is a figure (half the samples each).
jq -e '[.results[] | select(.post_order_bias_ns | type == "number")] | length == 2' \
	"$WORK/lat.json" >/dev/null || fail "no post_order_bias_ns: $(jq -c '[.results[].post_order_bias_ns]' "$WORK/lat.json")"
echo "posting order's residual bias, ns: $(jq -c '[.results[] | [.size_bytes, (.post_order_bias_ns | round)]]' "$WORK/lat.json")"
in_vm h2 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
jq -e --argjson m $((2 * (N + WARMUP))) --argjson b $(((N + WARMUP) * (64 + 4096))) \
	'.flows | length == 1 and .[0].msgs == $m and .[0].bytes == $b' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "server counts do not match what the client sent"; }
echo "server counted $(jq '.flows[0].msgs' "$WORK/server.json") messages, as sent"
