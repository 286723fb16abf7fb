#!/usr/bin/env bash
# rperf bw through a switch egress shaped to 10 Mbit/s: the server's
# received counters show the shaped rate, within 5 %, once the queue is
# full (the first seconds fill HTB's bucket and queue, and are skipped).
# The switch's own counters are printed next to it: under TCG, HTB itself
# may send a little less than its rate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

# Mbit/s of frames the switch's shaper sent toward h2 over SECS, timed by
# the switch itself (a command's trip into a VM takes a variable while).
switch_mbps() {
	in_vm sw "sent() { tc -s qdisc show dev p2 | awk '/^qdisc htb/ { getline; print \$2; exit }'; }
		b0=\$(sent); t0=\$(date +%s.%N); sleep $1; b1=\$(sent); t1=\$(date +%s.%N)
		awk -v a=\$b0 -v b=\$b1 -v s=\$t0 -v e=\$t1 'BEGIN { printf \"%.3f\", (b - a) * 8 / (e - s) / 1e6 }'"
}

"$LAB" egress h2 rate=10mbit
server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
bw_bg h1 shaped -D 25 -s 4096 --tx-depth 128 h2
sleep 6
sw=$(switch_mbps 15)
wait "${BG_PIDS[-1]}" || { cat "$WORK/shaped.out" >&2; fail "rperf bw failed"; }
got=$(bw_mbps shaped 5 25)
want=$(roce_goodput_mbps 10)
echo "received $got Mbit/s of RoCE payload through a 10 Mbit/s egress (the payload share of 10 Mbit/s of frames: $want); the switch sent $sw Mbit/s of frames"
# What rperf counts must match what the switch forwarded, whatever HTB did.
fwd=$(roce_goodput_mbps "$sw")
within_pct "$got" "$fwd" 2 || fail "received $got Mbit/s, but the switch forwarded $fwd of payload"
within_pct "$got" "$want" 5 || fail "received $got Mbit/s, want $want +- 5 % (the switch sent $sw Mbit/s of frames)"
jq -e '.complete and .total.received.bytes > 0 and .total.sent.bytes >= .total.received.bytes' \
	"$WORK/shaped.json" >/dev/null || fail "bad totals in the JSON"
