#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf server --token-file on real verbs: h2 serves with a token, and
# rperf lat and rperf bw from h1 with the same token run (both ends proved
# it: the JSON of each says authenticated true); without a token, and with a
# wrong one, h1 is refused at once, exit 1, with one error line saying
# why, and the server counts both refusals (clients_refused_token) and
# serves no flow for them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

N=500
# On the guests' own /tmp: the results share does not keep a file's mode,
# and rperf refuses a token file that is not its owner's alone.
TOK=/tmp/rperf-server-token
in_vm h2 "rm -f $TOK; $RPERF agent --new-token $TOK" || fail "h2: cannot make a token"
token=$(in_vm h2 "cat $TOK" | tr -d '\r\n')
[ ${#token} = 64 ] || fail "h2's token is not 64 hex characters"
in_vm h1 "rm -f $TOK $TOK.wrong; umask 077; echo $token >$TOK" || fail "h1: cannot write the token"
in_vm h1 "$RPERF agent --new-token $TOK.wrong" || fail "h1: cannot make a wrong token"

wait_free h2 18520
server_bg h2 "$WORK/srv.out" --token-file "$TOK" --json '$RPERF_LAB_RESULTS/server.json'
wait_listen h2 18520

# expect NAME PATTERN ARGS...: rperf lat exits 1 within 10 s with one
# error line saying PATTERN.
expect() {
	local name=$1 pat=$2 rc=0 t0 t1 n
	shift 2
	t0=$(date +%s)
	lat_run h1 "$name" "$@" || rc=$?
	t1=$(date +%s)
	n=$(grep -c '^rperf: error:' "$WORK/$name.out" || true)
	[ "$rc" = 1 ] || { cat "$WORK/$name.out" >&2; fail "$name: exit status $rc, want 1"; }
	grep -q "^rperf: error: .*$pat" "$WORK/$name.out" ||
		{ cat "$WORK/$name.out" >&2; fail "$name: no error about '$pat'"; }
	[ "$n" = 1 ] || { cat "$WORK/$name.out" >&2; fail "$name: $n error lines, want 1"; }
	[ $((t1 - t0)) -le 10 ] || fail "$name: took $((t1 - t0)) s, more than 10"
	printf '%-10s exit %s in %2d s: %s\n' "$name" "$rc" $((t1 - t0)) "$(grep '^rperf: error:' "$WORK/$name.out")"
}

lat_run h1 right -n $N -s 64 --token-file "$TOK" h2 ||
	{ cat "$WORK/right.out" "$WORK/srv.out" >&2; fail "rperf lat with the server's token failed"; }
jq -e '.complete and .authenticated == true' "$WORK/right.json" >/dev/null ||
	{ cat "$WORK/right.json" >&2; fail "the run with the token is not complete and authenticated"; }
echo "right token: complete, authenticated"
# bw proves the token on each QP's connection as lat does.
rperf_run bw h1 bw -D 2 -s 4096 --rate 5m --token-file "$TOK" h2 ||
	{ cat "$WORK/bw.out" "$WORK/srv.out" >&2; fail "rperf bw with the server's token failed"; }
jq -e '.complete and .authenticated == true' "$WORK/bw.json" >/dev/null ||
	{ cat "$WORK/bw.json" >&2; fail "the bw run with the token is not complete and authenticated"; }
echo "bw with the right token: complete, authenticated"
expect no-token 'the server requires a token: --token-file' -n $N -s 64 h2
expect wrong 'wrong token' -n $N -s 64 --token-file "$TOK.wrong" h2

server_signal h2 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv.out" >&2; fail "rperf server did not exit cleanly"; }
in_vm h2 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
jq -e '.authenticated == true and .clients_refused_token == 2 and (.flows | length == 2) and
	.flows[0].msgs > 0' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" "$WORK/srv.out" >&2; fail "the server did not serve two flows (lat, bw) and count 2 refusals"; }
if ! grep -q 'refused: it holds no token' "$WORK/srv.out" ||
	! grep -q 'refused: wrong token' "$WORK/srv.out"; then
	cat "$WORK/srv.out" >&2
	fail "the server did not log both refusals"
fi
in_vm h1 "rm -f $TOK $TOK.wrong" || true
in_vm h2 "rm -f $TOK" || true
echo "PASS: the token's holder served and authenticated both ways; no token and a wrong one refused, told why and counted"
