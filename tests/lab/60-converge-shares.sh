#!/usr/bin/env bash
# rperf converge against rperf analyze on an ETS port: bandwidth flows
# from h1 and h2 into h3, two DRR bands at quanta 3:1 on the switch port
# toward h3, and a latency flow riding in the second band. The shares the
# destination receives must be within TOL points of `rperf analyze --model
# ets` on the same file, and converge says so with exit 0; given a 1:1
# configuration it did not run, it must exit 3.
#
# TOL is 4, not the default 2: the lab's emulated links drop packets when
# the machine is busy, and each loss costs a go-back-N retransmission that
# takes its band's turn without arriving (quiet runs land within 0.5).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

ETS=$TOP/examples/ets-3to1.txt
"$LAB" egress h3 "rate=10mbit,ets=$ETS"
trap 'stop_agents; cleanup' EXIT
start_agents

TOL=4
converge shares --tolerance $TOL examples/converge-ets-shares.ini ||
	fail "converge exited $? on the configuration the switch runs"
"$RPERF" analyze --model ets --json - "$ETS" >"$WORK/analyze.json"
for band in 0 1; do
	got=$(step_jq shares ".classes[] | select(.band == $band) | .share_pct")
	want=$(jq -r ".bands[] | select(.band == $band) | .share_pct" "$WORK/analyze.json")
	echo "band $band: measured ${got} %, rperf analyze ${want} %"
	within_abs "$got" "$want" "$TOL" ||
		fail "band $band: measured $got %, analyzed $want %"
done
[ "$(step_jq shares '.classes | length')" = 2 ] || fail "expected two classes"
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
echo "converge: within tolerance of analyze (exit 0); wrong configuration detected (exit 3)"
