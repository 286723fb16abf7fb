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
#include <infiniband/verbs.h>

#include "base/env.h"

#define VERBS_NAME_MAX 64

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
	int gid_index;			/* -1 on InfiniBand (LID addressing, no GRH) */
	union ibv_gid gid;
};

/* What one side tells the other so that it can connect an RC QP to it. */
struct verbs_endpoint {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t mtu;			/* enum ibv_mtu: the sender's active MTU */
	union ibv_gid gid;
};

/* How packets of a connection travel: the knobs of the address vector and
 * of the RC reliability protocol. */
struct verbs_path {
	uint8_t sl;			/* 0..15: address vector SL */
	uint8_t tclass;			/* GRH traffic class (RoCE: IP TOS byte) */
	uint8_t timeout;		/* local ACK timeout: 4.096 us * 2^timeout */
	uint8_t retry;			/* transport retry count, 0..7 */
};

/*
 * How long RC keeps trying a request on @p before the QP fails: retry + 1
 * attempts of the local ACK timeout, 4.096 us * 2^timeout each, in ns.
 */
double verbs_path_give_up_ns(const struct verbs_path *p);

/* One RC QP with its own send and receive CQs and a registered buffer. */
struct verbs_qp {
	struct verbs_dev *dev;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	void *buf;			/* owned by the caller */
	size_t buf_bytes;
	uint32_t psn;
	bool remote_write;		/* the peer may RDMA WRITE into buf */
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
 * -ENXIO with what to do in @err when this host shows no RDMA device:
 * ibv_devices, Soft-RoCE's rdma_rxe, and whether /dev/infiniband is
 * missing or closed to this user. The one message for every path.
 */
int verbs_no_device(char *err, size_t errlen);
/* 0 when this host has an RDMA device, else verbs_no_device(). */
int verbs_check_devices(char *err, size_t errlen);
int verbs_dev_open(struct verbs_dev *dev, const char *name, int port,
		   int gid_index, char *err, size_t errlen);
/* Same on a context that someone else (rdma_cm) opened. */
int verbs_dev_adopt(struct verbs_dev *dev, struct ibv_context *ctx, int port,
		    int gid_index, char *err, size_t errlen);
void verbs_dev_close(struct verbs_dev *dev);

/* The open device's facts for a run's JSON: name, firmware, link layer,
 * port rate (width x lane speed) and NUMA node. */
void verbs_env(const struct verbs_dev *dev, struct run_env *e);

/* The largest message the port carries, in bytes. */
size_t verbs_dev_max_msg_bytes(const struct verbs_dev *dev);

/*
 * A completion channel whose fd never blocks a read: poll() it, then take
 * its events with ibv_get_cq_event() until that fails. 0 or -errno.
 */
int verbs_chan_create(const struct verbs_dev *dev, struct ibv_comp_channel **out, char *err,
		      size_t errlen);

int verbs_qp_create(struct verbs_qp *q, struct verbs_dev *dev,
		    const struct verbs_qp_opts *o, char *err, size_t errlen);
void verbs_qp_destroy(struct verbs_qp *q);

/* Fill @ep with what the peer needs to reach @q. */
void verbs_qp_local(const struct verbs_qp *q, struct verbs_endpoint *ep);

/* RESET -> INIT -> RTR -> RTS towards @remote along @path. */
int verbs_qp_connect(struct verbs_qp *q, const struct verbs_endpoint *remote,
		     const struct verbs_path *path, char *err, size_t errlen);

/*
 * Limit @q (at RTS) to @kbps with the NIC's per-QP rate limiter (packet
 * pacing). -EOPNOTSUPP, with a message naming the device, where the device
 * has none or @kbps is outside the range it supports.
 */
int verbs_qp_rate_limit(struct verbs_qp *q, uint32_t kbps, char *err, size_t errlen);

/* Post one signaled SEND of @len bytes from the start of the buffer. */
int verbs_post_send(struct verbs_qp *q, size_t len, uint64_t wr_id);
/* Post one RECV of @len bytes at the start of the buffer. */
int verbs_post_recv(struct verbs_qp *q, size_t len, uint64_t wr_id);

/* Read every counter under the port's hw_counters directory; 0 or -errno. */
int verbs_counters_read(const struct verbs_dev *dev, struct verbs_counters *c);
/* Sum over the counters that count retransmissions of (@after - @before). */
uint64_t verbs_counters_retrans(const struct verbs_counters *before,
				const struct verbs_counters *after);

const char *verbs_mtu_str(enum ibv_mtu mtu);

#endif
