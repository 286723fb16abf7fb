#!/usr/bin/env bash
# rperf converge --launch srun starts the agents as one Slurm job step:
# munge and Slurm from Debian (slurmctld on h1, slurmd on every host; the
# munge key, the configuration and every state directory on tmpfs), a
# lat flow from h1 and a bw flow from h2 into h3, the coordinator on h1.
# Checked: both flows measured and no error in the JSON, no agent left
# and no job step left afterwards; then the same inside an allocation
# (salloc) with the scenario's hosts left to it (hosts = @allocation).
# Slurm that cannot start fails the test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"
. "$(dirname "$0")/launch-lib.sh"

ssh_up
slurm_up
launch_scenario
SC='$RPERF_LAB_RESULTS/launch.ini'

# The token file at the same path on every node, as a shared file system
# would have it.
for h in $LAUNCH_HOSTS; do
	in_vm "$h" "$TOKEN_CMD"
done
rc=0
in_vm h1 "cd /tmp && export $SLURM_ENV && $RPERF converge --launch srun --agent-command $RPERF \
	--timeout 60 --token-file /tmp/rperf-token --json \$RPERF_LAB_RESULTS/srun.json $SC 2>&1" \
	>"$WORK/srun.out" || rc=$?
cat "$WORK/srun.out"
in_vm h1 "cat \$RPERF_LAB_RESULTS/srun.json" >"$WORK/srun.json" || fail "no JSON"
[ "$rc" = 0 ] || fail "converge --launch srun exited $rc"
flows_measured srun
no_agents_left "a run" 0
steps=$(in_vm h1 "export $SLURM_ENV; squeue -h -s") || fail "squeue failed"
[ -z "$steps" ] || fail "job steps left: $steps"

# 2. Inside an allocation (salloc), the scenario's hosts left to it: the
# agents' step runs within the job, on the hosts scontrol gives.
alloc_scenario
rc=0
in_vm h1 "cd /tmp && export $SLURM_ENV && timeout 300 salloc -N 3 $RPERF converge --launch srun \
	--agent-command $RPERF --timeout 60 --token-file /tmp/rperf-token \
	--json \$RPERF_LAB_RESULTS/alloc.json \$RPERF_LAB_RESULTS/alloc.ini 2>&1" >"$WORK/alloc.out" || rc=$?
cat "$WORK/alloc.out"
in_vm h1 "cat \$RPERF_LAB_RESULTS/alloc.json" >"$WORK/alloc.json" || fail "no JSON"
[ "$rc" = 0 ] || fail "salloc converge --launch srun exited $rc"
flows_measured alloc
[ "$(jq '.steps[-1].flows | length' "$WORK/alloc.json")" = 4 ] ||
	fail "@allocation: expected 4 flows (h1 and h2 into h3)"
no_agents_left "a run in an allocation" 0
jobs=$(in_vm h1 "export $SLURM_ENV; squeue -h") || fail "squeue failed"
[ -z "$jobs" ] || fail "jobs left: $jobs"
echo "srun: runs with $(in_vm h1 "export $SLURM_ENV; scontrol -V") leave no agent and no step"
