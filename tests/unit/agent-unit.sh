#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The agent's systemd unit (debian/rperf.rperf-agent.service) is
# sandboxed: systemd's own analysis, run offline on the file, rates its
# exposure at 2.5 or below, and the directives an RDMA agent's sandbox
# rests on are there with the values rperf-agent(1) states. Run by `make
# check` with TEST_TOP set; scripts/test-package runs the same analysis
# on the installed unit.
TOP=${TEST_TOP:-.}
UNIT=$TOP/debian/rperf.rperf-agent.service
MAX=2.5
# shellcheck source=tests/unit/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

command -v systemd-analyze >/dev/null ||
	{ echo "FAIL: systemd-analyze not found (install systemd; scripts/install-deps)"; exit 1; }
# Analyzed under the name it is installed as.
cp "$UNIT" "$T/rperf-agent.service" || exit 1
systemd-analyze security --offline=true "$T/rperf-agent.service" >"$T/out" 2>"$T/err"
score=$(sed -n 's/^→ Overall exposure level for rperf-agent.service: \([0-9.]*\) .*/\1/p' "$T/out")
[ -n "$score" ] || fail "no exposure level from systemd-analyze: $(cat "$T/err")"
[ -z "$score" ] || awk -v s="$score" -v m="$MAX" 'BEGIN { exit !(s <= m) }' ||
	fail "exposure $score, above $MAX: $(grep '✗' "$T/out" | tr -s ' ' | cut -c1-80)"
# systemd itself fails a threshold above 2.5 (the scale is tenths).
systemd-analyze security --offline=true --threshold=25 "$T/rperf-agent.service" >/dev/null 2>&1 ||
	fail "systemd-analyze security --threshold=25 refuses the unit"

# want KEY VALUE: the unit sets KEY to exactly VALUE (one of its lines).
want() {
	grep -qxF -- "$1=$2" "$UNIT" || fail "the unit lacks '$1=$2'"
}
want LimitMEMLOCK infinity
want MemoryMax 4G
want CapabilityBoundingSet ""
want NoNewPrivileges yes
want DevicePolicy closed
want DeviceAllow "char-infiniband_verbs rw"
want DeviceAllow "/dev/infiniband/rdma_cm rw"
want RestrictAddressFamilies "AF_INET AF_INET6 AF_UNIX AF_NETLINK AF_IB"
want SystemCallFilter @system-service
want SystemCallFilter "~@privileged"
want SystemCallArchitectures native
want MemoryDenyWriteExecute yes
want UMask 0077
# Nothing grants a capability back.
grep -q '^AmbientCapabilities=.' "$UNIT" && fail "the unit grants ambient capabilities"
# The analysis is not blind: the unit without its sandbox rates above 2.5.
mkdir -p "$T/bare" || exit 1
grep -v -e '^Protect' -e '^SystemCall' -e '^Restrict' -e '^Private' -e '^Device' \
	-e '^Capability' -e '^Memory' -e '^NoNew' -e '^Lock' "$UNIT" >"$T/bare/rperf-agent.service"
bare=$(systemd-analyze security --offline=true "$T/bare/rperf-agent.service" 2>/dev/null |
	sed -n 's/^→ Overall exposure level for rperf-agent.service: \([0-9.]*\) .*/\1/p')
awk -v s="${bare:-0}" -v m="$MAX" 'BEGIN { exit !(s > m) }' ||
	fail "the unsandboxed unit rates '$bare', not above $MAX: the analysis proves nothing"

[ "$fails" = 0 ] && echo "agent-unit: exposure $score (at most $MAX), unsandboxed $bare"
exit "$fails"
