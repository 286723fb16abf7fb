#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The switch's ETS egress: two RC RDMA WRITE flows from h1 and h2 to h3,
# on two DSCP classes whose DRR quanta are 3:1, split the shaped port 3:1
# as the switch's own per-band byte counters see it. WRITE, not SEND: a
# SEND needs a receive the destination's CPU posts in time, and h3's one
# emulated CPU serving two flows sometimes does not (RNR), which empties a
# band and leaves its share to the other; the split is then the guest's,
# not the switch's.
#
# ETS promises its split only while both bands are backlogged. Soft-RoCE
# keeps at most 128 packets of a QP unacknowledged, 128 KiB at the lab's
# MTU: at a 10 Mbit/s port, the 7.5 Mbit/s band empties whenever a round
# trip outside its queue (two switch guests and h3, each on a share of
# an emulated CPU) takes more than about 150 ms, and its share goes to the
# other band.
# Four QPs a flow keep four times that in flight, and the port runs at
# 5 Mbit/s: at 10, band 0's 512 KiB in flight lasted 0.56 s of its
# 7.5 Mbit/s, and a busy machine still emptied it inside a window that
# both ends saw queued (68.7 %, queues of 121 KB and 394 KB at its ends);
# at 3.75 Mbit/s it lasts 1.1 s.
. "$(dirname "$0")/lib.sh"

ETS=$TOP/examples/ets-3to1.txt
"$LAB" egress h3 "rate=5mbit,ets=$ETS"
# One line a band: its handle, bytes sent, bytes queued.
band_bytes() {
	in_vm "$("$LAB" switch h3)" "tc -s class show dev p3" |
		awk '/^class ets 10:/ { band = $3 } /Sent/ && band { sent = $2 }
			/backlog/ && band { q = $2; sub(/b$/, "", q); print band, sent, q; band = "" }'
}
bw() { # TCLASS PORT [SERVER]
	echo "timeout 100 ib_write_bw -d rxe0 -x 1 -F -s 4096 -t 128 -q 4 -u 20 -D 30 -p $2 --tclass=$1 ${3:-}"
}
in_vm_bg h3 "$(bw 32 18515) & $(bw 64 18516) & wait" "$WORK/srv.out"
wait_listen h3 18515
wait_listen h3 18516
in_vm_bg h1 "$(bw 32 18515 h3)" "$WORK/c1.out"
in_vm_bg h2 "$(bw 64 18516 h3)" "$WORK/c2.out"
# The window opens once both bands are queued (both flows running and
# backlogged) and closes 8 s later; both must still be queued then, or
# a flow ended or stalled inside it and the split would be another one.
queued() { awk '$3 > 0' <<<"$1" | wc -l; }
for i in $(seq 30); do
	before=$(band_bytes)
	[ "$(queued "$before")" = 2 ] && break
	sleep 1
done
[ "$(queued "$before")" = 2 ] || fail "both bands were never queued at once: $(echo $before)"
sleep 8
after=$(band_bytes)
[ "$(queued "$after")" = 2 ] || fail "a band was empty at the window's end (its flow ended or stalled): $(echo $after)"
for i in 1 2 0; do
	wait "${BG_PIDS[$i]}" || { cat "$WORK"/*.out >&2; fail "ib_write_bw failed"; }
done
echo "band (sent, queued bytes) before: $(echo $before) after: $(echo $after)"
read -r b1 b2 < <(join <(echo "$before") <(echo "$after") | awk '{ printf "%d ", $4 - $2 } END { print "" }')
share=$(awk -v a="$b1" -v b="$b2" 'BEGIN { printf "%.1f", 100 * a / (a + b) }')
echo "band 0 (quantum 4500, DSCP 8) got ${share} % of ${b1}+${b2} bytes; band 1 (1500, DSCP 16) the rest"
within_abs "$share" 75 3 || fail "split ${share} %, expected 75 % +- 3"
