#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf converge against rperf analyze on an ETS port: bandwidth flows
# from h1 and h2 into h3, two DRR bands at quanta 3:1 on the switch port
# toward h3, and a latency flow riding in the second band. The shares the
# destination receives must be within TOL points of `rperf analyze --model
# ets` on the same file, and converge says so with exit 0; given a 1:1
# configuration it did not run, it must exit 3.
#
# The agents run under the agent unit's limits that hold without systemd
# (converge-lib.sh's agent_sandbox: user nobody, no capabilities, no new
# privileges, unlimited locked memory in a cgroup capped at the unit's
# MemoryMax): the shares are measured through them.
#
# TOL is 4, not the default 2: the lab's emulated links drop packets when
# the machine is busy, and each loss costs a go-back-N retransmission that
# takes its band's turn without arriving (quiet runs land within 0.5).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

ETS=$TOP/examples/ets-3to1.txt
"$LAB" egress h3 "rate=10mbit,ets=$ETS"
trap 'stop_agents; cleanup' EXIT
AGENT_SANDBOX=1 start_agents

TOL=4
# Data connections that are no flow's, during the step: a client hello
# with a made-up secret from h1 (a source of the step) and from h3 (the
# destination itself, no source of it), each sent once h3's sink listens.
# Each is refused without a QP, counted in the JSON, and the shares below
# stay those of analyze.
forgers=()
for h in h1 h3; do
	in_vm_bg "$h" "python3 $TOP/tests/lab/forge-attach.py h3 18540 0 client" "$WORK/forge-$h.out"
	forgers+=("${BG_PIDS[-1]}")
done
converge shares --tolerance $TOL examples/converge-ets-shares.ini ||
	fail "converge exited $? on the configuration the switch runs"
for h in h1 h3; do
	wait "${forgers[0]}" || true
	forgers=("${forgers[@]:1}")
	[ "$(tail -n 1 "$WORK/forge-$h.out")" = -13 ] ||
		fail "a data connection from $h without the flow's secret: $(cat "$WORK/forge-$h.out")"
done
[ "$(step_jq shares '.ports[0].refused_connections')" = 2 ] ||
	fail "refused data connections: $(step_jq shares '.ports[0] | tostring'), want 2"
grep -q "agent h3: its sink refused 2 data connection(s)" "$WORK/shares.out" ||
	fail "converge did not warn of the refused data connections"
echo "forged data connections from h1 and h3: refused, $(step_jq shares '.ports[0].refused_connections') counted"
bands_within shares "$ETS" "$TOL"
[ "$(step_jq shares '.classes | length')" = 2 ] || fail "expected two classes"
# Each share has its 95 % interval from its shares in the sink's ten
# intervals of the window (at least nine whole ones reported), and its
# verdict follows from the interval: within, all of it within TOL.
step_jq shares '.ports[0].intervals >= 9 and .ports[0].verdict == "within" and
	.verdict == "within" and ([.classes[] | .share_ci_pct as $c | $c != null and
	$c[0] <= $c[1] and $c[0] >= .analyzed_pct - '$TOL' and $c[1] <= .analyzed_pct + '$TOL' and
	.verdict == "within" and .within] | all)' | grep -qx true ||
	fail "share intervals: $(step_jq shares '[.ports[0].intervals, [.classes[] | [.share_pct, .share_ci_pct, .analyzed_pct, .verdict]]] | tostring')"
echo "share intervals ($(step_jq shares .ports[0].intervals) intervals): $(step_jq shares '[.classes[] | "band \(.band): \(.share_pct * 10 | round / 10) % in [\(.share_ci_pct[0] * 10 | round / 10), \(.share_ci_pct[1] * 10 | round / 10)], analyzed \(.analyzed_pct * 10 | round / 10), \(.verdict)"] | join("; ")')"
for h in $AGENT_HOSTS; do
	check_agent_sandbox "$h"
done
[ "$(jq -r .within_tolerance "$WORK/shares.json")" = true ] || fail "JSON says out of tolerance"
# ETS has one reading: the fit is exact, best and configured are the
# same, and its difference is the largest class difference.
step_jq shares '.semantics_fit | .exact and .best.semantics == "ets" and .best == .configured and
	(.best.max_diff_pp <= '$TOL')' | grep -qx true ||
	fail "semantics fit: $(step_jq shares '.semantics_fit | tostring')"
grep -q '^fit: ets, its one reading' "$WORK/shares.out" || fail "the table has no fit line"
echo "fit: $(step_jq shares '.semantics_fit.best | "\(.semantics), \(.max_diff_pp) points at most"')"

rc=0
converge wrong --tolerance $TOL --arbitration tests/data/ets-wrong-1to1.txt examples/converge-ets-shares.ini || rc=$?
[ "$rc" = 3 ] || fail "a wrong expected configuration exited $rc, want 3"
grep -q OUT "$WORK/wrong.out" || fail "the table does not mark the class out of tolerance"
[ "$(jq -r .verdict "$WORK/wrong.json")" = out ] || fail "the wrong configuration's verdict: $(jq -c .verdict "$WORK/wrong.json")"
echo "converge: within tolerance of analyze (exit 0); wrong configuration detected (exit 3)"
# Both bw flows paced to 2 Mbit/s on the 10 Mbit/s port: no class
# saturates it, so no share is decided by the arbitration and nothing can
# be judged; converge says so and why, and exits 4, never 0.
in_vm h1 "sed -e '/^size = 4k/a rate = 2m' -e 's/^duration = 10s/duration = 4s/' \
	-e 's/^warmup = 3s/warmup = 1s/' $TOP/examples/converge-ets-shares.ini >/tmp/unsat.ini"
rc=0
converge unsat --tolerance $TOL --arbitration "$ETS" /tmp/unsat.ini || rc=$?
[ "$rc" = 4 ] || fail "no saturated class: converge exited $rc, want 4"
jq -e '.judged == false and ([.steps[-1].classes[] | .judged == false and
	(.unjudged_why | test("saturates its port|at its own measured rate"))] | all)' "$WORK/unsat.json" >/dev/null ||
	fail "no saturated class: judged, or no reason: $(step_jq unsat '[.classes[] | [.band, .judged, .unjudged_why]] | tostring')"
grep -Eq "not compared: no class saturates|nothing judged in this step" "$WORK/unsat.out" ||
	fail "no saturated class: the table does not say why nothing was judged"
echo "no saturated class: exit 4, $(step_jq unsat '[.classes[] | "band \(.band): \(.unjudged_why)"] | join("; ")')"
# The agent logged each refusal (its output is whole once it has ended).
stop_agents h3
for i in $(seq 100); do
	[ "$(grep -c "data connection refused: wrong secret for the flow" "$WORK/agent-h3.out")" = 2 ] &&
		break
	sleep 0.1
done
[ "$(grep -c "data connection refused: wrong secret for the flow" "$WORK/agent-h3.out")" = 2 ] ||
	fail "the agent on h3 did not log the 2 refusals: $(cat "$WORK/agent-h3.out")"
