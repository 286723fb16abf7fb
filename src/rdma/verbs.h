/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Verbs plumbing shared by every engine: open a device and port, pick the
 * GID, create RC QPs with their CQs and memory registration, and connect
 * them with the service level and traffic class the measurement asks for.
 *
 * Every handle lives in one of two structs (verbs_dev for the device, PD
 * and port; verbs_qp for one QP with its CQs and MR) so each can be torn
 * down in reverse order from one place. Functions return 0 or -errno and
 * put the reason in an err buffer; they never print.
 */
#ifndef RPERF_VERBS_H
#define RPERF_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <infiniband/verbs.h>

#include "base/clock.h"
#include "base/env.h"
#include "rdma/gid.h"

#define VERBS_NAME_MAX 64
/*
 * The receiver's RNR timer: 1 = 0.01 ms, the shortest but one. A sender
 * whose SEND found no RECV posted waits this long before it tries again;
 * RC's usual 12 (0.64 ms) stalls a 100 Gb/s QP for 0.64 ms per RNR NAK,
 * and the run looks like a slow fabric.
 */
#define VERBS_MIN_RNR_TIMER 1
#define VERBS_RECV_CHAIN 64		/* RECVs linked into one ibv_post_recv */

/* An open device, one of its ports, its protection domain and chosen GID. */
struct verbs_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	bool own_ctx;			/* false when the context belongs to rdma_cm */
	char name[VERBS_NAME_MAX];
	uint8_t port;
	struct ibv_port_attr port_attr;
	struct ibv_device_attr dev_attr;
	bool roce;			/* Ethernet link layer: GRH on every packet */
	int gid_index;			/* -1 on InfiniBand without -x (LID addressing,
					 * no GRH; gid is then the port GID, index 0) */
	bool gid_given;			/* -x named the GID: no QP chooses another */
	uint16_t pkey_index;		/* the QPs' P_Key table entry (verbs_dev_use_pkey) */
	uint16_t pkey;			/* its value, the membership bit (0x8000: full)
					 * included; 0: unknown */
	union ibv_gid gid;
};

/* What one side tells the other so that it can connect an RC QP to it. */
struct verbs_endpoint {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t mtu;			/* enum ibv_mtu: the sender's active MTU */
	union ibv_gid gid;
	uint16_t pkey;			/* its QP's P_Key (verbs_dev.pkey); 0: unknown */
	uint16_t pkey_index;		/* where that P_Key is in its port's table */
};

/* How packets of a connection travel: the knobs of the address vector and
 * of the RC reliability protocol. */
struct verbs_path {
	uint8_t sl;			/* 0..15: address vector SL */
	uint8_t tclass;			/* GRH traffic class (RoCE: IP TOS byte) */
	uint8_t timeout;		/* local ACK timeout: 4.096 us * 2^timeout */
	uint8_t retry;			/* transport retry count, 0..7 */
	uint8_t static_rate;		/* enum ibv_rate of the address vector; 0: the
					 * port's (not sent to the peer) */
	/* Where sl and tclass came from (not sent to the peer). */
	uint8_t sl_source, tclass_source;	/* enum verbs_path_source */
};

enum verbs_path_source {
	VERBS_FROM_DEFAULT,		/* nobody chose: 0 */
	VERBS_FROM_OPTION,		/* --sl, --tclass */
	VERBS_FROM_PATH_RECORD,		/* rdma_cm's path record (the SM's, or the TOS map) */
};
/* "default", "option", "path_record". */
const char *verbs_path_source_name(uint8_t source);

/*
 * How long RC keeps trying a request on @p before the QP fails: retry + 1
 * attempts of the local ACK timeout, 4.096 us * 2^timeout each, in ns.
 */
double verbs_path_give_up_ns(const struct verbs_path *p);

/* One RC QP with its own send and receive CQs and a registered buffer. */
struct verbs_qp {
	struct verbs_dev *dev;
	struct ibv_cq *send_cq;
	struct ibv_cq_ex *send_cq_ex;	/* the same CQ, when it carries timestamps */
	struct ibv_cq *recv_cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	void *buf;			/* owned by the caller */
	size_t buf_bytes;
	uint32_t psn;
	bool remote_write;		/* the peer may RDMA WRITE into buf */
	uint32_t max_inline;		/* SENDs up to this many bytes go inline */
	int gid_index;			/* its source GID: the device's unless */
	union ibv_gid gid;		/* verbs_qp_pick_gid() chose another */
};

struct verbs_qp_opts {
	uint32_t send_depth;
	uint32_t recv_depth;
	void *buf;			/* registered for local access */
	size_t buf_bytes;
	struct ibv_comp_channel *chan;	/* optional: recv CQ events go here */
	struct ibv_comp_channel *send_chan; /* optional: send CQ events go here */
	void *cq_context;		/* handed back by ibv_get_cq_event() */
	bool remote_write;		/* let the peer RDMA WRITE into buf */
	uint32_t max_inline;		/* inline SENDs up to this, or the most the
					 * device takes below it (halved until accepted) */
	bool cq_timestamps;		/* the send CQ stamps completions with the
					 * NIC's clock (verbs_dev_nic_clock) */
};

/* Port counters from sysfs, read before and after a run. */
#define VERBS_COUNTERS_MAX 64
struct verbs_counters {
	int n;
	char name[VERBS_COUNTERS_MAX][48];
	uint64_t value[VERBS_COUNTERS_MAX];
};

/*
 * Open device @name (NULL: the first one) and @port. @gid_index < 0 picks
 * the RoCE v2 IPv4-mapped GID on Ethernet ports. Fails with a message when
 * the device is unknown, the port is not ACTIVE or the GID is not usable.
 */
/*
 * -ENXIO with a short message in @err when this host shows no RDMA
 * device: whether /dev/infiniband is missing or closed to this user. The
 * one message for every path; what to do about it is in
 * verbs_no_device_hints (NULL-terminated lines), for the command to show.
 */
int verbs_no_device(char *err, size_t errlen);
extern const char *const verbs_no_device_hints[];
/* 0 when this host has an RDMA device, else verbs_no_device(). */
int verbs_check_devices(char *err, size_t errlen);
int verbs_dev_open(struct verbs_dev *dev, const char *name, int port,
		   int gid_index, char *err, size_t errlen);
/* Same on a context that someone else (rdma_cm) opened. */
int verbs_dev_adopt(struct verbs_dev *dev, struct ibv_context *ctx, int port,
		    int gid_index, char *err, size_t errlen);
void verbs_dev_close(struct verbs_dev *dev);
/*
 * Make the QPs connected from now on use P_Key table entry @index of the
 * port (QPs set up by rdma_cm take the one rdma_cm resolves). 0, or
 * -EINVAL with a message when the entry is out of range or empty.
 */
int verbs_dev_use_pkey(struct verbs_dev *dev, uint16_t index, char *err, size_t errlen);
/* P_Key table entry @index of @ctx's @port, in host order; 0 when it
 * cannot be read (or is empty). */
uint16_t verbs_pkey_at(struct ibv_context *ctx, uint8_t port, uint16_t index);

/* Whether RoCE GID @gid_index of @dev belongs to a VLAN netdev (its
 * packets tagged, so carrying a PCP): 1 or 0; -EINVAL on InfiniBand,
 * -ENOENT when its netdev is unknown. */
int verbs_gid_on_vlan(const struct verbs_dev *dev, int gid_index);
/* On RoCE, choose the port's best GID for @w (verbs_gid_score); 0 or
 * -ENOENT with a message. Nothing on InfiniBand. */
int verbs_dev_pick_gid(struct verbs_dev *dev, const struct verbs_gid_want *w, char *err,
		       size_t errlen);

/* The open device's facts for a run's JSON: name, firmware, link layer,
 * port rate (width x lane data rate) and NUMA node. */
void verbs_env(const struct verbs_dev *dev, struct run_env *e);

/*
 * The data rate of one lane at PortInfo speed code @speed (1 SDR ... 128
 * NDR, 256 XDR), in Gb/s, after the line code: EDR is 25, not the 25.78
 * it signals, QDR 8 on InfiniBand (8b/10b). On Ethernet (@roce) the
 * kernel maps link speeds onto the same codes by their nominal rate
 * (10GbE: 1x QDR or FDR10), so those read 2.5, 5, 10, 14. 0: unknown.
 */
double verbs_lane_data_gbps(uint32_t speed, bool roce);
/* The speed code in sysfs's "800 Gb/sec (4X XDR)"; 0 when unknown. */
uint32_t verbs_speed_from_rate_str(const char *rate);

/* The largest message the port carries, in bytes. */
size_t verbs_dev_max_msg_bytes(const struct verbs_dev *dev);

/*
 * A completion channel whose fd never blocks a read: poll() it, then take
 * its events with ibv_get_cq_event() until that fails. 0 or -errno.
 */
int verbs_chan_create(const struct verbs_dev *dev, struct ibv_comp_channel **out, char *err,
		      size_t errlen);

/*
 * The NIC's completion clock: its rate (hca_core_clock) in @cal (source
 * CLOCK_SRC_NIC) and the valid bits of a completion timestamp in @mask.
 * 0, or -EOPNOTSUPP with a message naming the device and what it lacks
 * (no hca_core_clock or timestamp mask, as on Soft-RoCE; a clock that
 * ibv_query_rt_values_ex cannot read).
 */
int verbs_dev_nic_clock(struct verbs_dev *dev, struct clock_cal *cal, uint64_t *mask,
			char *err, size_t errlen);

int verbs_qp_create(struct verbs_qp *q, struct verbs_dev *dev,
		    const struct verbs_qp_opts *o, char *err, size_t errlen);
void verbs_qp_destroy(struct verbs_qp *q);

/*
 * Whether packets to a peer at GID @remote carry a GRH: always on RoCE;
 * on InfiniBand when -x named a GID (@gid_given), or when both GIDs are
 * known and their subnet prefixes differ (a peer behind a router). Pure.
 */
bool verbs_needs_grh(bool roce, bool gid_given, const union ibv_gid *local,
		     const union ibv_gid *remote);

/*
 * Refuse an InfiniBand peer of another subnet (both GIDs known, their
 * subnet prefixes differ) reached through the TCP exchange: that gives
 * the peer's own LID, which is not the way to it behind a router; rdma_cm
 * resolves the path. 0, or -EHOSTUNREACH with a message naming --rdma-cm.
 * Pure.
 */
int verbs_check_routed(bool roce, const union ibv_gid *local, const union ibv_gid *remote,
		       char *err, size_t errlen);

/*
 * On RoCE, give @q (before verbs_qp_connect) the port's best GID for @w
 * instead of the device's: a server answers each flow from the address
 * its client connected to. 0 or -ENOENT with a message; nothing on
 * InfiniBand or when -x named the GID (@q->dev->gid_given).
 */
int verbs_qp_pick_gid(struct verbs_qp *q, const struct verbs_gid_want *w, char *err,
		      size_t errlen);

/* Fill @ep with what the peer needs to reach @q. */
void verbs_qp_local(const struct verbs_qp *q, struct verbs_endpoint *ep);

/* RESET -> INIT -> RTR -> RTS towards @remote along @path. */
int verbs_qp_connect(struct verbs_qp *q, const struct verbs_endpoint *remote,
		     const struct verbs_path *path, char *err, size_t errlen);

/*
 * A QP's rate limit, on InfiniBand and RoCE alike: the address vector's
 * static rate (perftest's --rate_limit_type=HW). IBV_QP_RATE_LIMIT is
 * not used: ib_core takes it on raw packet QPs only. The fastest rate at
 * or below @kbps (IBV_RATE_2_5_GBPS ...), or IBV_RATE_MAX (0) when
 * @kbps is below every rate. Pure.
 */
enum ibv_rate verbs_static_rate_for_kbps(uint64_t kbps);
/* The nominal data rate of static rate @rate in bit/s; 0 for
 * IBV_RATE_MAX (the port's own rate: no limit) or an unknown code. Pure. */
uint64_t verbs_static_rate_bps(enum ibv_rate rate);
/*
 * The static rate the device applied to @q (connected), read back with
 * ibv_query_qp: a device may round down to a rate it supports, or keep
 * none (IBV_RATE_MAX). 0 or -errno with a message.
 */
int verbs_qp_static_rate(const struct verbs_qp *q, enum ibv_rate *rate, char *err,
			 size_t errlen);

/* Post one signaled SEND of @len bytes from the start of the buffer,
 * inline when @len is at most q->max_inline. */
int verbs_post_send(struct verbs_qp *q, size_t len, uint64_t wr_id);
/* Post one RECV of @len bytes at the start of the buffer. */
int verbs_post_recv(struct verbs_qp *q, size_t len, uint64_t wr_id);
/*
 * Post @n RECVs of @len bytes at the start of the buffer, linked in lists
 * of up to VERBS_RECV_CHAIN per ibv_post_recv (one doorbell a list).
 * Returns how many were posted (all of them, or those before the one the
 * device refused), or -errno when none was.
 */
int verbs_post_recvs(struct verbs_qp *q, size_t len, uint64_t wr_id, uint32_t n);

/*
 * Whether the device is a NIC run in software on the host's CPUs
 * (Soft-RoCE rxe, siw), by its vendor id: a receiver there sleeps on
 * completion events, since a busy poll would take the CPU the NIC needs.
 */
bool verbs_dev_is_soft(const struct verbs_dev *dev);

/* Read every counter under the port's hw_counters directory; 0 or -errno. */
int verbs_counters_read(const struct verbs_dev *dev, struct verbs_counters *c);
/*
 * Receive-side trouble in (@after - @before), where the device counts it:
 * RNR NAKs the port sent (a SEND found no RECV posted; rxe's send_rnr_err)
 * and messages dropped for want of a RECV (mlx5's out_of_buffer). Each is
 * -1 when the device has no such counter.
 */
struct verbs_rx_trouble {
	int64_t rnr_naks_sent;
	int64_t out_of_buffer;
};
void verbs_counters_rx(const struct verbs_counters *before, const struct verbs_counters *after,
		       struct verbs_rx_trouble *t);
/* Sum over the counters that count retransmissions of (@after - @before). */
uint64_t verbs_counters_retrans(const struct verbs_counters *before,
				const struct verbs_counters *after);

const char *verbs_mtu_str(enum ibv_mtu mtu);

#endif
