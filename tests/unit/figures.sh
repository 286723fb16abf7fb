#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Ticks become figures in one module, flow/figures.c: no other file of
# src/ calls clock_ticks_to_ns() or divides by a clock's ticks_per_ns.
# Allowed besides: base/clock (the conversion itself) and the probe and
# load engines, whose conversions are their pacing and timeouts (how long
# to sleep, what a timeout error says), never a figure. A planted
# conversion shows that the check finds one. Run by `make check` with
# SRC_DIR set.
SRC_DIR=${SRC_DIR:-src}
PATTERN='clock_ticks_to_ns|/ *[][A-Za-z0-9_>.()-]*ticks_per_ns'
ALLOWED='^(base/clock\.[ch]|flow/figures\.c|engine/probe\.c|engine/load\.c):'
fails=0

# conversions DIR: each line of a .c or .h under DIR that converts, as
# "path:line:text" with the path relative to DIR.
conversions() {
	(cd "$1" && grep -rEn --include='*.c' --include='*.h' -- "$PATTERN" .) |
		sed 's|^\./||'
}

stray=$(conversions "$SRC_DIR" | grep -Ev -- "$ALLOWED")
if [ -n "$stray" ]; then
	echo "FAIL: ticks turned into figures outside flow/figures.c:"
	echo "$stray"
	fails=$((fails + 1))
fi
grep -q 'clock_ticks_to_ns' "$SRC_DIR/flow/figures.c" ||
	{ echo "FAIL: flow/figures.c does not convert"; fails=$((fails + 1)); }

# The check itself: both forms, planted in a copy, are found.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/figures.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/report" "$tmp/coord"
printf 'double s = clock_ticks_to_ns(clk, t) / 1e9;\n' >"$tmp/report/r.c"
printf 'double m = hist_mean(h) / clk->ticks_per_ns;\n' >"$tmp/coord/c.c"
printf 'cfg->rate = clk->ticks_per_ns * 1e9;\n' >"$tmp/coord/ok.c"
found=$(conversions "$tmp" | grep -Ev -- "$ALLOWED" | cut -d: -f1 | sort | tr '\n' ' ')
[ "$found" = "coord/c.c report/r.c " ] ||
	{ echo "FAIL: the check found '$found' in the planted tree"; fails=$((fails + 1)); }
exit $((fails > 0))
