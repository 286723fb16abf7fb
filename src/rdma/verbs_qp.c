/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * RC QPs (verbs.h): completion channels, CQs and the QP created, moved
 * through INIT, RTR and RTS toward a peer, and the sends and receives
 * posted on them. Apart from verbs.c, which opens the device and picks
 * the port and GID these QPs use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "rdma/verbs.h"

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

void verbs_qp_local(const struct verbs_qp *q, struct verbs_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->qpn = q->qp->qp_num;
	ep->psn = q->psn;
	ep->lid = q->dev->port_attr.lid;
	ep->mtu = (uint8_t)q->dev->port_attr.active_mtu;
	ep->gid = q->gid;
	ep->pkey = q->dev->pkey;
	ep->pkey_index = q->dev->pkey_index;
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

