#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Eight agents on three hosts under one coordinator: three on h1 and
# three on h2 (control ports 18531-18533), each with one flow, and two on
# h3 as destinations, h3:18531 of the latency flows and h3:18532 of the
# bandwidth flows. Agents that share a host have control ports and sink
# data ports of their own. Every flow must be measured, and the step must
# say how closely its six flows began at the one instant commanded. The
# bw flows are paced to 5 Mbit/s each, 15 Mbit/s into h3, about what the
# lab carries without loss (three at 20 Mbit/s lost packets, and a flow
# then waited out its ACK timeout); that timeout is 2.1 s (qp_timeout
# 19), so a loss still costs a flow less than its window.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

PORTS="18531 18532 18533"
trap 'stop_vm_procs; cleanup' EXIT
for h in h1 h2 h3; do
	in_vm_bg "$h" "$TOKEN_CMD; for p in $PORTS; do
		$RPERF agent --token-file /tmp/rperf-token --port \$p &
		echo \$! >\$RPERF_LAB_RESULTS/agent-\$p.pid
	done; wait" "$WORK/agents-$h.out"
done
for h in h1 h2 h3; do
	for p in $PORTS; do
		wait_listen "$h" "$p"
	done
done

# The scenario, where the coordinator's host can read it.
cat >"${RPERF_LAB_DIR:-$TOP/.lab}/vm/h1/results/many.ini" <<'INI'
[global]
duration = 4s
warmup = 2s
clock = monotonic
yield = yes
qp_timeout = 19

[lat-a]
host = h1:18531
dest = h3:18531
type = lat

[lat-b]
host = h1:18532
dest = h3:18531
type = lat

[lat-c]
host = h2:18531
dest = h3:18531
type = lat

[bw-a]
host = h1:18533
dest = h3:18532
type = bw
rate = 5mbit

[bw-b]
host = h2:18532
dest = h3:18532
type = bw
rate = 5mbit

[bw-c]
host = h2:18533
dest = h3:18532
type = bw
rate = 5mbit
INI

converge_ran many '$RPERF_LAB_RESULTS/many.ini' || fail "converge exited $?"
J=$WORK/many.json
[ "$(jq -r .agents "$J")" = 8 ] || fail "agents: $(jq -r .agents "$J"), want 8"
[ "$(step_jq many '[.ports[].destination] | sort | join(" ")')" = "h3:18531 h3:18532" ] ||
	fail "ports: $(step_jq many '[.ports[].destination] | tostring')"
step_jq many '[.flows[] | select(.error != null)] | length' | grep -qx 0 ||
	fail "flow errors: $(step_jq many '[.flows[] | .error] | tostring')"
[ "$(step_jq many '[.flows[] | select(.type == "lat" and .rtt_ns.count > 0)] | length')" = 3 ] ||
	fail "a latency flow has no RTTs"
[ "$(step_jq many '[.flows[] | select(.type == "bw" and .bytes > 0)] | length')" = 3 ] ||
	fail "a bandwidth flow delivered nothing: $(step_jq many '[.flows[] | select(.type == "bw") | {name, bytes}] | tostring')"
# Each flow began after the instant (never before), and before the
# window opened (the 2 s warm-up later): every flow is in the window.
[ "$(step_jq many '.start.flows')" = 6 ] || fail "start: $(step_jq many '.start | tostring')"
step_jq many '[.flows[] | .start_late_us >= 0 and .start_late_us < 2000000 and
	.sync_uncertainty_us >= 0] | all' | grep -qx true ||
	fail "start lateness: $(step_jq many '[.flows[] | .start_late_us] | tostring')"
grep -q '^8 agents reached, authenticated and synced in [0-9]* ms' "$WORK/many.out" ||
	fail "the table does not say how the agents were reached"
grep -q '^setup [0-9]* ms; 6 flows began at most [0-9]* us (p99 [0-9]* us)' "$WORK/many.out" ||
	fail "the table has no start line"
echo "many agents: $(jq -r '"\(.agents) agents in \(.connect_ms | floor) ms"' "$J"),"\
	"$(step_jq many '"setup \(.setup_ms | floor) ms, start late at most \(.start.late_max_us | floor) us (p99 \(.start.late_p99_us | floor)), sync within \(.start.sync_uncertainty_us | floor) us"')"
