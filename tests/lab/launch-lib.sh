# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Helpers for the lab tests of rperf converge --launch; source after
# lib.sh. OpenSSH and Slurm come from the host's root file system (Debian
# packages, scripts/install-deps); every key, configuration and state
# directory they need lives on the guests' tmpfs (/run), and each daemon
# leaves its pid in $RPERF_LAB_RESULTS, so lib.sh's cleanup ends it.

LAUNCH_HOSTS=${LAUNCH_HOSTS:-h1 h2 h3}
SSH_DIR=/run/lab-ssh

# sshd on every host of LAUNCH_HOSTS, each with its own host key; h1's
# root may log in to all of them with a key made on h1, and knows their
# host keys (through the guest's own /etc/ssh/ssh_config, bind-mounted).
# Public keys travel through the test; private keys stay where made.
# StrictModes no: the keys' directory is on /run, the guests' tmpfs,
# mode 1777, which sshd's check of every directory up the path refuses.
# h1's ssh multiplexes its sessions to a host over one connection
# (ControlMaster), opened by the login below: each launch then costs a
# session, not a key exchange, which takes seconds on the lab's emulated
# CPUs. What rperf does is the same: one ssh a host, the token on its
# input, an agent that ends when its session does.
ssh_up() {
	local h pub known="" client
	for h in $LAUNCH_HOSTS; do
		pub=$(in_vm "$h" "umount /etc/ssh/ssh_config 2>/dev/null; rm -rf $SSH_DIR
			set -e; umask 077; mkdir -p $SSH_DIR /run/sshd
			ssh-keygen -q -t ed25519 -N '' -C $h -f $SSH_DIR/host_key
			[ $h != h1 ] || ssh-keygen -q -t ed25519 -N '' -C root@h1 -f $SSH_DIR/id_ed25519
			cat $SSH_DIR/host_key.pub") || fail "$h: ssh-keygen failed: $pub"
		known+="$h,$(getent_lab "$h") ${pub% *}"$'\n'
	done
	client=$(in_vm h1 "cat $SSH_DIR/id_ed25519.pub") || fail "h1: no client key"
	for h in $LAUNCH_HOSTS; do
		in_vm "$h" "set -e; umask 077
			printf '%s' '$known' >$SSH_DIR/known_hosts
			printf '%s\n' '$client' >$SSH_DIR/authorized_keys
			printf '%s\n' 'Host *' '  IdentityFile $SSH_DIR/id_ed25519' \
				'  UserKnownHostsFile $SSH_DIR/known_hosts' '  GlobalKnownHostsFile /dev/null' \
				'  StrictHostKeyChecking yes' '  ControlMaster auto' \
				'  ControlPath $SSH_DIR/cm-%C' '  ControlPersist 600' >$SSH_DIR/ssh_config
			mount --bind $SSH_DIR/ssh_config /etc/ssh/ssh_config
			printf '%s\n' 'ListenAddress 0.0.0.0' 'HostKey $SSH_DIR/host_key' \
				'AuthorizedKeysFile $SSH_DIR/authorized_keys' 'PermitRootLogin prohibit-password' \
				'PasswordAuthentication no' 'KbdInteractiveAuthentication no' 'UsePAM no' \
				'PrintMotd no' 'PrintLastLog no' 'PidFile $SSH_DIR/sshd.pid' \
				'StrictModes no' >$SSH_DIR/sshd_config
			/usr/sbin/sshd -t -f $SSH_DIR/sshd_config
			/usr/sbin/sshd -f $SSH_DIR/sshd_config -E $SSH_DIR/sshd.log
			for i in \$(seq 100); do [ -s $SSH_DIR/sshd.pid ] && break; sleep 0.1; done
			cp $SSH_DIR/sshd.pid \$RPERF_LAB_RESULTS/sshd.pid" ||
			fail "$h: sshd did not start"
	done
	for h in $LAUNCH_HOSTS; do
		wait_listen "$h" 22
		in_vm h1 "timeout 60 ssh -o BatchMode=yes $h hostname" | grep -qx "$h" ||
			fail "h1 cannot log in to $h over ssh: $(in_vm h1 "timeout 60 ssh -v -o BatchMode=yes $h true 2>&1 | tail -n 5")
$h's sshd: $(in_vm "$h" "tail -n 5 $SSH_DIR/sshd.log")"
	done
}

# The scenario of the launch tests, as $RPERF_LAB_RESULTS/launch.ini on
# h1: a lat flow from h1 and a bw flow from h2 into h3, 3 s each step.
launch_scenario() {
	lat_bw_scenario "${RPERF_LAB_DIR:-$TOP/.lab}/vm/h1/results/launch.ini" h3 h2 3s
}

# The same flows left to the Slurm allocation (hosts = @allocation): a
# lat flow and a bw flow from every host but h3 into h3, as
# $RPERF_LAB_RESULTS/alloc.ini on h1.
alloc_scenario() {
	cat >"${RPERF_LAB_DIR:-$TOP/.lab}/vm/h1/results/alloc.ini" <<EOT
[global]
destination = h3
duration = 3s
warmup = 1s
clock = monotonic
yield = yes

[lat]
pattern = incast
hosts = @allocation
type = lat

[bw]
pattern = incast
hosts = @allocation
type = bw
tclass = 32
EOT
}

# The lab's address of host HOST (hN is 198.18.0.N).
getent_lab() { echo "198.18.0.${1#h}"; }

# Fail unless, in $WORK/NAME.json, the run is complete without an error
# and its last step ran every flow, each without an error: a lat flow's
# round trips measured, a bw flow's bytes sent, and bytes received by the
# destination from one bw flow at least; lat and bw flows both. (Two bw
# flows into one unshaped port of this lab lose packets: in a 3 s window
# one of them can spend all of it in an RC retransmission timeout and
# deliver nothing, which says nothing of how its agent was launched.)
flows_measured() {
	local j=$WORK/$1.json
	jq -e '.error == null and .complete' "$j" >/dev/null ||
		fail "$1: the JSON has an error: $(jq -c '{error, complete}' "$j")"
	jq -e '.steps[-1].flows | all(.error == null and
		((.type == "lat" and .rtt_ns.count > 0) or (.type == "bw" and .sent_bytes > 0))) and
		any(.type == "bw" and .bytes > 0) and
		(map(.type) | unique == ["bw", "lat"])' "$j" >/dev/null ||
		fail "$1: flows not measured: $(jq -c '.steps[-1].flows' "$j")"
	echo "$1: $(jq -r '.steps[-1].flows[] | "\(.name) from \(.host): \(.rtt_ns.count // 0) round trips, \(.bytes) bytes"' "$j" | paste -sd ';')"
}

# Fail if an rperf agent still runs on any host of LAUNCH_HOSTS after
# WAIT seconds (0: now).
no_agents_left() {
	local h left
	for h in $LAUNCH_HOSTS; do
		left=$(in_vm "$h" "for i in \$(seq \$(($2 * 10))); do
				ps -eo args | grep -q '[r]perf agent' || break; sleep 0.1; done
			ps -eo pid,args | grep '[r]perf agent' || true")
		[ -z "$left" ] || fail "$h: an agent is still running after $1: $left"
	done
}

SLURM_DIR=/run/lab-slurm
# Every Slurm command of the test reads this configuration, rperf's srun too.
SLURM_ENV="SLURM_CONF=$SLURM_DIR/slurm.conf"

# The lab's slurm.conf: h1 the controller, every host of LAUNCH_HOSTS a
# node of one partition; state, spool, logs and pids on tmpfs; no
# accounting (the guests have none). slurmd wants a cgroup plugin: cgroup
# v2, mounted in the guest, its hierarchy made by slurmd itself (no
# systemd in the guests: IgnoreSystemd, cgroup.conf beside slurm.conf;
# slurmd makes its scope under system.slice, not system.slice itself).
slurm_conf() {
	local nodes
	nodes=$(tr ' ' ',' <<<"$LAUNCH_HOSTS")
	printf '%s\n' ClusterName=lab SlurmctldHost=h1 SlurmUser=root SlurmdUser=root \
		AuthType=auth/munge CredType=cred/munge \
		StateSaveLocation=$SLURM_DIR/ctld SlurmdSpoolDir=$SLURM_DIR/d \
		SlurmctldPidFile=$SLURM_DIR/slurmctld.pid SlurmdPidFile=$SLURM_DIR/slurmd.pid \
		SlurmctldLogFile=$SLURM_DIR/slurmctld.log SlurmdLogFile=$SLURM_DIR/slurmd.log \
		ProctrackType=proctrack/linuxproc TaskPlugin=task/none \
		JobAcctGatherType=jobacct_gather/none AccountingStorageType=accounting_storage/none \
		JobCompType=jobcomp/none SchedulerType=sched/builtin SelectType=select/linear \
		MpiDefault=none ReturnToService=2 SlurmctldTimeout=60 SlurmdTimeout=120 \
		MessageTimeout=30 KillWait=5 MinJobAge=5 \
		"NodeName=$nodes CPUs=1 State=UNKNOWN" \
		"PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
}

# munged on every host with one key, made on h1 (mungekey) and handed to
# the others over ssh (ssh_up first); slurmctld on h1, slurmd on every
# host; then wait, at most 120 s, for every node to be idle. Any failure
# fails the test with the daemon's own words.
slurm_up() {
	local h conf out
	conf=$(slurm_conf)
	in_vm h1 "set -e; umask 077; mkdir -p /run/munge; mungekey -c -f -k /run/munge/lab.key" ||
		fail "h1: mungekey failed"
	for h in $LAUNCH_HOSTS; do
		[ "$h" = h1 ] ||
			in_vm h1 "umask 077; timeout 60 ssh -o BatchMode=yes $h 'umask 077; mkdir -p /run/munge && cat >/run/munge/lab.key' </run/munge/lab.key" ||
			fail "h1: cannot hand the munge key to $h"
		out=$(in_vm "$h" "rm -rf $SLURM_DIR /run/munge/munged.pid; set -e; umask 022; mkdir -p $SLURM_DIR/ctld $SLURM_DIR/d /run/munge
			chmod 755 /run/munge
			printf '%s\n' '$conf' >$SLURM_DIR/slurm.conf
			printf '%s\n' CgroupPlugin=cgroup/v2 IgnoreSystemd=yes CgroupAutomount=yes >$SLURM_DIR/cgroup.conf
			mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
			mkdir -p /sys/fs/cgroup/system.slice
			munged --force --key-file=/run/munge/lab.key --seed-file=/run/munge/seed \
				--log-file=/run/munge/munged.log --pid-file=/run/munge/munged.pid
			for i in \$(seq 100); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
			cp /run/munge/munged.pid \$RPERF_LAB_RESULTS/munged.pid
			munge -n | unmunge >/dev/null
			if [ $h = h1 ]; then
				$SLURM_ENV slurmctld -f $SLURM_DIR/slurm.conf
				for i in \$(seq 300); do [ -s $SLURM_DIR/slurmctld.pid ] && break; sleep 0.1; done
				cp $SLURM_DIR/slurmctld.pid \$RPERF_LAB_RESULTS/slurmctld.pid
			fi
			$SLURM_ENV slurmd -f $SLURM_DIR/slurm.conf
			for i in \$(seq 300); do [ -s $SLURM_DIR/slurmd.pid ] && break; sleep 0.1; done
			cp $SLURM_DIR/slurmd.pid \$RPERF_LAB_RESULTS/slurmd.pid" 2>&1) ||
			fail "$h: munge or Slurm did not start: $out
$(in_vm "$h" "tail -n 5 /run/munge/munged.log $SLURM_DIR/*.log 2>&1")"
	done
	out=$(in_vm h1 "export $SLURM_ENV; for i in \$(seq 120); do
			[ -z \"\$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -v ' idle\$')\" ] &&
				[ -n \"\$(sinfo -h -N -o %N 2>/dev/null)\" ] && exit 0
			sleep 1
		done; scontrol ping; sinfo -N; tail -n 20 $SLURM_DIR/slurmctld.log; exit 1" 2>&1) ||
		fail "Slurm's nodes not idle within 120 s: $out"
	in_vm h1 "export $SLURM_ENV; sinfo -N; scontrol -V"
}
