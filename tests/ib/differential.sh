#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf analyze against OpenSM 3.3.23: for every opensm.conf in
# tests/ib/conf (and the one `opensm -c` writes), a real OpenSM programs
# the simulated fabric of tests/ib/net (scripts/iblab), smpquery reads
# back every port kind, and the analysis of the opensm.conf (with the
# port's node type and its portinfo capture: caps and operational VLs)
# must equal the analysis of the readback: shares, weights, SL-to-VL and
# entry distances, per SL and per VL.
#
# VLHighLimit: ibsim does not store it (it reads 0 whatever OpenSM set),
# so the readback is analyzed with --limit set to the limit the
# opensm.conf analysis found; that limit's reading is covered by
# test_qosconf. Configurations that leave QoS off must be refused, and
# OpenSM must indeed have left their keys unprogrammed.
#
# Run by `make check` with RPERF and TEST_TOP set. Needs ibsim-utils,
# opensm, infiniband-diags and jq (scripts/install-deps); it fails, never
# skips, without them.
RPERF=${RPERF:-src/rperf}
TOP=${TEST_TOP:-.}
IBLAB="$TOP/scripts/iblab"
work=$(mktemp -d "${TMPDIR:-/tmp}/ib-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
agreed=0
compared=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

for tool in ibsim ibsim-run opensm smpquery jq; do
	command -v "$tool" >/dev/null ||
		{ echo "FAIL: $tool not found: run scripts/install-deps"; exit 1; }
done

# The ports: LID:PORT and the node type of OpenSM's keys that program it.
PORTS="1:1:swe 1:3:sw2sw 1:0:sw0 2:1:ca"
BASE_PORT0=3:0		# a switch's base port 0: no VLArb tables

# shape FILE: what must agree, one line of JSON.
shape() {
	jq -c -f "$TOP/tests/ib/shape.jq" "$1"
}

# compare NAME CONF CAP TYPE LID PORT: the two analyses of one port.
compare() {
	name=$1 conf=$2 cap=$3 type=$4 f="$3/$5-$6"
	compared=$((compared + 1))
	if ! "$RPERF" analyze --json="$f.conf.json" --node-type "$type" \
		"$conf" "$f.portinfo.txt" 2>"$f.conf.err"; then
		fail "$name lid $5 port $6: analyze of the opensm.conf: $(cat "$f.conf.err")"
		return
	fi
	limit=$(jq .limit "$f.conf.json")
	if ! "$RPERF" analyze --json="$f.smp.json" --limit "$limit" "$f.txt" \
		2>"$f.smp.err"; then
		fail "$name lid $5 port $6: analyze of the readback: $(cat "$f.smp.err")"
		return
	fi
	if [ "$(shape "$f.conf.json")" = "$(shape "$f.smp.json")" ]; then
		agreed=$((agreed + 1))
	else
		fail "$name lid $5 port $6 ($type): the analyses differ"
		echo "  opensm.conf: $(shape "$f.conf.json")"
		echo "  readback:    $(shape "$f.smp.json")"
	fi
}

# capture NAME CONF: run the lab; the captures in $work/NAME.
capture() {
	lps=$BASE_PORT0
	for p in $PORTS; do
		lps="$lps ${p%:*}"
	done
	# shellcheck disable=SC2086
	"$IBLAB" capture "$2" "$work/$1" $lps >"$work/$1.lab" 2>&1 ||
		{ fail "$1: scripts/iblab: $(cat "$work/$1.lab")"; return 1; }
}

# The fabric is the one the LIDs above were chosen for.
check_topology() {
	grep -q '"Switch1" enhanced port 0 lid 1 ' "$1/topology.txt" &&
		grep -q '"Switch2" base port 0 lid 3 ' "$1/topology.txt" &&
		grep -q 'lid 2 lmc 0 "Switch1"' "$1/topology.txt" ||
		fail "unexpected fabric: $(cat "$1/topology.txt")"
}

# A base port 0 has no tables: the readback is refused, and says why.
check_base_port0() {
	f="$1/$(echo "$BASE_PORT0" | tr : -).txt"
	grep -q 'No VLArbitration tables' "$f" || fail "$f: smpquery printed tables"
	if "$RPERF" analyze "$f" >/dev/null 2>"$f.err" ||
		! grep -q 'no VL arbitration tables' "$f.err"; then
		fail "$f: not refused as a port without tables: $(cat "$f.err")"
	fi
}

# QoS off: rperf refuses the keys, and OpenSM did not program them.
check_qos_off() {
	name=$1 conf=$2 cap="$work/$1"
	if "$RPERF" analyze "$conf" >/dev/null 2>"$cap.err" ||
		! grep -q 'programs no QoS' "$cap.err"; then
		fail "$name: QoS off, yet analyzed: $(cat "$cap.err")"
	fi
	sed -e 's/^qos .*/qos TRUE/' "$conf" >"$cap.on.conf"
	grep -q '^qos TRUE' "$cap.on.conf" || echo 'qos TRUE' >>"$cap.on.conf"
	"$RPERF" analyze --json="$cap.on.json" --node-type swe "$cap.on.conf" \
		"$cap/1-1.portinfo.txt" 2>/dev/null
	"$RPERF" analyze --json="$cap.smp.json" --limit "$(jq .limit "$cap.on.json")" \
		"$cap/1-1.txt" 2>/dev/null
	[ "$(shape "$cap.on.json")" != "$(shape "$cap.smp.json")" ] ||
		fail "$name: the port holds the keys OpenSM should have ignored"
}

# The file `opensm -c` writes: every key, and qos FALSE.
timeout 20 opensm -c "$work/opensm-c.conf" >/dev/null 2>&1 ||
	fail "opensm -c failed"
grep -q '^qos FALSE' "$work/opensm-c.conf" || fail "opensm -c wrote no 'qos FALSE'"
sed 's/^qos FALSE/qos TRUE/' "$work/opensm-c.conf" >"$work/opensm-c-on.conf"

configs=0
for conf in "$TOP"/tests/ib/conf/*.conf "$work/opensm-c.conf" "$work/opensm-c-on.conf"; do
	name=$(basename "$conf" .conf)
	configs=$((configs + 1))
	capture "$name" "$conf" || continue
	[ "$configs" != 1 ] || check_topology "$work/$name"
	check_base_port0 "$work/$name"
	if ! grep -q '^qos[[:space:]]*TRUE[[:space:]]*$' "$conf"; then
		check_qos_off "$name" "$conf"
		continue
	fi
	for p in $PORTS; do
		lid=${p%%:*} rest=${p#*:}
		compare "$name" "$conf" "$work/$name" "${rest#*:}" "$lid" "${rest%%:*}"
	done
done

echo "ib-differential: $configs configurations, $agreed of $compared ports agree"
[ "$fails" = 0 ] || exit 1
