# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers for the rperf converge lab tests; source after lib.sh.
# Agents run on every host with a shared token (they listen on every
# address); the coordinator runs on h1 and its JSON is copied to $WORK.

AGENT_HOSTS=${AGENT_HOSTS:-h1 h2 h3}
# The same on every host, and hard to guess (rperf refuses a weak token).
TOKEN_CMD="install -m 600 /dev/null /tmp/rperf-token && echo $(echo "lab-converge-$$" | sha256sum | cut -c1-64) >/tmp/rperf-token"

# With AGENT_SANDBOX=1, each agent runs under the limits of the agent's
# systemd unit that hold without systemd (the guests have none): as user
# nobody with no capability (CapabilityBoundingSet= empty, as User=rperf),
# no new privileges, LimitMEMLOCK=infinity, and in a cgroup of its own
# whose memory.max is the unit's MemoryMax. The unit's syscall filter,
# address families and device policy are systemd's own (seccomp and a
# device BPF program) and are not applied here.
AGENT_UNIT=$TOP/debian/rperf.rperf-agent.service
AGENT_CG=/sys/fs/cgroup/rperf-agent
agent_sandbox() {
	local max
	max=$(sed -n 's/^MemoryMax=//p' "$AGENT_UNIT")
	echo "chown 65534:65534 /tmp/rperf-token && chmod 0600 /tmp/rperf-token &&
		{ mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup; } &&
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control && mkdir -p $AGENT_CG &&
		echo $max >$AGENT_CG/memory.max && echo \$\$ >$AGENT_CG/cgroup.procs &&
		echo \$\$ >\$RPERF_LAB_RESULTS/agent.pid &&
		exec prlimit --memlock=unlimited:unlimited setpriv --reuid=65534 --regid=65534 \
			--clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs"
}

# Start `rperf agent` on every host of AGENT_HOSTS; stop_agents ends them.
start_agents() {
	local h run="echo \$\$ >\$RPERF_LAB_RESULTS/agent.pid; exec"
	[ "${AGENT_SANDBOX:-0}" = 1 ] && run=$(agent_sandbox)
	# An earlier agent still listening would pass wait_listen for the new
	# one, which then fails to bind, and answer in its place while it exits.
	for h in $AGENT_HOSTS; do
		wait_free "$h" 18530
	done
	for h in $AGENT_HOSTS; do
		in_vm_bg "$h" "$TOKEN_CMD; $run $RPERF agent --token-file /tmp/rperf-token" \
			"$WORK/agent-$h.out"
	done
	for h in $AGENT_HOSTS; do
		wait_listen "$h" 18530
	done
}

# Fail unless the agent on HOST runs under agent_sandbox's limits; says
# what it found.
check_agent_sandbox() {
	local h=$1 st max
	st=$(in_vm "$h" "p=\$(cat \$RPERF_LAB_RESULTS/agent.pid); grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs):' /proc/\$p/status;
		grep '^Max locked memory' /proc/\$p/limits; echo cgroup \$(cat /proc/\$p/cgroup);
		echo max \$(cat $AGENT_CG/memory.max) peak \$(cat $AGENT_CG/memory.peak 2>/dev/null || echo -)") ||
		{ fail "$h: cannot read the agent's limits"; return; }
	echo "$h agent: $(echo "$st" | tr -s '\t ' ' ' | tr '\n' ';')"
	max=$(numfmt --from=iec "$(sed -n 's/^MemoryMax=//p' "$AGENT_UNIT")")
	grep -q '^Uid:[[:space:]]*65534[[:space:]]65534' <<<"$st" || fail "$h: the agent is not user nobody"
	grep -q '^CapEff:[[:space:]]*0000000000000000$' <<<"$st" || fail "$h: the agent has capabilities"
	grep -q '^CapBnd:[[:space:]]*0000000000000000$' <<<"$st" || fail "$h: the agent's bounding set is not empty"
	grep -q '^NoNewPrivs:[[:space:]]*1$' <<<"$st" || fail "$h: the agent may gain privileges"
	grep -q '^Max locked memory[[:space:]]*unlimited[[:space:]]*unlimited' <<<"$st" ||
		fail "$h: the agent's locked memory is limited"
	grep -q '^cgroup 0::/rperf-agent$' <<<"$st" || fail "$h: the agent is not in its cgroup"
	grep -q "^max $max " <<<"$st" || fail "$h: memory.max is not the unit's MemoryMax ($max)"
}

# Signal the agent on HOST (default: all of them) with SIG (default TERM).
stop_agents() {
	local h
	for h in ${1:-$AGENT_HOSTS}; do
		in_vm "$h" "kill -${2:-TERM} \$(cat \$RPERF_LAB_RESULTS/agent.pid) 2>/dev/null; true" || true
	done
}

# converge NAME ARGS...: run rperf converge ARGS on h1 with JSON to
# $WORK/NAME.json and its output in $WORK/NAME.out; returns its status.
converge() {
	local name=$1 rc=0
	shift
	in_vm h1 "$TOKEN_CMD; cd $TOP && $RPERF converge --token-file /tmp/rperf-token --json \$RPERF_LAB_RESULTS/$name.json $* 2>&1" \
		>"$WORK/$name.out" || rc=$?
	in_vm h1 "cat \$RPERF_LAB_RESULTS/$name.json 2>/dev/null; rm -f \$RPERF_LAB_RESULTS/$name.json" \
		>"$WORK/$name.json" || true
	cat "$WORK/$name.out"
	[ "$rc" = 1 ] && agents_said
	return "$rc"
}

# A run that failed: what each agent logged, its last lines (to stderr),
# the agent's side of a connection it closed or a flow it refused.
agents_said() {
	local h
	for h in $AGENT_HOSTS; do
		[ -s "$WORK/agent-$h.out" ] && tail -n 5 "$WORK/agent-$h.out" | sed "s/^/agent $h: /" >&2
	done
	return 0
}

# converge_ran NAME ARGS...: converge NAME ARGS, where exit 4 (no class
# out, but a share's 95 % interval straddles the tolerance) counts as a run
# as well as 0: for tests whose subject is not the verdict, or that check
# the shares themselves.
converge_ran() {
	local rc=0
	converge "$@" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 4 ] || return "$rc"
}

# JQ over step STEP (default the last) of NAME.json.
step_jq() {
	jq -r "(.steps[${3:--1}]) | $2" "$WORK/$1.json"
}

# lat_bw_scenario FILE DEST BW_HOST DURATION [GLOBAL-LINE [FLOW-LINES]]:
# a scenario written to FILE (in h1's results directory, which the guest
# reads as $RPERF_LAB_RESULTS): a lat flow from h1 and a bw flow (traffic
# class 32) from BW_HOST into DEST, DURATION a step after 1 s of warm-up,
# the monotonic clock, yielding; GLOBAL-LINE joins [global], FLOW-LINES
# end the bw flow.
lat_bw_scenario() {
	cat >"$1" <<EOT
[global]
destination = $2
duration = $4
warmup = 1s
${5:-}
clock = monotonic
yield = yes

[lat]
host = h1
type = lat

[bw]
host = $3
type = bw
tclass = 32
${6:-}
EOT
}

# bands_within NAME ARB TOL [NOTE]: the share of bands 0 and 1 in NAME's
# last step each within TOL points of `rperf analyze --model ets` of ARB,
# said (NOTE qualifies the measured figure) or the test failed.
bands_within() {
	local name=$1 arb=$2 tol=$3 note=${4:+ $4} band got want
	"$RPERF" analyze --model ets --json - "$arb" >"$WORK/analyze.json"
	for band in 0 1; do
		got=$(step_jq "$name" ".classes[] | select(.band == $band) | .share_pct")
		want=$(jq -r ".bands[] | select(.band == $band) | .share_pct" "$WORK/analyze.json")
		echo "band $band: measured ${got} %${note}, rperf analyze ${want} %"
		within_abs "$got" "$want" "$tol" ||
			fail "band $band: measured $got %, analyzed $want %"
	done
}

# mesh NAME ARGS...: run rperf mesh ARGS on h1 over the agents start_agents
# started, its JSON, stream, CSV and OpenMetrics text to $WORK/NAME.json,
# .jsonl, .csv, .prom and its output in $WORK/NAME.out; returns its status.
mesh() {
	local name=$1 rc=0 ext r=\$RPERF_LAB_RESULTS/$1
	shift
	in_vm h1 "$TOKEN_CMD; cd $TOP && $RPERF mesh --token-file /tmp/rperf-token --json $r.json \
		--json-stream $r.jsonl --csv $r.csv --openmetrics $r.prom $* 2>&1" >"$WORK/$name.out" || rc=$?
	for ext in json jsonl csv prom; do
		in_vm h1 "cat $r.$ext 2>/dev/null; rm -f $r.$ext" >"$WORK/$name.$ext" || true
	done
	cat "$WORK/$name.out"
	return "$rc"
}
