#!/bin/sh
# rperf analyze from the command line: exit statuses and the JSON shape.
# Run by `make check` with RPERF (the built binary) and TEST_DATA set.
RPERF=${RPERF:-src/rperf}
D=${TEST_DATA:-tests/data}
fails=0
out=${TMPDIR:-/tmp}/analyze-cli.$$
trap 'rm -f "$out" "$out.err" "$out.json"' EXIT

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# expect STATUS ARGS...: run rperf analyze ARGS, check its exit status.
expect() {
	want=$1
	shift
	"$RPERF" analyze "$@" >"$out" 2>"$out.err"
	got=$?
	[ "$got" = "$want" ] || fail "rperf analyze $* exited $got, want $want: $(cat "$out.err")"
}

# has PATTERN: the last output contains PATTERN (grep -E).
has() {
	grep -Eq -- "$1" "$out" || fail "output lacks '$1'"
}

expect 0 --limit 1 "$D/config-a.table"
has '^ +3 +3 +saturate +8\.6-50\.0 +8\.57 '
expect 0 --json "$D/config-a.opensm.conf"
has '"model": "ib-packet"'
has '"runs": 30'
has '"exact": true'
has '"uncertain": true'
has '"share_max_pct": 50'
has '"semantics": "carry=no,low=entry,limit0=bytes"'
has '"limit": 1'
has '"share_pct": 8\.57142857'
has '"share_pct": 45\.714285'
has '"max_distance"'
has '"mean_distance"'
has '"warnings": \['
has '"vls": \['
has 'config-a.opensm.conf'
expect 0 --json "$D/config-a.smpquery.txt" "$D/config-a.portinfo.txt"
has '"share_pct": 8\.57142857'
cat "$D/config-a.smpquery.txt" "$D/config-a.portinfo.txt" >"$out.json"
expect 0 --json --format smpquery "$out.json"
has '"format": "smpquery"'
expect 0 --json=- --model ib-fluid --limit 1 "$D/config-a.table"
has '"model": "ib-fluid"'
has '"share_pct": 8\.57142857'
expect 0 --json "$D/ets-roce.txt" --load 5:10,3:sat,0:sat
has '"model": "ets"'
has '"bands": \['
has '"quantum_bytes": 4500'
expect 0 --load 0:10,1:sat --link-gbps 200 --limit 1 "$D/config-a.table"
has '^ +0 +0 +10 +5\.00 +10\.00 '
expect 0 --json="$out.json" --limit 1 "$D/config-a.table"
grep -q '"share_pct"' "$out.json" || fail "--json=FILE wrote no JSON"
expect 0 --help
has 'usage: rperf analyze'

# Bad usage and bad input: exit 2, with file:line for the input.
for f in bad-malformed bad-vl bad-weight bad-entries bad-table-key bad-key \
	 bad-empty bad-truncated bad-truncated-row bad-ets-band \
	 bad-ets-nodefault bad-ets-order; do
	expect 2 "$D/$f.txt"
	grep -q "$f.txt:[0-9]*:" "$out.err" || fail "$f: no file:line in '$(cat "$out.err")'"
done
expect 2 --model ets "$D/config-a.table"
expect 2 --model ib-fluid "$D/ets-roce.txt"
expect 2 --limit 256 "$D/config-a.table"
expect 2 --load 16:10 "$D/config-a.table"
expect 2 --format xml "$D/config-a.table"
expect 2 "$D/config-a.table" "$D/ets-roce.txt"
expect 2 "$D/no-such-file"
expect 2

[ "$fails" = 0 ] || exit 1
echo "analyze-cli: all passed"
