#!/usr/bin/env bash
# Latency protection (the RPerf paper's finding, on RoCE ETS): a latency
# flow on h1 in its own strict band keeps a much lower tail than the same
# flow sharing a DRR band with a bandwidth flow, while two bandwidth flows
# from h2 fill the port toward h3.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

"$LAB" egress h3 "rate=10mbit,ets=$TOP/examples/ets-strict.txt"
trap 'stop_agents; cleanup' EXIT
start_agents

# Shares are 60-converge-shares.sh's business: exit 3 is fine here, 1 is not.
run() {
	local rc=0
	converge "$@" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "$1: converge exited $rc"
}
run own examples/converge-lat-own-class.ini
run shared examples/converge-lat-shared-class.ini
# p99 and p50 of the latency flow's class, in us.
lat() { step_jq "$1" ".classes[] | select(.lat_flows > 0) | .rtt_ns.$2 / 1000"; }
for p in p50 p99; do
	echo "lat $p: own strict class $(lat own $p) us, shared with a bw flow $(lat shared $p) us"
done
# The shared band's queue (16 KiB messages, 128 in flight) adds hundreds of
# ms; the lab's own noise (VMs descheduled on a busy machine) reaches tens
# to a hundred or so at p99, hence "clearly" = 1.5 times.
awk -v o="$(lat own p99)" -v s="$(lat shared p99)" 'BEGIN { exit !(o > 0 && s > 1.5 * o) }' ||
	fail "own-class p99 $(lat own p99) us is not clearly below the shared class's $(lat shared p99) us"
