#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf mesh --replay beyond 128 hosts (once the cap): a fat tree of 130
# hosts (13 leaves of 10, 2 spines, tests/unit/mesh-synth.py), each
# pair's spine drawn at random, +2000 ns on L7 - S2. The saved mesh of
# its 16770 pairs is read back, the topology and routes with it, and
# L7 - S2 is the one finding, the truth (2300 ns) within its interval.
# A mesh of more hosts than the cap is refused, naming the cap.
# Run by `make check` with RPERF, TEST_DATA and TEST_TOP set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
SYNTH="python3 $TOP/tests/unit/mesh-synth.py"

mkdir -p "$T/ft"
$SYNTH fattree "$T/ft" --leaves 13 --spines 2 --per-leaf 10 --seed 7
$SYNTH mesh "$T/ft/routes" "$D/mesh-template.json" --slow L7-S2=2000 --noise 10 \
	>"$T/ft/m.json"
expect 0 mesh --replay "$T/ft/m.json" --topology "$T/ft/topo" --routes "$T/ft/routes" \
	-j "$T/ft/out.json"
jq -e '(.hosts | length) == 130 and (.pairs | length) == 16770' "$T/ft/out.json" >/dev/null ||
	fail "not 130 hosts and 16770 pairs: $(jq -c '[(.hosts | length), (.pairs | length)]' \
		"$T/ft/out.json")"
[ "$(jq -r '.locate.findings[] | "\(.kind) \(.name)"' "$T/ft/out.json")" = "hop L7 - S2" ] ||
	fail "not L7 - S2 alone: $(jq -c .locate.findings "$T/ft/out.json")"
jq -e '.hops[] | select(.name == "L7 - S2") | .ci_low_ns <= 2300 and 2300 <= .ci_high_ns' \
	"$T/ft/out.json" >/dev/null ||
	fail "2300 ns outside L7 - S2's interval: $(jq -c '.hops[] |
		select(.name == "L7 - S2")' "$T/ft/out.json")"

# One host more than the cap: refused, the cap named.
jq --argjson n 4097 '.hosts = [range($n) | "h\(. + 1)"] | .pairs = []' \
	"$D/mesh-template.json" >"$T/big.json"
expect 2 mesh --replay "$T/big.json" --topology "$T/ft/topo"
has "4096"

finish "mesh --replay: 130 hosts located, 4097 refused"
