#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# More than one bandwidth flow per agent, paced ones among them, on a
# three-band ETS port (one strict band, two DRR bands at quanta 2:1)
# toward h3. First h1 runs a paced flow (2 Mbit/s, strict band) beside a
# saturating one; then two paced flows (1 Mbit/s each, strict band and
# first DRR band) while h2 saturates both DRR bands. Each run must
# end whole (every agent's result in time, no step cut short) with exit 0:
# the shares within TOL points of rperf analyze, and each paced flow
# received at its rate.
#
# A paced QP ends its run with requests posted since its last signaled
# one; they report only through a zero-length WRITE to the sink's buffer.
# The agent did not know that buffer, so its drain waited for completions
# that never came and the coordinator gave up on it ("no result in time").
#
# TOL is 4, as in 60-converge-shares.sh: the lab's emulated links drop
# packets when the machine is busy.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

"$LAB" egress h3 "rate=10mbit,ets=$TOP/examples/ets-strict-2to1.txt"
trap 'stop_agents; cleanup' EXIT
start_agents

TOL=4
# check NAME FLOW=MBIT...: the run was whole and each paced flow got its rate.
check() {
	local name=$1 kv flow want got
	shift
	[ "$(jq -r .complete "$WORK/$name.json")" = true ] || fail "$name: JSON not complete"
	[ "$(step_jq "$name" .cut_short)" = false ] || fail "$name: step cut short"
	[ "$(step_jq "$name" '[.flows[] | select(.error != null)] | length')" = 0 ] ||
		fail "$name: a flow has an error: $(step_jq "$name" '[.flows[].error] | tostring')"
	[ "$(step_jq "$name" '.classes | length')" = 3 ] || fail "$name: expected three bands"
	for kv in "$@"; do
		flow=${kv%%=*} want=${kv#*=}
		got=$(step_jq "$name" ".flows[] | select(.name == \"$flow\") | .gbps * 1000")
		echo "$name: $flow received $got Mbit/s, paced at $want"
		within_pct "$got" "$want" 10 || fail "$name: $flow received $got Mbit/s, paced at $want"
	done
	step_jq "$name" '.classes[] | "\(.band): measured \(.share_pct) %, analyzed \(.analyzed_pct) %"'
}

converge paced --tolerance $TOL examples/converge-ets-paced.ini ||
	fail "converge exited $? with a paced and a saturating flow on h1"
check paced ef=2
converge two-paced --tolerance $TOL examples/converge-ets-two-paced.ini ||
	fail "converge exited $? with two paced flows on h1"
check two-paced ef=1 af11-paced=1
echo "converge: paced flows beside others on one agent, three bands, exit 0"
