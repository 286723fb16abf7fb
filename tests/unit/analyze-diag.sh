#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# analyze's diagnostics on real opensm.conf QoS sections (tests/data/
# opensm-public/README names where each was published): messages that
# differ only in an SL are one line naming the SLs; no line is wider than
# 100 columns; what asks for action is at the default level, the
# modelling detail behind -v; every line is tagged warning: or note:; the
# VL count assumed is said by default only where it changes a figure.
# Run by `make check` with RPERF (the built binary) and TEST_DATA set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
P=$D/opensm-public

# FILE as OpenSM reads it with -Q.
qos_on() {
	{ echo "qos TRUE"; cat "$P/$1"; } >"$T/$1"
}

# Every stderr line at most 100 columns, tagged, or a wrapped line's rest.
lines_ok() {
	awk -v f="$1" 'length($0) > 100 { printf "FAIL: %s: %d columns: %s\n", f, length($0), $0; bad = 1 }
		!/^rperf: (warning|note): / && !/^    [^ ]/ { printf "FAIL: %s: untagged: %s\n", f, $0; bad = 1 }
		END { exit bad }' "$T/err" || fails=$((fails + 1))
}

for f in opensm-doc-defaults.conf opensm-doc-example.conf ibutils-qos-check.conf \
	 two-vl-nccl-gdr.conf; do
	qos_on "$f"
	expect 0 analyze "$T/$f"
	lines_ok "$f"
	G=-v
	expect 0 analyze "$T/$f"
	lines_ok "$f -v"
	G=
done

# Two VLs, SL2-15 on VL15: one line for the fourteen SLs, not fourteen.
expect 0 analyze "$T/two-vl-nccl-gdr.conf"
has '^rperf: warning: SL2-15 map to VL15 \(management only\): their traffic is dropped$'
grep -q 'SL[0-9]* maps to VL15' "$T/err" && fail "two VLs: an SL said alone: $(cat "$T/err")"
n=$(grep -c '^rperf: ' "$T/err")
[ "$n" -le 3 ] || fail "two VLs: $n lines at the default level, want 3 at most: $(cat "$T/err")"
# VL0 and VL1 exist on any port: the VL count assumed changes nothing.
grep -q "operational VLs assumed" "$T/err" && fail "two VLs: VL count said by default"
expect 0 analyze --json - "$T/two-vl-nccl-gdr.conf"
n=$(jq '[.warning_codes[] | select(. == "sl-vl15")] | length' "$T/out")
[ "$n" = 14 ] || fail "two VLs: the JSON keeps $n SL-to-VL15 messages, want 14"

# Every weight 1 (64 bytes): the weights set nothing, said by default;
# how far the readings' distances differ is modelling detail (-v), wrapped.
expect 0 analyze "$T/ibutils-qos-check.conf"
has '^rperf: warning: every weight is below one 4096-byte packet'
grep -q "distances differ" "$T/err" && fail "weights of 1: distances at the default level"
grep -q "operational VLs assumed" "$T/err" && fail "VL = SL % 8: VL count said by default"
G=-v
expect 0 analyze "$T/ibutils-qos-check.conf"
has '^rperf: note: distances differ between the readings: VL0 mean'
has '^rperf: note: 15 operational VLs assumed'
has 'VL7 mean [0-9.]+-[0-9.]+ max seen 7-9'
G=

# SL8-14 on VL8-14, which a port of 8 data VLs lacks: the count assumed
# changes their figures, so it is said by default.
expect 0 analyze "$T/opensm-doc-example.conf"
has '^rperf: warning: 15 operational VLs assumed'
grep -q "every weight is below" "$T/err" && fail "weights of 64-192: said to be below a packet"
finish "analyze's diagnostics on real opensm.conf sections: grouped, short, tagged"
