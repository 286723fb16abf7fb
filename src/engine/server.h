/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The passive side as an engine: the device opened, a sink (sink.h)
 * behind a TCP listener and, with rdma_cm, an rdma_cm listener whose
 * requests become flows of the same sink; then the loop that serves them
 * until a stop or the duration. What happens is told through callbacks
 * (a flow came, closed, failed): the engine never prints, and the
 * command says and reports it (cli/cmd_server.c).
 */
#ifndef RPERF_ENGINE_SERVER_H
#define RPERF_ENGINE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/flow_opts.h"
#include "engine/sink.h"
#include "rdma/conn.h"
#include "rdma/verbs.h"

/*
 * What one server lets its clients hold: a client is a source address
 * (every flow from it, over TCP and rdma_cm, counts as its).
 */
#define SERVER_MAX_CLIENTS	16		/* --max-clients */
#define SERVER_CLIENT_BYTES	(1ull << 30)	/* --max-pinned: 1 GiB */
struct server_caps {
	unsigned max_clients;		/* addresses with open flows at once */
	size_t max_client_bytes;	/* what one address's open flows pin (sink_flow_pin_bytes) */
};

/*
 * May a new flow that pins @flow_bytes come from @src_ip, beside @s's
 * open flows? 0; -EBUSY when @src_ip has none open and max_clients
 * other addresses do; -EDQUOT when @src_ip's open flows and this one
 * would pin more than max_client_bytes; the reason in @err. Pure: the
 * unit tests call it on flows of their own.
 */
int server_admit_check(const struct sink *s, const struct server_caps *caps, const char *src_ip,
		       size_t flow_bytes, char *err, size_t errlen);

/*
 * The sink's admission (struct sink's admit) for @arg, a struct server:
 * server_admit_check() on its open flows, with what a flow of @h's
 * messages pins. server_setup() installs it.
 */
int server_admit(void *arg, const struct conn_hello *h, const char *src_ip, char *err,
		 size_t errlen);

struct server_cfg {
	const struct flow_opts *flow;	/* -d -i -x -p --pkey-index --rdma-cm --hugepages */
	const char *bind;		/* the address to listen on; NULL: every address */
	struct server_caps caps;	/* clients are refused beyond them (counted:
					 * the sink's admit_refused) */
	double duration_s;		/* 0: until stopped */
	uint32_t ring;			/* RECVs a flow; 0: sink_ring_default() */
	bool event, busy_poll;		/* neither: busy poll unless the NIC is software */
	/* A flow came over TCP (@f->cm_id: an rdma_cm flow's side connection). */
	void (*on_accept)(struct sink_flow *f, void *arg);
	/* A flow came over rdma_cm. */
	void (*on_cm_accept)(struct sink_flow *f, void *arg);
	/* A flow's client closed its socket. */
	void (*on_close)(struct sink_flow *f, void *arg);
	/* Something failed that the server goes on after: a flow, a request,
	 * its pinning. */
	void (*on_error)(const char *err, void *arg);
	void *arg;
};

struct server {
	const struct server_cfg *cfg;
	struct verbs_dev dev;
	struct sink sink;
	int lfd;			/* the TCP listener; -1: none */
	struct conn_cm cm;		/* the rdma_cm listener (--rdma-cm) */
	uint64_t start_ns;		/* server_now_ns() when the loop began */
};

/* CLOCK_MONOTONIC, ns: the server's time (its duration, its elapsed). */
uint64_t server_now_ns(void);

/*
 * Listen on @cfg->bind (TCP, then rdma_cm when asked; an address that
 * does not resolve or is not this host's is refused before any device
 * is opened), open @cfg's device, pin near it and make the sink, whose
 * admission holds clients to @cfg->caps: 0, or -errno with the reason in
 * @err (-ENODEV, -EINVAL, -EADDRNOTAVAIL: what the options named is not
 * there). server_release() in any case.
 */
int server_setup(struct server *sv, const struct server_cfg *cfg, char *err, size_t errlen);

/* Serve the flows from now until stop_requested() or the duration. */
void server_loop(struct server *sv);

void server_release(struct server *sv);

#endif
