#!/usr/bin/env bash
# converge --sweep: the bandwidth flows join one at a time (0, 1, 2) and
# every step is reported and compared; scripts/rperf-plot turns the JSON
# into the CDF, shares and sweep figures.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

"$LAB" egress h3 "rate=10mbit,ets=$TOP/examples/ets-3to1.txt"
trap 'stop_agents; cleanup' EXIT
start_agents

rc=0
converge sweep --sweep --tolerance 4 examples/converge-ets-shares.ini || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "converge --sweep exited $rc"
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
