#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rperf mesh finds a slow host link (run with --switches 2 --hosts 4): a
# netem delay D on sw2's port toward h3 raises the round trip of every
# pair with h3 by D; the mesh, given the LLDP topology and a baseline run
# as its reference, must name h3's link as the slow hop, its estimate
# within 20 % of D (it holds h3's own share too: a host and its link are
# always crossed together), and neither the trunk nor another host's link.
# D as in 45-mesh-trunk.sh. About 90 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/converge-lib.sh"
. "$(dirname "$0")/mesh-lib.sh"

D_US=${MESH_D_US:-50000}
trap 'stop_agents; cleanup' EXIT
mesh_topology
start_agents
mesh_over base
"$LAB" egress h3 "delay=${D_US}us" >/dev/null
mesh_over h3-link --reference '$RPERF_LAB_RESULTS/base.ref.json'
expect_slow h3-link '(^|[^0-9a-z])h3([^0-9]|$)' $((D_US * 1000))
