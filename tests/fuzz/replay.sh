#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Replay every fuzz target's seed corpus and past crashes (tests/fuzz) once
# through the target built without libFuzzer. Run by `make check` with
# TEST_DATA set (the fixtures; the fuzz inputs sit beside them).
FUZZ=${TEST_DATA:-tests/data}/../fuzz
rc=0
for t in opensm smpquery table ets tc dcb scenario ctl conn sink setup results mad tccount \
	topo_ib topo_lldp topo_file admit cm gate coord auth; do
	bin=tests/fuzz/replay_$t
	set --
	for d in "$FUZZ/corpus/$t" "$FUZZ/regressions/$t"; do
		[ -d "$d" ] && set -- "$@" "$d"
	done
	[ $# -gt 0 ] || { echo "FAIL: no inputs for $t"; rc=1; continue; }
	"$bin" "$@" || { echo "FAIL: $t"; rc=1; }
done
exit $rc
