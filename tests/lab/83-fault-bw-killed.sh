#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf bw when its server is killed mid-run: one clear error within
# seconds, exit 1, and the JSON of the intervals measured before, marked
# incomplete (43-lat-faults does the same for rperf lat).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
( sleep 8; server_signal h2 KILL ) &
BG_PIDS+=($!)
t0=$(date +%s)
rc=0
rperf_run bw h1 killed -D 40 -s 4096 --qp-timeout 14 --retry 3 h2 || rc=$?
t1=$(date +%s)
cat "$WORK/killed.out" | grep '^rperf: error:' || true
[ "$rc" = 1 ] || { cat "$WORK/killed.out" >&2; fail "exit status $rc, want 1"; }
grep -q "^rperf: error: server .h2. went away" "$WORK/killed.out" || fail "the error does not say the server went away"
[ "$(grep -c '^rperf: error:' "$WORK/killed.out")" = 1 ] || { cat "$WORK/killed.out" >&2; fail "want one error line"; }
[ $((t1 - t0)) -le 40 ] || fail "took $((t1 - t0)) s, the run should have ended at the fault"
jq -e '(.complete | not) and (.intervals | length > 0) and .total.sent.bytes > 0' "$WORK/killed.json" >/dev/null ||
	{ cat "$WORK/killed.json" >&2; fail "no partial JSON after the server was killed"; }
echo "server killed: exit 1 after $((t1 - t0)) s: $(grep '^rperf: error:' "$WORK/killed.out");" \
	"$(jq '.intervals | length' "$WORK/killed.json") intervals kept"
no_sanitizer_reports
