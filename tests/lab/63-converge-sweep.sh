#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# converge --sweep: the bandwidth flows join one at a time (0, 1, 2) and
# every step is reported and compared; scripts/rperf-plot turns the JSON
# into the CDF, shares and sweep figures.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

"$LAB" egress h3 "rate=10mbit,ets=$TOP/examples/ets-3to1.txt"
trap 'stop_agents; cleanup' EXIT
start_agents

rc=0
converge sweep --sweep --tolerance 4 --json-stream /tmp/sweep.jsonl examples/converge-ets-shares.ini || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || [ "$rc" = 4 ] || fail "converge --sweep exited $rc"
[ "$(jq -c '[.steps[].active_bw]' "$WORK/sweep.json")" = "[0,1,2]" ] ||
	fail "expected steps with 0, 1 and 2 bandwidth flows"
[ "$(step_jq sweep .compared 0)" = false ] || fail "step 0 has nothing saturating, yet was compared"
[ "$(step_jq sweep .compared 1)" = true ] || fail "step 1 was not compared"
for s in 0 1 2; do
	echo "step $s: $(step_jq sweep '[.classes[] | "band \(.band) \(.share_pct | floor)% (analyzed \(.analyzed_pct // "-"))"] | join(", ")' "$s")"
done
"$TOP/scripts/rperf-plot" "$WORK/sweep.json" "$WORK/plots"
for f in rtt-cdf shares sweep; do
	file "$WORK/plots/$f.png" | grep -q PNG || fail "no $f.png"
done
echo "sweep: 3 steps, figures drawn"
jq -e '.environment | (.coordinator.command_line | test("(^|/)rperf converge ")) and
	(.agents | keys == ["h1", "h2", "h3"]) and ([.agents[].device] | all(. == "rxe0"))' \
	"$WORK/sweep.json" >/dev/null || fail "environment: $(jq -c .environment "$WORK/sweep.json")"

# --json-stream: the start, each step as it ended (as the document has it)
# and the end, one object a line.
in_vm h1 'cat /tmp/sweep.jsonl' >"$WORK/sweep.jsonl"
jq -e -s --slurpfile doc "$WORK/sweep.json" '[.[].event] == ["start", "step", "step", "step", "end"] and
	([.[] | select(.event == "step") | .step] == $doc[0].steps) and
	.[4].within_tolerance == $doc[0].within_tolerance and .[4].verdict == $doc[0].verdict and
	(.[4].verdict == "within") == (.[4].within_tolerance)' "$WORK/sweep.jsonl" >/dev/null ||
	fail "the stream does not hold the document's steps: $(cut -c1-200 "$WORK/sweep.jsonl")"

# Killed (SIGKILL) once its first step has ended: every line written is
# whole, valid JSON, from the start up to that step.
in_vm h1 "$TOKEN_CMD; cd $TOP && rm -f /tmp/killed.jsonl
	($RPERF converge --sweep --token-file /tmp/rperf-token --json-stream /tmp/killed.jsonl \
		examples/converge-ets-shares.ini >/tmp/killed.out 2>&1 &)
	for i in \$(seq 120); do grep -q '\"event\":\"step\"' /tmp/killed.jsonl 2>/dev/null && break; sleep 0.5; done
	pkill -KILL -f 'rperf converge' || true" || fail "could not run and kill converge"
in_vm h1 'cat /tmp/killed.jsonl' >"$WORK/killed.jsonl"
jq -e -s '.[0].event == "start" and (map(select(.event == "step")) | length >= 1) and
	(map(select(.event == "end")) | length == 0)' "$WORK/killed.jsonl" >/dev/null ||
	fail "killed converge: stream not whole up to the kill: $(cut -c1-200 "$WORK/killed.jsonl")"
echo "killed after its first step: $(wc -l <"$WORK/killed.jsonl") whole lines ($(jq -r -s 'map(.event) | join(", ")' "$WORK/killed.jsonl"))"
