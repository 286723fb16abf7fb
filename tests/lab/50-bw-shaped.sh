#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf bw through a switch egress shaped to 5 Mbit/s: the server's
# received counters show the shaped rate, within 5 %, once the queue is
# full (the first seconds fill HTB's bucket and queue, and are skipped).
# 5 Mbit/s, half of what a flow sustains under TCG with another process
# busy on one of the machine's two cores, so that the shaper, not the
# emulated host, sets the rate on a shared CI machine.
# The server's byte count is also checked against the switch's own
# counters over the whole run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

# Bytes of frames the switch's shaper has sent toward h2 so far.
switch_bytes() {
	in_vm sw "tc -s qdisc show dev p2 | awk '/^qdisc htb/ { getline; print \$2; exit }'"
}

RATE_MBPS=5
"$LAB" egress h2 rate=${RATE_MBPS}mbit
server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
sw0=$(switch_bytes)
bw_run h1 shaped -D 25 -s 4096 --tx-depth 128 h2 || { cat "$WORK/shaped.out" >&2; fail "rperf bw failed"; }
sw1=$(switch_bytes)
got=$(bw_mbps shaped 5 25)
want=$(roce_goodput_mbps $RATE_MBPS)
echo "received $got Mbit/s of RoCE payload through a $RATE_MBPS Mbit/s egress (the payload share of $RATE_MBPS Mbit/s of frames: $want)"
within_pct "$got" "$want" 5 || fail "received $got Mbit/s, want $want +- 5 %"
jq -e '.complete and .total.received.bytes > 0 and .total.sent.bytes >= .total.received.bytes' \
	"$WORK/shaped.json" >/dev/null || fail "bad totals in the JSON"
# What rperf counts must match what the switch forwarded over the whole
# run, whatever HTB's bucket did: totals, so no window has to line up
# (a command's trip into a VM takes a variable while).
rx=$(jq -r .total.received.bytes "$WORK/shaped.json")
fwd=$(roce_goodput_mbps "$((sw1 - sw0))" | cut -d. -f1)  # same share, of bytes
echo "the server counted $rx bytes; the switch sent $((sw1 - sw0)) bytes of frames toward h2, $fwd of them payload"
within_pct "$rx" "$fwd" 2 || fail "the server counted $rx bytes, but the switch forwarded $fwd of payload"
