#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A server with two addresses answers each flow from the address its
# client connected to: h2 gets a second address on its link, one client
# connects to each of h2's addresses, and h2's RoCE packets (the ACKs of
# the probes) are captured: each flow's leave from the address it was
# reached at, none from the other. (The server used to take its lowest
# IPv4 GID for every flow, so the second flow's ACKs left from h2's first
# address.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

N=200
A1=198.51.100.1 A2=198.51.100.2
H2=$(in_vm h2 "ip -4 -o addr show dev eth0 | awk '{ sub(\"/.*\", \"\", \$4); print \$4; exit }'")
[ -n "$H2" ] || fail "h2 has no IPv4 address on eth0"
in_vm h1 "ip addr add $A1/24 dev eth0" || fail "cannot give h1 a second address"
in_vm h2 "ip addr add $A2/24 dev eth0" || fail "cannot give h2 a second address"
# The kernel adds a RoCE GID for each address: wait for h2's.
in_vm h2 "for i in \$(seq 100); do grep -rqs 'ffff:c633:6402' /sys/class/infiniband/*/ports/1/gids/ && exit 0; sleep 0.1; done; exit 1" ||
	fail "h2 has no RoCE GID for $A2"

pcap="\$RPERF_LAB_RESULTS/gid.pcap"
in_vm_bg h2 "echo \$\$ >\$RPERF_LAB_RESULTS/tcpdump.pid; exec tcpdump -Z root -i eth0 -n -s 96 -B 4096 -U -w $pcap udp port 4791 2>$pcap.err" "$WORK/tcpdump.out"
in_vm h2 "for i in \$(seq 100); do grep -q listening $pcap.err && exit 0; sleep 0.1; done; exit 1" ||
	fail "tcpdump did not start on h2"
server_bg h2 "$WORK/srv.out"
wait_listen h2 18520
lat_run h1 second -n $N -s 64 "$A2" || { cat "$WORK/second.out" "$WORK/srv.out" >&2; fail "rperf lat to $A2 failed"; }
sleep 0.5
n_second_a2=$(in_vm h2 "tcpdump -n -r $pcap 'src host $A2' 2>/dev/null | wc -l")
n_second_h2=$(in_vm h2 "tcpdump -n -r $pcap 'src host $H2' 2>/dev/null | wc -l")
lat_run h1 first -n $N -s 64 "$H2" || { cat "$WORK/first.out" "$WORK/srv.out" >&2; fail "rperf lat to $H2 failed"; }
sleep 0.5
in_vm h2 "kill -INT \$(cat \$RPERF_LAB_RESULTS/tcpdump.pid)" || true
wait "${BG_PIDS[0]}" || true
n_first_a2=$(($(in_vm h2 "tcpdump -n -r $pcap 'src host $A2' 2>/dev/null | wc -l") - n_second_a2))
n_first_h2=$(($(in_vm h2 "tcpdump -n -r $pcap 'src host $H2' 2>/dev/null | wc -l") - n_second_h2))
echo "h2's RoCE packets: flow to $A2: $n_second_a2 from $A2, $n_second_h2 from $H2;" \
	"flow to $H2: $n_first_a2 from $A2, $n_first_h2 from $H2"
jq -e '.complete' "$WORK/second.json" >/dev/null || fail "the run to $A2 is not complete"
# Every probe is ACKed: at least N packets each, all from the right address.
[ "$n_second_a2" -ge $N ] && [ "$n_second_h2" = 0 ] ||
	fail "the flow to $A2 was answered from $H2 ($n_second_h2 packets) or not from $A2 ($n_second_a2)"
[ "$n_first_h2" -ge $N ] && [ "$n_first_a2" = 0 ] ||
	fail "the flow to $H2 was answered from $A2 ($n_first_a2 packets) or not from $H2 ($n_first_h2)"
in_vm h1 "ip addr del $A1/24 dev eth0" || true
in_vm h2 "ip addr del $A2/24 dev eth0" || true
echo "PASS: each flow answered from the address its client connected to"
