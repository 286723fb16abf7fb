#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf lat --reference FILE refuses, before it touches a device, every
# file that is not a complete lat document it can subtract from: the lab's
# own outputs (tests/data/json) of other commands, and the lab's lat
# output broken one way at a time. Each refusal exits 2 with one error
# line naming the file and the cause, and --json gets a failed document
# that says the same. And the lab's own --reference output is checked
# against the two documents it came from.
# Run by `make check` with RPERF, TEST_DATA and TEST_TOP set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
D=$D/json

# refused FILE CAUSE: --reference FILE exits 2, its one error line naming
# FILE and CAUSE (grep -F), nothing measured; the --json document too.
refused() {
	rc=0
	"$RPERF" lat --reference "$1" --json "$T/out.json" 192.0.2.1 >"$T/out" 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "$1: exit status $rc, want 2: $(cat "$T/out")"
	[ "$(wc -l <"$T/out")" = 1 ] || fail "$1: not one line: $(cat "$T/out")"
	grep -qF "rperf: error: reference '$1': $2" "$T/out" || fail "$1: want '$2', got: $(cat "$T/out")"
	jq -e --arg f "$1" --arg c "$2" '.command == "lat" and .complete == false and
		(.error | contains("reference '\''" + $f + "'\'': " + $c))' "$T/out.json" >/dev/null ||
		fail "$1: the --json document does not say why: $(cat "$T/out.json")"
	"$TOP/scripts/validate-json" "$TOP/schema" "$T/out.json" >/dev/null 2>&1 ||
		fail "$1: the failed document does not validate"
}

# broken NAME JQ: the lab's lat output through the jq filter JQ, as $T/NAME.json.
broken() {
	jq "$2" "$D/lat.json" >"$T/$1.json" || fail "jq $2"
}

[ -s "$D/lat.json" ] || fail "no lab lat output in $D"
S=$(jq '.results[0].size_bytes' "$D/lat.json")
refused "$T/no-such.json" "No such file or directory"
refused "$T" "not a file of at most"
refused "$D/bw.json" "not an rperf lat document (command 'bw')"
refused "$D/converge.json" "not an rperf lat document (command 'converge')"
head -c 300 "$D/lat.json" >"$T/cut.json"
refused "$T/cut.json" "not JSON"
sed '0,/"complete"/s/"complete": *\(true\|false\)/"complete": true, "complete": true/' \
	"$D/lat.json" >"$T/twice.json"
refused "$T/twice.json" "not JSON"
broken other-schema '.schema_version = 1'
refused "$T/other-schema.json" "schema_version not from 2 to"
broken incomplete '.complete = false'
refused "$T/incomplete.json" "the run did not complete"
broken no-clock 'del(.clock.source)'
refused "$T/no-clock.json" "no clock source"
broken no-results '.results = []'
refused "$T/no-results.json" "no results"
broken twice '.results += [.results[0]]'
refused "$T/twice.json" "size $S twice"
broken size0 '.results[0].size_bytes = 0'
refused "$T/size0.json" "a result without a size_bytes from 1 up"
broken size-partial '.results[0].complete = false'
refused "$T/size-partial.json" "size $S did not complete"
broken no-value '.results[0].rtt_ns.percentiles.p90.value_ns = null'
refused "$T/no-value.json" "size $S, RTT p90: a resolved percentile without a time"
broken value-unresolved '.results[0].rtt_ns.percentiles.p50.state = "unresolved"'
refused "$T/value-unresolved.json" "size $S, RTT p50: a value for a percentile that is not resolved"
broken bad-state '.results[0].rtt_ns.percentiles.p99.state = "fine"'
refused "$T/bad-state.json" "size $S, RTT p99: no percentile state"
broken outside '.results[0].rtt_ns.percentiles.p50 |= (.ci_low_ns = .value_ns + 1)'
refused "$T/outside.json" "size $S, RTT p50: an interval that does not hold its value"
broken huge '.results[0].rtt_ns.percentiles.p50.ci_high_ns = 1e300'
refused "$T/huge.json" "size $S, RTT p50: an interval side that is not a time"
broken negative '.results[0].rtt_ns.percentiles.p50.value_ns = -5'
refused "$T/negative.json" "size $S, RTT p50: a resolved percentile without a time"
# A document of a lat run that failed before it measured.
"$RPERF" lat --reference "$T/no-such.json" --json "$T/failed.json" 192.0.2.1 >/dev/null 2>&1
refused "$T/failed.json" "the run did not complete"
# The lab's pair: the switched run (lat.json) took the back-to-back one
# (lat-direct.json) as its reference. Each difference it reported is its
# percentile minus the reference's, with [lo - hi', hi - lo'] (0.1 ns
# rounding each), and no figure where either side has none.
jq -e --slurpfile d "$D/lat-direct.json" '
	def near(a; b): (a - b | if . < 0 then -. else . end) <= 0.25;
	def side(a; b): if a == null or b == null then null else a - b end;
	.reference.confidence == 0.9 and ([.results[] | . as $m |
		($d[0].results[] | select(.size_bytes == $m.size_bytes) | .rtt_ns.percentiles) as $r |
		["p50", "p90", "p99"][] | . as $k | $m.reference[$k] as $x |
		$m.rtt_ns.percentiles[$k] as $p | $r[$k] as $q |
		if $p.state == "resolved" and $q.state == "resolved" then
			$x.state == "resolved" and near($x.value_ns; $p.value_ns - $q.value_ns) and
			$x.reference_ns == $q.value_ns and
			(side($p.ci_low_ns; $q.ci_high_ns) as $lo | if $lo == null then $x.ci_low_ns == null
				else near($x.ci_low_ns; $lo) end) and
			(side($p.ci_high_ns; $q.ci_low_ns) as $hi | if $hi == null then $x.ci_high_ns == null
				else near($x.ci_high_ns; $hi) end)
		else $x.state != "resolved" and $x.value_ns == null and ($x.reason | length > 0) end] |
		length == 3 * ($d[0].results | length) and all)' "$D/lat.json" >/dev/null ||
	fail "the lab's --reference output is not its two documents' difference"
"$RPERF" lat --help | grep -q -- '--reference FILE' || fail "--help does not give --reference"
finish "reference-cli: every broken reference refused, naming the file"
