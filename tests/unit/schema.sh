#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The JSON schemas (schema/) against rperf's outputs: the outputs the lab
# kept (tests/data/json: lat, bw, server, converge and its --json-stream, mesh,
# from real runs on Soft-RoCE), fresh outputs of the built rperf (analyze
# of every kind of input, converge that cannot reach its agents), and
# outputs broken on purpose, which the validator must refuse, each with
# the place and the cause. The fixtures are copies the lab kept
# (RPERF_LAB_JSON_DIR=DIR scripts/lab run ...; see tests/lab/lib.sh), the
# tree's path taken out of their command lines.
# Run by `make check` with RPERF, TEST_DATA and TEST_TOP set.
RPERF=${RPERF:-src/rperf}
TOP=${TEST_TOP:-.}
D=${TEST_DATA:-tests/data}
VALIDATE="$TOP/scripts/validate-json"
SCHEMA=$TOP/schema
T=$(mktemp -d "${TMPDIR:-/tmp}/schema.XXXXXX")
fails=0
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# valid FILE...: every FILE validates.
valid() {
	"$VALIDATE" "$SCHEMA" "$@" >"$T/out" 2>&1 || fail "does not validate: $(cat "$T/out")"
}

# refused NAME MESSAGE: $T/NAME is refused, the error saying MESSAGE (grep -E).
refused() {
	if "$VALIDATE" "$SCHEMA" "$T/$1" >"$T/out" 2>&1; then
		fail "$1: accepted, want refused: $(cat "$T/out")"
	elif ! grep -Eq -- "$2" "$T/out"; then
		fail "$1: refused without '$2': $(cat "$T/out")"
	fi
}

# Every kind of output has its fixtures, KIND.json or KIND-CASE.json, each
# of that kind.
for k in lat bw server converge mesh; do
	for f in "$D/json/$k.json" "$D/json/$k"-*.json; do
		[ -e "$f" ] || continue
		jq -e --arg k "$k" '.command == $k' "$f" >/dev/null || fail "$f: not a $k document"
	done
	[ -e "$D/json/$k.json" ] || fail "no $k fixture in $D/json"
done
[ -e "$D/json/converge.jsonl" ] || fail "no --json-stream fixture in $D/json"
valid "$D"/json/*.json "$D"/json/*.jsonl

# analyze: InfiniBand (each input format, each model, the readings compared
# and not), ETS, tc and dcb.
i=0
for args in "$D/config-a.opensm.conf" "$D/config-a.table" \
	"$D/ib/config-a.1-1.txt" "$D/ib/config-a.2-1.txt" \
	"--model ib-fluid --limit 1 $D/config-a.table" \
	"--model ib-packet --semantics limit0=bytes --range-pct 5 $D/config-a.opensm.conf" \
	"--model dtable --load 0:10,1:sat $D/config-a.table" \
	"$D/ets-roce.txt --load 5:10,3:sat,0:sat" "$D/ets-strict-drr.txt" \
	"--format tc $D/tc-ets-strict-2to1.qdisc.json $D/tc-ets-strict-2to1.filter.json" \
	"--format dcb $D/dcb-ets-strict-2to1.ets.json $D/dcb-ets-strict-2to1.app.json"; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # ARGS are words
	"$RPERF" analyze --json "$T/analyze-$i.json" $args 2>"$T/err" ||
		fail "rperf analyze $args: $(cat "$T/err")"
	valid "$T/analyze-$i.json"
done

# converge whose agents cannot be reached: a stream that says why, with
# no step.
cat >"$T/s.ini" <<EOT
[global]
destination = 127.0.0.1
agent_port = $((20000 + ($$ + 7) % 20000))
[lat1]
host = 127.0.0.2
type = lat
EOT
"$RPERF" converge --timeout 1 --json-stream "$T/unreached.jsonl" --json "$T/unreached.json" \
	"$T/s.ini" >/dev/null 2>&1 && fail "converge with no agent exited 0"
valid "$T/unreached.jsonl" "$T/unreached.json"
jq -e '.complete == false and (.error | test("cannot be reached"))' "$T/unreached.json" \
	>/dev/null || fail "the unreached converge's --json does not say why: $(cat "$T/unreached.json")"
tail -n 1 "$T/unreached.jsonl" | jq -e '.event == "end" and (.error | test("cannot be reached"))' \
	>/dev/null || fail "the unreached converge's stream does not say why: $(cat "$T/unreached.jsonl")"

# mesh whose agents cannot be reached: the document and the stream say
# why; no pair has a figure.
"$RPERF" mesh --timeout 1 --hosts "127.0.0.1:$((20000 + ($$ + 9) % 20000)),127.0.0.2" \
	--json "$T/mesh.json" --json-stream "$T/mesh.jsonl" >/dev/null 2>&1 &&
	fail "mesh with no agent exited 0"
valid "$T/mesh.json" "$T/mesh.jsonl"
jq -e '.complete == false and (.error | test("cannot be reached")) and (.pairs | length) == 2' \
	"$T/mesh.json" >/dev/null || fail "the unreached mesh's --json: $(cat "$T/mesh.json")"
jq '.pairs[0].p50.state = "guessed"' "$T/mesh.json" >"$T/mesh-state.json"
refused mesh-state.json "/pairs/0/p50/state: 'guessed' is not one of"
jq '.outliers = [{"kind": "pair", "name": "h1 -> h2", "sl": 0}]' "$T/mesh.json" >"$T/mesh-why.json"
refused mesh-why.json "/outliers/0: 'why' is a required property"
jq '.schema_version = 1' "$T/mesh.json" >"$T/mesh-version.json"
refused mesh-version.json "/schema_version: 2 was expected"
jq -c '.half = 2' "$T/mesh.jsonl" >"$T/mesh-half.jsonl"
refused mesh-half.jsonl "line 1: "

# Commands that fail before they have results still write their document
# (complete false, the error): no device here for lat, bw and server, an
# input refused for analyze and converge.
"$RPERF" lat --json "$T/failed-lat.json" --timeout 1 127.0.0.1 >/dev/null 2>&1
"$RPERF" bw -j "$T/failed-bw.json" --timeout 1 127.0.0.1 >/dev/null 2>&1
"$RPERF" server -j "$T/failed-server.json" >/dev/null 2>&1
"$RPERF" analyze -j "$T/failed-analyze.json" "$D/bad-vl.txt" >/dev/null 2>&1
"$RPERF" converge -j "$T/failed-converge.json" "$D/no-such-scenario.ini" >/dev/null 2>&1
"$RPERF" mesh -j "$T/failed-mesh.json" --hosts h1 >/dev/null 2>&1
for k in lat bw server analyze converge mesh; do
	jq -e --arg k "$k" '.command == $k and .complete == false and (.error | length > 0)' \
		"$T/failed-$k.json" >/dev/null || fail "failed $k: $(cat "$T/failed-$k.json")"
	valid "$T/failed-$k.json"
done
# Their --json-stream, too: one "end" line that says why.
"$RPERF" lat --json-stream "$T/failed-lat.jsonl" --timeout 1 127.0.0.1 >/dev/null 2>&1
"$RPERF" bw --json-stream "$T/failed-bw.jsonl" --timeout 1 127.0.0.1 >/dev/null 2>&1
for k in lat bw; do
	[ "$(wc -l <"$T/failed-$k.jsonl")" = 1 ] &&
		jq -e --arg k "$k" '.event == "end" and .command == $k and .complete == false and
		(.error | length > 0)' "$T/failed-$k.jsonl" >/dev/null ||
		fail "failed $k's stream: $(cat "$T/failed-$k.jsonl")"
	valid "$T/failed-$k.jsonl"
done
# A failed document carries nothing else, and a full one is not cut short.
jq '.config = {}' "$T/failed-lat.json" >"$T/failed-extra.json"
refused failed-extra.json "'results' is a required property"
jq 'del(.error)' "$T/failed-bw.json" >"$T/failed-no-error.json"
refused failed-no-error.json "'error' is a required property"

# lat's and bw's streams, made of the lab's documents as report_stream.c
# makes them (test_report_lat holds that an event's parts are the
# document's): start, a size or an interval each, end.
J=$D/json
jq -c '{event: "start", command, schema_version, version, config, clock},
	(.results | to_entries[] | {event: "size", command: "lat", schema_version: 2,
		index: .key, result: .value}),
	{event: "end", command, schema_version, sizes: (.results | length), criteria, complete,
		error}' "$J/lat.json" >"$T/lat.jsonl"
jq -c '{event: "start", command, schema_version, version, config, clock},
	(.intervals | to_entries[] | {event: "interval", command: "bw", schema_version: 2,
		index: .key, interval: .value}),
	{event: "end", command, schema_version, intervals: (.intervals | length), total, criteria,
		complete, error}' "$J/bw.json" >"$T/bw.jsonl"
valid "$T/lat.jsonl" "$T/bw.jsonl"
grep -q "lat.jsonl: valid (lat-event, $(($(jq '.results | length' "$J/lat.json") + 2)) events)" \
	"$T/out" || fail "the lat stream was not read as lat's events: $(cat "$T/out")"
sed '2s/"result":/"outcome":/' "$T/lat.jsonl" >"$T/lat-no-result.jsonl"
refused lat-no-result.jsonl "line 2: "
sed '$s/"total":/"totals":/' "$T/bw.jsonl" >"$T/bw-no-total.jsonl"
refused bw-no-total.jsonl "line $(wc -l <"$T/bw.jsonl"): "

# Broken on purpose: each must be refused, saying where and why.
jq 'del(.results)' "$J/lat.json" >"$T/no-results.json"
refused no-results.json "'results' is a required property"
jq '.results[0].rtt_ns.p99 = "12 us"' "$J/lat.json" >"$T/string-p99.json"
refused string-p99.json "/results/0/rtt_ns/p99: '12 us' is not of type 'number', 'null'"
jq '.total.sent.gbps = -1' "$J/bw.json" >"$T/negative-gbps.json"
refused negative-gbps.json "/total/sent/gbps: -1 is less than the minimum of 0"
jq '.schema_version = 1' "$J/server.json" >"$T/version-1.json"
refused version-1.json "/schema_version: 2 was expected"
jq 'del(.schema_version)' "$J/server.json" >"$T/no-version.json"
refused no-version.json "'schema_version' is a required property"
# DTable (analyze-7.json above) has no limit and no high and low weights.
jq '.limit = 0' "$T/analyze-7.json" >"$T/dtable-limit.json"
refused dtable-limit.json "/limit: 0 is not of type 'null'"
jq '.vls[0].high_weight = 264' "$T/analyze-7.json" >"$T/dtable-high.json"
refused dtable-high.json "/vls/0: .* should not be valid under"
jq '.steps[0].flows[0].surprise = 1' "$J/converge.json" >"$T/extra-key.json"
refused extra-key.json "/steps/0/flows/0: Additional properties are not allowed \('surprise'"
jq '.steps[0].classes[0].share_pct = 150' "$J/converge.json" >"$T/share-150.json"
refused share-150.json "/steps/0/classes/0/share_pct: 150 is greater than the maximum"
jq '.steps[0].start = {"flows": 2}' "$J/converge.json" >"$T/bad-start.json"
refused bad-start.json "/steps/0/start: 'late_max_us' is a required property"
jq '.config.completion = "spin"' "$J/bw.json" >"$T/bad-enum.json"
refused bad-enum.json "/config/completion: 'spin' is not one of"
jq '.criteria = [{"name": "max_p99", "scope": "size 64", "kind": "max", "limit_ms": 1,
	"value_ms": 2, "passed": false}]' "$J/lat.json" >"$T/criterion-unit.json"
refused criterion-unit.json "/criteria/0"
jq '.command = "ping"' "$J/lat.json" >"$T/unknown-command.json"
refused unknown-command.json "no schema ping.schema.json"
{ head -n 1 "$J/converge.jsonl"; echo '{"event": "middle", "schema_version": 2}'; } >"$T/bad-event.jsonl"
refused bad-event.jsonl "line 2: "
head -c 100 "$J/lat.json" >"$T/truncated.json"
refused truncated.json "not JSON|not an output of rperf"
echo '{"flows": []}' >"$T/not-rperf.json"
refused not-rperf.json "not an output of rperf"
# One bad file among good ones fails the whole call.
cp "$T/no-results.json" "$T/bad.json"
"$VALIDATE" "$SCHEMA" "$J/lat.json" "$T/bad.json" >"$T/out" 2>&1 &&
	fail "a bad file among good ones was let through"
grep -q "1 of 2 file(s) do not validate" "$T/out" || fail "no summary of the bad files: $(cat "$T/out")"

# analyze's input formats are one table, the readers' (src/qos/qosconf.c):
# rperf names them when -f is wrong (what the completion offers), and the
# schema's "format" enum, -f in rperf-analyze(1) and its JSON "format" line
# list the same, the JSON with "mad" (a live port's tables) beside them.
words() { tr -s ' \n' '\n\n' | sed '/^$/d' | sort | tr '\n' ' '; }
formats=$("$RPERF" analyze --format= x 2>&1 |
	sed -n "s/^rperf: error: --format '': expected //p" | sed 's/ or /, /; s/,//g' | words)
case " $formats" in
" auto "*opensm*) ;;
*) fail "rperf analyze --format= names no formats: '$formats'" ;;
esac
enum=$(jq -r '.properties.format.enum[]' "$SCHEMA/analyze.schema.json" | words)
[ "$enum" = "$(echo "$formats mad" | sed 's/\bauto\b//' | words)" ] ||
	fail "analyze.schema.json's format enum is '$enum', rperf's formats '$formats' and mad"
MAN=$TOP/man/rperf-analyze.1
man_f=$(sed -n '/^\.BR \\-f ", " \\-\\-format /{n;p;}' "$MAN" | sed 's/^\.BR //; s/"[^"]*"/ /g; s/ \.$//' | words)
[ "$man_f" = "$formats" ] || fail "rperf-analyze(1)'s -f lists '$man_f', rperf '$formats'"
man_json=$(sed -n '/^  "format": "/,/"mad"/p' "$MAN" | grep -o '"[a-z]*"' | tr -d '"' | grep -vx format | words)
[ "$man_json" = "$enum" ] || fail "rperf-analyze(1)'s JSON format is '$man_json', the schema's '$enum'"

# The lab's check (tests/lab/lib.sh, when a test ends): a test that kept an
# output that does not validate fails; one whose outputs do, or that kept
# only an empty file (rperf wrote none), passes. A lab of no hosts
# (RPERF_LAB=true) is enough for it.
lab_test() { # OUTPUT-FILE...: a lab test keeping them; prints its status
	RPERF_LAB=true bash -c '. "$0/tests/lab/lib.sh"; for f in "$@"; do cp "$f" "$WORK/"; done' \
		"$TOP" "$@" >"$T/lab.out" 2>&1
	echo $?
}
: >"$T/empty.json"
[ "$(lab_test "$J/lat.json" "$J/converge.jsonl" "$T/empty.json")" = 0 ] ||
	fail "a lab test with valid outputs failed: $(cat "$T/lab.out")"
if [ "$(lab_test "$J/lat.json" "$T/no-results.json")" != 1 ] ||
	! grep -q "no-results.json: /: 'results' is a required property" "$T/lab.out"; then
	fail "a lab test that kept an invalid output passed: $(cat "$T/lab.out")"
fi

[ "$fails" = 0 ] || exit 1
echo "schema: all passed"
