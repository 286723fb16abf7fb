/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The virtual HCA (vhca.h): a post works out, at once, when each of its
 * completions becomes visible to the host and what the device clock
 * stamps in it; a poll hands out those visible when it began. Time moves
 * only when the engine spends it (posts, polls, clock reads), so a run is
 * exact and repeatable for a seed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vhca.h"

enum vhca_role { VHCA_WIRE, VHCA_LOOP_TX, VHCA_LOOP_RX, VHCA_QPS };
enum { VHCA_SCQ_WIRE, VHCA_SCQ_LOOP, VHCA_RCQ_LOOP, VHCA_RCQ_UNUSED, VHCA_CQS };

struct vhca_cqe {
	uint64_t visible_ns;		/* in host memory from then on */
	uint64_t hw_ticks;		/* the device clock when the NIC wrote it */
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
};

struct vhca_cq {
	struct ibv_cq_ex ex;		/* first: an ibv_cq too */
	struct vhca *h;
	struct vhca_cqe q[VHCA_CQ_DEPTH];	/* by visible_ns */
	unsigned n;
	uint64_t poll_start_ns;		/* extended polling: what this poll sees */
	struct vhca_cqe cur;
};

struct vhca_qp {
	struct ibv_qp qp;
	struct vhca *h;
	enum vhca_role role;
	uint32_t rx_posted;
};

struct vhca {
	struct verbs_context vctx;	/* its context is the device's */
	struct vhca_params p;
	char name[64];
	uint64_t now_ns;
	uint64_t rng;
	struct vhca_cq cq[VHCA_CQS];
	struct vhca_qp qp[VHCA_QPS];
	struct ibv_mr mr;
	struct ibv_pd pd;
	struct verbs_dev dev;
	uint64_t remote_ready_ns[VHCA_REMOTE_MAX];	/* each RECV slot posted from */
	uint64_t rnr_naks_sent;
};

#define VHCA_OF(ctx) ((struct vhca *)((char *)(ctx) - offsetof(struct vhca, vctx.context)))

void vhca_params_default(struct vhca_params *p)
{
	*p = (struct vhca_params){
		.post_ns = 100, .poll_ns = 10, .read_ns = 8, .pcie_ns = 250, .nic_ns = 150,
		.loop_ns = 120, .cable_ns = 5, .remote_ns = 130, .cqe_jitter_ns = 40, .poll_jitter_ns = 10,
		.remote_rx_depth = 64, .remote_repost_ns = 200, .rnr_timer_ns = 10000,
		.hw_ts = true, .hw_ticks_per_ns = 1.0, .hw_mask = UINT64_MAX, .seed = 1,
	};
}

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */

static uint64_t vhca_rand(struct vhca *h)
{
	/* xorshift64*: plenty for jitter, and the same for a seed everywhere. */
	h->rng ^= h->rng >> 12;
	h->rng ^= h->rng << 25;
	h->rng ^= h->rng >> 27;
	return h->rng * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, @n]. */
static uint64_t vhca_uniform(struct vhca *h, uint64_t n)
{
	return n ? vhca_rand(h) % (n + 1) : 0;
}

static void vhca_poll_cost(struct vhca *h)
{
	h->now_ns += h->p.poll_ns + vhca_uniform(h, h->p.poll_jitter_ns);
}

static uint64_t vhca_read(void *arg)
{
	struct vhca *h = arg;
	uint64_t t = h->now_ns;

	h->now_ns += h->p.read_ns;
	return t;
}

static uint64_t vhca_hw_ticks(const struct vhca *h, uint64_t ns)
{
	return (h->p.hw_offset_ticks + (uint64_t)((double)ns * h->p.hw_ticks_per_ns + 0.5)) &
	       h->p.hw_mask;
}

/* One way from the local NIC to the remote one. */
static uint64_t vhca_one_way(struct vhca *h)
{
	uint64_t j = h->p.switch_jitter_ns;

	if (!h->p.has_switch)
		return h->p.cable_ns;
	return 2 * h->p.cable_ns + h->p.switch_ns + vhca_uniform(h, 2 * j) - j;
}

double vhca_true_rtt_ns(const struct vhca_params *p)
{
	double one_way = p->has_switch ? 2.0 * p->cable_ns + p->switch_ns : p->cable_ns;

	return 2.0 * one_way + p->remote_ns - (double)p->loop_ns;
}

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

/* The NIC writes a CQE at @at_nic_ns; the host sees it a PCIe crossing later. */
static int cq_push(struct vhca_cq *cq, uint64_t at_nic_ns, uint64_t wr_id,
		   enum ibv_wc_opcode op)
{
	struct vhca *h = cq->h;
	struct vhca_cqe e = {
		.visible_ns = at_nic_ns + h->p.pcie_ns + vhca_uniform(h, h->p.cqe_jitter_ns),
		.hw_ticks = vhca_hw_ticks(h, at_nic_ns), .wr_id = wr_id, .opcode = op,
	};
	unsigned i;

	if (cq->n == VHCA_CQ_DEPTH)
		return ENOMEM;
	for (i = cq->n; i > 0 && cq->q[i - 1].visible_ns > e.visible_ns; i--)
		cq->q[i] = cq->q[i - 1];
	cq->q[i] = e;
	cq->n++;
	return 0;
}

/* Take the first CQE visible at @t into @e; false when none is. */
static bool cq_take(struct vhca_cq *cq, uint64_t t, struct vhca_cqe *e)
{
	if (!cq->n || cq->q[0].visible_ns > t)
		return false;
	*e = cq->q[0];
	memmove(cq->q, cq->q + 1, --cq->n * sizeof(cq->q[0]));
	return true;
}

static int vhca_poll_cq(struct ibv_cq *ibcq, int num, struct ibv_wc *wc)
{
	struct vhca_cq *cq = (struct vhca_cq *)ibcq;
	uint64_t start = cq->h->now_ns;
	struct vhca_cqe e;
	int n = 0;

	vhca_poll_cost(cq->h);
	while (n < num && cq_take(cq, start, &e)) {
		wc[n] = (struct ibv_wc){ .wr_id = e.wr_id, .status = IBV_WC_SUCCESS,
					 .opcode = e.opcode };
		n++;
	}
	return n;
}

static void ex_load(struct vhca_cq *cq)
{
	cq->ex.wr_id = cq->cur.wr_id;
	cq->ex.status = IBV_WC_SUCCESS;
}

static int vhca_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct vhca_cq *cq = (struct vhca_cq *)ex;

	(void)attr;
	cq->poll_start_ns = cq->h->now_ns;
	vhca_poll_cost(cq->h);
	if (!cq_take(cq, cq->poll_start_ns, &cq->cur))
		return ENOENT;
	ex_load(cq);
	return 0;
}

static int vhca_next_poll(struct ibv_cq_ex *ex)
{
	struct vhca_cq *cq = (struct vhca_cq *)ex;

	if (!cq_take(cq, cq->poll_start_ns, &cq->cur))
		return ENOENT;
	ex_load(cq);
	return 0;
}

static void vhca_end_poll(struct ibv_cq_ex *ex)
{
	(void)ex;
}

static uint64_t vhca_read_ts(struct ibv_cq_ex *ex)
{
	return ((struct vhca_cq *)ex)->cur.hw_ticks;
}

static enum ibv_wc_opcode vhca_read_opcode(struct ibv_cq_ex *ex)
{
	return ((struct vhca_cq *)ex)->cur.opcode;
}

/* ------------------------------------------------------------------ */
/* The paths                                                           */
/* ------------------------------------------------------------------ */

/* The RECV slot a SEND arriving at @t takes, or -1 (RNR). */
static int remote_slot(struct vhca *h, uint64_t t)
{
	uint32_t i, best = 0;

	for (i = 1; i < h->p.remote_rx_depth; i++)
		if (h->remote_ready_ns[i] < h->remote_ready_ns[best])
			best = i;
	return h->remote_ready_ns[best] <= t ? (int)best : -1;
}

/* When the receiver's software posts again a RECV consumed at @t. */
static uint64_t remote_repost_at(const struct vhca *h, uint64_t t)
{
	uint64_t r = t + h->p.remote_repost_ns;
	uint64_t end = h->p.stall_from_ns + h->p.stall_ns;

	if (h->p.stall_ns && r >= h->p.stall_from_ns && r < end)
		return end;
	return r;
}

/* A wire SEND out of the NIC at @out: when its ACK is back in the NIC. */
static uint64_t wire_ack_at(struct vhca *h, uint64_t out)
{
	uint64_t arrive;
	int slot;

	for (;;) {
		arrive = out + vhca_one_way(h);
		slot = remote_slot(h, arrive);
		if (slot >= 0)
			break;
		/* RNR NAK back; the sender waits its timer and sends again. */
		h->rnr_naks_sent++;
		out = arrive + h->p.remote_ns + vhca_one_way(h) + h->p.rnr_timer_ns;
	}
	h->remote_ready_ns[slot] = remote_repost_at(h, arrive);
	return arrive + h->p.remote_ns + vhca_one_way(h);
}

static int vhca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct vhca_qp *q = (struct vhca_qp *)ibqp;
	struct vhca *h = q->h;
	struct vhca_qp *rx = &h->qp[VHCA_LOOP_RX];
	uint64_t out, ack;
	int ret;

	*bad = wr;
	if (wr->next || q->role == VHCA_LOOP_RX)
		return EINVAL;
	h->now_ns += h->p.post_ns;
	out = h->now_ns + h->p.pcie_ns + h->p.nic_ns;
	if (q->role == VHCA_WIRE) {
		ack = wire_ack_at(h, out);
	} else {
		if (!rx->rx_posted)
			return ENOMEM;	/* the engine keeps its loopback RECVs posted */
		rx->rx_posted--;
		ack = out + h->p.loop_ns;
		ret = cq_push(&h->cq[VHCA_RCQ_LOOP], ack, 0, IBV_WC_RECV);
		if (ret)
			return ret;
	}
	ret = cq_push((struct vhca_cq *)ibqp->send_cq, ack, wr->wr_id, IBV_WC_SEND);
	if (!ret)
		*bad = NULL;
	return ret;
}

static int vhca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct vhca_qp *q = (struct vhca_qp *)ibqp;

	for (; wr; wr = wr->next)
		q->rx_posted++;
	*bad = NULL;
	q->h->now_ns += q->h->p.post_ns;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The device                                                          */
/* ------------------------------------------------------------------ */

static int vhca_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
				struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct vhca *h = VHCA_OF(ctx);

	(void)in;
	memset(attr, 0, attr_size);
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver), "vhca");
	if (h->p.hw_ts) {
		attr->completion_timestamp_mask = h->p.hw_mask;
		attr->hca_core_clock = (uint64_t)(h->p.hw_ticks_per_ns * 1e6 + 0.5);
	}
	return 0;
}

static int vhca_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *v)
{
	struct vhca *h = VHCA_OF(ctx);

	if (!h->p.hw_ts)
		return EOPNOTSUPP;
	v->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	v->raw_clock.tv_sec = 0;
	v->raw_clock.tv_nsec = (long)vhca_hw_ticks(h, h->now_ns);
	return 0;
}

static void cq_init(struct vhca *h, struct vhca_cq *cq)
{
	cq->h = h;
	cq->ex.context = &h->vctx.context;
	cq->ex.start_poll = vhca_start_poll;
	cq->ex.next_poll = vhca_next_poll;
	cq->ex.end_poll = vhca_end_poll;
	cq->ex.read_opcode = vhca_read_opcode;
	cq->ex.read_completion_ts = vhca_read_ts;
}

struct vhca *vhca_new(const struct vhca_params *p, const char *name)
{
	struct vhca *h = calloc(1, sizeof(*h));
	struct ibv_context *ctx;
	int i;

	if (!h)
		return NULL;
	h->p = *p;
	if (h->p.remote_rx_depth < 1 || h->p.remote_rx_depth > VHCA_REMOTE_MAX)
		h->p.remote_rx_depth = VHCA_REMOTE_MAX;
	h->rng = p->seed ? p->seed : 1;
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->vctx.sz = sizeof(h->vctx);
	h->vctx.query_device_ex = vhca_query_device_ex;
	h->vctx.query_rt_values = vhca_query_rt_values;
	ctx = &h->vctx.context;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->ops.post_send = vhca_post_send;
	ctx->ops.post_recv = vhca_post_recv;
	ctx->ops.poll_cq = vhca_poll_cq;
	for (i = 0; i < VHCA_CQS; i++)
		cq_init(h, &h->cq[i]);
	h->pd.context = ctx;
	h->mr.context = ctx;
	h->dev = (struct verbs_dev){ .ctx = ctx, .pd = &h->pd, .port = 1 };
	snprintf(h->dev.name, sizeof(h->dev.name), "%s", name);
	return h;
}

void vhca_free(struct vhca *h)
{
	free(h);
}

struct ibv_context *vhca_context(struct vhca *h)
{
	return &h->vctx.context;
}

struct verbs_dev *vhca_dev(struct vhca *h)
{
	return &h->dev;
}

void vhca_clock(struct vhca *h, struct clock_cal *clk)
{
	clock_init_virtual(clk, vhca_read, h);
}

uint64_t vhca_now_ns(const struct vhca *h)
{
	return h->now_ns;
}

uint64_t vhca_rnr_naks_sent(const struct vhca *h)
{
	return h->rnr_naks_sent;
}

static void qp_attach(struct vhca *h, struct verbs_qp *vq, enum vhca_role role, int scq, int rcq,
		      bool hw_ts)
{
	struct vhca_qp *q = &h->qp[role];

	q->h = h;
	q->role = role;
	q->qp.context = &h->vctx.context;
	q->qp.send_cq = ibv_cq_ex_to_cq(&h->cq[scq].ex);
	q->qp.recv_cq = ibv_cq_ex_to_cq(&h->cq[rcq].ex);
	q->qp.qp_num = 100 + (uint32_t)role;
	*vq = (struct verbs_qp){ .dev = &h->dev, .send_cq = q->qp.send_cq,
				 .recv_cq = q->qp.recv_cq, .qp = &q->qp, .mr = &h->mr,
				 .max_inline = 1024, .send_cq_ex = hw_ts ? &h->cq[scq].ex : NULL };
}

int vhca_probe_attach(struct vhca *h, struct probe *p, bool hw_ts)
{
	memset(p, 0, sizeof(*p));
	p->dev = &h->dev;
	p->buf_bytes = 4096;
	qp_attach(h, &p->wire, VHCA_WIRE, VHCA_SCQ_WIRE, VHCA_RCQ_UNUSED, hw_ts);
	qp_attach(h, &p->loop_tx, VHCA_LOOP_TX, VHCA_SCQ_LOOP, VHCA_RCQ_UNUSED, hw_ts);
	qp_attach(h, &p->loop_rx, VHCA_LOOP_RX, VHCA_RCQ_UNUSED, VHCA_RCQ_LOOP, false);
	while (p->rx_posted < PROBE_RX_DEPTH) {
		if (verbs_post_recv(&p->loop_rx, 64, 0))
			return -EIO;
		p->rx_posted++;
	}
	return 0;
}
