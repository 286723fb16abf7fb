# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers for the rperf lat / rperf server lab tests; source after lib.sh.
# Results files go to the guest's writable results directory and are read
# back with a second call, so stderr never mixes into the JSON.

# The TSC is used only when the guest CPU says it is invariant; under TCG
# it usually is not, and rperf refuses it.
lat_clock() {
	in_vm "$1" 'grep -qw nonstop_tsc /proc/cpuinfo && grep -qw constant_tsc /proc/cpuinfo && echo tsc || echo monotonic'
}
CLOCK=$(lat_clock h1)

# rperf's own options every lab run wants: Soft-RoCE shares the guest's
# only core with the measuring thread, so the thread yields while polling;
# the lab's shaped switch queues hold 200-450 ms of packets, longer than
# the default ACK timeout (14, 67 ms), so 20 (4.3 s).
LAT_OPTS="--yield --clock=$CLOCK --qp-timeout 20"

# Start `rperf server ARGS` in VM in the background, its output in FILE.
# Its pid goes to the VM's results directory, so a test can signal it.
server_bg() {
	local vm=$1 out=$2
	shift 2
	in_vm_bg "$vm" "echo \$\$ >\$RPERF_LAB_RESULTS/server.pid; exec $RPERF server $*" "$out"
}

# Send SIGNAL to the server started by server_bg in VM.
server_signal() {
	in_vm "$1" "kill -$2 \$(cat \$RPERF_LAB_RESULTS/server.pid)"
}

# Run `rperf CMD ARGS` (lat, bw) in VM with JSON to NAME.json there; copy
# it to $WORK/NAME.json and the command's output to $WORK/NAME.out.
# Returns rperf's exit status.
rperf_run() {
	local cmd=$1 vm=$2 name=$3 rc=0
	shift 3
	in_vm "$vm" "$RPERF $cmd $LAT_OPTS --json \$RPERF_LAB_RESULTS/$name.json $* 2>&1" \
		>"$WORK/$name.out" || rc=$?
	in_vm "$vm" "cat \$RPERF_LAB_RESULTS/$name.json 2>/dev/null; rm -f \$RPERF_LAB_RESULTS/$name.json" \
		>"$WORK/$name.json" || true
	return "$rc"
}

# rperf_run for `rperf lat`: lat_run VM NAME ARGS.
lat_run() { rperf_run lat "$@"; }

# FIELD (a jq path) of results[] for SIZE in NAME.json, in us.
lat_us() {
	jq -r --argjson s "$3" ".results[] | select(.size_bytes == \$s) | $2 / 1000" "$WORK/$1.json"
}

# Percentile PCT (p50) of histogram HIST (rtt_ns) for SIZE in NAME.json:
# in us, or the word for what it is instead (unresolved, too_few_samples).
lat_pct() {
	jq -r --argjson s "$3" ".results[] | select(.size_bytes == \$s) | .$2 as \$h |
		if \$h.$4 == null then \$h.percentiles.$4.state else \$h.$4 / 100 | round / 10 end" "$WORK/$1.json"
}

# Print median and p99 of RTT, wire and loopback for SIZE of NAME.json,
# and how many RTT samples were unresolved.
lat_figures() {
	printf '%6s B: RTT p50 %8s p99 %8s | wire p50 %8s p99 %8s | loopback p50 %7s p99 %7s us | RTT unresolved %s\n' \
		"$2" "$(lat_pct "$1" rtt_ns "$2" p50)" "$(lat_pct "$1" rtt_ns "$2" p99)" \
		"$(lat_pct "$1" wire_ns "$2" p50)" "$(lat_pct "$1" wire_ns "$2" p99)" \
		"$(lat_pct "$1" loopback_ns "$2" p50)" "$(lat_pct "$1" loopback_ns "$2" p99)" \
		"$(jq -r --argjson s "$2" '.results[] | select(.size_bytes == $s) | .rtt_ns |
			"\(.unresolved) of \(.count) (\(.unresolved * 1000 / .count | round / 10) %)"' "$WORK/$1.json")"
}

# capture_p50 SIZE COUNT ARGS...: the median (us) and count of the last
# COUNT SIZE-byte messages' RTTs that bench/capture_rtt -l ARGS lists (a
# capture holds every run so far: the last COUNT are the run just ended's).
capture_p50() {
	local size=$1 n=$2
	shift 2
	"$TOP/bench/capture_rtt" -l "$@" | awk -v s="$size" '$3 == s { print $2 }' | tail -n "$n" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.1f %d\n", v[int((NR + 1) / 2)] / 1000, NR }'
}
