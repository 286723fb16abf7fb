#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf mesh over a real subnet manager's routes: OpenSM (up/down
# routing) programs the simulated fat tree tests/data/ib/fat-tree.net (2
# spines, 4 leaves, 6 hosts of two CAs each), and ibnetdiscover and
# dump_lfts read it live (scripts/iblab run). The live reads must give
# the same paths as the captures in tests/data/ib (the fixtures of
# tests/unit/mesh-replay.sh). ibsim cannot delay a link, so the delay
# goes into the measurements: a saved mesh whose pairs crossing S2 - L2
# (by the live tables, walked by tests/unit/mesh-synth.py) take +2000
# ns; rperf mesh --replay with the live topology and the live tables
# must name S2 - L2, its figure within its interval, and nothing else.
#
# Run by `make check` with RPERF, TEST_DATA and TEST_TOP set. Needs
# ibsim-utils, opensm, infiniband-diags, python3 and jq; it fails, never
# skips, without them.
RPERF=$(realpath "${RPERF:-src/rperf}")
TOP=$(realpath "${TEST_TOP:-.}")
D=$(realpath "${TEST_DATA:-tests/data}")
SYNTH="python3 $TOP/tests/unit/mesh-synth.py"
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

for c in ibsim ibsim-run opensm ibnetdiscover dump_lfts python3 jq; do
	command -v "$c" >/dev/null || { echo "FAIL: $c is missing (scripts/install-deps)"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/mesh-lft.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

printf 'routing_engine updn\n' >"$work/updn.conf"
# ibsim-run's shim leaves sys-PID folders in the working directory: $work.
(cd "$work" && "$TOP/scripts/iblab" run --net "$D/ib/fat-tree.net" --conf "$work/updn.conf" \
	sh -c 'ibnetdiscover >topo.txt 2>/dev/null && dump_lfts >lfts.txt 2>/dev/null') \
	>"$work/iblab.log" 2>&1 || { cat "$work/iblab.log"; echo "FAIL: iblab run"; exit 1; }
[ "$(grep -c 'of switch' "$work/lfts.txt")" = 6 ] ||
	fail "dump_lfts read $(grep -c 'of switch' "$work/lfts.txt") switches, want 6"

$SYNTH lft "$work/topo.txt" "$work/lfts.txt" "$work/routes" || fail "the live tables do not walk"
$SYNTH lft "$D/ib/fat-tree.ibnetdiscover.txt" "$D/ib/fat-tree.lfts.txt" "$work/routes.fixture"
diff -u "$work/routes.fixture" "$work/routes" >"$work/routes.diff" ||
	fail "the live tables' paths differ from the captures': $(head -n 20 "$work/routes.diff")"
grep -q ' S2 L2 ' "$work/routes" || fail "no pair crosses S2 - L2 toward L2"

$SYNTH mesh "$work/routes" "$TOP/tests/data/mesh-template.json" --slow S2-L2=2000 \
	>"$work/m.json"
"$RPERF" mesh --replay "$work/m.json" --topology "$work/topo.txt" --routes "$work/lfts.txt" \
	-j "$work/out.json" >"$work/out.txt" 2>"$work/err" || fail "replay: $(cat "$work/err")"
[ "$(jq -r '[.locate.findings[] | "\(.kind) \(.name)"] | join(",")' "$work/out.json")" = \
	"hop S2:2 - L2:6" ] || fail "not S2 - L2 alone: $(jq -c .locate "$work/out.json")"
jq -e '.locate.routes == "lft" and (.hops[] | select(.name == "S2:2 - L2:6") |
	.ci_low_ns <= 2300 and 2300 <= .ci_high_ns)' "$work/out.json" >/dev/null ||
	fail "S2 - L2's interval misses 2300 ns: $(jq -c '.hops[] | select(.slow)' "$work/out.json")"
# the same measurements over the one shortest path a pair would take
# without the tables: not the slow link alone.
"$RPERF" mesh --replay "$work/m.json" --topology "$work/topo.txt" -j "$work/sp.json" \
	>/dev/null 2>&1
jq -e '[.locate.findings[] | select(.kind == "hop" and .name == "S2:2 - L2:6")] == []' \
	"$work/sp.json" >/dev/null || fail "without the tables, S2 - L2 named all the same"

[ "$fails" = 0 ] && echo "mesh-lft: the live tables' paths name S2 - L2"
[ "$fails" = 0 ]
