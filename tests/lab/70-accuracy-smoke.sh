#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# bench/accuracy still works: with tiny counts it runs every tool at the
# smallest of its sizes on an idle and a loaded switch, captures h1's and
# h2's NICs, and prints a table with every row, a capture behind every
# tool figure and rperf's error taken apart per load. Not a measurement.
# 100 samples a tool: with 20, a p50 whose interval reaches the samples
# the method could not resolve (a CPU hog beside the lab made a few) is
# rightly "unresolved", and this smoke wants a figure.
# (Each size takes the same paths through the bench, at about 25 s a tool
# and load in the lab; the bench itself runs 64, 512 and 4096 B, and
# 40-lat-switch.sh runs the probe at 4096 B, past the inline limit.)
. "$(dirname "$0")/lib.sh"

[ -x "$TOP/bench/capture_rtt" ] || fail "bench/capture_rtt is not built (make bench)"
out=$WORK/acc
ACC_RUNS=1 ACC_ITERS=100 ACC_QPERF_S=1 ACC_SIZES=64 ACC_OUT=$out "$TOP/bench/accuracy" >"$WORK/acc.out" 2>&1 ||
	{ cat "$WORK/acc.out" >&2; fail "bench/accuracy failed"; }
cat "$out/accuracy.md"

for load in idle loaded; do
	for s in 64; do
		for tool in rperf perftest qperf; do
			grep -Eq "^\| $load \| $s \| $tool \| [0-9]+ \| [0-9]+ \|" "$out/accuracy.md" ||
				fail "no row (or no figure) for $tool, $s B, $load"
		done
		awk -F'\t' -v l="$load" -v s="$s" '$2 == l && $3 == s && $4 != "" && $5 > 0 { ok = 1 }
			END { exit !ok }' "$out/residuals.tsv" ||
			fail "no residual breakdown (with h2's turnaround) for $s B, $load"
	done
done
# Every capture matched the tool's requests with ACKs.
awk -F'\t' 'NR > 1 && $9 + 0 < 10 { bad = bad " " $4 "/" $3 "/" $2 } END { if (bad) { print bad; exit 1 } }' \
	"$out/accuracy.tsv" || fail "captures with under 10 matched messages"
grep -q '^goal ' "$WORK/acc.out" || fail "no goal lines"
echo "bench/accuracy: 6 rows, 2 residual rows"
