# Helpers for the rperf converge lab tests; source after lib.sh.
# Agents run on every host with a shared token (they listen on every
# address); the coordinator runs on h1 and its JSON is copied to $WORK.

AGENT_HOSTS=${AGENT_HOSTS:-h1 h2 h3}
TOKEN_CMD="install -m 600 /dev/null /tmp/rperf-token && echo lab-converge-token-$$ >/tmp/rperf-token"

# Start `rperf agent` on every host of AGENT_HOSTS; stop_agents ends them.
start_agents() {
	local h
	for h in $AGENT_HOSTS; do
		in_vm_bg "$h" "$TOKEN_CMD; echo \$\$ >\$RPERF_LAB_RESULTS/agent.pid; exec $RPERF agent --token-file /tmp/rperf-token" \
			"$WORK/agent-$h.out"
	done
	for h in $AGENT_HOSTS; do
		wait_listen "$h" 18530
	done
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
	return "$rc"
}

# JQ over step STEP (default the last) of NAME.json.
step_jq() {
	jq -r "(.steps[${3:--1}]) | $2" "$WORK/$1.json"
}
