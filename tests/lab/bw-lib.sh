# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers for the rperf bw lab tests; source after lib.sh and lat-lib.sh.

# rperf_run for `rperf bw`: bw_run VM NAME ARGS.
bw_run() { rperf_run bw "$@"; }

# Start bw_run in the background; its pid goes last in BG_PIDS.
bw_bg() {
	bw_run "$@" &
	BG_PIDS+=($!)
}

# Received bytes of NAME.json's intervals that start at or after FROM_S
# and end by TO_S, and the seconds they cover: "BYTES SECONDS".
bw_window() {
	jq -r --argjson a "$2" --argjson b "$3" '
		[.intervals[] | select(.start_s >= $a and .end_s <= $b and .received != null)] |
		"\(map(.received.bytes) | add // 0) \(map(.end_s - .start_s) | add // 0)"' "$WORK/$1.json"
}

# Received Mbit/s of NAME.json between FROM_S and TO_S.
bw_mbps() {
	bw_window "$@" | awk '{ r = ($2 > 0) ? $1 * 8 / $2 / 1e6 : 0; printf "%.3f", r }'
}

# Goodput RoCE carries on a link of RATE_MBPS: the shaper counts every
# frame's Ethernet, IPv4, UDP, BTH and ICRC bytes (58 per packet of MTU).
roce_goodput_mbps() {
	awk -v r="$1" -v mtu="${2:-1024}" 'BEGIN { printf "%.3f", r * mtu / (mtu + 58) }'
}

# Run `rperf bw ARGS` in VM (as bw_run, NAME) while tcpdump captures its
# RoCE v2 packets on eth0, then print the BTH opcodes (the first byte after
# the UDP header) of the requests it put on the wire: "SEND WRITE_IMM
# OTHER", counts of SEND only (0x04), RDMA WRITE only with immediate
# (0x0b) and any other request opcode (below 0x11, ACK; e.g. the
# zero-length RDMA WRITE, 0x0a, that ends a run over TCP).
bw_opcodes() {
	local vm=$1 name=$2 pcap="\$RPERF_LAB_RESULTS/$2.pcap" rc=0
	shift 2
	in_vm "$vm" "tcpdump -Z root -i eth0 -n -s 64 -B 4096 -U -w $pcap udp port 4791 2>$pcap.err & tp=\$!
for i in \$(seq 100); do grep -q listening $pcap.err && break; sleep 0.1; done
$RPERF bw $LAT_OPTS --json \$RPERF_LAB_RESULTS/$name.json $* >\$RPERF_LAB_RESULTS/$name.out 2>&1; rc=\$?
# tcpdump, on a busy emulated CPU, may still be writing what the kernel
# gave it: stop it once its file has not grown for a second (20 s at most).
last=-1; for i in \$(seq 20); do sleep 1; sz=\$(stat -c %s $pcap); [ \"\$sz\" = \"\$last\" ] && break; last=\$sz; done
kill \$tp; wait \$tp; exit \$rc" || rc=$?
	in_vm "$vm" "cat \$RPERF_LAB_RESULTS/$name.out" >"$WORK/$name.out"
	in_vm "$vm" "cat \$RPERF_LAB_RESULTS/$name.json" >"$WORK/$name.json"
	[ "$rc" = 0 ] || return "$rc"
	in_vm "$vm" "n() { tcpdump -n -r $pcap \"udp port 4791 and \$1\" 2>/dev/null | wc -l; }
echo \$(n 'udp[8] = 0x04') \$(n 'udp[8] = 0x0b') \$(n 'udp[8] != 0x04 and udp[8] != 0x0b and udp[8] < 0x11')"
}
