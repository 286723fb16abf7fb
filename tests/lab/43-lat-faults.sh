#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Bad input and faults: each ends with one clear message, a non-zero exit
# status and a bounded wait. Killing the server mid-run still leaves the
# JSON of what was measured before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

# expect NAME STATUS PATTERN MAX_S ARGS...: rperf lat exits with STATUS,
# says PATTERN in one error line, within MAX_S seconds.
expect() {
	local name=$1 want=$2 pat=$3 max_s=$4 rc=0 t0 t1 n
	shift 4
	t0=$(date +%s)
	lat_run h1 "$name" "$@" || rc=$?
	t1=$(date +%s)
	n=$(grep -c '^rperf: error:' "$WORK/$name.out" || true)
	[ "$rc" = "$want" ] || { cat "$WORK/$name.out" >&2; fail "$name: exit status $rc, want $want"; }
	grep -q "^rperf: error: .*$pat" "$WORK/$name.out" || { cat "$WORK/$name.out" >&2; fail "$name: no error about '$pat'"; }
	[ "$n" = 1 ] || { cat "$WORK/$name.out" >&2; fail "$name: $n error lines, want 1"; }
	[ $((t1 - t0)) -le "$max_s" ] || fail "$name: took $((t1 - t0)) s, more than $max_s"
	printf '%-16s exit %s in %3d s: %s\n' "$name" "$rc" $((t1 - t0)) "$(grep '^rperf: error:' "$WORK/$name.out")"
}

expect unknown-device 2 "unknown device 'mlx9_9'" 60 -d mlx9_9 h2
expect sl-above-15 2 "service level" 60 --sl 16 h2
expect size-too-large 2 "larger than" 60 -s 16m h2
expect wrong-gid 2 "GID index 9" 60 -x 9 h2
expect no-server 1 "no server at 'h2'" 60 --timeout 3 h2

# Port DOWN: rxe follows its netdev.
rc=0
in_vm h1 'ip link set eth0 down'
(expect port-down 1 "port DOWN" 60 h2) || rc=$?
in_vm h1 'ip link set eth0 up; for i in $(seq 50); do rdma link show rxe0/1 | grep -q ACTIVE && break; sleep 0.2; done'
[ "$rc" = 0 ] || exit "$rc"

# Server killed mid-run: a clear error, soon, and the partial JSON.
server_bg h2 "$WORK/srv.out"
( sleep 8; server_signal h2 KILL ) &
BG_PIDS+=($!)
expect server-killed 1 "server 'h2' went away" 60 -D 40 -s 64 h2
jq -e '(.complete | not) and (.error | test("went away")) and (.results | length == 1) and
	(.results[0].complete | not) and .results[0].samples > 0' "$WORK/server-killed.json" >/dev/null ||
	{ cat "$WORK/server-killed.json" >&2; fail "no partial JSON after the server was killed"; }
echo "partial JSON kept $(jq '.results[0].samples' "$WORK/server-killed.json") samples measured before the fault"
