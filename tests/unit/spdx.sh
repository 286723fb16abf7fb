#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every source file states its license in its first comment line, after
# the shebang where there is one: C and headers, scripts (shell, Python,
# make, anything with #!), Makefile.am, configure.ac, the man pages, the
# unit file and the spec. Fixtures and corpora are data, not source, but a
# script kept among the fixtures (a fixture's generator) is source; a fuzz
# input that happens to begin with #! is still data. And
# COPYING holds both texts the SPDX line names. Run by `make check` with
# TEST_TOP set.
TOP=${TEST_TOP:-.}
ID='SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause'
fails=0
n=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Is FILE a script, by its name or its #! line?
is_script() {
	case $1 in *.sh | *.py) return 0 ;; esac
	[ "$(head -c 2 "$1")" = '#!' ]
}

# Is FILE source, by its name or its #! line?
is_source() {
	case $1 in
	*/tests/data/*) is_script "$1"; return ;;
	*/tests/fuzz/corpus/* | */tests/fuzz/regressions/* | \
	*/tests/ib/conf/* | */tests/ib/net/* | */debian/rperf/* | */debian/.debhelper/* | \
	*/debian/tmp/*) return 1 ;;
	*.c | *.h | *.sh | *.py | *.jq | *.1 | *.5 | *.service | *.spec | \
	*/Makefile.am | */configure.ac | */scripts/completion/* | */scripts/lab-guest/*) return 0 ;;
	esac
	[ "$(head -c 2 "$1")" = '#!' ]
}

# The SPDX line, as a comment, on line 1 or on line 2 after a #! line.
has_spdx() {
	first=$(sed -n 1p "$1")
	line=$first
	case $first in '#!'*) line=$(sed -n 2p "$1") ;; esac
	case $line in
	"/* $ID */" | "# $ID" | "dnl $ID" | ".\\\" $ID") return 0 ;;
	esac
	return 1
}

for f in $(find "$TOP/src" "$TOP/tests" "$TOP/bench" "$TOP/scripts" "$TOP/man" "$TOP/debian" \
	"$TOP/Makefile.am" "$TOP/configure.ac" "$TOP/autogen.sh" "$TOP/rperf.spec" \
	-type f ! -name '*.o' ! -name '*.log' ! -name '*.trs' 2>/dev/null); do
	is_source "$f" || continue
	# Built files (programs, generated scripts) are not in git's sense source.
	case $(file -b --mime-type "$f" 2>/dev/null) in
	application/x-*executable | application/x-sharedlib | application/x-object) continue ;;
	esac
	n=$((n + 1))
	has_spdx "$f" || fail "${f#"$TOP"/}: no '$ID' as its first comment line"
done
[ "$n" -gt 200 ] || fail "only $n source files found under $TOP"
grep -q 'GNU GENERAL PUBLIC LICENSE' "$TOP/COPYING" && grep -q 'Version 2, June 1991' "$TOP/COPYING" &&
	grep -q 'Redistributions in binary form must reproduce' "$TOP/COPYING" ||
	fail "COPYING lacks the GPL-2 or the BSD-2-Clause text"
grep -q '^License:.*GPL-2.0-only OR BSD-2-Clause' "$TOP/rperf.spec" || fail "rperf.spec: License"
grep -q '^License: GPL-2.0-only or BSD-2-Clause' "$TOP/debian/copyright" || fail "debian/copyright: License"

[ "$fails" = 0 ] && echo "spdx: $n source files carry the license line"
exit "$fails"
