#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# scripts/check-layers itself: on tiny trees, it passes a correct one and
# fails, naming the culprit, on a forbidden include, on a cycle of
# includes, on a cycle of calls through one header that two files share,
# and on a folder of sources that is no layer.
# Run by `make check` with SRC_DIR set (the checker sits beside it).
CHECK="${SRC_DIR:-src}/../scripts/check-layers"
# shellcheck source=tests/unit/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

# layer TREE NAME USES: a folder with the README saying what it may use.
layer() {
	mkdir -p "$1/$2"
	printf '%s: a test layer.\n\nUses: %s.\n' "$2" "$3" >"$1/$2/README"
}

# file TREE PATH [INCLUDE...]: a source file including those headers.
file() {
	f=$1/$2
	shift 2
	: >"$f"
	for inc in "$@"; do
		printf '#include "%s"\n' "$inc" >>"$f"
	done
}

# expect TREE STATUS [PATTERN...]: the checker exits STATUS on TREE and
# its output matches each PATTERN (grep -E).
expect() {
	tree=$1
	want=$2
	shift 2
	python3 "$CHECK" "$tree" >"$T/out" 2>&1
	got=$?
	[ "$got" = "$want" ] ||
		fail "check-layers $tree exited $got, want $want: $(cat "$T/out")"
	for pat in "$@"; do
		grep -Eq -- "$pat" "$T/out" || fail "$tree: output lacks '$pat'"
	done
}

# A correct tree: low < mid < top; private headers and config.h are fine.
good=$T/good/src
layer "$good" low "nothing else"
layer "$good" mid "low"
layer "$good" top "low, mid"
file "$good" low/a.h
file "$good" low/a.c low/a.h config.h
file "$good" mid/m_int.h mid/m.h
file "$good" mid/m.h low/a.h
file "$good" mid/m.c mid/m_int.h low/a.h
file "$good" top/t.c mid/m.h low/a.h
expect "$good" 0
[ -s "$T/out" ] && fail "a correct tree printed: $(cat "$T/out")"

# The same tree with a lower layer reaching up.
wrong=$T/wrong/src
mkdir "$T/wrong" && cp -R "$good" "$wrong"
file "$wrong" mid/m.c mid/m_int.h top/u.h
file "$wrong" top/u.h
expect "$wrong" 1 '^src/mid/m\.c:2: includes "top/u\.h": mid may not use top$'
grep -q 'cycle' "$T/out" && fail "no cycle in $wrong, yet: $(cat "$T/out")"

# Layering respected, but two modules of one layer include each other
# through a third.
cycle=$T/cycle/src
mkdir "$T/cycle" && cp -R "$good" "$cycle"
file "$cycle" top/x.h top/y.h
file "$cycle" top/y.c top/z.h
file "$cycle" top/z.h top/x.h
expect "$cycle" 1 '^include cycle: top/x -> top/y -> top/z -> top/x$'
grep -q 'may not use' "$T/out" && fail "no bad include in $cycle, yet: $(cat "$T/out")"

# Two files of one folder that call each other through the header they
# share (as a private <module>_int.h would be shared): p.c calls q_two(),
# which q.c defines, and q.c, including p's header, depends on p. No
# include alone makes the cycle: the header stands for both files.
shared=$T/shared/src
mkdir "$T/shared" && cp -R "$good" "$shared"
printf 'int p_one(void);\nint q_two(void);\n' >"$shared/top/p.h"
printf '#include "top/p.h"\nint p_one(void)\n{\n\treturn q_two();\n}\n' >"$shared/top/p.c"
printf '#include "top/p.h"\nint q_two(void)\n{\n\treturn 2;\n}\n' >"$shared/top/q.c"
expect "$shared" 1 '^include cycle: top/p -> top/q -> top/p$'
# The same two files, each with its own header, calls going one way: clean.
split=$T/split/src
mkdir "$T/split" && cp -R "$shared" "$split"
printf 'int p_one(void);\n' >"$split/top/p.h"
printf 'int q_two(void);\n' >"$split/top/q.h"
printf '#include "top/p.h"\n#include "top/q.h"\nint p_one(void)\n{\n\treturn q_two();\n}\n' \
	>"$split/top/p.c"
printf '#include "top/q.h"\nint q_two(void)\n{\n\treturn 2;\n}\n' >"$split/top/q.c"
expect "$split" 0
# A mention in a comment or a string is no call.
printf '#include "top/q.h"\n/* p_one() */\nint q_two(void)\n{\n\treturn sizeof("p_one");\n}\n' \
	>"$split/top/q.c"
printf 'int q_two(void);\nint p_one(void);\n' >"$split/top/q.h"
expect "$split" 0

# A new folder of sources is a layer, or the tree is refused.
newdir=$T/newdir/src
mkdir "$T/newdir" && cp -R "$good" "$newdir"
mkdir "$newdir/flow" && file "$newdir" flow/spec.h
expect "$newdir" 2 "flow: sources but no README"

# A layer without a Uses: line is a broken tree, not a clean one.
nouses=$T/nouses/src
mkdir "$T/nouses" && cp -R "$good" "$nouses"
echo 'low: no rule.' >"$nouses/low/README"
expect "$nouses" 2 "low/README: no 'Uses:' line"

exit $((fails > 0))
