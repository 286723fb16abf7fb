#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Idle connections on a converge sink's data port hold up nothing: 3 TCP
# connections from h2 (a source of the step) to h3's data port, opened as
# soon as h3's sink listens and sending nothing, are held through a step
# of bw flows from h1 and h2 into h3, ETS 3:1 on the port toward h3. The
# sink once waited up to 5 s on each for its hello, on its only thread,
# with no RECV posted meanwhile: the flows stalled, and a real source's
# answer came after 15 s, past its own 10 s. Now the step passes as it
# does without them (exit 0, each band's share within TOL points of
# `rperf analyze`), the sink closes each at its deadline (2 s), and the 3
# are counted as refused in the JSON and told in one line of the agent's
# log. The port is shaped to 5 Mbit/s (as 51-bw-ets-split): beside a busy
# process the emulated hosts cannot keep 10 Mbit/s full, and a band that
# runs dry skews the split. TOL as 60-converge-shares.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"

ETS=$TOP/examples/ets-3to1.txt
"$LAB" egress h3 "rate=5mbit,ets=$ETS"
trap 'stop_agents; cleanup' EXIT
start_agents

# examples/converge-ets-shares.ini's bw flows at 5 Mbit/s.
RES=${RPERF_LAB_DIR:-$TOP/.lab}/vm/h1/results
cat >"$RES/sc.ini" <<EOT
[global]
destination = h3
duration = 10s
warmup = 3s
link_rate = 5mbit
arbitration = $ETS
clock = monotonic
yield = yes
qp_timeout = 22

[bw-band0]
host = h1
type = bw
tclass = 32
size = 4k

[bw-band1]
host = h2
type = bw
tclass = 64
size = 4k
EOT

TOL=4
# Retried every 50 ms until h3's sink listens (its setup), then held up to
# 60 s: "closed 3" once h3 has closed all three.
in_vm_bg h2 "python3 $TOP/tests/unit/idle-peers.py --retry 120 h3 18540 3 60" "$WORK/idle.out"
idle=${BG_PIDS[-1]}
converge step --tolerance $TOL '$RPERF_LAB_RESULTS/sc.ini' ||
	fail "converge exited $? with 3 idle connections on the sink's data port"
wait "$idle" || true
grep -qx "open 3" "$WORK/idle.out" || fail "idle connections: $(cat "$WORK/idle.out")"
grep -qx "closed 3" "$WORK/idle.out" ||
	fail "the sink did not close the idle connections: $(cat "$WORK/idle.out")"
bands_within step "$ETS" "$TOL" "with 3 idle connections"
[ "$(step_jq step '.ports[0].refused_connections')" = 3 ] ||
	fail "refused data connections: $(step_jq step '.ports[0] | tostring'), want 3"
grep -q "agent h3: its sink refused 3 data connection(s)" "$WORK/step.out" ||
	fail "converge did not warn of the refused data connections"
stop_agents h3
for i in $(seq 100); do
	grep -q "3 data connection(s) closed without a hello" "$WORK/agent-h3.out" && break
	sleep 0.1
done
[ "$(grep -c "closed without a hello" "$WORK/agent-h3.out")" = 1 ] ||
	fail "the agent on h3 did not tell the 3 in one line: $(cat "$WORK/agent-h3.out")"
echo "3 idle connections on h3's data port: closed by the sink, 3 refusals counted, exit 0"
