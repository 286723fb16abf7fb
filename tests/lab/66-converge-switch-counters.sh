#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Counting at the switch: the scenario names a command that prints the
# destination port's per-band counters (tc -s -j qdisc show dev p3
# invisible); converge runs it as the window starts and ends and puts
# each band's share of what the port sent beside the share the
# destination received. They must agree within TOL points: the same
# bytes, counted at both ends of the last link.
#
# TOL is 4 points, as for the shares (60-converge-shares.sh). That holds
# for the same bytes only: when the busy lab drops a packet on its way
# into the switch, the go-back-N packets behind it still cross the switch
# port and are counted there, but the destination discards them (out of
# sequence) until the resend. Runs with losses saw band 1 at 51.0 % at
# the switch and 49.0 % at the destination, band 2 at 25.9 % and 28.8 %,
# and once band 0 at 26.7 % and 21.6 %; runs without losses agreed within
# 2. So a run whose hosts retransmitted and whose shares disagree is run
# again, at most three runs in all; a run without retransmissions must
# agree, and three runs that each lost packets fail too.
#
# The coordinator runs on h1, which cannot run tc on the switch: the
# switch writes its counters to its results directory every 200 ms, and
# the command reads the latest (h1 sees this machine's files).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

TOL=4
ETS=$TOP/examples/ets-strict-2to1.txt
SW_RESULTS=$(cd "${RPERF_LAB_DIR:-$TOP/.lab}" && pwd)/vm/sw/results
"$LAB" egress h3 "rate=10mbit,ets=$ETS"
stop_counters() {
	in_vm sw 'kill $(cat $RPERF_LAB_RESULTS/counters.pid) 2>/dev/null; rm -f $RPERF_LAB_RESULTS/counters.pid $RPERF_LAB_RESULTS/p3*.json; true' || true
}
trap 'stop_counters; stop_agents; cleanup' EXIT
in_vm_bg sw 'echo $$ >$RPERF_LAB_RESULTS/counters.pid; while :; do
	tc -s -j qdisc show dev p3 invisible >$RPERF_LAB_RESULTS/p3.tmp.json &&
	mv $RPERF_LAB_RESULTS/p3.tmp.json $RPERF_LAB_RESULTS/p3.json; sleep 0.2; done' "$WORK/counters.out"
in_vm h1 "for i in \$(seq 100); do [ -s $SW_RESULTS/p3.json ] && exit 0; sleep 0.1; done; exit 1" ||
	fail "h1 does not see the switch's counters in $SW_RESULTS"

# The three-band scenario of 64-converge-paced.sh, reading the switch.
in_vm h1 "sed -e 's#^arbitration = .*#arbitration = $ETS#' \
	-e '/^\[global\]/a switch_counters = cat $SW_RESULTS/p3.json' \
	$TOP/examples/converge-ets-paced.ini >\$RPERF_LAB_RESULTS/counted.ini"
start_agents
# The verdict against the analysis is 64-converge-paced.sh's subject, on
# the same scenario; here the switch VM also runs tc every 200 ms, which
# shifts its DRR split by a few points at times (band 1 at 46.8 % against
# 52.4 % analyzed once, without a retransmission). So exit 3 is accepted
# here, any other failure is not.
agree() { # NAME: every band's switch and destination shares within TOL
	local band sw rx ok=0
	for band in 0 1 2; do
		sw=$(step_jq "$1" ".classes[] | select(.band == $band) | .switch_share_pct")
		rx=$(step_jq "$1" ".classes[] | select(.band == $band) | .share_pct")
		echo "$1: band $band: switch $sw %, destination $rx %"
		within_abs "$sw" "$rx" "$TOL" || ok=1
	done
	return $ok
}
for run in 1 2 3; do
	rc=0
	converge counted --tolerance 4 '$RPERF_LAB_RESULTS/counted.ini' || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || [ "$rc" = 4 ] || fail "converge exited $rc reading the switch's counters"
	[ "$(step_jq counted .switch_counters)" = true ] ||
		fail "no switch counters: $(step_jq counted .switch_error)"
	agree counted && break
	retrans=$(step_jq counted '[.classes[].retransmissions // 0] | add')
	[ "$retrans" -gt 0 ] ||
		fail "the switch's and the destination's shares differ by more than $TOL points, without a retransmission"
	[ "$run" -lt 3 ] || fail "three runs, each with retransmissions on the hosts' ports, none within $TOL points"
	echo "run $run: the hosts' ports retransmitted, so the switch counted resent packets the destination discarded: again"
done
grep -q "switch port counters" "$WORK/counted.out" || fail "the table does not show the switch's shares"
echo "converge: switch-side shares beside the destination's, within $TOL points"
