#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf converge and rperf agent without RDMA hardware: exit statuses,
# file:line errors, and the faults a coordinator must name (an agent that
# cannot be reached, one that refuses, one whose flows cannot start).
# Run by `make check` with RPERF (the built binary) and TEST_DATA set.
# shellcheck source=tests/unit/cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
agents=

# The agents it started.
on_exit() {
	for p in $agents; do kill "$p" 2>/dev/null; done
}

# A free port on the loopback, from a range away from the defaults.
port() {
	echo $((20000 + ($$ + $1) % 20000))
}

expect 0 converge --help
expect 0 agent --help
expect 2 converge
expect 2 converge --tolerance -1 "$D/scenario-good.ini"
expect 2 converge --fit better "$D/scenario-good.ini"
has "--fit 'better': expected configured or best"
expect 2 converge --baseline=some "$D/scenario-good.ini"
has "--baseline 'some': expected lat, all or no"
expect 2 converge "$D/scenario-bad-size.ini"
has "scenario-bad-size.ini:7: \[a\] size '12q'"
expect 2 converge "$D/scenario-bad-key.ini"
has "scenario-bad-key.ini:3: unknown key 'bogus'"
expect 2 converge --arbitration "$D/bad-ets-band.txt" "$D/scenario-good.ini"
expect 2 converge --launch ssh "$D/scenario-good.ini"
has "needs --token-file"
expect 2 converge --launch pdsh --token-file /dev/null "$D/scenario-good.ini"
expect 2 agent --bind 0.0.0.0
has "needs --token-file"
# An unwritable --json is found before any agent is reached.
expect 1 converge --json /nonexistent/c.json "$D/scenario-good.ini"
has "'/nonexistent/c.json': No such file or directory"

# Nobody listens: the error names the host and the flows it was to run.
P=$(port 1)
cat >"$T/s.ini" <<EOT
[global]
destination = 127.0.0.1
agent_port = $P
[lat1]
host = 127.0.0.2
type = lat
EOT
expect 1 converge --timeout 1 "$T/s.ini"
has "agent '127.0.0.1' \(destination\) cannot be reached"
# Both agents are tried at once and both fail: the first of them named, once.
[ "$(grep -c "cannot be reached" "$T/err")" = 1 ] && ! grep -q "127.0.0.2" "$T/err" ||
	fail "not the destination alone, once: $(cat "$T/err")"
# --json-stream: the start and the end, one valid object a line, the
# end naming the failure.
expect 1 converge --timeout 1 --json-stream "$T/stream.jsonl" "$T/s.ini"
[ "$(wc -l <"$T/stream.jsonl")" = 2 ] &&
	jq -e -s '.[0].event == "start" and .[0].config.destination == "127.0.0.1" and
		.[1].event == "end" and .[1].steps == 0 and (.[1].complete | not) and
		(.[1].error | test("cannot be reached"))' "$T/stream.jsonl" >/dev/null ||
	fail "--json-stream: $(cat "$T/stream.jsonl")"
expect 1 converge --json-stream /nonexistent/s.jsonl "$T/s.ini"
has "'/nonexistent/s.jsonl': No such file or directory"

# token_refused FILE PATTERN CONVERGE_PATTERN: the agent refuses the token
# in FILE (exit 2) saying PATTERN, and converge saying CONVERGE_PATTERN.
token_refused() {
	expect 2 agent --bind 127.0.0.1 --port "$P" --token-file "$1"
	has "$2"
	expect 2 converge --token-file "$1" "$T/s.ini"
	has "$3"
}

# A token file others can read is refused, by agent and converge alike,
# with how to mend it; --new-token makes one right (0600, 32 random bytes
# as hex) and never overwrites a file.
printf '3f7a9c1e5b2d8f40a6c3e1b7d9f2a4c68e0b5d3f1a7c9e2b4d6f8a0c2e4b6d8f\n' >"$T/token"
chmod 644 "$T/token"
token_refused "$T/token" \
	"'$T/token': group or others have access to it \(mode 0644\).*chmod 600 $T/token" \
	"chmod 600 $T/token"
chmod 600 "$T/token"
# Nor one another user owns (checked where this runs as root, which can
# give a file away).
if [ "$(id -u)" = 0 ]; then
	cp "$T/token" "$T/token.other"
	chown 65534 "$T/token.other"
	expect 2 agent --bind 127.0.0.1 --port "$P" --token-file "$T/token.other"
	has "'$T/token.other': owned by uid 65534, not by this user \(uid 0\).*chown 0 $T/token.other"
fi
# A token easy to guess is refused, with how to make a good one: an
# unauthenticated peer gets an HMAC under it to test guesses against.
printf 'a-token-of-some-length\n' >"$T/weak"
chmod 600 "$T/weak"
token_refused "$T/weak" \
	"'$T/weak': the token is too easy to guess \(about 110 bits, at least 128 wanted\): make one with 'rperf agent --new-token FILE'" \
	"too easy to guess"
expect 0 agent --new-token "$T/new-token"
[ "$(stat -c %a "$T/new-token")" = 600 ] || fail "--new-token: mode $(stat -c %a "$T/new-token")"
grep -Eqx '[0-9a-f]{64}' "$T/new-token" || fail "--new-token: $(cat "$T/new-token")"
cp "$T/new-token" "$T/new-token.1"
expect 1 agent --new-token "$T/new-token"
has "'$T/new-token': File exists"
cmp -s "$T/new-token" "$T/new-token.1" || fail "--new-token overwrote a token"
expect 0 agent --new-token "$T/new-token.2"
cmp -s "$T/new-token" "$T/new-token.2" && fail "--new-token: the same token twice"

# An agent with a token refuses a coordinator without it.
"$RPERF" agent --bind 127.0.0.1 --port "$P" --token-file "$T/token" 2>"$T/agent.err" &
agents="$agents $!"
"$RPERF" agent --bind 127.0.0.2 --port "$P" --token-file "$T/token" 2>"$T/agent2.err" &
agents="$agents $!"
expect 1 converge --timeout 5 "$T/s.ini"
has "the agent asks for a token: give converge the agent's --token-file"
# A wrong token: the agent's proof does not match ours.
printf 'b81d4f6a2c9e0b3d5f7a1c8e2b4d6f9a0c3e5b7d1f8a2c4e6b9d0f3a5c7e1b2d\n' >"$T/token2"
chmod 600 "$T/token2"
expect 1 converge --timeout 5 --token-file "$T/token2" "$T/s.ini"
has "the agent does not hold our token"

# A peer on the agents' port that answers in plain frames, never proving
# the token, is not an agent: converge names it and says so, exit 1 (it
# once passed as "authenticated" and its made-up results entered the verdict).
P3=$(port 3)
sed "s/^agent_port = .*/agent_port = $P3/" "$T/s.ini" >"$T/plain.ini"
for h in 127.0.0.1 127.0.0.2; do
	python3 "${TEST_TOP:-.}/tests/unit/plain-agent.py" $h "$P3" >"$T/plain.$h" &
	agents="$agents $!"
done
for i in $(seq 50); do
	[ -s "$T/plain.127.0.0.1" ] && [ -s "$T/plain.127.0.0.2" ] && break
	sleep 0.1
done
expect 1 converge --timeout 5 --token-file "$T/token" "$T/plain.ini"
has "agent '127.0.0.1' \(destination\).*did not prove the token"
grep -q "authenticated" "$T/err" && fail "a plain peer was called authenticated: $(cat "$T/err")"

# A coordinator without a token cannot tell an agent from an impostor, and
# an agent off the loopback always asks for a token: the plain peer on a
# non-loopback address of this host is refused before a word is sent to
# it, with the fix. (It once went through, and a fake agent's 7,999,990
# Mb/s on a 100g link came out as "complete" and "authenticated".)
nonlo=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
if [ -n "$nonlo" ]; then
	P4=$(port 4)
	python3 "${TEST_TOP:-.}/tests/unit/plain-agent.py" "$nonlo" "$P4" >"$T/plain.nonlo" &
	agents="$agents $!"
	for i in $(seq 50); do
		[ -s "$T/plain.nonlo" ] && break
		sleep 0.1
	done
	printf '[global]\ndestination = %s\nagent_port = %s\n[lat1]\nhost = 127.0.0.2\ntype = lat\n' \
		"$nonlo" "$P4" >"$T/nonlo.ini"
	expect 1 converge --timeout 5 --json "$T/nonlo.json" "$T/nonlo.ini"
	has "agent '$nonlo' \(destination\) refused: at $nonlo, off the loopback.*give converge the agents' --token-file"
	jq -e '(.complete | not) and (.error | test("off the loopback"))' "$T/nonlo.json" >/dev/null ||
		fail "tokenless, off the loopback: $(jq -c '[.complete, .error]' "$T/nonlo.json")"
else
	echo "converge-cli: no non-loopback IPv4 address here: the tokenless refusal off the loopback is left to the loopback checks below"
fi

# With the token, the agents are reached; with no RDMA device here the
# flows cannot start, and that is reported with host and flow, exit 1.
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	expect 1 converge --timeout 5 --token-file "$T/token" --json "$T/auth.json" "$T/s.ini"
	has "agent '127.0.0.1' \(destination\)"
	has "no RDMA device found"
	jq -e '.authenticated == true' "$T/auth.json" >/dev/null ||
		fail "with the token: authenticated $(jq -c .authenticated "$T/auth.json")"
	# Without a token, agents on the loopback are reached and synced, but
	# the JSON and stderr say they were not authenticated.
	P5=$(port 5)
	for h in 127.0.0.1 127.0.0.2; do
		"$RPERF" agent --bind $h --port "$P5" 2>"$T/open-agent.$h" &
		agents="$agents $!"
	done
	sed "s/^agent_port = .*/agent_port = $P5/" "$T/s.ini" >"$T/open.ini"
	expect 1 converge --timeout 5 --json "$T/open.json" "$T/open.ini"
	has "no RDMA device found"
	has "the agents are not authenticated \(no --token-file\)"
	grep -q "authenticated and synced" "$T/err" "$T/out" &&
		fail "tokenless, said authenticated: $(cat "$T/err")"
	jq -e '.authenticated == false and .agents == 2' "$T/open.json" >/dev/null ||
		fail "tokenless on the loopback: $(jq -c '[.authenticated, .agents]' "$T/open.json")"

	# Idle peers on the agents' port (connected, nothing sent) hold up no
	# handshake: 3 on each agent delay a good coordinator by at most 2 s
	# over the same run without them, 200 do not make it fail, and each
	# is closed by the agent within its handshake's deadline (5 s).
	ms() { echo $(($(date +%s%N) / 1000000)); }
	t0=$(ms)
	expect 1 converge --timeout 5 --token-file "$T/token" "$T/s.ini"
	alone_ms=$(($(ms) - t0))
	for n in 3 200; do
		idle=
		for h in 127.0.0.1 127.0.0.2; do
			python3 "${TEST_TOP:-.}/tests/unit/idle-peers.py" $h "$P" $n >"$T/idle.$h" &
			idle="$idle $!"
		done
		agents="$agents $idle"
		# Ready within 60 s: a busy machine (the suite runs this beside
		# the lab's guests) took over 10 s to open 200.
		for i in $(seq 600); do
			[ -s "$T/idle.127.0.0.1" ] && [ -s "$T/idle.127.0.0.2" ] && break
			sleep 0.1
		done
		grep -qx "open $n" "$T/idle.127.0.0.1" ||
			fail "$n idle peers: $(cat "$T/idle.127.0.0.1")"
		t0=$(ms)
		expect 1 converge --timeout 5 --token-file "$T/token" "$T/s.ini"
		took_ms=$(($(ms) - t0))
		has "no RDMA device found"
		grep -q "cannot be reached" "$T/err" &&
			fail "$n idle peers kept converge out: $(cat "$T/err")"
		[ "$n" = 3 ] && [ $took_ms -gt $((alone_ms + 2000)) ] &&
			fail "3 idle peers delayed converge by $((took_ms - alone_ms)) ms"
		kill $idle 2>/dev/null
		wait $idle 2>/dev/null
	done
	python3 "${TEST_TOP:-.}/tests/unit/idle-peers.py" 127.0.0.1 "$P" 3 7 >"$T/idle.closed"
	grep -qx "closed 3" "$T/idle.closed" ||
		fail "idle peers not closed within 7 s: $(cat "$T/idle.closed")"
fi

# An agent pins at most --max-pinned (default 1 GiB) for a step's buffers:
# a setup asking more (a sink taking an 8 MiB message) is refused before
# any device is opened, saying how much and the cap.
P6=$(port 6)
for h in 127.0.0.1 127.0.0.2; do
	"$RPERF" agent --bind $h --port "$P6" --max-pinned 1m 2>"$T/pin-agent.$h" &
	agents="$agents $!"
done
printf '[global]\ndestination = 127.0.0.1\nagent_port = %s\n[bw1]\nhost = 127.0.0.2\ntype = bw\nsize = 8m\n' \
	"$P6" >"$T/pin.ini"
expect 1 converge --timeout 5 "$T/pin.ini"
has "agent '127.0.0.1' \(destination\): the step would pin 8.0 MiB of buffers, above this agent's --max-pinned 1.0 MiB"
expect 2 agent --max-pinned 12q
has "max-pinned"

# --launch ssh, with a stand-in for ssh that runs the remote command
# here (the agent bound to the host's address, so that two share the
# port) and keeps its arguments: the agents prove the token they read
# on their input, which is not in ssh's arguments; the agent command is
# quoted for the remote shell; once converge is done, no agent is left.
mkdir -p "$T/bin" "$T/my dir"
ln -s "$(cd "$(dirname "$RPERF")" && pwd)/$(basename "$RPERF")" "$T/my dir/rperf"
cat >"$T/bin/ssh" <<'EOT'
#!/bin/sh
for a; do host=$cmd; cmd=$a; done
printf '%s\n' "$@" >"$FAKE_DIR/ssh-args.$host"
exec sh -c "$cmd --bind $host"
EOT
cat >"$T/bin/srun" <<'EOT'
#!/bin/sh
printf '%s\n' "$@" >"$FAKE_DIR/srun-args"
echo "srun: error: Unable to allocate resources: Invalid node name specified" >&2
exit 1
EOT
chmod +x "$T/bin/ssh" "$T/bin/srun"
P2=$(port 2)
sed "s/^agent_port = .*/agent_port = $P2/" "$T/s.ini" >"$T/s2.ini"
launch() {
	FAKE_DIR=$T PATH="$T/bin:$PATH" expect "$@"
}
launch 1 converge --launch ssh --agent-command "$T/my dir/rperf" --timeout 20 \
	--token-file "$T/token" "$T/s2.ini"
grep -qF "$(cat "$T/token")" "$T"/ssh-args.* && fail "--launch ssh: the token is in ssh's arguments"
has "agent '127.0.0.1' \(destination\)"
grep -q "cannot be reached\|token" "$T/err" && fail "--launch ssh: the agents were not reached: $(cat "$T/err")"
for h in 127.0.0.1 127.0.0.2; do
	grep -qxF "'$T/my dir/rperf' agent --once --port $P2 --token-file -" "$T/ssh-args.$h" ||
		fail "--launch ssh: the remote command: $(tail -n 1 "$T/ssh-args.$h")"
done
pgrep -f "$T/my dir/rperf" >/dev/null && fail "--launch ssh: agents left running"
# An agent that cannot start: its host, its launcher and why, at once.
start=$(date +%s)
launch 1 converge --launch ssh --agent-command /nonexistent/rperf --timeout 30 \
	--token-file "$T/token" "$T/s2.ini"
has "agent '127.0.0.1' \(destination\) cannot be reached: ssh 127.0.0.1 exited with status 127: .*/nonexistent/rperf"
[ $(($(date +%s) - start)) -lt 15 ] || fail "--launch ssh: a failed launch waited for the timeout"
# --launch srun: one step over the hosts, one task each, the token's
# absolute path; srun's own error reported.
launch 1 converge --launch srun --timeout 30 --token-file "$T/token" "$T/s2.ini"
has "agent '127.0.0.1' \(destination\) cannot be reached: srun exited with status 1: srun: error: Unable to allocate resources"
for a in --nodelist=127.0.0.1,127.0.0.2 --nodes=2 --ntasks=2 --ntasks-per-node=1 rperf agent --once \
	"$T/token"; do
	grep -qxF -- "$a" "$T/srun-args" || fail "--launch srun: no '$a' in $(tr '\n' ' ' <"$T/srun-args")"
done
# hosts = @allocation: the allocation's hosts, as scontrol expands them.
cat >"$T/bin/scontrol" <<'EOT'
#!/bin/sh
[ "$*" = "show hostnames n[1-2]" ] || { echo "scontrol: unexpected '$*'" >&2; exit 1; }
printf 'n1\nn2\n'
EOT
chmod +x "$T/bin/scontrol"
printf '[global]\nagent_port = %s\n[a2a]\npattern = all-to-all\nhosts = @allocation\ntype = bw\n' \
	"$P2" >"$T/alloc.ini"
SLURM_JOB_NODELIST='n[1-2]' launch 1 converge --launch srun --timeout 30 --token-file "$T/token" \
	"$T/alloc.ini"
grep -qxF -- --nodelist=n2,n1 "$T/srun-args" || fail "@allocation: $(tr '\n' ' ' <"$T/srun-args")"
launch 2 converge --launch srun --token-file "$T/token" "$T/alloc.ini"
has "hosts @allocation: not inside a Slurm allocation"

finish "converge-cli: all passed"
