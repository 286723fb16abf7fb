#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf lat, bw and server without RDMA hardware: what they must refuse
# before any device is opened (an option combination they cannot run, a
# --json file that could not be written), with the exit status and the
# message that name the user's mistake rather than the device's.
# Run by `make check` with RPERF (the built binary) set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

# refused STATUS PATTERN ARGS...: rperf ARGS exits STATUS, its stderr
# matches PATTERN (grep -E; "-": stderr is empty) and names no device
# (none was opened).
refused() {
	want=$1 pattern=$2
	shift 2
	"$RPERF" "$@" >/dev/null 2>"$T/err"
	got=$?
	why=
	[ "$got" = "$want" ] || why="exited $got, want $want"
	if [ "$pattern" = - ]; then
		[ ! -s "$T/err" ] || why="${why:+$why; }stderr is not empty"
	else
		grep -Eq -- "$pattern" "$T/err" || why="${why:+$why; }stderr lacks '$pattern'"
	fi
	! grep -Eq "rdma_cm:|device" "$T/err" || why="${why:+$why; }a device was opened"
	[ -z "$why" ] || fail "rperf $*: $why: $(cat "$T/err")"
}

for cmd in lat bw; do
	refused 2 "rdma-cm runs one thread" $cmd --rdma-cm --threads 2 127.0.0.1
	refused 2 "see 'rperf $cmd --help'" $cmd --rdma-cm --threads 2 127.0.0.1
	# Help wins over a combination that could not run.
	refused 0 - $cmd --rdma-cm --threads 2 --help
	refused 1 "'$T/missing/out.json': No such file or directory" \
		$cmd --json "$T/missing/out.json" 127.0.0.1
	# --json-stream: a file that cannot be made is found before the
	# device, and only one output may be stdout.
	refused 1 "'$T/missing/s.jsonl': No such file or directory" \
		$cmd --json-stream "$T/missing/s.jsonl" 127.0.0.1
	refused 2 "only one of --json, --csv and --json-stream can be stdout" \
		$cmd --json-stream - --csv - 127.0.0.1
	refused 2 "only one of --json, --csv and --json-stream can be stdout" \
		$cmd --json-stream - -j - 127.0.0.1
	"$RPERF" $cmd --help | grep -q '^ *--json-stream FILE ' ||
		fail "rperf $cmd --help lacks --json-stream"
done

# No RDMA device on this host: one message that says what to do, the same
# exit status (1, a runtime failure) over TCP and over rdma_cm, for lat, bw
# and server, and their --json document saying it.
if ls /dev/infiniband/uverbs* >/dev/null 2>&1; then
	echo "note: this host has RDMA devices: the no-device checks do not apply"
else
	for args in "lat 127.0.0.1" "lat --rdma-cm 127.0.0.1" "bw 127.0.0.1" \
		"bw --rdma-cm 127.0.0.1" "server -D 1" "server --rdma-cm -D 1"; do
		# shellcheck disable=SC2086 # ARGS are words
		"$RPERF" ${args%% *} -j "$T/nodev.json" ${args#* } >/dev/null 2>"$T/err"
		got=$?
		[ "$got" = 1 ] || fail "rperf $args: exited $got, want 1"
		for want in "^rperf: error: no RDMA device found; no /dev/infiniband" \
			"^rperf: hint: .*ibverbs-providers" "mlx5_ib" "'ibv_devinfo'" \
			"'ulimit -l'" "rdma link add rxe0 type rxe netdev IFACE"; do
			grep -Eq -- "$want" "$T/err" ||
				fail "rperf $args: stderr lacks '$want': $(cat "$T/err")"
		done
		# One error line, then the hints; none wider than 100 columns.
		[ "$(grep -c '^rperf: error:' "$T/err")" = 1 ] ||
			fail "rperf $args: want one error line: $(cat "$T/err")"
		awk 'length > 100 { bad = 1; print } END { exit bad }' "$T/err" >&2 ||
			fail "rperf $args: a line wider than 100 columns"
		jq -e '.complete == false and (.error | test("no RDMA device found"))' \
			"$T/nodev.json" >/dev/null 2>&1 ||
			fail "rperf $args: no failed --json document"
		rm -f "$T/nodev.json"
	done
fi

finish "client-cli: all passed"
