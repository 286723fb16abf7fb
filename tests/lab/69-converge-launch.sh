#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf converge --launch starts the agents itself, over ssh and as a Slurm
# job step; one lab for both, sshd set up once (Slurm's munge key travels
# over it). A lat flow from h1 and a bw flow from h2 into h3, the
# coordinator on h1.
#
# ssh (OpenSSH from Debian, keys on tmpfs). Checked: both flows measured
# and no error in the JSON; the token never on a command line (the agents
# read it from ssh's standard input); no agent left once converge is
# done, also when it is killed (SIGKILL) mid-run; an agent that cannot
# start is an error that names its host and says why.
#
# srun (munge and Slurm from Debian: slurmctld on h1, slurmd on every
# host; the munge key, the configuration and every state directory on
# tmpfs). Checked: both flows measured and no error in the JSON, no agent
# and no job step left afterwards; then the same inside an allocation
# (salloc) with the scenario's hosts left to it (hosts = @allocation).
# Slurm that cannot start fails the test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"
. "$(dirname "$0")/launch-lib.sh"

T0=$SECONDS
mark() { echo "[$((SECONDS - T0)) s] $*"; }

ssh_up
mark "sshd on every host, h1 logs in to each"
# Munge and Slurm come up meanwhile (the munge key travels over ssh): the
# srun half below waits for them.
( slurm_up ) >"$WORK/slurm-up.out" 2>&1 &
slurm_pid=$!
launch_scenario
SC='$RPERF_LAB_RESULTS/launch.ini'
LAUNCH="--launch ssh --agent-command $RPERF --timeout 60"

# ssh 1. A whole run; meanwhile, h2's agent and every command line on h2.
in_vm_bg h1 "cd /tmp && $TOKEN_CMD && exec $RPERF converge $LAUNCH --token-file /tmp/rperf-token \
	--json \$RPERF_LAB_RESULTS/ssh.json $SC" "$WORK/ssh.out"
conv=${BG_PIDS[-1]}
ps_h2=$(in_vm h2 "for i in \$(seq 600); do ps -eo args | grep -q '[r]perf agent' && break; sleep 0.1; done
	ps -eo args") || fail "h2: ps failed"
grep -q "[r]perf agent --once --port [0-9]* --token-file -\$" <<<"$ps_h2" ||
	fail "h2: no agent started over ssh: $ps_h2"
token=$(in_vm h1 "cat /tmp/rperf-token")
! grep -qF "$token" <<<"$ps_h2" || fail "the token is on a command line on h2"
rc=0
wait "$conv" || rc=$?
cat "$WORK/ssh.out"
in_vm h1 "cat \$RPERF_LAB_RESULTS/ssh.json" >"$WORK/ssh.json" || fail "no JSON"
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "converge --launch ssh exited $rc"
jq -e '.error == null and .complete' "$WORK/ssh.json" >/dev/null ||
	fail "the JSON has an error: $(jq -c '{error, complete}' "$WORK/ssh.json")"
flows_measured ssh
no_agents_left "a run" 0
mark "ssh: a whole run"

# ssh 2. An agent that cannot start: its host, its launcher and the reason.
rc=0
in_vm h1 "cd /tmp && $RPERF converge $LAUNCH --agent-command /nonexistent/rperf \
	--token-file /tmp/rperf-token $SC 2>&1" >"$WORK/bad.out" || rc=$?
cat "$WORK/bad.out"
[ "$rc" = 1 ] || fail "a missing agent command exited $rc, want 1"
grep -q "agent 'h3' (destination) cannot be reached: ssh h3 exited with status 127: .*/nonexistent/rperf: No such file" \
	"$WORK/bad.out" || fail "the error does not name the host and the cause"
no_agents_left "a failed launch" 0
mark "ssh: a launch that fails"

# ssh 3. The coordinator killed outright in the middle of a run: its ssh
# clients go with it, and each agent with its ssh.
in_vm_bg h1 "cd /tmp && echo \$\$ >\$RPERF_LAB_RESULTS/conv.pid && exec $RPERF -v converge $LAUNCH \
	--token-file /tmp/rperf-token $SC >\$RPERF_LAB_RESULTS/kill.err 2>&1" "$WORK/kill.out"
in_vm h1 "for i in \$(seq 900); do grep -q 'flows start in' \$RPERF_LAB_RESULTS/kill.err && break; sleep 0.1; done
	kill -KILL \$(cat \$RPERF_LAB_RESULTS/conv.pid); rm -f \$RPERF_LAB_RESULTS/conv.pid" || fail "converge never started its flows"
no_agents_left "converge was killed" 20
mark "ssh: a run, a failed launch and a killed coordinator leave no agent"

wait "$slurm_pid" || { cat "$WORK/slurm-up.out" >&2; fail "munge or Slurm did not come up"; }
cat "$WORK/slurm-up.out"
mark "munge and Slurm up, every node idle"

# The token file at the same path on every node, as a shared file system
# would have it.
for h in $LAUNCH_HOSTS; do
	in_vm "$h" "$TOKEN_CMD"
done
# srun 1. A whole run as a job step.
rc=0
in_vm h1 "cd /tmp && export $SLURM_ENV && $RPERF converge --launch srun --agent-command $RPERF \
	--timeout 60 --token-file /tmp/rperf-token --json \$RPERF_LAB_RESULTS/srun.json $SC 2>&1" \
	>"$WORK/srun.out" || rc=$?
cat "$WORK/srun.out"
in_vm h1 "cat \$RPERF_LAB_RESULTS/srun.json" >"$WORK/srun.json" || fail "no JSON"
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "converge --launch srun exited $rc"
flows_measured srun
no_agents_left "a run" 0
steps=$(in_vm h1 "export $SLURM_ENV; squeue -h -s") || fail "squeue failed"
[ -z "$steps" ] || fail "job steps left: $steps"
mark "srun: a whole run"

# srun 2. Inside an allocation (salloc), the scenario's hosts left to it: the
# agents' step runs within the job, on the hosts scontrol gives.
alloc_scenario
rc=0
in_vm h1 "cd /tmp && export $SLURM_ENV && timeout 300 salloc -N 3 $RPERF converge --launch srun \
	--agent-command $RPERF --timeout 60 --token-file /tmp/rperf-token \
	--json \$RPERF_LAB_RESULTS/alloc.json \$RPERF_LAB_RESULTS/alloc.ini 2>&1" >"$WORK/alloc.out" || rc=$?
cat "$WORK/alloc.out"
in_vm h1 "cat \$RPERF_LAB_RESULTS/alloc.json" >"$WORK/alloc.json" || fail "no JSON"
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "salloc converge --launch srun exited $rc"
flows_measured alloc
[ "$(jq '.steps[-1].flows | length' "$WORK/alloc.json")" = 4 ] ||
	fail "@allocation: expected 4 flows (h1 and h2 into h3)"
no_agents_left "a run in an allocation" 0
jobs=$(in_vm h1 "export $SLURM_ENV; squeue -h") || fail "squeue failed"
[ -z "$jobs" ] || fail "jobs left: $jobs"
mark "srun: a run and a run in an allocation leave no agent, no step and no job"
