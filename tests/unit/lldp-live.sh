#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The LLDP captures of tests/data/lldp taken again: scripts/lldp-capture
# runs lldpd in six network namespaces (two switches, four hosts), and
# the topology reader (tests/ib/topo_probe) must make of the fresh files
# the same fabric as of the kept ones: the same nodes, links and routes.
# The files that name their chassis (NAME.json) and the neighbors alone
# given as NAME=FILE are read both ways.
#
# Run by `make check` with TEST_TOP, TEST_DATA and TOPO_PROBE set, as
# root (namespaces). Needs lldpd and iproute2 (scripts/install-deps); it
# fails, never skips, without them. Takes about 5 s.
TOP=${TEST_TOP:-.}
DATA=${TEST_DATA:-tests/data}
PROBE=${TOPO_PROBE:-tests/ib/topo_probe}
T=$(mktemp -d "${TMPDIR:-/tmp}/lldp-live.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
NODES="h1 h2 h3 h4 sw1 sw2"

[ "$(id -u)" = 0 ] || { echo "FAIL: run as root (network namespaces)"; exit 1; }
"$TOP/scripts/lldp-capture" "$T/fresh" >"$T/capture.log" 2>&1 ||
	{ echo "FAIL: lldp-capture: $(cat "$T/capture.log")"; exit 1; }

# probe OUT FILE...: the sorted facts of the topology of FILEs.
probe() {
	out=$1
	shift
	"$PROBE" "$@" >"$out.raw" 2>&1 || { echo "FAIL: the reader refused: $(cat "$out.raw")"; return 1; }
	sort "$out.raw" >"$out"
}

kept= fresh= named=
for n in $NODES; do
	kept="$kept $DATA/lldp/$n.json"
	fresh="$fresh $T/fresh/$n.json"
	named="$named $n=$T/fresh/$n.neighbors.json"
done
# shellcheck disable=SC2086
probe "$T/kept" $kept || fails=$((fails + 1))
# shellcheck disable=SC2086
probe "$T/fresh.out" $fresh || fails=$((fails + 1))
# shellcheck disable=SC2086
probe "$T/named" $named || fails=$((fails + 1))
# six nodes, five links, twelve routes
[ "$(wc -l <"$T/kept")" = 23 ] || { echo "FAIL: kept captures: $(cat "$T/kept")"; fails=$((fails + 1)); }
grep -qx 'link sw1:eth3 - sw2:eth3\|link sw2:eth3 - sw1:eth3' "$T/kept" ||
	{ echo "FAIL: no trunk in $(cat "$T/kept")"; fails=$((fails + 1)); }
diff -u "$T/kept" "$T/fresh.out" || { echo "FAIL: fresh captures differ from the kept"; fails=$((fails + 1)); }
diff -u "$T/kept" "$T/named" || { echo "FAIL: HOST=FILE differs from the chassis in the file"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "lldp-live: lldpd's fresh neighbors make the kept fabric ($(wc -l <"$T/kept") facts)"
[ "$fails" = 0 ]
