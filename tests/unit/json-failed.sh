#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# --json on early failures: a usage error, whatever the spelling of
# --json, still writes its document (complete false, the error); a failed
# run over a file that held a run's results says so on stderr.
# Run by `make check` with RPERF (the built binary) and TEST_DATA set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
J=$T/doc.json

# The document of a usage error, at @J: complete false, the error named.
doc_is() {
	jq -e --arg c "$1" --arg e "$2" '.command == $c and .complete == false and
		(.error | contains($e)) and .schema_version == 2' "$J" >/dev/null ||
		fail "$1: usage error document: $(cat "$J" 2>/dev/null)"
	rm -f "$J"
}

expect 2 analyze --bogus -j "$J" "$D/config-a.table"
doc_is analyze "unknown option '--bogus'"
expect 2 analyze --json="$J" --limit 999 "$D/config-a.table"
doc_is analyze "--limit '999'"
expect 2 analyze --json "$J" --limit 999 "$D/config-a.table"
doc_is analyze "--limit '999'"
expect 2 lat -j"$J" --port notaport 127.0.0.1
doc_is lat "--port 'notaport'"
expect 2 bw --json "$J" --bogus 127.0.0.1
doc_is bw "unknown option '--bogus'"
expect 2 mesh --bogus -j "$J" --hosts a,b
doc_is mesh "unknown option '--bogus'"
expect 2 mesh --json="$J" scenario.ini --hosts a,b
doc_is mesh "a scenario or --hosts, one of them"
expect 2 server --json "$J" --port notaport
doc_is server "--port 'notaport'"
expect 2 converge -j "$J" --bogus scenario.ini
doc_is converge "unknown option '--bogus'"
# After "--" a -j is an operand, not --json: no document.
expect 2 analyze --bogus -- -j "$J"
[ -e "$J" ] && fail "'-- -j FILE': a document written"

# A good document replaced by a failed run's: said on stderr.
expect 0 analyze --json "$J" "$D/config-a.table"
jq -e '.sls | length > 0' "$J" >/dev/null || fail "no results to replace"
expect 2 analyze --json "$J" --limit 999 "$D/config-a.table"
has "'$J': the results it held are replaced by this failed analyze's document"
jq -e '.complete == false' "$J" >/dev/null || fail "the failed run's document not written"
# A failure document replaced by another: nothing to say.
expect 2 analyze --json "$J" --limit 999 "$D/config-a.table"
grep -q "replaced" "$T/err" && fail "a failure document's replacement said: $(cat "$T/err")"
finish "--json on usage errors and over earlier results"
