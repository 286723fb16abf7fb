#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The bash completion (scripts/completion/rperf), sourced in bash as
# bash-completion would: each command completes exactly the options of
# its --help, and --format, --model and --clock (VALUE or =VALUE) complete
# to the words rperf accepts, never to file names; mesh --hosts to the
# agents of a scenario file on the line; lat's and bw's HOST to known
# hosts, server and agent to nothing, and neither to file names. Run by
# `make check` with RPERF and TEST_TOP set.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
RPERF=${RPERF:-src/rperf}
TOP=$(cd "${TEST_TOP:-.}" && pwd)
# shellcheck source=tests/unit/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

# The completion calls `rperf`: the built one.
mkdir -p "$T/bin" "$T/cwd"
ln -s "$(cd "$(dirname "$RPERF")" && pwd)/$(basename "$RPERF")" "$T/bin/rperf"
PATH=$T/bin:$PATH
# shellcheck disable=SC1091
. "$TOP/scripts/completion/rperf" || { echo "FAIL: the script does not source"; exit 1; }
complete -p rperf | grep -q -- '-F _rperf' || fail "no completion registered for rperf"
# Files that a file-name completion would offer.
cd "$T/cwd" && touch tsc-file auto-file ib-file dtable-file || exit 1

# complete WORD...: the completion of the last word, sorted, one a line.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_rperf
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
}

# What --help lists as options: the label at the start of each option line.
help_options() {
	rperf ${1:+"$1"} --help | sed -n -E \
		-e 's/^  (-[A-Za-z0-9]), (--[a-z][a-z0-9.-]*).*/\1\n\2/p' \
		-e 's/^      (--[a-z][a-z0-9.-]*).*/\1/p' \
		-e 's/^  (-[A-Za-z0-9])( .*)?$/\1/p' | sort -u
}

for cmd in "" lat bw server analyze converge mesh agent; do
	help_options "$cmd" >"$T/want"
	[ -s "$T/want" ] || fail "rperf $cmd --help: no options found"
	if [ -n "$cmd" ]; then
		complete_words rperf "$cmd" - >"$T/got"
	else
		complete_words rperf - >"$T/got"
	fi
	diff "$T/want" "$T/got" >"$T/diff" ||
		fail "rperf $cmd: completion differs from --help (< help, > completion): $(tr '\n' ' ' <"$T/diff")"
done
# What the help's prose mentions is not an option.
complete_words rperf lat --max- | grep -qx -- '--max-' && fail "lat completes a bare '--max-'"
complete_words rperf converge --o | grep -qx -- '--once' && fail "converge completes --once, which it rejects"
rperf converge --once x >/dev/null 2>&1
[ $? = 2 ] || fail "rperf converge --once is accepted: the check above would be moot"

# values CMD OPT WANT...: OPT's completion is exactly WANT, each accepted.
values() {
	cmd=$1 opt=$2
	shift 2
	got=$(complete_words rperf "$cmd" "$opt" "" | tr '\n' ' ')
	[ "$got" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ] ||
		fail "rperf $cmd $opt completes to '$got', want '$*'"
	for v in $got; do
		rperf "$cmd" "$opt" "$v" /nonexistent-host >/dev/null 2>"$T/err"
		grep -q -- "'$v': expected" "$T/err" && fail "rperf $cmd $opt $v is refused"
	done
}
values analyze --format auto opensm smpquery table ets tc dcb
values analyze -f auto opensm smpquery table ets tc dcb
values analyze --model ib-packet ib-fluid dtable ets
values lat --clock tsc monotonic hw both
# bw shares the flow options' --clock: it offers hw and both and refuses
# them as lat's (a usage error, not an unknown word).
values bw --clock tsc monotonic hw both
values mesh --clock tsc monotonic
values mesh --topology-format ibnetdiscover lldp file
values mesh --launch ssh srun
values converge --launch ssh srun
# In one word, --format=VALUE: the same words under the option's head (the
# word as bash gives it when COMP_WORDBREAKS lacks '='), or after a lone
# '=' word (bash's default breaks).
for opt in --format --model; do
	want=$(complete_words rperf analyze "$opt" "" | sed "s/^/$opt=/")
	[ -n "$want" ] || fail "rperf analyze $opt: no values"
	[ "$(complete_words rperf analyze "$opt=")" = "$want" ] ||
		fail "rperf analyze $opt=: $(complete_words rperf analyze "$opt=" | tr '\n' ' ')"
	[ "$(complete_words rperf analyze "$opt" =)" = "$(complete_words rperf analyze "$opt" "")" ] ||
		fail "rperf analyze $opt = (split at '='): $(complete_words rperf analyze "$opt" = | tr '\n' ' ')"
done
for v in $(complete_words rperf analyze --format=); do
	rperf analyze "$v" /nonexistent >/dev/null 2>"$T/err"
	grep -q -- "'${v#--format=}': expected" "$T/err" && fail "rperf analyze $v is refused"
done
[ "$(complete_words rperf analyze --format=o)" = --format=opensm ] ||
	fail "rperf analyze --format=o: $(complete_words rperf analyze --format=o)"
[ "$(complete_words rperf analyze --format = o)" = opensm ] ||
	fail "rperf analyze --format = o: $(complete_words rperf analyze --format = o)"
[ -z "$(complete_words rperf analyze --sl2vl=)" ] || fail "rperf analyze --sl2vl= offers words"
values converge --baseline lat all no
values converge --fit configured best

# mesh --hosts: the agents of a scenario file on the line, as rperf reads
# them (a mesh over the scenario that reaches none of them names them in
# its JSON); a list completes its last name, without those given.
for f in "$TOP/tests/data/scenario-good.ini" "$TOP/examples/converge-all-to-all.ini"; do
	cp "$f" "$T/cwd/s.ini"
	rperf mesh --timeout 1 --json - s.ini 2>/dev/null | jq -r '.hosts[]' | sort >"$T/hosts"
	[ "$(wc -l <"$T/hosts")" -ge 3 ] || fail "$f: rperf names fewer than 3 hosts: $(cat "$T/hosts")"
	got=$(complete_words rperf mesh s.ini --hosts "")
	[ "$got" = "$(cat "$T/hosts")" ] ||
		fail "$f: mesh --hosts completes to '$(echo $got)', rperf reads '$(echo $(cat "$T/hosts"))'"
	h1=$(head -n 1 "$T/hosts")
	want=$(sed 1d "$T/hosts" | sed "s/^/$h1,/")
	COMP_WORDS=(rperf mesh --hosts "$h1," s.ini) COMP_CWORD=3 COMPREPLY=()
	_rperf
	[ "$(printf '%s\n' "${COMPREPLY[@]}" | sort)" = "$want" ] ||
		fail "$f: mesh --hosts $h1, before the scenario: '${COMPREPLY[*]}', want '$(echo $want)'"
	[ "$(complete_words rperf mesh s.ini --hosts="$h1")" = "--hosts=$h1" ] ||
		fail "$f: mesh --hosts=$h1: $(complete_words rperf mesh s.ini --hosts="$h1")"
done
[ -z "$(complete_words rperf mesh --hosts "")" ] || fail "mesh --hosts with no scenario offers words"

# A prefix narrows them; files are never offered.
[ "$(complete_words rperf lat --clock t)" = tsc ] || fail "rperf lat --clock t: $(complete_words rperf lat --clock t)"
[ "$(complete_words rperf analyze --model d)" = dtable ] || fail "rperf analyze --model d: not dtable alone"
# Commands, and help's argument.
# --bind (server and agent, -b too): this host's addresses, never file names.
if command -v ip >/dev/null; then
	for c in server agent; do
		for o in --bind -b; do
			[ "$(complete_words rperf $c $o 127.0.0.)" = 127.0.0.1 ] ||
				fail "rperf $c $o 127.0.0.: $(complete_words rperf $c $o 127.0.0. | tr '\n' ' ')"
		done
	done
fi
# A HOST operand: known hosts (bash's list without bash-completion, its
# _known_hosts_real with it), never the files here; a command without
# operands: nothing; a FILE operand: files.
printf '192.0.2.7 fabric-node1\n192.0.2.8 fabric-node2\n' >"$T/hosts"
HOSTFILE=$T/hosts
for c in lat bw "bw -s 4k"; do
	# shellcheck disable=SC2086 # C: words
	got=$(complete_words rperf $c "" | tr '\n' ' ')
	case " $got" in *-file\ *) fail "rperf $c <TAB> offers file names: $got" ;; esac
	# shellcheck disable=SC2086
	[ "$(complete_words rperf $c fabric-node | tr '\n' ' ')" = "fabric-node1 fabric-node2 " ] ||
		fail "rperf $c fabric-node<TAB>: $(complete_words rperf $c fabric-node | tr '\n' ' ')"
done
_known_hosts_real() { COMPREPLY+=(known-"$2"); }
[ "$(complete_words rperf lat fab)" = known-fab ] ||
	fail "rperf lat fab<TAB> with bash-completion: $(complete_words rperf lat fab | tr '\n' ' ')"
unset -f _known_hosts_real
for c in server agent; do
	[ -z "$(complete_words rperf $c "")" ] ||
		fail "rperf $c <TAB> offers words: $(complete_words rperf $c "" | tr '\n' ' ')"
done
[ "$(complete_words rperf analyze ts)" = tsc-file ] || fail "rperf analyze ts<TAB>: not tsc-file"
[ "$(complete_words rperf co)" = converge ] || fail "rperf co: not converge"
[ "$(complete_words rperf help l)" = lat ] || fail "rperf help l: not lat"

[ "$fails" = 0 ] && echo "completion: options as in --help, values as rperf accepts them"
exit "$fails"
