/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The bw client around the load engine: what a worker needs to know of
 * the server (where to write, what it received) and the snapshots that
 * become intervals. Each worker connects its QPs here, asks the server
 * for its flows' counters at every interval boundary from the load
 * engine's callback, and publishes a snapshot; the main thread adds the
 * workers' snapshots up into intervals as they complete. Never prints:
 * errors go into the caller's buffer, results into structs.
 */
#ifndef RPERF_BW_CLIENT_H
#define RPERF_BW_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "engine/flow_opts.h"
#include "engine/load.h"
#include "engine/result.h"
#include "rdma/conn.h"
#include "rdma/verbs.h"

/* How long the server may take over a query or the MR exchange. */
#define BW_CLIENT_QUERY_MS 2000

/* A worker's cumulative counts at an interval boundary. */
struct bw_snap {
	uint64_t t_ticks;		/* since the worker's run began */
	uint64_t msgs, bytes;		/* sent */
	bool rx_valid;
	uint64_t rx_msgs, rx_bytes;	/* what the server counted */
};

/*
 * One interval of a bw run over all its flows: what completed at the
 * sender, and what the server counted (when it could be asked).
 */
struct bw_interval {
	double start_s, end_s;		/* since the run began */
	uint64_t msgs, bytes;		/* sent */
	bool rx_valid;
	uint64_t rx_msgs, rx_bytes;	/* received */
};

/* Where and what a worker's flows send. */
struct bw_client_cfg {
	const struct flow_opts *flow;	/* the server, its ports, --rdma-cm */
	struct conn_cm *cm;		/* rdma_cm: the id client_open_device() resolved */
	struct verbs_path path;
	size_t size_bytes;
	uint64_t hw_rate_bps;		/* per QP, the NIC's limiter; 0: none */
	bool write;			/* RDMA WRITE with immediate, not SEND */
	unsigned n_qps;
	size_t max_snaps;		/* snapshots kept: intervals + end + rounding */
};

/* One worker's flows, their results and snapshots. */
struct bw_client {
	struct bw_client_cfg cfg;
	struct load *load;
	struct flow_result *res;	/* per QP */
	unsigned n_res;			/* initialized */
	int *query_fd;			/* per QP: where to ask for its counters, or -1 */
	char rx_error[256];		/* why the received figures are unknown, or "" */
	struct bw_snap *snaps;
	size_t n_taken;			/* snapshots taken */
	bool rx_broken;			/* an answer went missing: stop asking */
	size_t n_snaps;			/* complete, published to the main thread */
	bool done;			/* likewise */
	uint64_t hw_rate_applied_bps;	/* --hw-rate as the device applied it, read
					 * back (the slowest QP's); 0: none */
};

/* The workers' clients as the main thread sees them. */
struct bw_client_set {
	struct bw_client *const *c;
	unsigned n;
	double interval_s;
	const struct clock_cal *clk;
};

/* Allocate @c's per-QP state and snapshots for the worker's @l; 0 or -ENOMEM. */
int bw_client_init(struct bw_client *c, const struct bw_client_cfg *cfg, struct load *l);
/* Free what bw_client_init() and bw_client_results_init() allocated. */
void bw_client_release(struct bw_client *c);

/*
 * Initialize one result per QP (for the load engine, which load_init()
 * has set up). 0 or -ENOMEM with the reason in @err.
 */
int bw_client_results_init(struct bw_client *c, char *err, size_t errlen);

/*
 * Connect QP @i: the flow, the side connection its counters are asked on
 * with --rdma-cm (without one, the run goes on, c->rx_error says why,
 * unless cfg.write needs it), the server's buffer to write to (over TCP
 * always, for the zero-length WRITE that ends a run; over rdma_cm, on the
 * side connection, when cfg.write), the NIC's rate limit (the address
 * vector's static rate, read back into hw_rate_applied_bps). The QP posts
 * what cfg.write says. 0 or -errno with the reason in @err.
 */
int bw_client_connect_qp(struct bw_client *c, unsigned i, char *err, size_t errlen);

/*
 * The load engine's interval callback (arg: the bw_client): read the
 * answers to the last boundary's queries, ask again, publish a snapshot.
 */
void bw_client_on_interval(void *arg, const struct load_interval *iv);

/* Close the query and control sockets; the worker's last act but one. */
void bw_client_close(struct bw_client *c);
/* Tell the main thread this worker is done (after its last snapshot). */
void bw_client_finish(struct bw_client *c);

/* Is interval @k known: every worker has snapshot k, or stopped? */
bool bw_client_ready(const struct bw_client_set *s, size_t k, size_t *n_snaps,
		     bool *all_done);
/* Interval @k over every worker, from snapshots k - 1 and k (@n_snaps as
 * bw_client_ready() read them). */
void bw_client_sum(const struct bw_client_set *s, size_t k, const size_t *n_snaps,
		   struct bw_interval *iv);
/*
 * Follow the workers until all are done: each interval into @iv (room
 * for cfg.max_snaps) and to @on_interval once every worker is past it.
 * Returns how many intervals.
 */
size_t bw_client_follow(const struct bw_client_set *s, struct bw_interval *iv,
			void (*on_interval)(void *arg, const struct bw_interval *iv), void *arg);
/* Every flow of every worker into @total (initialized here). */
void bw_client_merge(const struct bw_client_set *s, size_t size_bytes,
		     struct flow_result *total);

#endif
