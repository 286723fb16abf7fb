#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf bw --rate 5m on an unshaped path: the server receives 5 Mbit/s
# within 5 %, and the pacing does not drift over the run. Then the same
# pace with --event: sleeping on the completion channel between deadlines
# keeps the rate, and the JSON says how completions were awaited.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"
. "$(dirname "$0")/bw-lib.sh"

server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
bw_run h1 paced -D 20 -s 1024 --rate 5m --min-gbps 4.5m h2 || { cat "$WORK/paced.out" >&2; fail "rperf bw failed"; }
jq -e '.criteria | length == 1 and .[0].name == "min_gbps" and .[0].passed and .[0].scope == "total received"' \
	"$WORK/paced.json" >/dev/null || fail "min_gbps 4.5m not passed: $(jq -c .criteria "$WORK/paced.json")"
got=$(bw_mbps paced 0 20)
first=$(bw_mbps paced 0 5)
last=$(bw_mbps paced 15 20)
total=$(jq -r '.total.received.gbps * 1000' "$WORK/paced.json")
echo "paced at 5 Mbit/s: received $got Mbit/s over the intervals (first 5 s $first, last 5 s $last), $total in total"
within_pct "$got" 5 5 || fail "received $got Mbit/s, want 5 +- 5 %"
within_pct "$last" "$first" 2 || fail "pace drifted: $first Mbit/s at the start, $last at the end"

LAT_OPTS="--clock=$CLOCK" # --event, not --yield: it sleeps instead of polling
rc=0
bw_run h1 paced-event -D 8 -s 1024 --rate 5m --event --min-gbps 6m \
	--json-stream '$RPERF_LAB_RESULTS/bw-stream.jsonl' h2 || rc=$?
[ "$rc" = 3 ] && grep -q '^rperf: error: criterion failed: min_gbps (total received): .* Gb/s, below 0.006 Gb/s' "$WORK/paced-event.out" ||
	{ cat "$WORK/paced-event.out" >&2; fail "rperf bw --event --min-gbps 6m exited $rc, want 3 naming min_gbps"; }
mode=$(jq -r '.config.completion' "$WORK/paced-event.json")
got=$(bw_mbps paced-event 0 8)
sent=$(jq -r '.total.sent.gbps * 1000' "$WORK/paced-event.json")
echo "paced at 5 Mbit/s with --event ($mode): received $got Mbit/s over the intervals, sent $sent in total"
[ "$mode" = event ] || fail "completion mode '$mode' in the JSON, want event"
within_pct "$got" 5 5 || fail "--event: received $got Mbit/s, want 5 +- 5 %"
within_pct "$sent" 5 5 || fail "--event: sent $sent Mbit/s, want 5 +- 5 %"
# --json-stream: start, each interval as it ended (as the document has
# it), end with the document's total; lib.sh validates it.
in_vm h1 'cat $RPERF_LAB_RESULTS/bw-stream.jsonl' >"$WORK/bw-stream.jsonl"
jq -s -e --slurpfile doc "$WORK/paced-event.json" '(.[0].event == "start") and
	(.[-1] | .event == "end" and .total == $doc[0].total and .criteria == $doc[0].criteria and
		.intervals == ($doc[0].intervals | length)) and
	([.[] | select(.event == "interval") | .interval] == $doc[0].intervals) and
	([.[] | select(.event == "interval") | .index] == [range($doc[0].intervals | length)]) and
	length == ($doc[0].intervals | length) + 2' "$WORK/bw-stream.jsonl" >/dev/null ||
	fail "the stream is not one line per interval: $(cut -c 1-200 "$WORK/bw-stream.jsonl")"
echo "stream: $(jq -c -s '[.[] | .event] | group_by(.) | map([.[0], length])' "$WORK/bw-stream.jsonl")"
