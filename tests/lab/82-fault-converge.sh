#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# converge's own faults, beside those of 62-converge-faults:
#  - SIGINT in the middle of a sweep: converge stops within seconds with
#    one error, tells the agents to stop (their flows end, and they serve
#    the next coordinator) and send what they measured, and converge
#    writes the steps so far, the interrupted one marked so, the run
#    marked incomplete;
#  - the disk for its JSON is full: one error naming the file and the
#    cause, and the previous file there stays whole.
. "$(dirname "$0")/lib.sh"
AGENT_HOSTS="h1 h2"
. "$(dirname "$0")/converge-lib.sh"

TINY='$RPERF_LAB_RESULTS/tiny'
trap 'in_vm h1 "umount $TINY 2>/dev/null; true" || true; stop_agents; cleanup' EXIT
start_agents

# A lat flow from h1 and a bw flow from h1 into h2, 6 s a step.
RES=${RPERF_LAB_DIR:-$TOP/.lab}/vm/h1/results
lat_bw_scenario "$RES/sc.ini" h2 h1 6s
SC='$RPERF_LAB_RESULTS/sc.ini'

# 1. SIGINT once the sweep's second step (lat and bw) is under way. The
# log goes to a file in the guest, watched there.
in_vm_bg h1 "$TOKEN_CMD; echo \$\$ >\$RPERF_LAB_RESULTS/conv.pid; exec $RPERF -v converge --token-file /tmp/rperf-token --sweep --json \$RPERF_LAB_RESULTS/int.json $SC 2>\$RPERF_LAB_RESULTS/conv.err" \
	"$WORK/int.table"
# Timed in the guest: 3 s after step 1's start message is its lead (0.5 s),
# its warm-up (1 s) and 1.5 s of its 6 s window.
in_vm h1 "for i in \$(seq 900); do
		[ \$(grep -c 'flows start in' \$RPERF_LAB_RESULTS/conv.err) -ge 2 ] &&
			{ sleep 3; kill -INT \$(cat \$RPERF_LAB_RESULTS/conv.pid); exit; }
		sleep 0.1
	done; exit 1" || fail "SIGINT: step 1 never started, or converge ended before the signal"
t0=$(date +%s)
rc=0
wait "${BG_PIDS[-1]}" || rc=$?
t1=$(date +%s)
in_vm h1 'cat $RPERF_LAB_RESULTS/conv.err' >"$WORK/int.out"
[ $((t1 - t0)) -le 15 ] || fail "SIGINT: converge took $((t1 - t0)) s to stop"
[ "$rc" = 1 ] || { cat "$WORK/int.out" >&2; fail "SIGINT: exit status $rc, want 1"; }
grep -q '^rperf: error: .*interrupted' "$WORK/int.out" || { cat "$WORK/int.out" >&2; fail "SIGINT: no 'interrupted' error"; }
in_vm h1 'cat $RPERF_LAB_RESULTS/int.json; rm -f $RPERF_LAB_RESULTS/int.json' >"$WORK/int.json" ||
	fail "SIGINT: no JSON written"
jq -e '(.complete | not) and (.steps | length == 2) and (.steps[0].cut_short | not)' "$WORK/int.json" >/dev/null ||
	{ cat "$WORK/int.json" >&2; fail "SIGINT: the JSON lacks a step or claims to be complete"; }
# The interrupted step keeps what the agents measured until the stop.
jq -e '.steps[1] | .cut_short and .window_s > 0.5 and .window_s < 6 and
	(.flows | map(select(.type == "bw")) | .[0].bytes > 0) and
	(.flows | map(select(.type == "lat")) | .[0].rtt_ns.count > 0)' "$WORK/int.json" >/dev/null ||
	{ cat "$WORK/int.json" >&2; fail "SIGINT: the interrupted step lost its measurements"; }
# The lat flow (stopped mid-window) says it was stopped, and why.
jq -e '.steps[1].flows | map(select(.type == "lat")) | .[0].error == "stopped: interrupted"' \
	"$WORK/int.json" >/dev/null || { cat "$WORK/int.json" >&2; fail "SIGINT: the lat flow does not say why it stopped"; }
# The agents stopped their flows (no data connection to h2's sink stays
# up) and still listen for the next coordinator.
for i in $(seq 100); do
	in_vm h2 "! ss -tnH state established '( sport = :18540 )' | grep -q ." && break
	sleep 0.2
done
in_vm h2 "! ss -tnH state established '( sport = :18540 )' | grep -q ." || fail "SIGINT: flows still run into h2"
for h in $AGENT_HOSTS; do
	in_vm "$h" "ss -ltn | grep -q ':18530 '" || fail "SIGINT: the agent on $h is gone"
done
echo "SIGINT: exit 1 after $((t1 - t0)) s, $(jq '.steps | length' "$WORK/int.json") step(s) kept, the interrupted one with $(jq '.steps[1].window_s' "$WORK/int.json") s of its window, agents stopped and still listening"

# 2. A full disk for the JSON: a good file first, then fill the tmpfs.
in_vm h1 "mkdir -p $TINY && mount -t tmpfs -o size=1m tmpfs $TINY"
converge ok --json "$TINY/out.json" "$SC" >/dev/null ||
	{ cat "$WORK/ok.out" >&2; fail "converge could not write to the empty tmpfs"; }
in_vm h1 "cp $TINY/out.json $TINY/before.json" || fail "full disk: no room on the tmpfs for a copy of out.json"
in_vm h1 "dd if=/dev/zero of=$TINY/fill bs=1k count=2048 2>/dev/null; true"
rc=0
converge full --json "$TINY/out.json" "$SC" >/dev/null || rc=$?
[ "$rc" = 1 ] || { cat "$WORK/full.out" >&2; fail "full disk: exit status $rc, want 1"; }
grep -q "^rperf: error: .*out.json.*No space left" "$WORK/full.out" ||
	{ cat "$WORK/full.out" >&2; fail "full disk: no error naming the file and the cause"; }
in_vm h1 "cmp $TINY/out.json $TINY/before.json" || fail "full disk: the previous out.json changed"
echo "full disk: $(grep '^rperf: error:' "$WORK/full.out")"

# Agents end cleanly on SIGTERM (a sanitized build checks for leaks then).
stop_agents
for p in "${BG_PIDS[@]}"; do
	wait "$p" || true
done
no_sanitizer_reports
