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
