#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf lat and rperf server over rdma_cm: --sl and --tclass still reach the
# flow (the server sees them in the hello and builds its QP with them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lat-lib.sh"

N=200
server_bg h2 "$WORK/srv.out" --rdma-cm --json '$RPERF_LAB_RESULTS/server.json'
# A rejected rdma_cm connection is not retried: connect once the server
# listens (beside a CPU hog it once started after the client, as 53 knows).
wait_listen h2 18520
lat_run h1 cm --rdma-cm --sl 2 --tclass 32 -n $N -s 64 h2 ||
	{ cat "$WORK/cm.out" "$WORK/srv.out" >&2; fail "rperf lat --rdma-cm failed"; }
server_signal h2 TERM
wait "${BG_PIDS[-1]}" || { cat "$WORK/srv.out" >&2; fail "rperf server --rdma-cm did not exit cleanly"; }
echo "rperf lat --rdma-cm h1 -> h2, SL 2, tclass 32:"
lat_figures cm 64
jq -e --argjson n $N '.complete and .config.connection == "rdma_cm" and .config.sl == 2 and
	.config.tclass == 32 and .results[0].samples == $n' "$WORK/cm.json" >/dev/null ||
	fail "client JSON does not show the rdma_cm run"
in_vm h2 'cat $RPERF_LAB_RESULTS/server.json' >"$WORK/server.json"
jq -e --argjson m $((N + 100)) '.flows | length == 1 and .[0].sl == 2 and .[0].tclass == 32 and
	.[0].msgs == $m' "$WORK/server.json" >/dev/null ||
	{ cat "$WORK/server.json" >&2; fail "server did not count an SL 2, tclass 32 flow"; }
