# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# What the command-line tests (tests/unit/*-cli.sh) share, sourced first:
#   . "$(dirname "$0")/cli-lib.sh"
# It sets RPERF (the built binary), TOP (the source tree), D (the test
# data), T (a directory of the test's own, named after it, removed on exit
# after on_exit, which a test may define again to stop what it started)
# and fails, and gives:
#   fail MESSAGE          count a failure and say it
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
T=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX") || exit 1
fails=0
G=

on_exit() {
	:
}
trap 'on_exit; rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

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
