#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# converge's faults, on real agents: an agent that cannot be reached, an
# agent that dies mid-run, and a flow the destination refuses. Each must
# end the run with exit 1 and one error naming the host and the flow(s);
# the other agents are told to stop, send what they measured and serve the
# next coordinator; the steps measured before stay in the JSON, and the
# step cut short is marked so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

trap 'stop_agents; cleanup' EXIT
start_agents

# expect_fault NAME PATTERN CONVERGE-ARGS...: exit 1, PATTERN in the output.
expect_fault() {
	local name=$1 pattern=$2 rc=0
	shift 2
	converge "$name" "$@" || rc=$?
	[ "$rc" = 1 ] || fail "$name: converge exited $rc, want 1"
	grep -Eq -- "$pattern" "$WORK/$name.out" || fail "$name: no error matching '$pattern'"
	echo "$name: exit 1 with: $(grep -E -- "$pattern" "$WORK/$name.out" | head -1)"
}

# write NAME [FLOW-LINES]: a scenario in h1's results directory (the guest
# reads it as $RPERF_LAB_RESULTS/NAME.ini): h1 lat + h2 bw into h3.
RES=${RPERF_LAB_DIR:-$TOP/.lab}/vm/h1/results
write() {
	lat_bw_scenario "$RES/$1.ini" h3 h2 "${DURATION:-6s}" "link_rate = 10mbit" "${2:-}"
	echo "\$RPERF_LAB_RESULTS/$1.ini"
}

# 1. A flow the destination refuses (messages above the port's limit).
expect_fault refused "agent 'h2', flow 'bw': .*refused the flow" "$(write refused "size = 16m")"
# Its step never began: the table says so instead of printing zeros.
grep -q '^not measured: the step ended before its window began$' "$WORK/refused.out" ||
	{ cat "$WORK/refused.out" >&2; fail "refused: the step is not marked 'not measured'"; }

# 2. An agent that cannot be reached.
stop_agents h2 KILL
sleep 1
expect_fault unreachable "agent 'h2' \(bw\) cannot be reached" --timeout 3 "$(write unreachable)"

# 3. An agent that dies during the run: the sweep's first step (lat only,
# without h2) is kept, the second fails when h2's agent is killed. The
# kill comes 3 s after h2's flow is seen connected, plus what the polls
# and the kill take in starved guests: with an 8 s window a busy machine
# once let step 1 end first (exit 0), so the window is 16 s (step 1 ends
# at the kill; step 0 runs it whole).
AGENT_HOSTS=h2 start_agents
f=$(DURATION=16s write dies)
# Once h2's flow is connected to h3's sink (step 1), kill h2's agent.
(
	in_vm h3 "for i in \$(seq 600); do ss -tnH state established '( sport = :18540 )' | grep -q 198.18.0.2 && exit 0; sleep 0.1; done; exit 1" &&
		sleep 3 && stop_agents h2 KILL
) &
watcher=$!
# (Its socket closes once the kernel has torn its RDMA resources down; if
# that outlasts the results' deadline, converge says so instead.)
expect_fault dies "agent 'h2' \(bw\)( is gone|: no result in time)" --sweep "$f"
wait "$watcher" || true
[ "$(jq -r .complete "$WORK/dies.json")" = false ] || fail "dies: JSON not marked incomplete"
[ "$(jq -r '.steps | length' "$WORK/dies.json")" -ge 1 ] || fail "dies: the first step was not kept"
# The step h2 died in is kept, cut short, with what h1 and h3 measured.
jq -e '(.steps | length == 2) and .steps[1].cut_short and (.steps[0].cut_short | not)' \
	"$WORK/dies.json" >/dev/null || { cat "$WORK/dies.json" >&2; fail "dies: the step cut short is not marked so"; }
# Once h2 was seen gone, h1's lat flow was stopped, and says why; unless
# it had ended its window first (h2's socket closes only once the kernel
# has torn its RDMA resources down), when it has its samples and no error.
if jq -e '.error | test("is gone")' "$WORK/dies.json" >/dev/null; then
	jq -e '[.steps[1].flows[] | select(.host == "h1") | if .error == null then .rtt_ns.count > 0
		else .error | test("^stopped: agent .h2. \\(bw") end] | all' \
		"$WORK/dies.json" >/dev/null || { cat "$WORK/dies.json" >&2; fail "dies: h1's flows do not say why they stopped"; }
fi
echo "dies: h1's flows: $(jq -r '[.steps[1].flows[] | select(.host == "h1") | .error] | unique | join("; ")' "$WORK/dies.json")"
echo "dies: step 1 kept, cut short after $(jq '.steps[1].window_s' "$WORK/dies.json") s of its window, $(jq '[.steps[1].flows[] | select(.type == "lat") | .rtt_ns.count // 0] | add' "$WORK/dies.json") lat samples from h1"

# The others were told to stop and serve the next coordinator.
for h in h1 h3; do
	in_vm "$h" "ss -ltn | grep -q ':18530 '" || fail "the agent on $h is gone"
done
echo "faults: each run ended with exit 1 and named the host and flow"
