/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Verbs plumbing: device and port discovery, GID choice, RC QP lifecycle
 * and connection, port counters. See verbs.h for the contracts.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "rdma/verbs.h"

/* ------------------------------------------------------------------ */
/* Device, port and GID                                                */
/* ------------------------------------------------------------------ */

/* @dev's best GID for @w into *@gid_index and *@gid: 0, or -errno with a
 * message naming the port. */
static int gid_pick(const struct verbs_dev *dev, const struct verbs_gid_want *w, int *gid_index,
		    union ibv_gid *gid, char *err, size_t errlen)
{
	size_t max = (size_t)dev->port_attr.gid_tbl_len * dev->dev_attr.phys_port_cnt;
	struct ibv_gid_entry best;
	int ret = verbs_gid_table_pick(dev->ctx, dev->port, max, w, &best);

	if (ret == -ENOENT)
		return errbuf_set(err, errlen, ret, "%s port %u: no RoCE v2 GID%s; give one with -x",
				  dev->name, dev->port, w->family == AF_INET ? " with an IPv4 address" :
				  w->family == AF_INET6 ? " with an IPv6 address" : "");
	if (ret)
		return errbuf_set(err, errlen, ret, "%s port %u: cannot read the GID table: %s",
				  dev->name, dev->port, strerror(-ret));
	*gid_index = (int)best.gid_index;
	*gid = best.gid;
	return 0;
}

int verbs_gid_on_vlan(const struct verbs_dev *dev, int gid_index)
{
	if (!dev->roce)
		return -EINVAL;
	return verbs_gid_netdev_is_vlan(dev->ctx, dev->port, gid_index);
}

int verbs_dev_pick_gid(struct verbs_dev *dev, const struct verbs_gid_want *w, char *err,
		       size_t errlen)
{
	if (!dev->roce)
		return 0;
	return gid_pick(dev, w, &dev->gid_index, &dev->gid, err, errlen);
}

static int gid_use_index(struct verbs_dev *dev, int idx, char *err, size_t errlen)
{
	struct ibv_gid_entry ent;
	int ret;

	if (idx >= dev->port_attr.gid_tbl_len)
		return errbuf_set(err, errlen, -EINVAL,
				  "%s port %u: GID index %d out of range (table has %d entries)",
				  dev->name, dev->port, idx, dev->port_attr.gid_tbl_len);
	ret = ibv_query_gid_ex(dev->ctx, dev->port, (uint32_t)idx, &ent, 0);
	if (ret)
		return errbuf_set(err, errlen, -EINVAL, "%s port %u: GID index %d is not in use",
				  dev->name, dev->port, idx);
	dev->gid_index = idx;
	dev->gid = ent.gid;
	return 0;
}

static const char *port_state_name(enum ibv_port_state st)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
					     "ACTIVE_DEFER" };

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "UNKNOWN";
}

static int dev_setup(struct verbs_dev *dev, int port, int gid_index, char *err, size_t errlen)
{
	int ret;

	snprintf(dev->name, sizeof(dev->name), "%s", ibv_get_device_name(dev->ctx->device));
	ret = ibv_query_device(dev->ctx, &dev->dev_attr);
	if (ret)
		return errbuf_set(err, errlen, -ret, "'%s': cannot query the device: %s",
				  dev->name, strerror(ret));
	if (port < 1 || port > dev->dev_attr.phys_port_cnt)
		return errbuf_set(err, errlen, -EINVAL, "'%s': no port %d (the device has %u)",
				  dev->name, port, dev->dev_attr.phys_port_cnt);
	dev->port = (uint8_t)port;
	ret = ibv_query_port(dev->ctx, dev->port, &dev->port_attr);
	if (ret)
		return errbuf_set(err, errlen, -ret, "%s port %d: cannot query the port: %s",
				  dev->name, port, strerror(ret));
	if (dev->port_attr.state != IBV_PORT_ACTIVE)
		return errbuf_set(err, errlen, -ENETDOWN, "%s port %d: port %s, not ACTIVE",
				  dev->name, port, port_state_name(dev->port_attr.state));
	dev->roce = dev->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	dev->gid_index = -1;
	dev->gid_given = gid_index >= 0;
	if (dev->roce)
		ret = gid_index < 0 ? verbs_dev_pick_gid(dev, &(struct verbs_gid_want){ 0 }, err,
						       errlen) :
				      gid_use_index(dev, gid_index, err, errlen);
	else if (gid_index >= 0)
		ret = gid_use_index(dev, gid_index, err, errlen);	/* GRH from this GID */
	else if (ibv_query_gid(dev->ctx, dev->port, 0, &dev->gid))
		memset(&dev->gid, 0, sizeof(dev->gid));	/* the port GID, for peers that route */
	if (!ret && !dev->roce && !dev->port_attr.lid)
		ret = errbuf_set(err, errlen, -ENETDOWN, "%s port %d: no LID assigned (is a subnet manager running?)",
				 dev->name, port);
	if (ret)
		return ret;
	dev->pd = ibv_alloc_pd(dev->ctx);
	if (!dev->pd)
		return errbuf_set(err, errlen, -ENOMEM, "%s: cannot allocate a protection domain",
				  dev->name);
	return 0;
}

/*
 * Why /dev/infiniband gives this user nothing, for the no-device message:
 * absent (no RDMA driver loaded), or a uverbs node this user cannot open
 * (permission), or "" when neither explains it.
 */
static const char *dev_node_why(char *buf, size_t cap)
{
	struct dirent *e;
	DIR *d = opendir("/dev/infiniband");

	buf[0] = '\0';
	if (!d)
		return errno == EACCES ? "; this user may not read /dev/infiniband" :
		       "; no /dev/infiniband: no RDMA driver is loaded";
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		snprintf(buf, cap, "/dev/infiniband/%.32s", e->d_name);
		if (access(buf, R_OK | W_OK)) {
			snprintf(buf, cap, "; /dev/infiniband/%.32s: %s for this user (see its "
				 "group, often rdma)", e->d_name, strerror(errno));
			closedir(d);
			return buf;
		}
		buf[0] = '\0';
	}
	closedir(d);
	return buf;
}

int verbs_no_device(char *err, size_t errlen)
{
	char why[160];

	return errbuf_set(err, errlen, -ENXIO, "no RDMA device found (ibv_devices lists "
			  "none)%s; a NIC needs rdma-core, ibverbs-providers and its driver "
			  "(mlx5_ib: ConnectX); Soft-RoCE: 'rdma link add rxe0 type rxe netdev IFACE'",
			  dev_node_why(why, sizeof(why)));
}

int verbs_check_devices(char *err, size_t errlen)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	return list && n > 0 ? 0 : verbs_no_device(err, errlen);
}

static struct ibv_device *dev_find(struct ibv_device **list, int n, const char *name,
				   char *err, size_t errlen)
{
	char avail[256] = "";
	size_t used = 0;
	int i;

	if (n <= 0) {
		verbs_no_device(err, errlen);
		return NULL;
	}
	if (!name)
		return list[0];
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
		if (used < sizeof(avail))
			used += (size_t)snprintf(avail + used, sizeof(avail) - used, "%s%s",
						 i ? ", " : "", ibv_get_device_name(list[i]));
	}
	errbuf_set(err, errlen, -ENODEV, "unknown device '%s' (available: %s)", name, avail);
	return NULL;
}

int verbs_dev_open(struct verbs_dev *dev, const char *name, int port,
		   int gid_index, char *err, size_t errlen)
{
	struct ibv_device **list;
	struct ibv_device *d;
	int n = 0, ret;

	memset(dev, 0, sizeof(*dev));
	list = ibv_get_device_list(&n);
	if (!list)
		return verbs_no_device(err, errlen);
	d = dev_find(list, n, name, err, errlen);
	if (!d) {
		ibv_free_device_list(list);
		return n > 0 ? -ENODEV : -ENXIO;
	}
	dev->ctx = ibv_open_device(d);
	if (!dev->ctx) {
		ret = errbuf_set(err, errlen, -errno, "'%s': cannot open: %s",
				 ibv_get_device_name(d), strerror(errno));
		ibv_free_device_list(list);
		return ret;
	}
	ibv_free_device_list(list);
	dev->own_ctx = true;
	ret = dev_setup(dev, port, gid_index, err, errlen);
	if (ret)
		verbs_dev_close(dev);
	return ret;
}

int verbs_dev_adopt(struct verbs_dev *dev, struct ibv_context *ctx, int port,
		    int gid_index, char *err, size_t errlen)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->ctx = ctx;
	ret = dev_setup(dev, port, gid_index, err, errlen);
	if (ret)
		verbs_dev_close(dev);
	return ret;
}

int verbs_dev_use_pkey(struct verbs_dev *dev, uint16_t index, char *err, size_t errlen)
{
	__be16 pkey = 0;

	if (index >= dev->port_attr.pkey_tbl_len)
		return errbuf_set(err, errlen, -EINVAL,
				  "%s port %u: P_Key index %u out of range (table has %u entries)",
				  dev->name, dev->port, index, dev->port_attr.pkey_tbl_len);
	if (ibv_query_pkey(dev->ctx, dev->port, index, &pkey) || !(be16toh(pkey) & 0x7fff))
		return errbuf_set(err, errlen, -EINVAL, "%s port %u: P_Key index %u is empty",
				  dev->name, dev->port, index);
	dev->pkey_index = index;
	return 0;
}

void verbs_dev_close(struct verbs_dev *dev)
{
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	if (dev->ctx && dev->own_ctx)
		ibv_close_device(dev->ctx);
	memset(dev, 0, sizeof(*dev));
}

size_t verbs_dev_max_msg_bytes(const struct verbs_dev *dev)
{
	return dev->port_attr.max_msg_sz;
}

/* ------------------------------------------------------------------ */
/* RC QPs                                                              */
/* ------------------------------------------------------------------ */

int verbs_chan_create(const struct verbs_dev *dev, struct ibv_comp_channel **out, char *err,
		      size_t errlen)
{
	*out = ibv_create_comp_channel(dev->ctx);
	if (!*out)
		return errbuf_set(err, errlen, -errno, "%s: cannot create a completion channel: %s",
				  dev->name, strerror(errno));
	/* poll() tells when to read; the read itself must never block. */
	fcntl((*out)->fd, F_SETFL, fcntl((*out)->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/*
 * ibv_create_qp with inline data of up to @want bytes: a device that
 * refuses that much is asked for half as much, down to none. @init's
 * cap.max_inline_data is then what the device gave.
 */
static struct ibv_qp *qp_create_inline(struct verbs_dev *dev, struct ibv_qp_init_attr *init,
				       uint32_t want)
{
	struct ibv_qp *qp;

	for (;;) {
		init->cap.max_inline_data = want;
		qp = ibv_create_qp(dev->pd, init);
		if (qp || !want)
			return qp;
		want /= 2;
	}
}

/* A send CQ whose completions carry the NIC's timestamp (q->send_cq_ex). */
static struct ibv_cq *verbs_cq_stamped(struct verbs_qp *q, int depth,
				       const struct verbs_qp_opts *o)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = (uint32_t)depth,
		.cq_context = o->cq_context,
		.channel = o->send_chan,
		.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};

	q->send_cq_ex = ibv_create_cq_ex(q->dev->ctx, &a);
	return q->send_cq_ex ? ibv_cq_ex_to_cq(q->send_cq_ex) : NULL;
}

int verbs_qp_create(struct verbs_qp *q, struct verbs_dev *dev,
		    const struct verbs_qp_opts *o, char *err, size_t errlen)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = o->send_depth ? o->send_depth : 1,
			.max_recv_wr = o->recv_depth ? o->recv_depth : 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	int ret;

	memset(q, 0, sizeof(*q));
	q->dev = dev;
	q->buf = o->buf;
	q->buf_bytes = o->buf_bytes;
	q->psn = (uint32_t)lrand48() & 0xffffff;
	q->gid_index = dev->gid_index;
	q->gid = dev->gid;
	q->send_cq = o->cq_timestamps ? verbs_cq_stamped(q, (int)init.cap.max_send_wr, o) :
		     ibv_create_cq(dev->ctx, (int)init.cap.max_send_wr, o->cq_context,
				   o->send_chan, 0);
	if (!q->send_cq) {
		ret = errbuf_set(err, errlen, -errno, "%s: cannot create a CQ%s: %s", dev->name,
				 o->cq_timestamps ? " with completion timestamps" : "",
				 strerror(errno));
		goto err;
	}
	q->recv_cq = ibv_create_cq(dev->ctx, (int)init.cap.max_recv_wr, o->cq_context,
				   o->chan, 0);
	if (!q->recv_cq) {
		ret = errbuf_set(err, errlen, -errno, "%s: cannot create a CQ: %s",
				 dev->name, strerror(errno));
		goto err_send_cq;
	}
	q->remote_write = o->remote_write;
	q->mr = ibv_reg_mr(dev->pd, o->buf, o->buf_bytes, IBV_ACCESS_LOCAL_WRITE |
			   (o->remote_write ? IBV_ACCESS_REMOTE_WRITE : 0));
	if (!q->mr) {
		ret = errbuf_set(err, errlen, -errno, "%s: cannot register %zu bytes: %s",
				 dev->name, o->buf_bytes, strerror(errno));
		goto err_recv_cq;
	}
	init.send_cq = q->send_cq;
	init.recv_cq = q->recv_cq;
	q->qp = qp_create_inline(dev, &init, o->max_inline);
	if (!q->qp) {
		ret = errbuf_set(err, errlen, -errno, "%s: cannot create a QP: %s",
				 dev->name, strerror(errno));
		goto err_mr;
	}
	q->max_inline = init.cap.max_inline_data;
	return 0;

err_mr:
	ibv_dereg_mr(q->mr);
err_recv_cq:
	ibv_destroy_cq(q->recv_cq);
err_send_cq:
	ibv_destroy_cq(q->send_cq);
err:
	memset(q, 0, sizeof(*q));
	return ret;
}

void verbs_qp_destroy(struct verbs_qp *q)
{
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	if (q->recv_cq)
		ibv_destroy_cq(q->recv_cq);
	if (q->send_cq)
		ibv_destroy_cq(q->send_cq);
	memset(q, 0, sizeof(*q));
}

int verbs_qp_pick_gid(struct verbs_qp *q, const struct verbs_gid_want *w, char *err,
		      size_t errlen)
{
	if (!q->dev->roce || q->dev->gid_given)
		return 0;
	return gid_pick(q->dev, w, &q->gid_index, &q->gid, err, errlen);
}

void verbs_qp_local(const struct verbs_qp *q, struct verbs_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->qpn = q->qp->qp_num;
	ep->psn = q->psn;
	ep->lid = q->dev->port_attr.lid;
	ep->mtu = (uint8_t)q->dev->port_attr.active_mtu;
	ep->gid = q->gid;
}

bool verbs_needs_grh(bool roce, bool gid_given, const union ibv_gid *local,
		     const union ibv_gid *remote)
{
	static const uint8_t zero[8];

	if (roce || gid_given)
		return true;
	/* The subnet prefix is the GID's first 8 bytes. */
	return memcmp(remote->raw, zero, 8) && memcmp(local->raw, zero, 8) &&
	       memcmp(remote->raw, local->raw, 8);
}

int verbs_check_routed(bool roce, const union ibv_gid *local, const union ibv_gid *remote,
		       char *err, size_t errlen)
{
	if (roce || !verbs_needs_grh(false, false, local, remote))
		return 0;
	return errbuf_set(err, errlen, -EHOSTUNREACH,
			  "the peer is in another subnet (GID prefix %02x%02x:%02x%02x:%02x%02x:%02x%02x, "
			  "ours %02x%02x:%02x%02x:%02x%02x:%02x%02x): the TCP exchange gives its "
			  "own LID, not the router's; use --rdma-cm",
			  remote->raw[0], remote->raw[1], remote->raw[2], remote->raw[3],
			  remote->raw[4], remote->raw[5], remote->raw[6], remote->raw[7],
			  local->raw[0], local->raw[1], local->raw[2], local->raw[3],
			  local->raw[4], local->raw[5], local->raw[6], local->raw[7]);
}

/* The address vector for @remote along @path (the rdma_cm path builds its
 * own with rdma_init_qp_attr and sets the SL and traffic class in it). */
static void verbs_ah_attr(const struct verbs_qp *q, const struct verbs_endpoint *remote,
			  const struct verbs_path *path, struct ibv_ah_attr *ah)
{
	const struct verbs_dev *dev = q->dev;

	memset(ah, 0, sizeof(*ah));
	ah->dlid = remote->lid;
	ah->sl = path->sl;
	ah->port_num = dev->port;
	ah->static_rate = path->static_rate;
	/* The GRH on RoCE always; on InfiniBand (which routes by LID inside a
	 * subnet) with -x, or toward a peer of another subnet. */
	if (verbs_needs_grh(dev->roce, q->gid_index >= 0, &q->gid, &remote->gid)) {
		ah->is_global = 1;
		ah->grh.dgid = remote->gid;
		ah->grh.sgid_index = (uint8_t)(q->gid_index >= 0 ? q->gid_index : 0);
		ah->grh.hop_limit = 64;
		ah->grh.traffic_class = path->tclass;
	}
}

static int qp_to_init(struct verbs_qp *q, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = q->dev->pkey_index,
		.port_num = q->dev->port,
		.qp_access_flags = q->remote_write ? IBV_ACCESS_REMOTE_WRITE : 0,
	};
	int ret = ibv_modify_qp(q->qp, &a,
				IBV_QP_STATE |
				IBV_QP_PKEY_INDEX |
				IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS);

	if (ret)
		return errbuf_set(err, errlen, -ret, "%s: QP %u to INIT: %s", q->dev->name,
				  q->qp->qp_num, strerror(ret));
	return 0;
}

static int qp_to_rtr(struct verbs_qp *q, const struct verbs_endpoint *remote,
		     const struct verbs_path *path, char *err, size_t errlen)
{
	enum ibv_mtu mtu = q->dev->port_attr.active_mtu;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = remote->mtu && remote->mtu < mtu ? (enum ibv_mtu)remote->mtu : mtu,
		.dest_qp_num = remote->qpn,
		.rq_psn = remote->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = VERBS_MIN_RNR_TIMER,
	};
	int ret;

	verbs_ah_attr(q, remote, path, &a.ah_attr);
	ret = ibv_modify_qp(q->qp, &a,
			    IBV_QP_STATE |
			    IBV_QP_AV |
			    IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return errbuf_set(err, errlen, -ret, "%s: QP %u to RTR (remote QP %u, SL %u): %s",
				  q->dev->name, q->qp->qp_num, remote->qpn, path->sl, strerror(ret));
	return 0;
}

static int qp_to_rts(struct verbs_qp *q, const struct verbs_path *path, char *err, size_t errlen)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = path->timeout,
		.retry_cnt = path->retry,
		.rnr_retry = 7,		/* 7 = retry for ever: the server reposts */
		.sq_psn = q->psn,
		.max_rd_atomic = 1,
	};
	int ret = ibv_modify_qp(q->qp, &a,
				IBV_QP_STATE |
				IBV_QP_TIMEOUT |
				IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY |
				IBV_QP_SQ_PSN |
				IBV_QP_MAX_QP_RD_ATOMIC);

	if (ret)
		return errbuf_set(err, errlen, -ret, "%s: QP %u to RTS: %s", q->dev->name,
				  q->qp->qp_num, strerror(ret));
	return 0;
}

int verbs_qp_connect(struct verbs_qp *q, const struct verbs_endpoint *remote,
		     const struct verbs_path *path, char *err, size_t errlen)
{
	int ret;

	if (path->sl > 15)
		return errbuf_set(err, errlen, -EINVAL, "SL %u above 15", path->sl);
	if (!q->dev->roce && !remote->lid)
		return errbuf_set(err, errlen, -EINVAL,
				  "%s: the peer has no LID (is it on RoCE?)", q->dev->name);
	ret = verbs_check_routed(q->dev->roce, &q->gid, &remote->gid, err, errlen);
	if (!ret)
		ret = qp_to_init(q, err, errlen);
	if (!ret)
		ret = qp_to_rtr(q, remote, path, err, errlen);
	if (!ret)
		ret = qp_to_rts(q, path, err, errlen);
	return ret;
}

/* The static rates by their nominal data rate, as the enum names them
 * (ibv_rate_to_mbps gives some as signalling rates: 103125 for 100 Gb/s),
 * sorted by rate. */
static const struct { enum ibv_rate r; uint32_t mbps; } static_rates[] = {
	{ IBV_RATE_2_5_GBPS, 2500 }, { IBV_RATE_5_GBPS, 5000 },
	{ IBV_RATE_10_GBPS, 10000 }, { IBV_RATE_14_GBPS, 14000 },
	{ IBV_RATE_20_GBPS, 20000 }, { IBV_RATE_25_GBPS, 25000 },
	{ IBV_RATE_28_GBPS, 28000 }, { IBV_RATE_30_GBPS, 30000 },
	{ IBV_RATE_40_GBPS, 40000 }, { IBV_RATE_50_GBPS, 50000 },
	{ IBV_RATE_56_GBPS, 56000 }, { IBV_RATE_60_GBPS, 60000 },
	{ IBV_RATE_80_GBPS, 80000 }, { IBV_RATE_100_GBPS, 100000 },
	{ IBV_RATE_112_GBPS, 112000 }, { IBV_RATE_120_GBPS, 120000 },
	{ IBV_RATE_168_GBPS, 168000 }, { IBV_RATE_200_GBPS, 200000 },
	{ IBV_RATE_300_GBPS, 300000 }, { IBV_RATE_400_GBPS, 400000 },
	{ IBV_RATE_600_GBPS, 600000 }, { IBV_RATE_800_GBPS, 800000 },
	{ IBV_RATE_1200_GBPS, 1200000 },
};
#define N_STATIC_RATES (sizeof(static_rates) / sizeof(static_rates[0]))

enum ibv_rate verbs_static_rate_for_kbps(uint64_t kbps)
{
	enum ibv_rate best = IBV_RATE_MAX;
	size_t i;

	/* The last that fits is the fastest. */
	for (i = 0; i < N_STATIC_RATES && (uint64_t)static_rates[i].mbps * 1000 <= kbps; i++)
		best = static_rates[i].r;
	return best;
}

uint64_t verbs_static_rate_bps(enum ibv_rate rate)
{
	size_t i;

	for (i = 0; i < N_STATIC_RATES; i++)
		if (static_rates[i].r == rate)
			return (uint64_t)static_rates[i].mbps * 1000000;
	return 0;
}

int verbs_qp_static_rate(const struct verbs_qp *q, enum ibv_rate *rate, char *err, size_t errlen)
{
	struct ibv_qp_attr a = { 0 };
	struct ibv_qp_init_attr init;
	int ret;

	ret = ibv_query_qp(q->qp, &a, IBV_QP_AV, &init);
	if (ret)
		return errbuf_set(err, errlen, -ret, "%s: QP %u: cannot read its address vector: %s",
				  q->dev->name, q->qp->qp_num, strerror(ret));
	*rate = (enum ibv_rate)a.ah_attr.static_rate;
	return 0;
}

int verbs_post_send(struct verbs_qp *q, size_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->buf,
		.length = (uint32_t)len,
		.lkey = q->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (len && len <= q->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	return -ibv_post_send(q->qp, &wr, &bad);
}

int verbs_post_recv(struct verbs_qp *q, size_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->buf,
		.length = (uint32_t)len,
		.lkey = q->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;

	return -ibv_post_recv(q->qp, &wr, &bad);
}

int verbs_post_recvs(struct verbs_qp *q, size_t len, uint64_t wr_id, uint32_t n)
{
	struct ibv_recv_wr wr[VERBS_RECV_CHAIN], *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->buf,
		.length = (uint32_t)len,
		.lkey = q->mr->lkey,
	};
	uint32_t done = 0, k, i;
	int ret;

	while (done < n) {
		k = n - done < VERBS_RECV_CHAIN ? n - done : VERBS_RECV_CHAIN;
		for (i = 0; i < k; i++)
			wr[i] = (struct ibv_recv_wr){ .wr_id = wr_id, .sg_list = &sge,
						      .num_sge = 1,
						      .next = i + 1 < k ? &wr[i + 1] : NULL };
		ret = ibv_post_recv(q->qp, wr, &bad);
		if (ret) {
			/* Those before @bad went in. */
			done += (uint32_t)(bad - wr);
			return done ? (int)done : -ret;
		}
		done += k;
	}
	return (int)done;
}

bool verbs_dev_is_soft(const struct verbs_dev *dev)
{
	/* rxe reports vendor 0xffffff; siw 0x626d74 ("bmt"). */
	return dev->dev_attr.vendor_id == 0xffffff || dev->dev_attr.vendor_id == 0x626d74;
}

/* ------------------------------------------------------------------ */
/* Port counters                                                       */
/* ------------------------------------------------------------------ */

static int counter_read_file(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int verbs_counters_read(const struct verbs_dev *dev, struct verbs_counters *c)
{
	char dir[256], path[512];
	struct dirent *de;
	DIR *d;

	c->n = 0;
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u/hw_counters",
		 dev->name, dev->port);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && c->n < VERBS_COUNTERS_MAX) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(c->name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (counter_read_file(path, &c->value[c->n]))
			continue;
		strcpy(c->name[c->n], de->d_name);
		c->n++;
	}
	closedir(d);
	return 0;
}

/* @name's (@after - @before), or -1 when either lacks it. */
static int64_t counter_delta(const struct verbs_counters *before,
			     const struct verbs_counters *after, const char *name)
{
	int i, j;

	for (i = 0; i < after->n; i++) {
		if (strcmp(after->name[i], name))
			continue;
		for (j = 0; j < before->n; j++)
			if (!strcmp(before->name[j], name))
				return (int64_t)(after->value[i] - before->value[j]);
	}
	return -1;
}

void verbs_counters_rx(const struct verbs_counters *before, const struct verbs_counters *after,
		       struct verbs_rx_trouble *t)
{
	t->rnr_naks_sent = counter_delta(before, after, "send_rnr_err");
	t->out_of_buffer = counter_delta(before, after, "out_of_buffer");
}

/* Counters that go up when a requester sends a packet again: rxe counts
 * each retry in completer_retry_err and each RNR NAK in rcvd_rnr_err;
 * mlx5 names its ACK timeouts and sequence-error NAKs. */
static bool counter_is_retrans(const char *name)
{
	static const char *const names[] = {
		"completer_retry_err", "rcvd_rnr_err", "local_ack_timeout_err",
		"packet_seq_err", "implied_nak_seq_err", "rnr_nak_retry_err",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

uint64_t verbs_counters_retrans(const struct verbs_counters *before,
				const struct verbs_counters *after)
{
	uint64_t sum = 0;
	int i, j;

	for (i = 0; i < after->n; i++) {
		if (!counter_is_retrans(after->name[i]))
			continue;
		for (j = 0; j < before->n; j++)
			if (!strcmp(before->name[j], after->name[i]))
				sum += after->value[i] - before->value[j];
	}
	return sum;
}

const char *verbs_path_source_name(uint8_t source)
{
	static const char *const names[] = { "default", "option", "path_record" };

	return source < sizeof(names) / sizeof(names[0]) ? names[source] : "?";
}

double verbs_path_give_up_ns(const struct verbs_path *p)
{
	return (p->retry + 1.0) * 4096.0 * (double)(1ull << p->timeout);
}

const char *verbs_mtu_str(enum ibv_mtu mtu)
{
	static const char *const s[] = { "?", "256", "512", "1024", "2048", "4096" };

	return (unsigned)mtu < sizeof(s) / sizeof(s[0]) ? s[mtu] : "?";
}

/* PortInfo's active width code -> lanes; 0: unknown. */
static int verbs_lanes(uint8_t width)
{
	switch (width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

double verbs_lane_data_gbps(uint32_t speed, bool roce)
{
	switch (speed) {
	case 1: return roce ? 2.5 : 2;		/* SDR: 8b/10b on IB */
	case 2: return roce ? 5 : 4;		/* DDR */
	case 4: return roce ? 10 : 8;		/* QDR; 10GbE, 40GbE 4x */
	case 8: return 10;			/* FDR10: 64b/66b */
	case 16: return roce ? 14 : 14.0625 * 64 / 66;	/* FDR: 13.64 */
	case 32: return 25;			/* EDR */
	case 64: return 50;			/* HDR */
	case 128: return 100;			/* NDR */
	case 256: return 200;			/* XDR */
	default: return 0;
	}
}

uint32_t verbs_speed_from_rate_str(const char *rate)
{
	static const struct { const char *name; uint32_t code; } t[] = {
		{ "SDR", 1 }, { "DDR", 2 }, { "QDR", 4 }, { "FDR10", 8 }, { "FDR", 16 },
		{ "EDR", 32 }, { "HDR", 64 }, { "NDR", 128 }, { "XDR", 256 },
	};
	const char *p = strchr(rate, '(');
	size_t i, n;

	/* "800 Gb/sec (4X XDR)": the word after the width. */
	p = p ? strchr(p, ' ') : NULL;
	if (!p)
		return 0;
	p++;
	n = strcspn(p, ")\n");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].name) == n && !strncmp(p, t[i].name, n))
			return t[i].code;
	return 0;
}

/* The port's speed code; from sysfs when verbs has none for it (XDR needs
 * the extended field that older rdma-core lacks). */
static uint32_t port_speed(const struct verbs_dev *dev)
{
	char path[160], line[64] = "";
	FILE *f;

	if (verbs_lane_data_gbps(dev->port_attr.active_speed, dev->roce) > 0)
		return dev->port_attr.active_speed;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/rate", dev->name,
		 dev->port);
	f = fopen(path, "r");
	if (f && !fgets(line, sizeof(line), f))
		line[0] = '\0';
	if (f)
		fclose(f);
	return verbs_speed_from_rate_str(line);
}

void verbs_env(const struct verbs_dev *dev, struct run_env *e)
{
	char path[128], line[32];
	FILE *f;

	snprintf(e->device, sizeof(e->device), "%s", dev->name);
	snprintf(e->fw_ver, sizeof(e->fw_ver), "%s", dev->dev_attr.fw_ver);
	snprintf(e->link_layer, sizeof(e->link_layer), "%s", dev->roce ? "Ethernet" : "InfiniBand");
	e->port_gbps = verbs_lanes(dev->port_attr.active_width) *
		       verbs_lane_data_gbps(port_speed(dev), dev->roce);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node", dev->name);
	f = fopen(path, "r");
	e->device_numa = -1;
	if (f && fgets(line, sizeof(line), f))
		e->device_numa = atoi(line);
	if (f)
		fclose(f);
}
