#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every command reads its options through one parser: an unknown option
# gets the same message and exit status 2 whatever the command, and every
# command's --help states its exit statuses. Run by `make check` with
# RPERF (the built binary) set.
RPERF=${RPERF:-src/rperf}
T=$(mktemp -d "${TMPDIR:-/tmp}/options-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0

for cmd in lat bw server analyze converge agent; do
	"$RPERF" "$cmd" --bogus >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" = 2 ] || { echo "FAIL: rperf $cmd --bogus exited $got, want 2"; fails=$((fails + 1)); }
	first=$(head -n 1 "$T/err")
	[ "$first" = "rperf: error: unknown option '--bogus'" ] ||
		{ echo "FAIL: rperf $cmd --bogus said '$first'"; fails=$((fails + 1)); }
	[ ! -s "$T/out" ] || { echo "FAIL: rperf $cmd --bogus wrote to stdout"; fails=$((fails + 1)); }
	"$RPERF" "$cmd" --help >"$T/help" 2>&1 ||
		{ echo "FAIL: rperf $cmd --help exited $?"; fails=$((fails + 1)); }
	grep -q '^usage: rperf '"$cmd"' ' "$T/help" ||
		{ echo "FAIL: rperf $cmd --help has no usage line"; fails=$((fails + 1)); }
	grep -q '^Exit status: 0 ok, 1 runtime failure, 2 bad usage' "$T/help" ||
		{ echo "FAIL: rperf $cmd --help does not state its exit statuses"; fails=$((fails + 1)); }
done
# rperf's own options go through the same parser: same message, same
# exit status, a generated --help that lists every global option.
"$RPERF" --bogus lat >"$T/out" 2>"$T/err"
got=$?
first=$(head -n 1 "$T/err")
[ "$got" = 2 ] && [ "$first" = "rperf: error: unknown option '--bogus'" ] && [ ! -s "$T/out" ] ||
	{ echo "FAIL: rperf --bogus: exit $got, said '$first'"; fails=$((fails + 1)); }
"$RPERF" -x >/dev/null 2>"$T/err"
got=$?
[ "$got" = 2 ] && [ "$(head -n 1 "$T/err")" = "rperf: error: unknown option '-x'" ] ||
	{ echo "FAIL: rperf -x: exit $got: $(cat "$T/err")"; fails=$((fails + 1)); }
"$RPERF" >/dev/null 2>"$T/err"
got=$?
[ "$got" = 2 ] && grep -q "^rperf: error: no command given" "$T/err" ||
	{ echo "FAIL: rperf without a command: exit $got: $(cat "$T/err")"; fails=$((fails + 1)); }
"$RPERF" bogus >/dev/null 2>"$T/err"
got=$?
[ "$got" = 2 ] && grep -q "^rperf: error: unknown command 'bogus'" "$T/err" ||
	{ echo "FAIL: rperf bogus: exit $got: $(cat "$T/err")"; fails=$((fails + 1)); }
"$RPERF" --help >"$T/help" 2>&1 || { echo "FAIL: rperf --help exited $?"; fails=$((fails + 1)); }
for o in '-V, --version' '-v, --verbose' '-q, --quiet' '-h, --help'; do
	grep -q -- "^  $o " "$T/help" || { echo "FAIL: rperf --help lacks '$o'"; fails=$((fails + 1)); }
done
grep -q '^usage: rperf \[options\] COMMAND' "$T/help" &&
	grep -q '^Exit status: 0 ok, 1 runtime failure, 2 bad usage' "$T/help" ||
	{ echo "FAIL: rperf --help: no usage line or exit statuses"; fails=$((fails + 1)); }
"$RPERF" help | cmp -s - "$T/help" || { echo "FAIL: rperf help differs from rperf --help"; fails=$((fails + 1)); }
# Global options stop at the command: what follows is the command's.
[ "$("$RPERF" -q -V)" = "$("$RPERF" --version)" ] ||
	{ echo "FAIL: rperf -q -V"; fails=$((fails + 1)); }
"$RPERF" -v lat --bogus 2>"$T/err"
[ "$(head -n 1 "$T/err")" = "rperf: error: unknown option '--bogus'" ] &&
	grep -q "see 'rperf lat --help'" "$T/err" ||
	{ echo "FAIL: rperf -v lat --bogus: $(cat "$T/err")"; fails=$((fails + 1)); }
# No getopt outside the one parser (its own comment names it only).
if grep -n 'getopt' "${srcdir:-.}"/src/*/*.c "${srcdir:-.}"/src/*/*.h | grep -v '^[^:]*src/base/opts\.c:'; then
	echo "FAIL: getopt used outside src/base/opts"; fails=$((fails + 1))
fi

# converge alone compares with an analysis: its help names exit 3.
"$RPERF" converge --help | tr '\n' ' ' | grep -q 'Exit status:.*,[ ]3 ' ||
	{ echo "FAIL: rperf converge --help does not name exit status 3"; fails=$((fails + 1)); }
# lat and bw name exit 3 for their pass/fail criteria; a bad limit is
# named with exit 2 before any device is opened.
"$RPERF" lat --help | tr '\n' ' ' | grep -q 'Exit status:.*3 a --max-\* criterion failed' ||
	{ echo "FAIL: rperf lat --help does not name exit status 3"; fails=$((fails + 1)); }
"$RPERF" bw --help | tr '\n' ' ' | grep -q 'Exit status:.*3 the --min-gbps criterion failed' ||
	{ echo "FAIL: rperf bw --help does not name exit status 3"; fails=$((fails + 1)); }
for bad in "lat --max-p99 fast" "lat --max-p99.9 -1us" "bw --min-gbps lots"; do
	# shellcheck disable=SC2086
	"$RPERF" $bad host >/dev/null 2>"$T/err"
	got=$?
	opt=$(echo "$bad" | cut -d' ' -f2) val=$(echo "$bad" | cut -d' ' -f3)
	[ "$got" = 2 ] && grep -q -- "$opt '$val'" "$T/err" ||
		{ echo "FAIL: rperf $bad: exit $got: $(cat "$T/err")"; fails=$((fails + 1)); }
done
# A time with a unit on the command line, as in a scenario.
"$RPERF" lat -D 500ms 2>"$T/err"
grep -q "no server given" "$T/err" ||
	{ echo "FAIL: rperf lat -D 500ms: $(cat "$T/err")"; fails=$((fails + 1)); }

[ "$fails" = 0 ] && echo "options-cli: every command reads options the same way"
exit "$fails"
