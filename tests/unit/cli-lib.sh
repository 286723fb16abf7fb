# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# What the command-line tests (tests/unit/*-cli.sh) share, sourced first:
#   . "$(dirname "$0")/cli-lib.sh"
# It sets RPERF (the built binary), TOP (the source tree), D (the test
# data), and what test-lib.sh sets (T, on_exit, fails, fail), and gives:
#   expect STATUS ARGS... run rperf $G ARGS (G: rperf's global options,
#                         words), its stdout in $T/out and stderr in
#                         $T/err; a failure unless it exits STATUS
#   has PATTERN           a failure unless the last stderr matches (grep -E),
#                         a wrapped diagnostic read as one line
#   out_has PATTERN       the same for the last stdout
#   finish MESSAGE        exit 1 after a failure, else say MESSAGE
# Run with what `make check` sets: RPERF, TEST_DATA, TEST_TOP.
RPERF=${RPERF:-src/rperf}
TOP=${TEST_TOP:-.}
D=${TEST_DATA:-tests/data}
# shellcheck source=tests/unit/test-lib.sh
. "$(dirname "$0")/test-lib.sh"
G=

expect() {
	want=$1
	shift
	# shellcheck disable=SC2086 # G: rperf's global options, words
	"$RPERF" $G "$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" = "$want" ] || fail "rperf $G${G:+ }$* exited $got, want $want: $(cat "$T/err")"
}

# A diagnostic wrapped over lines (continued after 4 spaces) as one line.
unwrap() {
	sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$1"
}

has() {
	unwrap "$T/err" | grep -Eq -- "$1" || fail "stderr lacks '$1': $(cat "$T/err")"
}

out_has() {
	grep -Eq -- "$1" "$T/out" || fail "output lacks '$1'"
}

finish() {
	[ "$fails" = 0 ] || exit 1
	echo "$1"
}
