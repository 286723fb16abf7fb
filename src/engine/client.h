/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What every client command (lat, bw) does around its engine: open the
 * device (directly, or where rdma_cm routes the server), turn the shared
 * options into a path, pin each worker, and tell the user's setup errors
 * from the world's. One copy, so the commands behave alike.
 */
#ifndef RPERF_CLIENT_H
#define RPERF_CLIENT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/clock.h"
#include "rdma/conn.h"
#include "engine/flow_opts.h"
#include "rdma/verbs.h"

/* The path the options ask for. */
struct verbs_path client_path(const struct flow_opts *o);
/*
 * The RC path a flow of @spec connects on: its SL and traffic class,
 * with the QP's ACK @timeout and @retry count. Every client and source
 * (rperf lat and bw, an agent's flows) takes its path from here.
 */
struct verbs_path client_spec_path(const struct flow_spec *spec, uint8_t timeout, uint8_t retry);


/*
 * How long a worker waits for a completion on @path before it decides the
 * server is gone, in ticks of @clk: twice RC's own give-up time (so RC
 * reports first when it can), plus 5 s for the software on the way.
 */
uint64_t client_completion_timeout_ticks(const struct clock_cal *clk,
					 const struct verbs_path *path);

/*
 * rdma_cm resolved a path record (@rec; NULL: none): take its SL and
 * traffic class into @p, each unless the user chose it (@p's sources say
 * so), and mark where each came from. On InfiniBand the SL is the subnet
 * manager's choice, which QoS and deadlock-free routing (DFSSSP,
 * torus-2QoS, LASH) depend on; on RoCE, the kernel's TOS-to-priority map.
 * Pure.
 */
void client_path_from_record(struct verbs_path *p, const struct ibv_sa_path_rec *rec);
/* client_path_from_record() with @cm's route, when @o runs over rdma_cm. */
void client_path_from_route(const struct flow_opts *o, const struct conn_cm *cm,
			    struct verbs_path *p);

/*
 * What a RoCE path silently ignores, said before the run: --sl without a
 * VLAN (@vlan 0: untagged, no PCP for the SL to map to; -1: unknown, no
 * warning), a traffic class of 0 the user chose (DSCP 0, usually the
 * lossy default class); each names the class actually used. Up to @max
 * warnings into @out; how many. Nothing on InfiniBand. Pure.
 */
#define CLIENT_WARNING_BYTES 200
size_t client_path_warnings(const struct verbs_path *p, bool roce, int vlan,
			    char (*out)[CLIENT_WARNING_BYTES], size_t max);

/*
 * What the RoCE GID toward @host should match: the family, address and
 * netdev (so the VLAN) of the local address the kernel routes to @host
 * from. 0 or -EHOSTUNREACH (then @w asks for nothing).
 */
int client_gid_want(const char *host, struct verbs_gid_want *w);

/*
 * Open the device and port of @o. Over TCP without -x the RoCE GID is
 * the one of the local address that reaches the server (see
 * verbs_gid_score). With --rdma-cm, first resolve the
 * server through @cm (kept for worker 0's connection) and adopt the
 * context it routes through. 0 or -errno with the reason in @err.
 */
int client_open_device(const struct flow_opts *o, struct verbs_dev *dev, struct conn_cm *cm,
		       char *err, size_t errlen);

/*
 * Connect @q (in RESET) to the server of @o for messages of up to
 * @max_bytes along @path: over TCP, or with --rdma-cm through @cm (which
 * client_open_device() resolved). Returns the fd that tells when the
 * server goes away (the flow's TCP socket, which the caller closes, or
 * the rdma_cm channel, where any event means it), or -errno.
 */
int client_connect(const struct flow_opts *o, struct conn_cm *cm, struct verbs_qp *q,
		   const struct verbs_path *path, size_t max_bytes, char *err, size_t errlen);

/* Pin the calling worker @index: --cpu, or the NIC-local cores.
 * Returns the CPU (>= 0) or -errno. */
int client_pin_worker(const struct flow_opts *o, struct ibv_context *ctx, unsigned index,
		      char *err, size_t errlen);

/*
 * Whether a setup error is the user's (a device, port or size that does
 * not exist or fit: bad usage) rather than the world's (a failure).
 */
bool client_error_is_usage(int ret);

#endif
