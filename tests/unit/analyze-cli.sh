#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf analyze from the command line: exit statuses and the JSON shape.
# Run by `make check` with RPERF (the built binary) and TEST_DATA set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
out=$T/out

expect 0 analyze --limit 1 "$D/config-a.table"
out_has '^ +3 +3 +saturate +8\.6-50\.0 +8\.6-50\.0 '
# A range of shares is a range of Gb/s too, on the link given.
expect 0 analyze --limit 1 --link-gbps 200 "$D/config-a.table"
out_has '^ +3 +3 +saturate +8\.6-50\.0 +17\.1-100\.0 '
expect 0 analyze --json - "$D/config-a.opensm.conf"
out_has '"model": "ib-packet"'
out_has '"runs": 30'
out_has '"exact": true'
out_has '"uncertain": true'
out_has '"share_max_pct": 50'
out_has '"semantics": "carry=no,low=entry,limit0=bytes"'
out_has '"limit": 1'
out_has '"share_pct": 8\.57142857'
out_has '"share_pct": 45\.714285'
out_has '"max_seen_distance"'
out_has '"mean_distance"'
out_has '"warnings": \['
out_has '"vls": \['
out_has 'config-a.opensm.conf'
# A real capture (smpquery under ibsim, tests/data/ib/README) of the port
# OpenSM programmed from Config A: ibsim's VLArb caps are 8, so it holds
# the first 8 high entries, and SL8-SL14 share VL0-VL6 (VLCap 8). The
# figures expected come from the capture itself, by ib-fluid's law with
# limit 1 (64 high units, then the low table): a high VL gets
# 64/(64+L) of the link by its weight, a low VL its weight over 64+L, and
# the SLs of a VL split it equally.
CAP="$D/ib/config-a.1-1.txt"
expect 0 analyze --json - --model ib-fluid --limit 1 "$CAP"
out_has '"format": "smpquery"'
awk '
	function hex(s,   i, c, v) {
		gsub(/[ \t]/, "", s); sub(/^0[xX]/, "", s); v = 0
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", tolower(substr(s, i, 1)))
			v = v * 16 + c - 1
		}
		return v
	}
	/^# High priority/ { t = "h"; next }
	/^# Low priority/ { t = "l"; next }
	/^VL +:/ && t != "" { n = split($0, v, "|"); next }
	/^WEIGHT:/ && t != "" {
		split($0, w, "|")
		for (i = 2; i < n; i++) {
			vl = hex(v[i]); wt = hex(w[i])
			if (t == "h") { hi[vl] += wt; H += wt } else { lo[vl] += wt; L += wt }
		}
		t = ""; next
	}
	/^ports: in +0,/ { split($0, s, "|"); for (i = 2; i <= 17; i++) sl2vl[i - 2] = s[i] + 0 }
	END {
		for (sl = 0; sl < 16; sl++) if (sl2vl[sl] != 15) on[sl2vl[sl]]++
		for (sl = 0; sl < 16; sl++) {
			vl = sl2vl[sl]
			pct = vl == 15 ? 0 : 100 * (64 / (64 + L) * hi[vl] / H + lo[vl] / (64 + L)) / on[vl]
			printf "%.9f\n", pct
		}
	}' "$CAP" >"$out.want"
jq -r '.sls[].share_pct | . * 1e9 | round / 1e9 | tostring' "$out" >"$out.got"
paste "$out.want" "$out.got" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6) bad = 1 }
	END { exit bad }' || fail "the capture's shares: want $(tr '\n' ' ' <"$out.want"), got $(tr '\n' ' ' <"$out.got")"
[ "$(wc -l <"$out.got")" = 16 ] || fail "the capture's shares: $(wc -l <"$out.got") SLs"
# A CA's capture (its portinfo in it), and the same with --format.
expect 0 analyze --json - --model ib-fluid --limit 1 "$D/ib/config-a.2-1.txt"
out_has '"format": "smpquery"'
expect 0 analyze --json - --format smpquery --model ib-fluid --limit 1 "$CAP"
jq -r '.sls[].share_pct | . * 1e9 | round / 1e9 | tostring' "$out" | cmp -s - "$out.got" ||
	fail "the capture with --format smpquery differs"
expect 0 analyze --json - --model ib-fluid --limit 1 "$D/config-a.table"
out_has '"model": "ib-fluid"'
out_has '"share_pct": 8\.57142857'
expect 0 analyze --json - "$D/ets-roce.txt" --load 5:10,3:sat,0:sat
out_has '"model": "ets"'
out_has '"bands": \['
out_has '"quantum_bytes": 4500'
expect 0 analyze --load 0:10,1:sat --link-gbps 200 --limit 1 "$D/config-a.table"
# SL0's 10 Gb/s (5 %): a whole number of its packets in a window within
# the analysis' budget, so within its bound (under half a point)
out_has '^ +0 +0 +10 +(4\.9[6-9]|5\.0[0-4]) +(9\.9[2-9]|10\.0[0-8]) '
expect 0 analyze --json="$out.json" --limit 1 "$D/config-a.table"
grep -q '"share_pct"' "$out.json" || fail "--json=FILE wrote no JSON"

# --json FILE is an output, whichever way it is spelt, and is never read as
# an input (it used to be when the file existed); -jFILE is -j FILE.
expect 0 analyze --json "$out.json" --limit 1 "$D/config-a.table"
[ ! -s "$out" ] || fail "--json FILE also wrote to stdout: $(head -c 200 "$out")"
jq -e '.limit == 1 and .format == "table"' "$out.json" >/dev/null || fail "--json FILE: $(head -c 200 "$out.json")"
expect 0 analyze -j"$out.json" --limit 2 "$D/config-a.table"
jq -e '.limit == 2' "$out.json" >/dev/null || fail "-jFILE did not write FILE"
expect 0 analyze -j "$out.json" --limit 3 "$D/config-a.table"
jq -e '.limit == 3' "$out.json" >/dev/null || fail "-j FILE did not write FILE"
# rperf's own JSON given as an input: refused, saying what it is.
expect 2 analyze --limit 1 "$out.json"
grep -q "rperf's own JSON output (rperf analyze --json), not an input" "$T/err" ||
	fail "own JSON as input: $(cat "$T/err")"
# '-' is standard input for an input.
"$RPERF" analyze --limit 1 - <"$D/config-a.table" >"$out" 2>"$T/err" || fail "stdin input: $(cat "$T/err")"
out_has '^ +3 +3 +saturate +8\.6-50\.0 +8\.6-50\.0 '
# A failure still leaves a document: complete false, with the error; and
# a failed run replaces no earlier document with half of one.
expect 2 analyze --json "$out.json" "$D/no-such-file"
jq -e '.command == "analyze" and .complete == false and (.error | test("no-such-file"))' \
	"$out.json" >/dev/null || fail "failed analyze: $(cat "$out.json")"
ls "$out.json".* >/dev/null 2>&1 && fail "temporary files left: $(ls "$out.json".*)"
expect 2 analyze --json - "$D/bad-vl.txt"
jq -e '.complete == false and (.error | test("bad-vl.txt:[0-9]+:"))' "$out" >/dev/null ||
	fail "failed analyze --json -: $(cat "$out")"
expect 0 analyze --help
out_has 'usage: rperf analyze'

# --csv: the JSON's rows, cell by cell, for each kind of arbitration (the
# CSV and the JSON are written from one description of a row; a number
# is the same double, whatever its spelling).
for args in "$D/config-a.opensm.conf" "--model dtable --load 0:10,1:sat $D/config-a.table" \
	"$D/ets-roce.txt --load 5:10,3:sat,0:sat"; do
	# shellcheck disable=SC2086 # ARGS are words
	expect 0 analyze --csv "$out.two" --json "$out.json" $args
	[ ! -s "$out" ] || fail "--csv FILE also wrote to stdout: $(head -c 200 "$out")"
	head -n 1 "$out.two" | grep -q '^list,sl,vl,band,packet_bytes,offered_gbps,' ||
		fail "--csv $args: heads $(head -n 1 "$out.two")"
	jq -r --arg keys "$(head -n 1 "$out.two" | cut -d, -f2-)" '($keys | split(",")) as $k |
		("sls", "vls", "bands") as $l | (.[$l] // [])[] | [$l] + [.[$k[]] |
		if . == null then "" elif type == "array" then map(tostring) | join(" ")
		elif type == "boolean" then (if . then "1" else "0" end) else tostring end] |
		join(",")' "$out.json" >"$out.want"
	tail -n +2 "$out.two" >"$out.got"
	[ "$(wc -l <"$out.got")" = "$(wc -l <"$out.want")" ] && [ -s "$out.got" ] ||
		fail "--csv $args: $(wc -l <"$out.got") rows, the JSON $(wc -l <"$out.want")"
	paste -d '|' "$out.want" "$out.got" | awk -F'|' '{
		n = split($1, w, ","); m = split($2, g, ",")
		if (n != m) bad = 1
		for (i = 1; i <= n; i++)
			if (w[i] != g[i] && (w[i] "" !~ /^-?[0-9]/ || (w[i] - g[i]) ^ 2 > 1e-20 * (w[i] ^ 2 + 1)))
				bad = 1
	} END { exit bad }' || fail "--csv $args differs from the JSON: $(diff "$out.want" "$out.got" | head -n 4)"
done
expect 0 analyze --csv - --limit 1 "$D/config-a.table"
out_has '^sls,3,3,,4096,saturate,8\.57142857[0-9]*,50,8\.57142857'

# Bad usage and bad input: exit 2, with file:line for the input.
for f in bad-malformed bad-vl bad-weight bad-entries bad-table-key bad-key \
	 bad-empty bad-truncated bad-truncated-row bad-ets-band \
	 bad-ets-nodefault bad-ets-order; do
	expect 2 analyze "$D/$f.txt"
	grep -q "$f.txt:[0-9]*:" "$T/err" || fail "$f: no file:line in '$(cat "$T/err")'"
done
expect 2 analyze --model ets "$D/config-a.table"
expect 2 analyze --model ib-fluid "$D/ets-roce.txt"
expect 2 analyze --limit 256 "$D/config-a.table"
expect 2 analyze --load 16:10 "$D/config-a.table"
expect 2 analyze --format xml "$D/config-a.table"
expect 2 analyze "$D/config-a.table" "$D/ets-roce.txt"
expect 2 analyze "$D/no-such-file"
expect 2 analyze
# OpenSM's default tables (limit 0, every weight below a packet): SL0 gets
# 50 % in every plausible reading; the reading whose low turns can pass
# empty (a whole pass over the low table finds every VL still repaying
# its overshoot) is left out of the range, and chosen on purpose it gives
# 67.4 % (29 high packets to 14 low ones a period) with a warning that it
# breaks limit 0's alternation. One low VL over two entries of half a
# packet never owes more than a pass gives it: that reading is kept.
OSM="$D/../ib/conf/01-defaults.conf"
G=-v
expect 0 analyze --json - "$OSM"
jq -e '.sls[0].share_min_pct == 50 and .sls[0].share_max_pct == 50 and
	([.per_semantics[].semantics] | index("carry=yes,low=entry,limit0=bytes") == null)' "$out" >/dev/null ||
	fail "OpenSM defaults: SL0 not 50 % in every reading: $(jq -c '.sls[0]' "$out")"
has "limit0=bytes left out of the range"
expect 0 analyze --json - --semantics limit0=bytes --range-pct 5 "$OSM"
jq -e '(.sls[0].share_pct * 100 | round) == 6744 and .range_pct == 5' "$out" >/dev/null ||
	fail "--semantics limit0=bytes: $(jq -c '{range_pct, sl0: .sls[0]}' "$out")"
has "breaks limit 0's alternation"
printf 'high,0,64\nlow,1,32\nlow,1,32\n' >"$out.two"
expect 0 analyze --json - --limit 0 --load 0:sat,1:sat "$out.two"
jq -e '[.per_semantics[].semantics] | index("carry=yes,low=entry,limit0=bytes") != null' "$out" >/dev/null ||
	fail "one low VL over two entries: limit0=bytes left out: $(jq -c '[.per_semantics[].semantics]' "$out")"
grep -q "left out" "$T/err" && fail "one low VL over two entries: $(cat "$T/err")"
G=

# Warnings: OpenSM's defaults give at most 4 lines at the default level
# (what changes the figures or asks for action: every weight is below a
# packet, the VLs assumed, two firmware caveats), the routine notes with
# -v, none with -q; the footer counts what stderr showed; the JSON keeps
# every one, each with a code.
expect 0 analyze "$OSM"
n=$(grep -c '^rperf: warning: ' "$T/err")
[ "$n" -ge 1 ] && [ "$n" -le 4 ] || fail "OpenSM defaults: $n warning lines, want 1-4: $(cat "$T/err")"
has "every weight is below one 4096-byte packet"
has "firmware caveat: the shares depend on LimitOfHighPriority 0"
has "15 operational VLs assumed, as max_op_vls 5 asks"
grep -q "weight 0 skipped\|table: .* below one 4096-byte packet" "$T/err" &&
	fail "OpenSM defaults: routine notes at the default level: $(cat "$T/err")"
notes=$(G=-v; "$RPERF" -v analyze "$OSM" 2>&1 >/dev/null | grep -c '^rperf: ')
out_has "not listed get nothing \($n warnings?; $((notes - n)) notes? with -v\)"
G=-v
expect 0 analyze "$OSM"
grep -q "weight 0 skipped" "$T/err" || fail "-v: the notes are not shown: $(cat "$T/err")"
out_has "\($n warnings?, $((notes - n)) notes?\)"
G=-q
expect 0 analyze "$OSM"
[ -s "$T/err" ] && fail "-q: stderr not empty: $(cat "$T/err")"
grep -q "warning" "$out" && fail "-q: the footer still counts warnings: $(tail -n 2 "$out")"
G=
expect 0 analyze --json - "$OSM"
jq -e --argjson n "$notes" '(.warnings | length) >= $n and (.warning_codes | length) == (.warnings | length) and
	(.warning_codes | index("firmware-high-limit") != null) and
	(.warning_codes | index("weight-0") != null)' "$out" >/dev/null ||
	fail "OpenSM defaults: the JSON does not keep every warning with a code: $(jq -c '.warning_codes' "$out")"
# SLs sharing VLs: one line for them all; OpenSM masking SL2VL: one line.
expect 0 analyze --json - "$D/../ib/conf/10-short-sl2vl.conf"
n=$(jq '[.warning_codes[] | select(. == "sl-shared-vl")] | length' "$out")
[ "$n" = 1 ] || fail "SLs sharing VLs: $n warnings, want one"
jq -e '.warnings[] | select(test("SL2\\+SL3\\+SL4"))' "$out" >/dev/null ||
	fail "SLs sharing VLs: the line does not list them: $(jq -c .warnings "$out")"
expect 0 analyze --json - "$D/../ib/conf/18-max-op-vls-3.conf"
n=$(jq '[.warning_codes[] | select(. == "opensm-sl2vl-masked")] | length' "$out")
[ "$n" = 1 ] || fail "per-SL masking: $n warnings, want one"
# --load as a list leaves the classes it does not name without load: said.
expect 0 analyze --load b0:10g "$D/ets-roce.txt"
grep -q "warning: --load 'b0:10g' gives band 1, band 2 no load" "$T/err" ||
	fail "--load b0:10g: no warning for the bands left out: $(cat "$T/err")"
out_has '\(1 warning\)'
expect 0 analyze --load 5:10,3:sat,0:sat "$D/ets-roce.txt"
grep -q "no load" "$T/err" && fail "every band loaded, yet warned: $(cat "$T/err")"

# ETS and tc: the DSCP and priority map of each band, and no priority
# table that says nothing gets traffic while a band gets it.
expect 0 analyze --load b0:10g "$D/ets-roce.txt"
grep -q "none gets traffic" "$out" && fail "ETS per-band load: 'none gets traffic': $(cat "$out")"
out_has '^ +0 +strict +- +10\.00 +10\.00 '
out_has '^ +0 DSCP 46,48; priority 5$'
out_has '^ +1 DSCP 8,26; priority 3$'
out_has '^ +2 the rest \(default\)$'
expect 0 analyze --format tc "$D/tc-ets-strict-2to1.qdisc.json" "$D/tc-ets-strict-2to1.filter.json"
out_has '^ +0 DSCP 46'

# A switch's base port 0 (smpquery: "# No VLArbitration tables (BSP0)"),
# alone, is known without --format and gets the same clear error as with it.
head -n 1 "$D/ib/config-a.3-0.txt" >"$out.in"
for args in "$out.in" "-f smpquery $out.in" "$D/ib/config-a.3-0.txt"; do
	# shellcheck disable=SC2086 # ARGS are words
	expect 2 analyze $args
	grep -q "no VL arbitration tables (a switch's base port 0" "$T/err" ||
		fail "BSP0 capture ($args): $(cat "$T/err")"
done
# Options that do not apply are refused, named, rather than ignored.
expect 2 analyze --in-port 1 "$D/config-a.table"
grep -q -- "--in-port applies to a switch's smpquery sl2vl capture or --port" "$T/err" ||
	fail "--in-port with a table: $(cat "$T/err")"
expect 2 analyze --ca mlx5_0 "$D/config-a.table"
grep -q -- "--ca applies with --port" "$T/err" || fail "--ca without --port: $(cat "$T/err")"
expect 2 analyze --node-type ca "$D/ets-roce.txt"
grep -q -- "--node-type applies to an opensm.conf" "$T/err" ||
	fail "--node-type with ETS: $(cat "$T/err")"
expect 0 analyze --node-type ca "$D/config-a.opensm.conf"

# Every line of every table fits in 100 columns, whatever the input.
# (The inputs by their short names: the header names them as given.)
R=$(cd "$(dirname "$RPERF")" && pwd)/$(basename "$RPERF")
for f in "$D"/*.conf "$D"/*.table "$D"/ets-*.txt "$D"/../ib/conf/*.conf; do
	(cd "$(dirname "$f")" && "$R" -v analyze "$(basename "$f")") >"$out" 2>/dev/null || continue
	awk -v f="$f" 'length > 100 { print f ": " length " columns: " $0; bad = 1 }
		END { exit bad }' "$out" || fail "lines over 100 columns: $(awk 'length > 100' "$out")"
done
"$RPERF" analyze --limit 1 --link-gbps 0.01 --range-pct 0 "$D/config-a.table" >"$out" 2>/dev/null
awk 'length > 100 { bad = 1 } END { exit bad }' "$out" || fail "ranges: lines over 100 columns"
expect 2 analyze --semantics carry=maybe "$OSM"
grep -q -- "--semantics 'carry=maybe'" "$T/err" || fail "bad --semantics not named"
expect 2 analyze --range-pct 101 "$OSM"
grep -q -- "--range-pct '101'" "$T/err" || fail "bad --range-pct not named"
expect 2 analyze --semantics carry=no --model ib-fluid "$OSM"
grep -q -- "--semantics applies to ib-packet" "$T/err" || fail "--semantics with ib-fluid: $(cat "$T/err")"

# --port: a bad value is named before any MAD leaves; a table with a live
# port is refused before the port is read; an unreachable fabric is a
# failure (1), not bad usage. The live reads: tests/ib/live.sh.
for bad in 1 1: :1 0,1,:1 0,,1:1 1,0:1 49152:1 1:255 x:1; do
	expect 2 analyze --port "$bad"
	grep -q -- "--port '$bad'" "$T/err" || fail "--port $bad: not named: $(cat "$T/err")"
done
expect 2 analyze --port 1:1 "$D/config-a.table"
grep -q "with a live port, give an opensm.conf" "$T/err" || fail "table with --port: $(cat "$T/err")"
expect 2 analyze --port 1:1 --ca :1
grep -q "device ':1'" "$T/err" || fail "--ca :1 not named: $(cat "$T/err")"
expect 1 analyze --port 1:1
grep -q "lid 1 port 1: cannot open the umad port" "$T/err" || fail "no umad: $(cat "$T/err")"

finish "analyze-cli: all passed"
