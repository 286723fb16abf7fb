#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Two rperf bw flows from h1 and h2 to h3, on DSCP classes 8 and 16
# (--tclass 32 and 64), through the switch's ETS 3:1 DRR egress toward h3:
# the server's received counters split the shaped port 3:1. The port is
# shaped to 5 Mbit/s, half of what the two flows sustain under TCG with
# another process busy on one of the machine's two cores: both bands must
# stay backlogged on a shared CI machine too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

"$LAB" egress h3 "rate=5mbit,ets=$TOP/examples/ets-3to1.txt"
server_bg h3 "$WORK/srv.out"
wait_listen h3 18520
# A window of 128 keeps both DRR bands backlogged.
bw_bg h1 heavy -D 30 -s 4096 --tx-depth 128 --tclass 32 h3
bw_bg h2 light -D 30 -s 4096 --tx-depth 128 --tclass 64 h3
for i in 1 2; do
	wait "${BG_PIDS[$i]}" || { cat "$WORK"/*.out >&2; fail "rperf bw failed"; }
done
# Both flows run from about 1 s to 30 s of their own clocks: compare the
# middle, where both bands are backlogged.
read -r a _ < <(bw_window heavy 6 26)
read -r b _ < <(bw_window light 6 26)
share=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", 100 * a / (a + b) }')
echo "tclass 32 (band 0, quantum 4500) received $a bytes, tclass 64 (band 1, 1500) $b: ${share} % / $(awk -v s="$share" 'BEGIN { print 100 - s }') %"
within_abs "$share" 75 3 || fail "split ${share} %, expected 75 % +- 3"
