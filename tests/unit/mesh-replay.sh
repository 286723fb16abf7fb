#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf mesh --replay on synthetic fabrics (tests/unit/mesh-synth.py, a
# model written apart from rperf): a saved mesh and a topology give the
# localization again, without agents.
#  - the lab's saved mesh with one pair's p50 taken away: that pair is
#    left out (11 of 12 used), not taken as 0 ns.
#  - ECMP fat tree (16 hosts, 4 leaves, 2 spines), each pair's spine
#    drawn at random, +2000 ns on L2-S2: with the true routes (--routes)
#    L2 - S2 is the one finding, the truth 2300 ns within its interval;
#    with every pair on the lowest-numbered spine (the one shortest path
#    rperf took before it read routes) the healthy L2 - S1 takes the
#    delay and would be named (its figure and low end above every other
#    fabric hop's), and the verdict is now "routes do not fit the
#    measurements", no hop named; without routes the pairs' paths are
#    unknown (ECMP) and said so, and no hop is named.
#  - a slow switch (all of S2's links +1500 ns on a 3-spine tree): the
#    switch is named, not its links.
#  - a slow group (L1 - C - L2, +2000 ns on L1 - C, against a reference):
#    the group and its members are named.
#  - drift: +-50 ns a host between the reference and the run: nothing is
#    named (the floor from the reference's spread; each kind of hop
#    against its own spread even with --min-change 1ns), signed changes
#    both ways; a real +2000 ns on L2 - S2 among the drift is the one
#    finding.
#  - multi-rail: six hosts with two CAs each (h1 mlx5_0, h1 mlx5_1, ...)
#    on an InfiniBand fat tree; the routes are OpenSM's forwarding tables
#    as dump_lfts printed them (tests/data/ib/fat-tree.*, captured from
#    ibsim: see tests/data/ib/README), the pairs' paths walked by the
#    model from the same captures; endpoints HOST/DEVICE; +2000 ns on
#    S2 - L2 is named. "h1" alone is refused as ambiguous.
#  - multi-rail hosts as one node of several links (a topology file's
#    "h1:mlx5_1 L2", rail-optimized: rail r of each host on its own
#    leaf), endpoints HOST/PORT, two rails of one host a pair too: +2000
#    ns on h1's second rail's link is named, the truth within its
#    interval, with the routes and with shortest paths (ECMP fitted).
# Run by `make check` with RPERF, TEST_DATA and TEST_TOP set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
SYNTH="python3 $TOP/tests/unit/mesh-synth.py"

# A template mesh document: rperf mesh --json of two hosts no agent
# answered (tests/data/mesh-template.json), for the keys it carries.
cp "$D/mesh-template.json" "$T/template.json"

# findings FILE: each finding's "kind name", one a line.
findings() {
	jq -r '.locate.findings[] | "\(.kind) \(.name)"' "$1"
}

# ---- a pair without a p50 -------------------------------------------
# The lab's saved mesh (tests/data/json/mesh.json), one pair's p50 taken
# away as when it had no samples: that pair is left out, never a 0 ns
# figure; and the template, whose pairs have none, gives no pair at all.
LAB_TOPO="--topology sw1=$D/lldp/lab/sw1-neighbors.json --topology sw2=$D/lldp/lab/sw2-neighbors.json"
jq '.pairs[0].p50 |= (.state = "no_samples" | .value_ns = null | .ci_low_ns = null |
	.ci_high_ns = null)' "$D/json/mesh.json" >"$T/lab-gap.json"
# shellcheck disable=SC2086 # LAB_TOPO: words
expect 0 mesh --replay "$T/lab-gap.json" $LAB_TOPO -j "$T/lab-gap.out.json"
out_has "4 hosts, 1 classes, 11 pairs with a p50"
jq -e '.locate.used == 11' "$T/lab-gap.out.json" >/dev/null ||
	fail "a pair without a p50 is used: $(jq -c .locate "$T/lab-gap.out.json")"
expect 0 mesh --replay "$T/template.json" $LAB_TOPO
out_has "2 hosts, 1 classes, 0 pairs with a p50"

# ---- ECMP fat tree --------------------------------------------------
mkdir -p "$T/ft"
$SYNTH fattree "$T/ft" --leaves 4 --spines 2 --per-leaf 4 --seed 3
$SYNTH mesh "$T/ft/routes" "$T/template.json" --slow L2-S2=2000 --noise 10 >"$T/ft/m.json"
expect 0 mesh --replay "$T/ft/m.json" --topology "$T/ft/topo" --routes "$T/ft/routes" \
	-j "$T/ft/true.json"
"$TOP/scripts/validate-json" "$TOP/schema" "$T/ft/true.json" >"$T/v" 2>&1 ||
	fail "the replayed JSON does not validate: $(cat "$T/v")"
[ "$(findings "$T/ft/true.json")" = "hop L2 - S2" ] ||
	fail "true routes: not L2 - S2 alone: $(findings "$T/ft/true.json")"
jq -e '.hops[] | select(.name == "L2 - S2") | .ci_low_ns <= 2300 and 2300 <= .ci_high_ns' \
	"$T/ft/true.json" >/dev/null ||
	fail "true routes: 2300 ns outside L2 - S2's interval: $(jq -c '.hops[] |
		select(.name == "L2 - S2")' "$T/ft/true.json")"
jq -e '.locate.routes == "routes" and .locate.misfit == false and .locate.ecmp_unknown == 0' \
	"$T/ft/true.json" >/dev/null || fail "true routes: $(jq -c .locate "$T/ft/true.json")"
expect 0 mesh --replay "$T/ft/m.json" --topology "$T/ft/topo" --routes "$T/ft/first-routes" \
	-j "$T/ft/first.json"
jq -e '[.hops[] | select(.name | test("^L.* - S")) ] as $f |
	($f | map(select(.name == "L2 - S1"))[0]) as $h |
	($f | map(select(.name != "L2 - S1"))) as $o |
	$h.est_ns > 1000 and $h.ci_low_ns > ($o | map(.ci_high_ns) | max)' "$T/ft/first.json" \
	>/dev/null || fail "one shortest path: the healthy L2 - S1 does not take the delay"
[ "$(findings "$T/ft/first.json")" = "misfit routes" ] ||
	fail "one shortest path: not the misfit verdict: $(findings "$T/ft/first.json")"
jq -e '[.hops[] | select(.slow)] == []' "$T/ft/first.json" >/dev/null ||
	fail "one shortest path: a hop named slow"
expect 0 mesh --replay "$T/ft/m.json" --topology "$T/ft/topo"
out_has "^ECMP: 192 pairs' paths are not known"
expect 0 mesh --replay "$T/ft/m.json" --topology "$T/ft/topo" -j "$T/ft/ecmp.json"
jq -e '.locate.ecmp_unknown == 192 and .locate.routes == "shortest" and
	([.hops[] | select(.slow)] == []) and
	([.locate.findings[] | select(.kind != "misfit")] == [])' "$T/ft/ecmp.json" \
	>/dev/null || fail "unknown paths: $(jq -c .locate "$T/ft/ecmp.json")"

# ---- slow switch ----------------------------------------------------
mkdir -p "$T/sw"
$SYNTH fattree "$T/sw" --leaves 4 --spines 3 --per-leaf 3 --seed 5
$SYNTH mesh "$T/sw/routes" "$T/template.json" --slow-switch S2=1500 >"$T/sw/m.json"
expect 0 mesh --replay "$T/sw/m.json" --topology "$T/sw/topo" --routes "$T/sw/routes" \
	-j "$T/sw/out.json"
[ "$(findings "$T/sw/out.json")" = "switch S2" ] ||
	fail "slow switch: not S2 alone: $(findings "$T/sw/out.json")"
jq -e '.locate.findings[0].why | test("all its 4 identifiable links")' "$T/sw/out.json" \
	>/dev/null || fail "slow switch: $(jq -c .locate.findings "$T/sw/out.json")"

# ---- slow group, against a reference --------------------------------
mkdir -p "$T/grp"
printf 'h1 L1\nh2 L1\nh3 L1\nh4 L2\nh5 L2\nh6 L2\nL1 C\nC L2\n' >"$T/grp/topo"
for a in 1 2 3 4 5 6; do
	for b in 1 2 3 4 5 6; do
		[ $a = $b ] && continue
		la=L$(((a - 1) / 3 + 1)) lb=L$(((b - 1) / 3 + 1))
		if [ "$la" = "$lb" ]; then echo "h$a $la h$b"; else echo "h$a $la C $lb h$b"; fi
	done
done >"$T/grp/routes"
$SYNTH mesh "$T/grp/routes" "$T/template.json" --seed 1 >"$T/grp/ref.json"
$SYNTH mesh "$T/grp/routes" "$T/template.json" --seed 2 --slow L1-C=2000 >"$T/grp/m.json"
expect 0 mesh --replay "$T/grp/m.json" --topology "$T/grp/topo" --reference "$T/grp/ref.json" \
	-j "$T/grp/out.json"
[ "$(findings "$T/grp/out.json")" = "group L1 - C" ] ||
	fail "slow group: not the group of L1 - C: $(findings "$T/grp/out.json")"
jq -e '.locate.findings[0] | (.why | test("2 hops crossed by the same pairs.*.L1 - C. .C - L2.")) and
	.ci_low_ns <= 2000 and 2000 <= .ci_high_ns' "$T/grp/out.json" >/dev/null ||
	fail "slow group: $(jq -c .locate.findings "$T/grp/out.json")"

# ---- drift between the reference and the run ------------------------
$SYNTH mesh "$T/ft/routes" "$T/template.json" --seed 11 >"$T/ft/ref.json"
$SYNTH mesh "$T/ft/routes" "$T/template.json" --seed 12 --drift 50 >"$T/ft/drift.json"
expect 0 mesh --replay "$T/ft/drift.json" --topology "$T/ft/topo" --routes "$T/ft/routes" \
	--reference "$T/ft/ref.json" -j "$T/ft/d.json"
jq -e '.locate.findings == [] and .locate.floor_ns > 50 and
	([.hops[] | select(.identifiable and .est_ns < -10)] | length) > 0 and
	([.hops[] | select(.identifiable and .est_ns > 10)] | length) > 0' "$T/ft/d.json" \
	>/dev/null || fail "drift: $(jq -c '[.locate, [.hops[] | .est_ns]]' "$T/ft/d.json")"
out_has "a change must pass .* us \(from the reference's spread\)"
expect 0 mesh --replay "$T/ft/drift.json" --topology "$T/ft/topo" --routes "$T/ft/routes" \
	--reference "$T/ft/ref.json" --min-change 1ns -j "$T/ft/d1.json"
jq -e '.locate.floor_ns == 1 and .locate.findings == []' "$T/ft/d1.json" >/dev/null ||
	fail "drift, --min-change 1ns: $(jq -c .locate "$T/ft/d1.json")"
$SYNTH mesh "$T/ft/routes" "$T/template.json" --seed 13 --drift 50 --slow L2-S2=2000 \
	>"$T/ft/drift-slow.json"
expect 0 mesh --replay "$T/ft/drift-slow.json" --topology "$T/ft/topo" --routes "$T/ft/routes" \
	--reference "$T/ft/ref.json" -j "$T/ft/ds.json"
[ "$(findings "$T/ft/ds.json")" = "hop L2 - S2" ] ||
	fail "drift and a slow link: not L2 - S2 alone: $(findings "$T/ft/ds.json")"

# ---- multi-rail hosts over InfiniBand forwarding tables -------------
mkdir -p "$T/mr"
IBND="$D/ib/fat-tree.ibnetdiscover.txt" LFTS="$D/ib/fat-tree.lfts.txt"
$SYNTH lft "$IBND" "$LFTS" "$T/mr/routes"
[ "$(wc -l <"$T/mr/routes")" = 132 ] || fail "multi-rail: expected 132 paths"
$SYNTH mesh "$T/mr/routes" "$T/template.json" --slow L2-S2=2000 >"$T/mr/m.json"
expect 0 mesh --replay "$T/mr/m.json" --topology "$IBND" --routes "$LFTS" -j "$T/mr/out.json"
[ "$(findings "$T/mr/out.json")" = "hop S2:2 - L2:6" ] ||
	fail "multi-rail: not S2 - L2 alone: $(findings "$T/mr/out.json")"
jq -e '.locate.routes == "lft" and .locate.used == 132 and (.hosts | index("h1/mlx5_1"))' \
	"$T/mr/out.json" >/dev/null || fail "multi-rail: $(jq -c .locate "$T/mr/out.json")"
sed 's|"h1/mlx5_0"|"h1"|g' "$T/mr/m.json" >"$T/mr/bare.json"
expect 0 mesh --replay "$T/mr/bare.json" --topology "$IBND" --routes "$LFTS"
out_has "host 'h1' is not in the topology as one node: it has several devices"

# ---- multi-rail hosts as one node of several links -------------------
mkdir -p "$T/rails"
$SYNTH fattree "$T/rails" --leaves 4 --spines 2 --per-leaf 3 --rails 2 --seed 4
$SYNTH mesh "$T/rails/routes" "$T/template.json" --slow h1/mlx5_1-L2=2000 >"$T/rails/m.json"
# the model's share of a host's link: 1000 + 400 i / (n - 1) ns, i its place
truth=$(jq '(.hosts | index("h1/mlx5_1")) as $i | 1000 + 400 * $i / (.hosts | length - 1) + 2000' \
	"$T/rails/m.json")
for routes in "--routes $T/rails/routes" ""; do
	# shellcheck disable=SC2086
	expect 0 mesh --replay "$T/rails/m.json" --topology "$T/rails/topo" $routes -j "$T/rails/o.json"
	[ "$(findings "$T/rails/o.json")" = "hop h1:mlx5_1 - L2" ] ||
		fail "rails ($routes): not h1's second rail alone: $(findings "$T/rails/o.json")"
	jq -e --argjson t "$truth" '.hops[] | select(.name == "h1:mlx5_1 - L2") |
		.ci_low_ns <= $t and $t <= .ci_high_ns' "$T/rails/o.json" >/dev/null ||
		fail "rails ($routes): $truth ns outside its interval: $(jq -c '.hops[] |
			select(.name == "h1:mlx5_1 - L2")' "$T/rails/o.json")"
	jq -e '.locate.used == 132 and (.hops[] | select(.name == "h1:mlx5_0 - L1") | .slow | not)' \
		"$T/rails/o.json" >/dev/null || fail "rails ($routes): $(jq -c .locate "$T/rails/o.json")"
done
sed 's|"h1/mlx5_1"|"h1/mlx5_9"|g' "$T/rails/m.json" >"$T/rails/bad.json"
expect 0 mesh --replay "$T/rails/bad.json" --topology "$T/rails/topo"
out_has "host 'h1/mlx5_9' is not in the topology"

# ---- what --replay refuses ------------------------------------------
expect 2 mesh --replay "$T/ft/m.json"
has "--replay goes with --topology"
expect 2 mesh --replay "$T/ft/m.json" --topology "$T/ft/topo" --hosts h1,h2
has "--replay takes no scenario nor hosts"
expect 2 mesh --replay "$T/template.json" --topology "$T/ft/topo" --routes "$T/grp/topo"
has "no link joins 'h4' and 'L2'"
printf 'h1 L1 S9 L2 h5\n' >"$T/bad.routes"
expect 2 mesh --replay "$T/ft/m.json" --topology "$T/ft/topo" --routes "$T/bad.routes"
has "bad.routes:1: no node 'S9'"

finish "mesh-replay: all passed"
