#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Three clients against one server at once (run with --hosts 4): each gets
# its own flow, all complete, and the server counts each flow apart. Then
# one client on a terminal: a size that runs for seconds says how far it is.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

[ "$("$LAB" hosts | wc -l)" -ge 4 ] || fail "needs four hosts: scripts/lab run --hosts 4"
N=300
WARMUP=50
server_bg h4 "$WORK/srv.out" --json '$RPERF_LAB_RESULTS/server.json'
pids=()
for h in h1 h2 h3; do
	lat_run $h lat-$h -n $N --warmup $WARMUP -s 64 h4 &
	pids+=($!)
done
for i in 0 1 2; do
	wait "${pids[$i]}" || { cat "$WORK/lat-h$((i + 1)).out" >&2; fail "client h$((i + 1)) failed"; }
done
server_signal h4 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv.out" >&2; fail "rperf server did not exit cleanly"; }

for h in h1 h2 h3; do
	jq -e --argjson n $N '.complete and .results[0].samples == $n' "$WORK/lat-$h.json" >/dev/null ||
		fail "$h: incomplete"
	printf '%s -> h4 ' $h
	lat_figures lat-$h 64
done
in_vm h4 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
jq -e --argjson m $((N + WARMUP)) '(.flows | length == 3) and all(.flows[]; .msgs == $m) and
	(.sls[0].flows == 3) and (.sls[0].msgs == 3 * $m)' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "server did not count three flows of $((N + WARMUP)) messages"; }
sed -n '1,8p' "$WORK/srv.out"

# On a terminal (script(1) gives it one), a size that runs for seconds
# prints how far it is about every 3 s: its samples so far, p50 and p99.
# This is the engine's progress callback on real verbs, not only its format.
# --tclass 0, given, draws the warning that DSCP 0 is usually the lossy
# default class (the terminal shows stderr too).
server_bg h4 "$WORK/srv-tty.out"
wait_listen h4 18520
in_vm h1 "script -qec '$RPERF lat $LAT_OPTS --tclass 0 -D 8 -s 64 h4' /dev/null" | tr -d '\r' >"$WORK/tty.out" ||
	{ cat "$WORK/tty.out" >&2; fail "rperf lat on a terminal failed"; }
server_signal h4 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv-tty.out" >&2; fail "rperf server did not exit cleanly"; }
sofar=$(grep -c '^size 1/1, 64 bytes: [0-9]* samples so far  p50 .*  p99 ' "$WORK/tty.out" || true)
grep '^size 1/1' "$WORK/tty.out"
[ "$sofar" -ge 2 ] || { cat "$WORK/tty.out" >&2; fail "$sofar progress lines in 8 s on a terminal (2 expected)"; }
grep -q "warning: --tclass 0 on RoCE: packets go in DSCP 0, usually the lossy default class" "$WORK/tty.out" ||
	{ cat "$WORK/tty.out" >&2; fail "--tclass 0 on RoCE: not warned"; }
