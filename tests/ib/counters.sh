#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# converge's switch_counters = pma-vl:LID:PORT / pma:LID:PORT read the
# PerfMgt agent of a port (rdma/mad.c's mad_pma_read, through
# tests/ib/pma_probe) on the simulated fabric of tests/ib/net: ibsim's
# console sets Hca2's per-VL counters (PortVLOpData), and the reader must
# return exactly them; a reset clears them; PortXmitDataSL, which ibsim's
# PMA does not implement, is refused with the reason, not read as zeros.
#
# Run by `make check` with TEST_TOP and PMA_PROBE set. Needs ibsim-utils,
# opensm and infiniband-diags (scripts/install-deps); it fails, never
# skips, without them.
TOP=$(realpath "${TEST_TOP:-.}")
PROBE=$(realpath "${PMA_PROBE:-tests/ib/pma_probe}")
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:suppressions=$TOP/tests/ib/asan.supp"

# Under ibsim-run, in the scratch folder $1.
inner() {
	cd "$1" || return 1
	fails=0
	want0="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
	got=$("$PROBE" vl 4 1 reset 2>probe.err) || { cat probe.err; return 1; }
	[ "$got" = "$want0" ] || { echo "FAIL: after a reset: $got"; fails=$((fails + 1)); }
	for vl_v in 0=3000 1=1000 3=250 14=7; do
		echo "PerformanceSet \"Hca2\"[1] PortVLOpData.PortVLOpData${vl_v%%=*}=${vl_v#*=}" \
			>"$RPERF_IBLAB_CONSOLE"
	done
	want="3000 1000 0 250 0 0 0 0 0 0 0 0 0 0 7 0"
	for i in $(seq 50); do
		got=$("$PROBE" vl 4 1 2>probe.err) || { cat probe.err; return 1; }
		[ "$got" = "$want" ] && break
		sleep 0.1
	done
	[ "$got" = "$want" ] || { echo "FAIL: PortVLOpData read $got, set $want"; fails=$((fails + 1)); }
	got=$("$PROBE" vl 4 1 reset 2>probe.err) && got2=$("$PROBE" vl 4 1 2>>probe.err) ||
		{ cat probe.err; return 1; }
	[ "$got" = "$want0" ] && [ "$got2" = "$want0" ] ||
		{ echo "FAIL: a reset left '$got', then '$got2'"; fails=$((fails + 1)); }
	if "$PROBE" sl 3 1 >/dev/null 2>probe.err ||
		! grep -q 'PortXmitDataSL query to lid 3 port 1 failed' probe.err; then
		echo "FAIL: PortXmitDataSL not refused: $(cat probe.err)"
		fails=$((fails + 1))
	fi
	echo "PortVLOpData set and read back, reset, PortXmitDataSL refused: $fails failures"
	[ "$fails" = 0 ]
}

if [ "${1:-}" = --inner ]; then
	inner "$2"
	exit
fi
for tool in ibsim ibsim-run opensm smpquery; do
	command -v "$tool" >/dev/null ||
		{ echo "FAIL: $tool not found: run scripts/install-deps"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ib-counters.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$TOP/scripts/iblab" run "$(realpath "$0")" --inner "$work" >"$work/log" 2>&1
rc=$?
grep -v '^ibwarn' "$work/log"
exit "$rc"
