#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Three clients against one server at once (run with --hosts 4): each gets
# its own flow, all complete, and the server counts each flow apart.
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
