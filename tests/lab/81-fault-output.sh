#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Where the results go can fail too. Each case ends with one clear error,
# a bounded wait, and never a half-written JSON file: results are written
# to a temporary file and renamed over the target.
#  - the disk holding the output file is full (a tiny tmpfs, filled): the
#    error names the file, the previous file there stays whole, and no
#    temporary file is left behind;
#  - the output directory does not exist;
#  - SIGINT in the middle of a run: what was measured is written, marked
#    incomplete.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

TINY='$RPERF_LAB_RESULTS/tiny'
server_bg h2 "$WORK/srv.out"
wait_listen h2 18520

# A good file first, on a 1 MiB tmpfs; then fill the tmpfs.
in_vm h1 "mkdir -p $TINY && mount -t tmpfs -o size=1m tmpfs $TINY"
trap 'in_vm h1 "umount $TINY" || true; cleanup' EXIT
in_vm h1 "$RPERF lat $LAT_OPTS -n 200 --json $TINY/out.json h2 >/dev/null 2>&1" ||
	fail "rperf lat could not write to the empty tmpfs"
in_vm h1 "cp $TINY/out.json $TINY/before.json" || fail "full disk: no room on the tmpfs for a copy of out.json"
in_vm h1 "dd if=/dev/zero of=$TINY/fill bs=1k count=2048 2>/dev/null; df -k $TINY | tail -n 1" || true
rc=0
in_vm h1 "$RPERF lat $LAT_OPTS -n 200 --json $TINY/out.json h2 2>&1" >"$WORK/full.out" || rc=$?
cat "$WORK/full.out" | grep '^rperf: error:' || true
[ "$rc" = 1 ] || { cat "$WORK/full.out" >&2; fail "full disk: exit status $rc, want 1"; }
grep -q "^rperf: error: .*out.json.*No space left" "$WORK/full.out" ||
	{ cat "$WORK/full.out" >&2; fail "full disk: no error naming the file and the cause"; }
in_vm h1 "cmp $TINY/out.json $TINY/before.json" || fail "full disk: the previous out.json changed"
left=$(in_vm h1 "ls $TINY | grep -v '^\\(out\\|before\\).json\$\\|^fill\$' || true")
[ -z "$left" ] || fail "full disk: temporary files left behind: $left"
in_vm h1 "cat $TINY/out.json" >"$WORK/kept.json"
jq -e .complete "$WORK/kept.json" >/dev/null || fail "full disk: out.json is not whole JSON"
echo "full disk: exit 1, previous out.json whole, no temporary file left"

# An output directory that does not exist: found before the run, not
# after it (an hour's measurement would be lost).
for cmd in "lat -n 200" "bw -D 2"; do
	rc=0
	in_vm h1 "$RPERF $cmd $LAT_OPTS --json /nonexistent/out.json h2 2>&1" >"$WORK/nodir.out" || rc=$?
	[ "$rc" = 1 ] || { cat "$WORK/nodir.out" >&2; fail "missing directory: rperf $cmd exit status $rc, want 1"; }
	grep -q "^rperf: error: '/nonexistent/out.json': No such file" "$WORK/nodir.out" ||
		{ cat "$WORK/nodir.out" >&2; fail "missing directory: rperf $cmd names not the file"; }
	! grep -q 'RTT =\|sent' "$WORK/nodir.out" || fail "missing directory: rperf $cmd measured first"
done
echo "missing directory: $(grep '^rperf: error:' "$WORK/nodir.out")"

# SIGINT mid-run: the samples so far are kept, marked incomplete.
in_vm_bg h1 "echo \$\$ >\$RPERF_LAB_RESULTS/lat.pid; exec $RPERF lat $LAT_OPTS -D 60 -s 64 --json \$RPERF_LAB_RESULTS/int.json h2" \
	"$WORK/int.out"
sleep 10
t0=$(date +%s)
in_vm h1 'kill -INT $(cat $RPERF_LAB_RESULTS/lat.pid)'
rc=0
wait "${BG_PIDS[-1]}" || rc=$?
t1=$(date +%s)
[ $((t1 - t0)) -le 20 ] || fail "SIGINT: rperf lat took $((t1 - t0)) s to stop"
in_vm h1 'cat $RPERF_LAB_RESULTS/int.json; rm -f $RPERF_LAB_RESULTS/int.json' >"$WORK/int.json" ||
	{ cat "$WORK/int.out" >&2; fail "SIGINT: no JSON written"; }
jq -e '(.complete | not) and (.results | length == 1) and .results[0].samples > 0' \
	"$WORK/int.json" >/dev/null || { cat "$WORK/int.out" "$WORK/int.json" >&2; fail "SIGINT: bad partial JSON"; }
echo "SIGINT: exit $rc after $((t1 - t0)) s, $(jq '.results[0].samples' "$WORK/int.json") samples kept: $(grep '^rperf:' "$WORK/int.out" | head -n 1)"

# The server ends cleanly on SIGINT (a sanitized build checks for leaks then).
server_signal h2 INT
wait "${BG_PIDS[0]}" || fail "the server did not exit 0 on SIGINT"
no_sanitizer_reports
