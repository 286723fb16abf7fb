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
own=$(step_jq own '.classes[] | select(.lat_flows > 0) | .rtt_ns.p99 / 1000')
shared=$(step_jq shared '.classes[] | select(.lat_flows > 0) | .rtt_ns.p99 / 1000')
echo "lat p99: own strict class ${own} us, shared with a bw flow ${shared} us"
awk -v o="$own" -v s="$shared" 'BEGIN { exit !(o > 0 && s > 2 * o) }' ||
	fail "own-class p99 ${own} us is not clearly below the shared class's ${shared} us"
