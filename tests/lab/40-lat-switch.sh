#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf lat from h1 to an rperf server on h2 across the switch, 64 B and
# 4 KiB: every sample measured, sane figures, and the server counted them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

# p99 needs 1000 samples (10 above it); p99.9 and p99.99 are then too few.
N=1000
WARMUP=100

# The reference path: h1 and h2 back to back (scripts/lab up --direct:
# h1-direct -> h2-direct on rxe1, no switch), one run the switched run
# below is then qualified by (--reference): what the switch adds.
ref_start=$SECONDS
in_vm h1 'test -e /sys/class/infiniband/rxe1' ||
	fail "h1 has no rxe1: this test needs the lab up with --direct"
in_vm_bg h2 "echo \$\$ >\$RPERF_LAB_RESULTS/server-direct.pid; exec $RPERF server -d rxe1 -p 18521" \
	"$WORK/srv-direct.out"
wait_listen h2 18521
in_vm h1 "$RPERF lat $LAT_OPTS -d rxe1 -p 18521 -n $N --warmup $WARMUP -s 64,4k \
	--json \$RPERF_LAB_RESULTS/direct.json h2-direct" >"$WORK/direct.out" 2>&1 ||
	{ cat "$WORK/direct.out" >&2; fail "rperf lat back to back"; }
in_vm h1 'cat $RPERF_LAB_RESULTS/direct.json' >"$WORK/direct.json"
in_vm h2 'kill -TERM $(cat $RPERF_LAB_RESULTS/server-direct.pid)'
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv-direct.out" >&2; fail "the back-to-back server did not exit cleanly"; }
echo "back-to-back reference run: $((SECONDS - ref_start)) s"

server_bg h2 "$WORK/srv.out" --json '$RPERF_LAB_RESULTS/server.json'
# Pass/fail criteria: a p99 limit no lab run reaches passes; a median of
# at most 1 ns, which no round trip meets, fails with exit 3 and names
# itself once per size.
rc=0
lat_run h1 lat -n $N --warmup $WARMUP -s 64,4k --max-p99 100s --max-p50 1ns \
	--reference '$RPERF_LAB_RESULTS/direct.json' \
	--json-stream '$RPERF_LAB_RESULTS/lat-stream.jsonl' h2 || rc=$?
[ "$rc" = 3 ] || { cat "$WORK/lat.out" "$WORK/srv.out" >&2; fail "rperf lat with a failing criterion exited $rc, want 3"; }
[ "$(grep -c '^rperf: error: criterion failed: max_p50 (size ' "$WORK/lat.out")" = 2 ] ||
	{ cat "$WORK/lat.out" >&2; fail "the failed criterion is not named once per size"; }
# A criterion on a resolved percentile is judged, at its interval's high
# end; on an unresolved one, or a lower bound (unresolved samples below
# it) whose interval has no high end, it cannot be, and fails saying so
# (the loopback can complete after the wire SEND in a third of the
# samples here).
jq -e '[.results[] as $r | .criteria[] | select(.scope == "size \($r.size_bytes)") |
	($r.rtt_ns.percentiles[.name | ltrimstr("max_")]) as $p |
	if $p.state == "resolved" and ($p.lower_bound == true and $p.ci_high_ns == null) then
		(.passed | not) and .value_us == null and (.cannot_be_judged | test("lower bound"))
	elif $p.state == "resolved" then .cannot_be_judged == null and .value_us > 0 and
		.passed == (.name == "max_p99")
	else ($p.state == "unresolved" and (.passed | not) and .value_us == null and
		(.cannot_be_judged | test("unresolved"))) end] | length == 4 and all' \
	"$WORK/lat.json" >/dev/null || fail "criteria not judged on resolved figures only: $(jq -c .criteria "$WORK/lat.json")"
jq -e '[.criteria[] | select(.name == "max_p99" and .limit_us == 1e8)] | length == 2' \
	"$WORK/lat.json" >/dev/null || fail "max_p99 not given per size in the JSON"
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
# --json-stream: start, one line per size as it ended (each the
# document's result), end; lib.sh validates it against its schema. Its
# standard error is no terminal: no progress line.
in_vm h1 'cat $RPERF_LAB_RESULTS/lat-stream.jsonl' >"$WORK/lat-stream.jsonl"
jq -s -e --slurpfile doc "$WORK/lat.json" '[.[].event] == ["start", "size", "size", "end"] and
	[.[] | select(.event == "size") | .index] == [0, 1] and
	[.[] | select(.event == "size") | .result] == $doc[0].results and
	.[0].config.server == $doc[0].config.server and
	(.[3] | .sizes == 2 and .criteria == $doc[0].criteria and .complete == $doc[0].complete)' \
	"$WORK/lat-stream.jsonl" >/dev/null ||
	fail "the stream is not one line per size: $(cut -c 1-200 "$WORK/lat-stream.jsonl")"
grep -q '^size [0-9]*/[0-9]*, ' "$WORK/lat.out" && fail "progress lines on a standard error that is no terminal"
echo "stream: $(jq -c -s '[.[] | [.event, .index // empty]]' "$WORK/lat-stream.jsonl")"
server_signal h2 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv.out" >&2; fail "rperf server did not exit cleanly"; }

echo "rperf lat h1 -> h2 through the switch (clock $CLOCK):"
lat_figures lat 64
lat_figures lat 4096
jq -e '.complete and (.results | length == 2)' "$WORK/lat.json" >/dev/null || fail "JSON incomplete"
for s in 64 4096; do
	# Each RTT percentile is a figure (below the wire's, under the max,
	# its rank above the unresolved samples, inside its interval, whose high
	# end may be open when unresolved samples make it a lower bound), or
	# unresolved (its rank among them) or too few samples (N < 10/(1-q)).
	jq -e --argjson s $s --argjson n $N '.results[] | select(.size_bytes == $s) |
		.samples == $n and .rtt_ns.count == $n and .wire_ns.p50 > 0 and .loopback_ns.p50 > 0 and
		.rtt_ns.unresolved >= .loopback_after_wire and
		((.rtt_ns.unresolved > 0) == (.rtt_ns.min == null)) and
		(. as $r | ["p50", "p90", "p99"] | all(. as $k | $r.rtt_ns.percentiles[$k] |
			if .state == "resolved" then .value_ns > 0 and .value_ns <= $r.wire_ns[$k] and
				.value_ns <= $r.rtt_ns.max and .rank > $r.rtt_ns.unresolved and
				(.ci_high_ns >= .value_ns or (.ci_high_ns == null and .lower_bound == true)) and
				(.ci_low_ns == null or .ci_low_ns <= .value_ns)
			else .state == "unresolved" and .value_ns == null and
				.rank <= $r.rtt_ns.unresolved and (.reason | test("loopback")) end)) and
		.rtt_ns.percentiles.p99_9.state == "too_few_samples" and .rtt_ns.p99_9 == null and
		.rtt_ns.percentiles.p99_9.samples_needed == 10000' "$WORK/lat.json" >/dev/null ||
		fail "implausible figures for $s B: $(jq -c --argjson s $s '.results[] | select(.size_bytes == $s) | .rtt_ns | del(.percentiles)' "$WORK/lat.json")"
done
# The posting order alternates, so both orders have samples and the
# residual bias of the order is a figure (half the samples each).
jq -e '[.results[] | select(.post_order_bias_ns | type == "number")] | length == 2' \
	"$WORK/lat.json" >/dev/null || fail "no post_order_bias_ns: $(jq -c '[.results[].post_order_bias_ns]' "$WORK/lat.json")"
echo "posting order's residual bias, ns: $(jq -c '[.results[] | [.size_bytes, (.post_order_bias_ns | round)]]' "$WORK/lat.json")"
in_vm h2 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
grep -q '^size 64: .* samples (.* %) unresolved\|^size 4096: .* samples (.* %) unresolved' "$WORK/lat.out" ||
	jq -e '[.results[].rtt_ns.unresolved] | all(. == 0)' "$WORK/lat.json" >/dev/null ||
	fail "the table does not say how many samples were unresolved"
jq -e --argjson m $((2 * (N + WARMUP))) --argjson b $(((N + WARMUP) * (64 + 4096))) \
	'.flows | length == 1 and .[0].msgs == $m and .[0].bytes == $b' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "server counts do not match what the client sent"; }
echo "server counted $(jq '.flows[0].msgs' "$WORK/server.json") messages, as sent"

# What the switch adds (--reference): per size, the median's difference
# is a figure exactly when both medians are, then the difference of the
# two documents' medians inside its interval; otherwise it names the side
# that is not resolved. On a busy machine a median can be unresolved
# (the loopback completing after the wire SEND), so resolution is
# reported, not required.
for s in 64 4096; do
	jq -e --argjson s $s --slurpfile d "$WORK/direct.json" '
		($d[0].results[] | select(.size_bytes == $s) | .rtt_ns.percentiles.p50) as $r |
		.results[] | select(.size_bytes == $s) | .rtt_ns.percentiles.p50 as $m | .reference.p50 |
		if $m.state == "resolved" and $r.state == "resolved" then
			.state == "resolved" and (.value_ns - ($m.value_ns - $r.value_ns) | if . < 0 then -. else . end) < 0.2 and
			.reference_ns == $r.value_ns and .reason == null and
			# a side is open exactly where a side it needs is (a bound
			# whose rank falls among the unresolved samples, on a busy lab)
			((.ci_low_ns == null) == ($m.ci_low_ns == null or $r.ci_high_ns == null)) and
			((.ci_high_ns == null) == ($m.ci_high_ns == null or $r.ci_low_ns == null)) and
			(.ci_low_ns == null or .ci_low_ns <= .value_ns) and
			(.ci_high_ns == null or .value_ns <= .ci_high_ns)
		else .state != "resolved" and .value_ns == null and
			(.reason | test(if $m.state != "resolved" then "measured" else "reference" end)) end' \
		"$WORK/lat.json" >/dev/null ||
		fail "--reference at $s B: $(jq -c --argjson s $s '.results[] | select(.size_bytes == $s) | .reference' "$WORK/lat.json")"
	echo "$s B: back to back p50 $(lat_pct direct rtt_ns $s p50) us ($(jq -r --argjson s $s '.results[] | select(.size_bytes == $s) | .rtt_ns.unresolved' "$WORK/direct.json") of $N unresolved), through the switch $(lat_pct lat rtt_ns $s p50) us ($(jq -r --argjson s $s '.results[] | select(.size_bytes == $s) | .rtt_ns.unresolved' "$WORK/lat.json") unresolved); the switch adds: $(jq -c --argjson s $s '.results[] | select(.size_bytes == $s) | .reference | map_values(if .state == "resolved" then [(.value_ns / 100 | round / 10), (.ci_low_ns // "open" | if type == "number" then . / 100 | round / 10 else . end), (.ci_high_ns // "open" | if type == "number" then . / 100 | round / 10 else . end)] else .state end)' "$WORK/lat.json") us"
done
jq -e '.reference.file | test("direct.json$")' "$WORK/lat.json" >/dev/null || fail "no reference head in the JSON"
grep -q "^added to the reference '.*direct.json'" "$WORK/lat.out" || { cat "$WORK/lat.out" >&2; fail "the table has no reference block"; }

# The receiver's port counters, asked for over the TCP connection before
# and after each size: rxe counts RNR NAKs sent (send_rnr_err), not
# out-of-buffer drops.
jq -e '[.results[].receiver | (.rnr_naks_sent | type == "number" and . >= 0) and
	.out_of_buffer == null and (.fell_behind | type == "boolean")] | length == 2 and all' \
	"$WORK/lat.json" >/dev/null || fail "no receiver counters per size: $(jq -c '[.results[].receiver]' "$WORK/lat.json")"
echo "receiver's port per size: $(jq -c '[.results[].receiver]' "$WORK/lat.json")"

# --clock hw: Soft-RoCE writes no completion timestamps, so lat refuses,
# naming the device and what it lacks, before it connects; bw refuses it
# as a usage error.
rc=0
in_vm h1 "$RPERF lat --clock hw -n 10 h2" >"$WORK/hw.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "rxe0: no completion timestamps (hca_core_clock 0 kHz, completion_timestamp_mask 0)" "$WORK/hw.out" ||
	{ cat "$WORK/hw.out" >&2; fail "lat --clock hw on rxe exited $rc without naming what rxe0 lacks"; }
echo "lat --clock hw on rxe0: $(cat "$WORK/hw.out")"
rc=0
in_vm h1 "$RPERF bw --clock both h2" >"$WORK/hw-bw.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat "$WORK/hw-bw.out" >&2; fail "bw --clock both exited $rc, want 2"; }
