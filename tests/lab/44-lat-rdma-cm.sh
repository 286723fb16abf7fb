#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf lat and rperf server over rdma_cm: --sl and --tclass still reach the
# flow (the server sees them in the hello and builds its QP with them), and
# a client started before its server waits for it (rejections retried).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

N=200
# The client first: nobody listens on h2 yet, so rdma_cm rejects its
# requests, and it tries again until --timeout, as over TCP (it used to
# fail at once with "rdma_cm connection rejected"). Still running 2 s
# after it started, it gets through once the server is up.
in_vm_bg h1 "$RPERF lat $LAT_OPTS --timeout 60 --json \$RPERF_LAB_RESULTS/cm.json --rdma-cm \
	--sl 2 --tclass 32 -n $N -s 64 h2 2>&1" "$WORK/cm.out"
client=${BG_PIDS[-1]}
# By its process name (the binary's, as the kernel keeps it: 15 characters),
# not its command line, which this loop's own shell carries too.
comm=$(basename "$RPERF" | cut -c1-15)
in_vm h1 "for i in \$(seq 300); do pgrep -x '$comm' >/dev/null && exit 0; sleep 0.1; done; exit 1" ||
	fail "rperf lat --rdma-cm did not start"
sleep 2
kill -0 "$client" 2>/dev/null ||
	{ cat "$WORK/cm.out" >&2; fail "rperf lat --rdma-cm gave up before the server listened"; }
server_bg h2 "$WORK/srv.out" --rdma-cm --json '$RPERF_LAB_RESULTS/server.json'
wait "$client" || { cat "$WORK/cm.out" "$WORK/srv.out" >&2; fail "rperf lat --rdma-cm failed"; }
in_vm h1 'cat $RPERF_LAB_RESULTS/cm.json' >"$WORK/cm.json"
server_signal h2 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv.out" >&2; fail "rperf server --rdma-cm did not exit cleanly"; }
echo "rperf lat --rdma-cm h1 -> h2, SL 2, tclass 32:"
lat_figures cm 64
# The lab's link has no VLAN: an SL has no PCP to ride in, and the client
# says so, naming the class that does carry the flow (tclass 32: DSCP 8).
grep -q "warning: --sl 2 does nothing on RoCE without a VLAN (no PCP to carry it): the class is the traffic class's, DSCP 8 (--tclass 32)" \
	"$WORK/cm.out" || { cat "$WORK/cm.out" >&2; fail "--sl on RoCE without a VLAN: not warned"; }
jq -e --argjson n $N '.complete and .config.connection == "rdma_cm" and .config.sl == 2 and
	.config.tclass == 32 and .results[0].samples == $n' "$WORK/cm.json" >/dev/null ||
	fail "client JSON does not show the rdma_cm run"
in_vm h2 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
jq -e --argjson m $((N + 100)) '.flows | length == 1 and .[0].sl == 2 and .[0].tclass == 32 and
	.[0].msgs == $m' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "server did not count an SL 2, tclass 32 flow"; }
