#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every command reads its options through one parser: an unknown option
# gets the same message and exit status 2 whatever the command, and every
# command's --help states its exit statuses. Run by `make check` with
# RPERF (the built binary) set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

for cmd in lat bw server analyze converge agent; do
	"$RPERF" "$cmd" --bogus >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" = 2 ] || fail "rperf $cmd --bogus exited $got, want 2"
	first=$(head -n 1 "$T/err")
	[ "$first" = "rperf: error: unknown option '--bogus'" ] ||
		fail "rperf $cmd --bogus said '$first'"
	[ ! -s "$T/out" ] || fail "rperf $cmd --bogus wrote to stdout"
	"$RPERF" "$cmd" --help >"$T/help" 2>&1 ||
		fail "rperf $cmd --help exited $?"
	grep -q '^usage: rperf '"$cmd"' ' "$T/help" ||
		fail "rperf $cmd --help has no usage line"
	grep -q '^Exit status: 0 ok, 1 runtime failure, 2 bad usage' "$T/help" ||
		fail "rperf $cmd --help does not state its exit statuses"
done
# rperf's own options go through the same parser: same message, same
# exit status, a generated --help that lists every global option.
"$RPERF" --bogus lat >"$T/out" 2>"$T/err"
got=$?
first=$(head -n 1 "$T/err")
[ "$got" = 2 ] && [ "$first" = "rperf: error: unknown option '--bogus'" ] && [ ! -s "$T/out" ] ||
	fail "rperf --bogus: exit $got, said '$first'"
"$RPERF" -x >/dev/null 2>"$T/err"
got=$?
[ "$got" = 2 ] && [ "$(head -n 1 "$T/err")" = "rperf: error: unknown option '-x'" ] ||
	fail "rperf -x: exit $got: $(cat "$T/err")"
"$RPERF" >/dev/null 2>"$T/err"
got=$?
[ "$got" = 2 ] && grep -q "^rperf: error: no command given" "$T/err" ||
	fail "rperf without a command: exit $got: $(cat "$T/err")"
"$RPERF" bogus >/dev/null 2>"$T/err"
got=$?
[ "$got" = 2 ] && grep -q "^rperf: error: unknown command 'bogus'" "$T/err" ||
	fail "rperf bogus: exit $got: $(cat "$T/err")"
"$RPERF" --help >"$T/help" 2>&1 || fail "rperf --help exited $?"
for o in '-V, --version' '-v, --verbose' '-q, --quiet' '-h, --help'; do
	grep -q -- "^  $o " "$T/help" || fail "rperf --help lacks '$o'"
done
grep -q '^usage: rperf \[options\] COMMAND' "$T/help" &&
	grep -q '^Exit status: 0 ok, 1 runtime failure, 2 bad usage' "$T/help" ||
	fail "rperf --help: no usage line or exit statuses"
"$RPERF" help | cmp -s - "$T/help" || fail "rperf help differs from rperf --help"
# Global options stop at the command: what follows is the command's.
[ "$("$RPERF" -q -V)" = "$("$RPERF" --version)" ] ||
	fail "rperf -q -V"
"$RPERF" -v lat --bogus 2>"$T/err"
[ "$(head -n 1 "$T/err")" = "rperf: error: unknown option '--bogus'" ] &&
	grep -q "see 'rperf lat --help'" "$T/err" ||
	fail "rperf -v lat --bogus: $(cat "$T/err")"
# -v and -q after the command's name too, as main hands them to its parse:
# the same diagnostics as before it.
"$RPERF" -v analyze "$D/config-a.table" >/dev/null 2>"$T/before"
expect 0 analyze -v "$D/config-a.table"
grep -q '^rperf: note: high table: ' "$T/err" && cmp -s "$T/err" "$T/before" ||
	fail "rperf analyze -v FILE: not as rperf -v analyze FILE: $(cat "$T/err")"
expect 0 analyze "$D/config-a.table" --quiet
[ ! -s "$T/err" ] || fail "rperf analyze FILE --quiet: $(cat "$T/err")"
# No getopt outside the one parser (its own comment names it only).
if grep -n 'getopt' "${srcdir:-.}"/src/*/*.c "${srcdir:-.}"/src/*/*.h | grep -v '^[^:]*src/base/opts\.c:'; then
	fail "getopt used outside src/base/opts"
fi

# A refused rate or time names the spellings that are taken, whichever
# table its option comes from (a flow's --rate, --hw-rate, --duration).
for args in "bw --rate 10xyz" "bw --hw-rate 10xyz"; do
	expect 2 $args host
	unwrap "$T/err" | grep -q "^rperf: error: --[a-z-]* '10xyz': expected a rate .*10g, 10Gbps, 10Gb/s or 500m" ||
		fail "rperf $args: $(head -n 1 "$T/err")"
done
for cmd in lat bw mesh; do
	expect 2 $cmd --duration 3q host
	unwrap "$T/err" | grep -q "^rperf: error: --duration '3q': expected a time above 0 (10, 10s, 500ms, 1min" ||
		fail "rperf $cmd --duration 3q: $(head -n 1 "$T/err")"
done

# converge alone compares with an analysis: its help names exit 3.
"$RPERF" converge --help | tr '\n' ' ' | grep -q 'Exit status:.*,[ ]3 ' ||
	fail "rperf converge --help does not name exit status 3"
# lat and bw name exit 3 for their pass/fail criteria; a bad limit is
# named with exit 2 before any device is opened.
"$RPERF" lat --help | tr '\n' ' ' | grep -q 'Exit status:.*3 a --max-\* criterion failed' ||
	fail "rperf lat --help does not name exit status 3"
"$RPERF" bw --help | tr '\n' ' ' | grep -q 'Exit status:.*3 the --min-gbps criterion failed' ||
	fail "rperf bw --help does not name exit status 3"
for bad in "lat --max-p99 fast" "lat --max-p99.9 -1us" "bw --min-gbps lots"; do
	# shellcheck disable=SC2086
	"$RPERF" $bad host >/dev/null 2>"$T/err"
	got=$?
	opt=$(echo "$bad" | cut -d' ' -f2) val=$(echo "$bad" | cut -d' ' -f3)
	[ "$got" = 2 ] && grep -q -- "$opt '$val'" "$T/err" ||
		fail "rperf $bad: exit $got: $(cat "$T/err")"
done
# A time with a unit on the command line, as in a scenario.
"$RPERF" lat -D 500ms 2>"$T/err"
grep -q "no server given" "$T/err" ||
	fail "rperf lat -D 500ms: $(cat "$T/err")"

# One meaning per short option: across every command's --help, a letter
# names one long option.
for c in lat bw server agent analyze converge mesh; do
	"$RPERF" "$c" --help 2>/dev/null | grep -oE '^  -[a-zA-Z], --[a-z-]+' | sed "s/^/$c/"
done >"$T/shorts"
awk '{ if ($2 in long && long[$2] != $3) { printf "FAIL: %s means %s in %s, %s in %s\n", \
	$2, long[$2], cmd[$2], $3, $1; bad = 1 } long[$2] = $3; cmd[$2] = $1 } END { exit bad }' \
	"$T/shorts" || fail "a short option with two meanings"
# analyze's old -p, -s and -n still read, each with a warning naming the
# spelling to use; the figures as with the long option.
expect 0 analyze --packet-size 2048 --sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3 "$D/config-a.table"
cp "$T/out" "$T/long"
expect 0 analyze -p 2048 -s 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3 "$D/config-a.table"
cmp -s "$T/out" "$T/long" || fail "analyze -p, -s: not as --packet-size, --sl2vl"
has "^rperf: warning: -p is deprecated in analyze \(-p is the TCP port in lat and bw\): use --packet-size$"
has "^rperf: warning: -s is deprecated in analyze .*: use --sl2vl$"
expect 0 analyze -n ca "$D/config-a.opensm.conf"
has "^rperf: warning: -n is deprecated in analyze .*: use --node-type$"
# A converge scenario given to analyze is named as such, at its [global].
expect 2 analyze "$D/scenario-good.ini"
has "scenario-good.ini:2: a converge scenario \(\[global\]\), not an arbitration configuration"

finish "options-cli: every command reads options the same way"
