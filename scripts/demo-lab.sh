#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Run by scripts/demo inside `scripts/lab run --hosts 3` with ETS (3:1) on
# the switch port toward h3: rperf agent on h1, h2 and h3, then rperf
# converge on h1 with examples/converge-ets-shares.ini (bandwidth from h1
# and h2 into two DRR bands, a latency flow in one of them); results and
# figures in .lab/vm/h1/results/. The tolerance is 4 points, not 2: the
# lab's emulated links drop packets when the machine is busy, and each
# loss costs a retransmission that takes its band's turn without arriving.
set -euo pipefail
LAB=${RPERF_LAB:?run me through scripts/lab run}
TOP=$(cd "$(dirname "$0")/.." && pwd)
RES=${RPERF_LAB_DIR:-$TOP/.lab}/vm/h1/results
TOKEN="install -m 600 /dev/null /tmp/rperf-token && echo $(echo "rperf-demo-$$" | sha256sum | cut -c1-64) >/tmp/rperf-token"
pids=()
for h in h1 h2 h3; do
	"$LAB" sh -t 600 "$h" "$TOKEN; echo \$\$ >\$RPERF_LAB_RESULTS/agent.pid; exec $TOP/src/rperf agent --token-file /tmp/rperf-token" \
		>/dev/null 2>&1 &
	pids+=($!)
done
stop() {
	for h in h1 h2 h3; do
		"$LAB" sh "$h" 'kill $(cat $RPERF_LAB_RESULTS/agent.pid) 2>/dev/null; true' || true
	done
	wait "${pids[@]}" 2>/dev/null || true
}
trap stop EXIT
for h in h1 h2 h3; do
	"$LAB" sh "$h" "for i in \$(seq 300); do ss -ltn | grep -q ':18530 ' && exit 0; sleep 0.1; done; exit 1"
done
rc=0
"$LAB" sh -t 600 h1 "$TOKEN; cd $TOP && src/rperf converge --tolerance 4 --token-file /tmp/rperf-token --json \$RPERF_LAB_RESULTS/converge.json examples/converge-ets-shares.ini" || rc=$?
"$TOP/scripts/rperf-plot" "$RES/converge.json" "$RES"
echo "JSON: $RES/converge.json (exit status $rc: 0 within tolerance, 3 out of it)"
exit "$rc"
