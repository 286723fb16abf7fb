#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ETS read from the tool that set it: the switch port toward h3 runs the
# three-band configuration of examples/ets-strict-2to1.txt, applied by tc.
# Its live `tc -j qdisc show` and `tc -j filter show` must give rperf
# analyze the same analysis (bands, quanta, DSCP map, shares) as the ETS
# file, and converge, given that output as its arbitration, must compare
# with it and exit 0 (or 4, a share not judged: not this test's subject).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

ETS=$TOP/examples/ets-strict-2to1.txt
"$LAB" egress h3 "rate=10mbit,ets=$ETS"
trap 'stop_agents; cleanup' EXIT

in_vm sw 'tc -j qdisc show dev p3; tc -j filter show dev p3 parent 10:' >"$WORK/p3.tc"
# The analysis, less the names of its input and format: bands (strict,
# quanta), each band's DSCPs and priorities, shares.
analysis() {
	"$RPERF" analyze --json - --link-gbps 0.01 "$@" 2>/dev/null |
		jq -S 'del(.source, .format)'
}
analysis "$ETS" >"$WORK/ets.analysis"
analysis "$WORK/p3.tc" >"$WORK/tc.analysis"
[ "$(jq -r .bands[0].dscp[0] "$WORK/tc.analysis")" = 46 ] || fail "the live tc output gave no DSCP map"
diff "$WORK/ets.analysis" "$WORK/tc.analysis" ||
	fail "the switch port's live tc output and the ETS file it was set from differ"
echo "rperf analyze: the switch port's live tc -j output = $ETS"

# converge reads the file from h1: hand it over through h1's results.
in_vm h1 "cat >\$RPERF_LAB_RESULTS/p3.json <<'JSON'
$(cat "$WORK/p3.tc")
JSON"
start_agents
converge_ran live --tolerance 4 --arbitration '$RPERF_LAB_RESULTS/p3.json' examples/converge-ets-paced.ini ||
	fail "converge against the live tc output exited $?"
jq -e '.config.arbitration | tostring | test("p3.json")' "$WORK/live.json" >/dev/null ||
	fail "converge did not take the tc output as its arbitration"
[ "$(step_jq live '.classes | length')" = 3 ] || fail "expected three bands"
echo "converge: compared with the live tc output"
