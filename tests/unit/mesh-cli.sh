#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf mesh without RDMA hardware: exit statuses and usage errors; a mesh
# whose agents cannot be reached still writes every output, each saying
# so; its OpenMetrics text, that of a made-up mesh with unresolved and
# empty pairs (tests/unit/test_mesh --openmetrics) and that of a located
# mesh of two traffic classes on one SL (--located-om), pass `promtool
# check metrics` (Debian's prometheus package).
# Run by `make check` with RPERF (the built binary) and TEST_TOP set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
TEST_MESH=${TEST_MESH:-tests/unit/test_mesh}

command -v promtool >/dev/null || { fail "promtool is missing (apt-get install prometheus)"; exit 1; }

expect 0 mesh --help
expect 2 mesh
has "a scenario or --hosts"
expect 2 mesh --hosts h1,h2 s.ini
expect 2 mesh --hosts h1
has "two hosts or more"
expect 2 mesh --hosts h1,h2 --sl 16
has "--sl '16': expected 0 to 15"
expect 2 mesh --hosts h1,h2 --sl 0,1 --tclass 96
has "as many of each"
expect 2 mesh --hosts h1,h2 --count 3
has "--count goes with --interval"
expect 2 mesh --hosts h1,h2 --launch ssh
has "--launch needs --token-file"
expect 2 mesh --hosts "h1,[::1"
has "host '\[::1'"

# The fabric's inputs: refused before any agent is reached.
printf 'h1 sw1\nh2 sw1:p1:x\n' >"$T/bad.topo"
expect 2 mesh --hosts h1,h2 --topology "$T/bad.topo"
has "bad.topo:2: "
expect 2 mesh --hosts h1,h2 --reference "$T/m.json"
has "--reference goes with --topology"
printf 'h1 sw1\nh2 sw1\n' >"$T/fabric.topo"
echo '{"command": "lat"}' >"$T/lat.json"
expect 2 mesh --hosts h1,h2 --topology "$T/fabric.topo" --reference "$T/lat.json"
has "not an rperf mesh document"
truncate -s 17M "$T/huge.json"
expect 2 mesh --hosts h1,h2 --topology "$T/fabric.topo" --reference "$T/huge.json"
has "huge.json': not a file of at most 16777216 bytes"
expect 2 mesh --hosts h1,h2 --topology "$T/fabric.topo" --topology-format dot
has "--topology-format 'dot': expected ibnetdiscover, lldp or file"
expect 2 mesh --hosts h1,h2 --sample 2
has "--sample goes with --topology"
expect 2 mesh --hosts h1,h3 --topology "$T/fabric.topo" --sample 1
has "--sample: host 'h3' has no link to a switch in the topology"

# No agent listens: every output is written, and says the mesh is incomplete;
# nothing was measured, so the error alone is printed, no table of empty cells.
P=$((20000 + ($$ + 11) % 20000))
expect 1 mesh --hosts "127.0.0.1:$P 127.0.0.2:$P,127.0.0.3:$P" --timeout 1 --sl 0,2 \
	-j "$T/m.json" --json-stream "$T/m.jsonl" --csv "$T/m.csv" --openmetrics "$T/m.prom" \
	--plot "$T/heat"
has "cannot be reached"
[ ! -s "$T/out" ] || fail "a table printed though nothing was measured: $(cat "$T/out")"
[ "$(grep -c "cannot be reached" "$T/err")" = 1 ] || fail "the error is not said once: $(cat "$T/err")"
"$TOP/scripts/validate-json" "$TOP/schema" "$T/m.json" "$T/m.jsonl" >"$T/v" 2>&1 ||
	fail "outputs do not validate: $(cat "$T/v")"
jq -e '.complete == false and .rounds == 3 and .steps == 12 and (.pairs | length) == 12 and
	([.pairs[].p50.state] | unique) == ["no_samples"]' "$T/m.json" >/dev/null ||
	fail "unexpected JSON: $(cat "$T/m.json")"
[ "$(wc -l <"$T/m.csv")" = 13 ] || fail "expected a header and 12 rows: $(cat "$T/m.csv")"
for f in heat-sl0.gp heat-sl0.dat heat-sl2.gp heat-sl2.dat; do
	[ -s "$T/$f" ] || fail "--plot wrote no $f"
done
[ "$(grep -c NaN "$T/heat-sl0.dat")" = 3 ] || fail "a pair without figures is not NaN: $(cat "$T/heat-sl0.dat")"
ls "$T" | grep -q 'm\.prom\.' && fail "a temporary file was left: $(ls "$T")"
promtool check metrics <"$T/m.prom" >"$T/p" 2>&1 || fail "promtool: $(cat "$T/p")"
grep -q '^rperf_mesh_complete 0$' "$T/m.prom" || fail "the OpenMetrics text does not say incomplete"

# With a topology and no figure, the hops are not located, and say why.
expect 1 mesh --hosts "127.0.0.1:$P,127.0.0.2:$P" --timeout 1 --topology "$T/fabric.topo" \
	-j "$T/t.json"
"$TOP/scripts/validate-json" "$TOP/schema" "$T/t.json" >"$T/v" 2>&1 ||
	fail "the JSON with a topology does not validate: $(cat "$T/v")"
jq -e '.locate.error != null and .hops == [] and (.locate_by_sl | length) == 1' "$T/t.json" \
	>/dev/null || fail "no figure, yet hops: $(jq -c '[.hops, .locate]' "$T/t.json")"

# Sampled, over two leaves of two hosts: the schedule says so; nothing
# was measured, so no pair is listed (none is shown as empty).
printf '127.0.0.1 sw1\n127.0.0.2 sw1\n127.0.0.3 sw2\n127.0.0.4 sw2\nsw1 sw2\n' >"$T/leaves.topo"
expect 1 mesh --hosts "127.0.0.1:$P,127.0.0.2:$P,127.0.0.3:$P,127.0.0.4:$P" --timeout 1 \
	--topology "$T/leaves.topo" --sample 1 -j "$T/s.json" --csv "$T/s.csv"
"$TOP/scripts/validate-json" "$TOP/schema" "$T/s.json" >"$T/v" 2>&1 ||
	fail "the sampled JSON does not validate: $(cat "$T/v")"
jq -e '.schedule == {"name": "sampled", "k": 1, "leaves": 2, "rotation": 0, "passes": 2} and
	.pairs == [] and .rounds == 4 and .steps == 4' "$T/s.json" >/dev/null || fail "unexpected sampled JSON: $(jq -c '[.schedule, .pairs]' "$T/s.json")"
[ "$(wc -l <"$T/s.csv")" = 1 ] || fail "expected the CSV header alone: $(cat "$T/s.csv")"
jq -e '.schedule.name == "tournament" and .schedule.k == null' "$T/m.json" >/dev/null ||
	fail "the full mesh does not say its schedule: $(jq -c .schedule "$T/m.json")"

# A made-up mesh over two switches, the trunk 20 us slower: its JSON
# validates, the trunk is the one slow hop.
"$TEST_MESH" --located >"$T/located.json" 2>"$T/located.txt" || fail "test_mesh --located failed"
"$TOP/scripts/validate-json" "$TOP/schema" "$T/located.json" >"$T/v" 2>&1 ||
	fail "the located JSON does not validate: $(cat "$T/v")"
jq -e '[.hops[] | select(.slow) | .name] == ["sw1:p3 - sw2:p3"]' "$T/located.json" >/dev/null ||
	fail "the trunk is not the one slow hop: $(jq -c .hops "$T/located.json")"
grep -q '^  sw1:p3 - sw2:p3 .* SLOW' "$T/located.txt" || fail "the table does not name the trunk: $(cat "$T/located.txt")"

# Its hops on two traffic classes of one SL: two series each (tclass
# label), and promtool takes them.
"$TEST_MESH" --located-om >"$T/located.prom" || fail "test_mesh --located-om failed"
[ "$(grep -c '^rperf_mesh_hop_slow{link="sw1:p3 - sw2:p3",sl="0",tclass="\(0\|96\)"} 1$' \
	"$T/located.prom")" = 2 ] || fail "not one slow-hop series per class: $(grep hop_slow "$T/located.prom")"
promtool check metrics <"$T/located.prom" >"$T/p" 2>&1 || fail "promtool: $(cat "$T/p")"
# no series twice (the strict OpenMetrics parser refuses one, promtool's
# linter does not): each name and label set once
dups=$(grep -v '^#' "$T/located.prom" | sed 's/ [^ ]*$//' | sort | uniq -d)
[ -z "$dups" ] || fail "series twice: $dups"
# every per-class series (each with an sl label) says its tclass too,
# in both outputs: the pairs' summaries and gauges, the hops
for f in located.prom m.prom; do
	untagged=$(grep -v '^#' "$T/$f" | grep 'sl="' | grep -v 'sl="[0-9]*",tclass="[0-9]*"')
	[ -z "$untagged" ] || fail "$f: a per-class series without its tclass: $untagged"
done
[ "$(grep -c '^rperf_mesh_rtt_seconds_count{.*,sl="0",tclass="96"}' "$T/located.prom")" = 12 ] ||
	fail "not every pair's summary on the second class: $(grep -c tclass=\"96\" "$T/located.prom")"

# A made-up mesh with figures, unresolved quantiles and an empty pair.
"$TEST_MESH" --openmetrics >"$T/made-up.prom" || fail "test_mesh --openmetrics failed"
grep -q 'quantile="0.5"' "$T/made-up.prom" || fail "the made-up mesh has no quantile"
promtool check metrics <"$T/made-up.prom" >"$T/p" 2>&1 || fail "promtool: $(cat "$T/p")"
# promtool can fail: a counter without _total, a broken line.
sed 's/^rperf_mesh_rtt_seconds_count{src="h2"/rperf_mesh_rtt_seconds_count{src=h2"/' \
	"$T/made-up.prom" >"$T/broken.prom"
promtool check metrics <"$T/broken.prom" >/dev/null 2>&1 && fail "promtool let a broken line through"

finish "mesh-cli: all passed"
