#!/bin/sh
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
