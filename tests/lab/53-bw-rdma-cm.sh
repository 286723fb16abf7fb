#!/usr/bin/env bash
# rperf bw over rdma_cm: the flow has no socket, so the client asks the
# server for its counters on a TCP side connection; the received figures
# are known (per interval and in total) and match what was sent, and the
# side connection is no flow of its own at the server.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

LAT_OPTS="--clock=$CLOCK" # --event, not --yield: it sleeps instead of polling
server_bg h2 "$WORK/srv.out" --rdma-cm --json '$RPERF_LAB_RESULTS/server.json'
wait_listen h2 18520
bw_run h1 cm --rdma-cm --event -D 4 -s 4096 h2 ||
	{ cat "$WORK/cm.out" "$WORK/srv.out" >&2; fail "rperf bw --rdma-cm failed"; }
server_signal h2 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv.out" >&2; fail "rperf server --rdma-cm did not exit cleanly"; }
read -r sent recv < <(jq -r '"\(.total.sent.msgs) \(.total.received.msgs // "null")"' "$WORK/cm.json")
echo "rperf bw --rdma-cm h1 -> h2: sent $sent messages, the server received $recv"
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
