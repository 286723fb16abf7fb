# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers for lab tests. A lab test is a script run on this machine by
# `scripts/lab run`; it drives the VMs through $RPERF_LAB (scripts/lab).
# Tests fail loudly: a lab test never skips.
set -euo pipefail

LAB=${RPERF_LAB:?lab tests run under scripts/lab run}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# RPERF_LAB_BIN: another build of rperf to test (one under sanitizers, say).
RPERF=${RPERF_LAB_BIN:-$TOP/src/rperf}
WORK=$(mktemp -d)
BG_PIDS=()

# Every test starts and ends with plain switch ports (the trunk's too, in
# a lab of two switches), whatever it changed.
reset_egress() {
	"$LAB" egress all none
}

# Processes a test starts in a VM leave their pid in $RPERF_LAB_RESULTS/
# NAME.pid (server_bg, start_agents): end them, or a server left behind
# answers the next test in place of the one that test starts. Each is
# waited for (10 s at most): a killed process that still tears down its
# verbs resources in a starved guest holds its listening port meanwhile.
stop_vm_procs() {
	local h pids=()
	for h in $("$LAB" hosts); do
		"$LAB" sh "$h" 'for f in $RPERF_LAB_RESULTS/*.pid; do [ -e "$f" ] || continue;
			p=$(cat "$f"); kill -KILL $p 2>/dev/null;
			for i in $(seq 100); do kill -0 $p 2>/dev/null || break; sleep 0.1; done;
			rm -f "$f"; done; true' >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" 2>/dev/null || true
}

# Every output of rperf a test keeps in $WORK (NAME.json, a stream in
# NAME.jsonl) must validate against the schemas, whatever the test checks
# itself: those of the tree, or RPERF_LAB_SCHEMA_DIR's (the installed ones
# for an installed rperf). An empty file is an output rperf did not write.
# RPERF_LAB_JSON_DIR, when set, keeps a copy of each (TEST-NAME.json).
validate_outputs() {
	local f files=() out
	for f in "$WORK"/*.json "$WORK"/*.jsonl; do
		[ -s "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	if [ -n "${RPERF_LAB_JSON_DIR:-}" ]; then
		for f in "${files[@]}"; do
			cp "$f" "$RPERF_LAB_JSON_DIR/$(basename "$0" .sh)-$(basename "$f")"
		done
	fi
	if ! out=$("$TOP/scripts/validate-json" "${RPERF_LAB_SCHEMA_DIR:-$TOP/schema}" "${files[@]}" 2>&1); then
		echo "$out" | sed "s|$WORK/||" >&2
		return 1
	fi
	echo "schema: valid against ${RPERF_LAB_SCHEMA_DIR:-schema/}: $(echo "$out" | sed "s|$WORK/||; s|: valid||" | tr '\n' ' ')"
}

cleanup() {
	local p
	for p in "${BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	stop_vm_procs
	reset_egress || true
	if ! validate_outputs; then
		rm -rf "$WORK"
		echo "FAIL: outputs that do not validate against the JSON schemas" >&2
		exit 1
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
reset_egress

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Run a shell command string in a VM; print its output.
in_vm() { "$LAB" sh -t "${TIMEOUT_S:-600}" "$1" "$2"; }

# Run a command string in a VM in the background; its output goes to FILE.
in_vm_bg() {
	"$LAB" sh -t "${TIMEOUT_S:-600}" "$1" "$2" >"$3" 2>&1 &
	BG_PIDS+=($!)
}

# Wait until nothing listens on PORT in VM (10 s at most), or fail.
wait_free() {
	in_vm "$1" "for i in \$(seq 100); do ss -ltn | grep -q ':$2 ' || exit 0; sleep 0.1; done; exit 1" ||
		fail "$1: port $2 is still taken after 10 s (by a process an earlier test started?)"
}

# Wait until a TCP port listens in a VM (servers start slowly under TCG).
wait_listen() {
	in_vm "$1" "for i in \$(seq 300); do ss -ltn | grep -q ':$2 ' && exit 0; sleep 0.1; done; exit 1" ||
		fail "$1: nothing listens on port $2 after 30 s"
}

# Is A within PCT % of B?
within_pct() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}

# Is A within TOL of B (same units, e.g. percentage points)?
within_abs() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# One figure (us) of perftest's latency table: COLUMN 5 its t_typical (the
# median; half a round trip for ib_send_lat), 3 its t_min.
perftest_column_us() { # FILE COLUMN
	awk -v c="$2" '$1 ~ /^[0-9]+$/ && NF >= 9 { print $c }' "$1" | tail -n 1
}

# Run perftest's TOOL (ib_send_lat, ib_read_lat, ...) between SERVER_VM and
# CLIENT_VM on rxe0; print its t_typical in us (its t_min with STAT min).
perftest_lat_us() { # TOOL SERVER_VM CLIENT_VM SIZE ITERS [STAT]
	local tool=$1 srv=$2 cli=$3 size=$4 iters=$5 col=5 out=$WORK/perftest.$RANDOM
	[ "${6:-typical}" = min ] && col=3
	in_vm_bg "$srv" "timeout 120 $tool -d rxe0 -x 1 -F -s $size -n $iters" "$out.srv"
	wait_listen "$srv" 18515
	in_vm "$cli" "timeout 120 $tool -d rxe0 -x 1 -F -s $size -n $iters $srv" >"$out.cli" ||
		{ cat "$out.cli" "$out.srv" >&2; fail "$tool $cli -> $srv failed"; }
	wait "${BG_PIDS[-1]}" || { cat "$out.srv" >&2; fail "$tool server on $srv failed"; }
	perftest_column_us "$out.cli" "$col"
}

# Fail if any output kept in $WORK (rperf's, servers', agents') carries a
# sanitizer report: under RPERF_LAB_BIN=.sanitized/rperf a background
# process's report would otherwise go unseen.
no_sanitizer_reports() {
	local f
	for f in "$WORK"/*.out; do
		[ -e "$f" ] || continue
		if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$f"; then
			cat "$f" >&2
			fail "sanitizer report in $(basename "$f")"
		fi
	done
}
