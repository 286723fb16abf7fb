#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Latency protection (the RPerf paper's finding, on RoCE ETS): a latency
# flow on h1 in its own strict band keeps a much lower tail than the same
# flow sharing a DRR band with a bandwidth flow, while two bandwidth flows
# from h2 fill the port toward h3.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

"$LAB" egress h3 "rate=10mbit,ets=$TOP/examples/ets-strict.txt"
trap 'stop_agents; cleanup' EXIT
start_agents

# Shares are 60-converge-shares.sh's business: exit 3 (out) and 4 (inconclusive) are fine here, 1 is not.
run() {
	local rc=0
	converge "$@" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || [ "$rc" = 4 ] || fail "$1: converge exited $rc"
}
# The same scenarios with pass/fail criteria: in its own band the lat flow
# keeps a p99 within 10 s and the first DRR band at least half of the port;
# sharing a band, no p99 is within 1 ms (a 16 KiB message alone takes 13 ms
# at 10 Mbit/s), so that criterion fails, exit 3, named. A p99 needs 1000
# samples: the lat flow makes about 65 a second loaded in its own band, and
# fewer on a busy machine (20 s gave under 1000 beside another lab), so
# that scenario runs 30 s (10 s gave 650, a p99 that cannot be judged).
in_vm h1 "sed -e '/^\[lat\]/a max_p99 = 10s' -e '/^\[bw-band1\]/a min_share = 50' \
	-e 's/^duration = 10s/duration = 30s/' \
	$TOP/examples/converge-lat-own-class.ini >/tmp/own.ini &&
	sed -e '/^\[lat\]/a max_p99 = 1ms' $TOP/examples/converge-lat-shared-class.ini >/tmp/shared.ini"
run own /tmp/own.ini --arbitration "$TOP/examples/ets-strict.txt" --baseline
run shared /tmp/shared.ini --arbitration "$TOP/examples/ets-strict.txt" --baseline
# The own band's p99 within 10 s passes, unless more than 1 % of its RTTs
# are unresolved (the lab's noise makes some): an unresolved sample could
# lie anywhere, so the p99 is then a lower bound with no high end, and the
# criterion fails saying so (exit 3). Any other failure fails the test.
jq -e '[.steps[-1].criteria[] | select(.name == "min_share") | .passed] == [true]' "$WORK/own.json" >/dev/null ||
	fail "own class: min_share did not pass: $(step_jq own '.criteria')"
jq -e '[.steps[-1].criteria[] | select(.name == "max_p99") |
	.passed or (.cannot_be_judged // "" | test("^p99 is a lower bound"))] == [true]' "$WORK/own.json" >/dev/null ||
	fail "own class: max_p99 10s neither passed nor was a lower bound: $(step_jq own '.criteria')"
# Judged above 1 ms, or (a handful of samples queued behind the bw flow)
# not judged for too few samples: either way it fails and is named.
grep -Eq '^rperf: error: criterion failed: max_p99 \(flow lat, band 1\): (.* us, above 1000 us|cannot be judged, p99 (needs [0-9]+ samples|is unresolved))' "$WORK/shared.out" ||
	fail "shared class: max_p99 1ms not named as failed"
jq -e '(.criteria_passed | not) and .steps[-1].criteria[0].name == "max_p99"' "$WORK/shared.json" >/dev/null ||
	fail "shared class: the JSON does not record the failed criterion"
! grep -v "max_p99 (flow lat, band 0): cannot be judged, p99 is a lower bound" "$WORK/own.out" |
	grep -q "^rperf: error: criterion failed" || fail "own class: a criterion failed"
# --baseline: the lat flow ran alone first (step 0), then loaded. Sharing
# a band with a bw flow multiplies its tail; in its own strict band it
# waits at most for the packet on the wire.
impact() { step_jq "$1" ".classes[] | select(.lat_flows > 0) | .impact.$2"; }
for r in own shared; do
	[ "$(jq -r '.steps[0].baseline_flow' "$WORK/$r.json")" = lat ] ||
		fail "$r: step 0 is not the lat flow's baseline"
done
echo "impact p50/p99 (loaded over alone): own band $(impact own p50)/$(impact own p99), shared band $(impact shared p50)/$(impact shared p99)"
# A factor is a figure only where both its percentiles are resolved and
# supported by the count; otherwise it is null and says why.
for r in own shared; do
	step_jq "$r" '.classes[] | select(.lat_flows > 0) | .impact as $i | ["p50", "p99", "p99_9"] |
		all(. as $k | $i[$k] != null or ($i.why[$k] // "" |
		test("^(unresolved|too few samples) (alone|loaded)$")))' | grep -qx true ||
		fail "$r: an impact factor without a figure does not say why: $(step_jq "$r" '.classes[] | select(.lat_flows > 0) | .impact')"
done
# In its own strict band the lat flow's loaded median stays a small part
# of what it is sharing a band: the shared class's median (its 95 %
# interval's low bound) at least 10 times the own class's (its high
# bound). Held on the loaded medians, not on the impact factors: each
# factor divides by a baseline run alone, and the lab's noise moves that
# by a factor of 4 between runs (748 and 2923 us for the same flow beside
# CPU hogs), which moved the factors' ratio from 67 to 7 where the loaded
# medians stayed 21 to 68 times apart.
p50_ci() { step_jq "$1" ".classes[] | select(.lat_flows > 0) | .rtt_ns.percentiles.p50.$2 // \"null\""; }
own_hi=$(p50_ci own ci_high_ns) shared_lo=$(p50_ci shared ci_low_ns)
if [ "$own_hi" != null ] && [ "$shared_lo" != null ]; then
	awk -v o="$own_hi" -v s="$shared_lo" 'BEGIN { exit !(o > 0 && s >= 10 * o) }' ||
		fail "loaded p50: own band at most $own_hi ns, shared band at least $shared_lo ns (want 10 times apart)"
	echo "loaded p50: own band at most $own_hi ns, shared band at least $shared_lo ns"
else
	echo "loaded p50: not judged, a median's interval reaches the unresolved samples"
fi
echo "criteria: own $(step_jq own '[.criteria[] | [.name, .passed, .cannot_be_judged]] | tostring'), shared $(step_jq shared '[.criteria[] | [.name, .passed, .cannot_be_judged]] | tostring')"
# p50 and p99 of the latency flow's class, in us, or what it is instead.
lat() { step_jq "$1" ".classes[] | select(.lat_flows > 0) | .rtt_ns as \$h |
	if \$h.$2 == null then \$h.percentiles.$2.state else \$h.$2 / 1000 end"; }
# The bounds of the class's p99 95 % interval, in us (null: unresolved).
lat_ci() { step_jq "$1" ".classes[] | select(.lat_flows > 0) | .rtt_ns.percentiles.p99.$2 | if . == null then null else . / 1000 end"; }
for p in p50 p99; do
	echo "lat $p: own strict class $(lat own $p) us, shared with a bw flow $(lat shared $p) us"
done
echo "lat p99 95 % interval: own [$(lat_ci own ci_low_ns), $(lat_ci own ci_high_ns)] us, shared [$(lat_ci shared ci_low_ns), $(lat_ci shared ci_high_ns)] us; samples own $(step_jq own '.classes[] | select(.lat_flows > 0) | .rtt_ns.count'), shared $(step_jq shared '.classes[] | select(.lat_flows > 0) | .rtt_ns.count')"
# The shared band's queue (16 KiB messages, 128 in flight) adds hundreds of
# ms; the lab's own noise (VMs descheduled on a busy machine) reaches tens
# to a hundred or so at p99, hence "clearly" = 1.5 times. Held with the
# intervals, which exist whatever the count: the shared class's p99 is at
# least its lower bound, the own class's at most its upper bound.
awk -v o="$(lat_ci own ci_high_ns)" -v s="$(lat_ci shared ci_low_ns)" 'BEGIN { exit !(o > 0 && s > 1.5 * o) }' ||
	fail "own-class p99 (at most $(lat_ci own ci_high_ns) us) is not clearly below the shared class's (at least $(lat_ci shared ci_low_ns) us)"
# Where the p99 factors are figures, the shared band multiplies its tail.
if [ "$(impact own p99)" != null ] && [ "$(impact shared p99)" != null ]; then
	awk -v o="$(impact own p99)" -v s="$(impact shared p99)" 'BEGIN { exit !(o > 0 && s > 10 && s > 5 * o) }' ||
		fail "impact: own band p99 $(impact own p99); shared band p99 $(impact shared p99) (want > 10 and 5 times own)"
fi
