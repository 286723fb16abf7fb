#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf bw over rdma_cm: the flow has no socket, so the client asks the
# server for its counters on a TCP side connection; the received figures
# are known (per interval and in total) and match what was sent, and the
# side connection is no flow of its own at the server. The side connection
# is bound to its flow: meanwhile a forged attach to the flow from another
# host (h3), and one from the client's own host with a wrong secret, are
# refused, each with a line saying why, and counted in the server's JSON.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

LAT_OPTS="--clock=$CLOCK" # --event, not --yield: it sleeps instead of polling
server_bg h2 "$WORK/srv.out" --rdma-cm --json '$RPERF_LAB_RESULTS/server.json'
SRV_PID=${BG_PIDS[-1]}
wait_listen h2 18520
# Forged side connections to flow 1: from h3, and from h1 (in the same
# command as the client, so that it runs while the flow does) without the
# flow's secret. Each forger starts before the flow exists and tries every
# 0.2 s until it does; the client starts once h1's forger has had its
# first answer (python starting on a busy emulated host can take longer
# than the flow), and is paced, so that h1's one CPU is not all its.
FORGE="python3 $TOP/tests/lab/forge-attach.py h2 18520 1"
in_vm_bg h3 "$FORGE" "$WORK/forge-h3.out"
FORGE_PID=${BG_PIDS[-1]}
in_vm h1 "($FORGE >\$RPERF_LAB_RESULTS/forge-h1.out 2>\$RPERF_LAB_RESULTS/forge-h1.err) &
for i in \$(seq 600); do grep -q trying \$RPERF_LAB_RESULTS/forge-h1.err && break; sleep 0.1; done
$RPERF bw $LAT_OPTS --json \$RPERF_LAB_RESULTS/cm.json --rdma-cm --event -D 6 -s 4096 --rate 10m h2 2>&1
rc=\$?; wait; exit \$rc" >"$WORK/cm.out" ||
	{ cat "$WORK/cm.out" "$WORK/srv.out" >&2; fail "rperf bw --rdma-cm failed"; }
in_vm h1 'cat $RPERF_LAB_RESULTS/cm.json' >"$WORK/cm.json"
in_vm h1 'cat $RPERF_LAB_RESULTS/forge-h1.out' >"$WORK/forge-h1.out"
wait "$FORGE_PID" || true
for h in h3 h1; do
	[ "$(tail -n 1 "$WORK/forge-$h.out")" = -13 ] ||
		{ cat "$WORK/forge-$h.out" "$WORK/srv.out" >&2; fail "a forged side connection from $h was not refused"; }
done
server_signal h2 TERM
wait "$SRV_PID" || { cat "$WORK/srv.out" >&2; fail "rperf server --rdma-cm did not exit cleanly"; }
read -r sent recv < <(jq -r '"\(.total.sent.msgs) \(.total.received.msgs // "null")"' "$WORK/cm.json")
echo "rperf bw --rdma-cm h1 -> h2: sent $sent messages, the server received $recv"
# Without --sl / --tclass, rdma_cm's path record chose them (rxe: from the
# TOS map), and the JSON says so.
jq -e '.config.sl_source == "path_record" and .config.tclass_source == "path_record"' \
	"$WORK/cm.json" >/dev/null || { jq .config "$WORK/cm.json" >&2; fail "the SL did not come from the path record"; }
grep -q 'SL 0 (path_record)' "$WORK/cm.out" || { cat "$WORK/cm.out" >&2; fail "no line saying where the SL came from"; }
jq -e '.complete and .config.connection == "rdma_cm" and
	([.intervals[] | select(.received == null)] | length == 0)' "$WORK/cm.json" >/dev/null ||
	{ cat "$WORK/cm.json" >&2; fail "received figures missing over rdma_cm"; }
if [ "$recv" = null ] || [ "$sent" -le 0 ]; then
	fail "no total received figure"
fi
within_pct "$recv" "$sent" 1 || fail "received $recv messages, sent $sent"
in_vm h2 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
jq -e '.flows | length == 1' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "the side connection made a flow of its own"; }
jq -e '.side_connections_refused == 2' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "the server did not count 2 refused side connections"; }
grep -q 'side connection to rdma_cm flow 1 refused: it comes from' "$WORK/srv.out" ||
	{ cat "$WORK/srv.out" >&2; fail "no line for the side connection from another host"; }
grep -q 'side connection to rdma_cm flow 1 refused: wrong secret' "$WORK/srv.out" ||
	{ cat "$WORK/srv.out" >&2; fail "no line for the side connection with a wrong secret"; }
echo "forged side connections refused: $(jq .side_connections_refused "$WORK/server.json")"

# --pkey-index: rxe has one P_Key (index 0); index 1 is refused, saying why.
in_vm h1 "$RPERF bw $LAT_OPTS --pkey-index 1 -D 1 h2 2>&1" >"$WORK/pkey.out" &&
	fail "rperf bw --pkey-index 1 ran on a port with one P_Key"
grep -q 'P_Key index 1 is empty\|P_Key index 1 out of range' "$WORK/pkey.out" ||
	{ cat "$WORK/pkey.out" >&2; fail "--pkey-index 1 was not refused with its reason"; }

# The opcode on the wire is the one asked for, over the TCP exchange and
# over rdma_cm alike: SEND by default, RDMA WRITE with immediate with
# --write; the JSON's op says the same. Short paced runs of 64-byte
# messages (one packet each), captured at the client (tcpdump under TCG
# may miss some: at least half of the messages sent must be seen).
server_bg h2 "$WORK/srv-op.out" --rdma-cm
SRV_PID=${BG_PIDS[-1]}
wait_listen h2 18520
# --hw-rate below every static rate is refused before anything is sent;
# on rxe, which keeps no static rate in its address vector, the rate
# read back is the port's: refused, never reported as applied.
in_vm h1 "$RPERF bw $LAT_OPTS --hw-rate 5m -D 1 h2 2>&1" >"$WORK/hwrate.out" &&
	fail "rperf bw --hw-rate 5m ran"
grep -q 'slowest static rate is 2.5 Gb/s' "$WORK/hwrate.out" ||
	{ cat "$WORK/hwrate.out" >&2; fail "--hw-rate 5m: no reason given"; }
in_vm h1 "$RPERF bw $LAT_OPTS --hw-rate 10g -D 1 h2 2>&1" >"$WORK/hwrate.out" &&
	fail "rperf bw --hw-rate ran on rxe"
grep -q 'applied no static rate (it reads back as the port' "$WORK/hwrate.out" ||
	{ cat "$WORK/hwrate.out" >&2; fail "--hw-rate did not report the rate read back"; }
for run in send-tcp: write-tcp:--write send-cm:--rdma-cm write-cm:--rdma-cm,--write; do
	name=op-${run%%:*} args=${run#*:}
	read -r n_send n_wimm n_other < <(bw_opcodes h1 "$name" --event -D 1 -s 64 --rate 1m \
		"${args//,/ }" h2) || { cat "$WORK/$name.out" "$WORK/srv-op.out" >&2; fail "rperf bw $args failed"; }
	op=$(jq -r .config.op "$WORK/$name.json")
	sent=$(jq -r .total.sent.msgs "$WORK/$name.json")
	echo "rperf bw ${args//,/ }: op $op in the JSON, sent $sent; on the wire $n_send SEND, $n_wimm WRITE with immediate, $n_other other requests"
	case $name in
	op-send-*) [ "$op" = send ] && [ "$n_wimm" = 0 ] && [ "$((2 * n_send))" -ge "$sent" ] ;;
	op-write-*) [ "$op" = write ] && [ "$n_send" = 0 ] && [ "$((2 * n_wimm))" -ge "$sent" ] ;;
	esac || fail "rperf bw ${args//,/ }: the opcodes on the wire are not the JSON's op ($op), or too few were seen"
	[ "$n_other" -le 1 ] || fail "rperf bw ${args//,/ }: $n_other requests of other opcodes"
	# A receiver that keeps up says so (the starved one below must not).
	jq -e '.total.receiver.fell_behind == false' "$WORK/$name.json" >/dev/null ||
		{ jq .total "$WORK/$name.json" >&2; fail "rperf bw ${args//,/ }: the receiver fell behind at 1 Mbit/s"; }
done
server_signal h2 TERM
wait "$SRV_PID" || { cat "$WORK/srv-op.out" >&2; fail "the second rperf server did not exit cleanly"; }

# A receiver starved of CPU and RECVs (a ring of 2, a busy loop beside it
# on its one CPU) is named as the cause: its port's RNR NAKs are counted
# and reported with the rate, not passed off as a slow fabric.
server_bg h2 "$WORK/srv-rnr.out" --event --ring 2
SRV_PID=${BG_PIDS[-1]}
wait_listen h2 18520
in_vm_bg h2 'timeout 8 sh -c "while :; do :; done"' "$WORK/spin.out"
bw_run h1 rnr --event -D 2 -s 64 h2 || { cat "$WORK/rnr.out" "$WORK/srv-rnr.out" >&2; fail "the starved run failed"; }
server_signal h2 TERM
wait "$SRV_PID" || { cat "$WORK/srv-rnr.out" >&2; fail "the third rperf server did not exit cleanly"; }
grep 'receiver' "$WORK/rnr.out"
jq -e '.total.receiver.rnr_naks_sent > 0 and .total.receiver.fell_behind == true' "$WORK/rnr.json" >/dev/null ||
	{ cat "$WORK/rnr.out" >&2; jq .total "$WORK/rnr.json" >&2; fail "the starved receiver's RNR NAKs were not reported"; }
grep -q 'the receiver fell behind' "$WORK/rnr.out" ||
	{ cat "$WORK/rnr.out" >&2; fail "the starved receiver was not named as the cause"; }
