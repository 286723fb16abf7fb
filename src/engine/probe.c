/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The latency engine: see probe.h for the method and the contracts.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <string.h>

#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/pin.h"
#include "engine/probe.h"

#define PROBE_SQ_DEPTH 4
#define PROBE_CHECK_NS 50e6	/* how often a waiting sample looks at the peer */
#define PROBE_INLINE_MAX 1024	/* inline SENDs up to this, if the device takes it */

enum { WIRE = 1, LOOP = 2 };

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static int loop_rx_refill(struct probe *p)
{
	int ret;

	while (p->rx_posted < PROBE_RX_DEPTH) {
		ret = verbs_post_recv(&p->loop_rx, p->buf_bytes, 0);
		if (ret)
			return ret;
		p->rx_posted++;
	}
	return 0;
}

static int qp_make(struct probe *p, struct verbs_qp *q, int i, uint32_t recv_depth,
		   bool nic_ts, char *err, size_t errlen)
{
	struct verbs_qp_opts o = {
		.send_depth = PROBE_SQ_DEPTH,
		.recv_depth = recv_depth,
		.buf = p->buf[i],
		.buf_bytes = p->buf_bytes,
		.max_inline = p->buf_bytes < PROBE_INLINE_MAX ? (uint32_t)p->buf_bytes :
							        PROBE_INLINE_MAX,
		.cq_timestamps = nic_ts,
	};

	return verbs_qp_create(q, p->dev, &o, err, errlen);
}

static int loop_connect(struct probe *p, const struct verbs_path *path, char *err, size_t errlen)
{
	struct verbs_endpoint tx, rx;
	int ret;

	verbs_qp_local(&p->loop_tx, &tx);
	verbs_qp_local(&p->loop_rx, &rx);
	ret = verbs_qp_connect(&p->loop_tx, &rx, path, err, errlen);
	if (!ret)
		ret = verbs_qp_connect(&p->loop_rx, &tx, path, err, errlen);
	if (!ret && loop_rx_refill(p))
		ret = errbuf_set(err, errlen, -EIO, "%s: cannot post loopback RECVs", p->dev->name);
	return ret;
}

int probe_init(struct probe *p, struct verbs_dev *dev, size_t max_bytes, bool hugepages,
	       bool nic_ts, const struct verbs_path *path, bool *got_huge, char *err,
	       size_t errlen)
{
	int i, ret;

	memset(p, 0, sizeof(*p));
	p->dev = dev;
	p->buf_bytes = max_bytes ? max_bytes : 1;
	*got_huge = hugepages;
	for (i = 0; i < 3; i++) {
		p->buf[i] = pin_buf_alloc(p->buf_bytes, hugepages, &p->buf_huge[i]);
		if (!p->buf[i]) {
			ret = errbuf_set(err, errlen, -ENOMEM, "cannot allocate %zu bytes", p->buf_bytes);
			goto fail;
		}
		*got_huge = *got_huge && p->buf_huge[i];
	}
	ret = qp_make(p, &p->wire, 0, 1, nic_ts, err, errlen);
	if (!ret)
		ret = qp_make(p, &p->loop_tx, 1, 1, nic_ts, err, errlen);
	if (!ret)
		ret = qp_make(p, &p->loop_rx, 2, PROBE_RX_DEPTH, false, err, errlen);
	if (!ret)
		ret = loop_connect(p, path, err, errlen);
	if (!ret)
		return 0;
fail:
	probe_release(p);
	return ret;
}

void probe_release(struct probe *p)
{
	int i;

	verbs_qp_destroy(&p->loop_rx);
	verbs_qp_destroy(&p->loop_tx);
	verbs_qp_destroy(&p->wire);
	for (i = 2; i >= 0; i--)
		pin_buf_free(p->buf[i], p->buf_bytes, p->buf_huge[i]);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------------ */
/* One sample                                                          */
/* ------------------------------------------------------------------ */

static int wc_fail(const struct probe_cfg *cfg, const struct ibv_wc *wc, int which,
		   char *err, size_t errlen)
{
	if (which == WIRE)
		return errbuf_set(err, errlen, -EIO, "SEND to '%s' failed: %s",
				  cfg->peer, ibv_wc_status_str(wc->status));
	return errbuf_set(err, errlen, -EIO, "loopback SEND failed: %s",
			  ibv_wc_status_str(wc->status));
}

/* Take one completion from @q's CQ, stamped with the NIC's clock, into
 * @wc and *@t_nic: 1, 0 when none is in, -1 on a poll error. */
static int poll_stamped(struct verbs_qp *q, struct ibv_wc *wc, uint64_t *t_nic)
{
	struct ibv_poll_cq_attr attr = { 0 };
	int ret = ibv_start_poll(q->send_cq_ex, &attr);

	if (ret == ENOENT)
		return 0;
	if (ret)
		return -1;
	wc->status = q->send_cq_ex->status;
	*t_nic = ibv_wc_read_completion_ts(q->send_cq_ex);
	ibv_end_poll(q->send_cq_ex);
	return 1;
}

/* Poll @q's send CQ once; on a completion stamp *@t (and *@t_nic where
 * the CQ carries the NIC's timestamps) and clear @which in *@pending. */
static int poll_one(struct verbs_qp *q, const struct probe_cfg *cfg, int which, uint64_t *t,
		    uint64_t *t_nic, unsigned *pending, char *err, size_t errlen)
{
	struct ibv_wc wc;
	int n;

	n = q->send_cq_ex ? poll_stamped(q, &wc, t_nic) : ibv_poll_cq(q->send_cq, 1, &wc);
	if (n == 0)
		return 0;
	*t = clock_read(cfg->clk);
	if (n < 0)
		return errbuf_set(err, errlen, -EIO, "cannot poll a completion queue");
	if (wc.status != IBV_WC_SUCCESS)
		return wc_fail(cfg, &wc, which, err, errlen);
	*pending &= ~(unsigned)which;
	return 0;
}

/* While a sample waits: is it taking too long, is the server gone? */
static int wait_check(const struct probe_cfg *cfg, const struct probe_sample *s,
		      uint64_t check_ticks, uint64_t *last_check, char *err, size_t errlen)
{
	uint64_t now = clock_read(cfg->clk);

	if (now - s->t_p > cfg->sample_timeout_ticks)
		return errbuf_set(err, errlen, -ETIMEDOUT,
				  "no completion from '%s' within %.1f s", cfg->peer,
				  clock_ticks_to_ns(cfg->clk, cfg->sample_timeout_ticks) / 1e9);
	if (now - *last_check < check_ticks)
		return 0;
	*last_check = now;
	if (cfg->ctl_fd >= 0 && (cfg->ctl_any_event ? conn_fd_readable(cfg->ctl_fd) :
						       conn_peer_gone(cfg->ctl_fd)))
		return conn_err_peer_gone(err, errlen, cfg->peer);
	if (cfg->stop && *cfg->stop)
		return errbuf_set(err, errlen, -EINTR, "interrupted");
	return 0;
}

static int post_wire(struct probe *p, const struct probe_cfg *cfg, char *err, size_t errlen)
{
	int ret = verbs_post_send(&p->wire, cfg->size_bytes, WIRE);

	if (ret)
		return errbuf_set(err, errlen, ret, "cannot post a SEND to '%s': %s", cfg->peer,
				  strerror(-ret));
	return 0;
}

static int post_loop(struct probe *p, const struct probe_cfg *cfg, char *err, size_t errlen)
{
	int ret = verbs_post_send(&p->loop_tx, cfg->size_bytes, LOOP);

	if (ret)
		return errbuf_set(err, errlen, ret, "cannot post the loopback SEND: %s",
				  strerror(-ret));
	return 0;
}

/* Stamp *@t_post, then post the SEND @which. */
static int post_stamped(struct probe *p, const struct probe_cfg *cfg, int which, uint64_t *t_post,
			char *err, size_t errlen)
{
	*t_post = clock_read(cfg->clk);
	return which == WIRE ? post_wire(p, cfg, err, errlen) : post_loop(p, cfg, err, errlen);
}

/*
 * One pass over both send CQs, s->loop_polled_first deciding the order.
 * Both are polled in every pass, even the one whose completion is in: a
 * pass that shortened once one completion came would stamp the later one
 * sooner after it became visible than the earlier (on the virtual HCA,
 * 7-12 ns off the median; docs/accuracy.md).
 */
static int poll_pass(struct probe *p, const struct probe_cfg *cfg, struct probe_sample *s,
		     unsigned *pending, char *err, size_t errlen)
{
	int k, ret = 0;

	for (k = 0; k < 2 && !ret; k++) {
		if ((k == 0) != s->loop_polled_first)
			ret = poll_one(&p->wire, cfg, WIRE, &s->t_w, &s->nic_w, pending, err, errlen);
		else
			ret = poll_one(&p->loop_tx, cfg, LOOP, &s->t_l, &s->nic_l, pending, err,
				       errlen);
	}
	return ret;
}

/*
 * Each SEND has its own T_P, read just before its post, so the second
 * post's wait for the first is in neither RTT term: RTT = (T_W - T_PW) -
 * (T_L - T_PL). Which goes first, and which CQ each pass polls first,
 * still alternate (post order every sample, poll order every other), so
 * what is left of either cancels.
 */
static int sample_once(struct probe *p, const struct probe_cfg *cfg, uint64_t check_ticks,
		       struct probe_sample *s, char *err, size_t errlen)
{
	unsigned pending = WIRE | LOOP;
	uint64_t last_check, spins = 0;
	int first, ret;

	s->loop_first = s->index & 1;
	s->loop_polled_first = (s->index >> 1) & 1;
	first = s->loop_first ? LOOP : WIRE;
	ret = post_stamped(p, cfg, first, s->loop_first ? &s->t_pl : &s->t_pw, err, errlen);
	if (!ret)
		ret = post_stamped(p, cfg, first ^ (WIRE | LOOP), s->loop_first ? &s->t_pw : &s->t_pl,
				   err, errlen);
	if (ret)
		return ret;
	s->t_p = s->loop_first ? s->t_pl : s->t_pw;
	last_check = s->t_p;
	while (pending) {
		ret = poll_pass(p, cfg, s, &pending, err, errlen);
		if (ret)
			return ret;
		if (pending && cfg->yield)
			sched_yield();
		if (pending && !(++spins & 255)) {
			ret = wait_check(cfg, s, check_ticks, &last_check, err, errlen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Collect loopback RECV completions and post as many RECVs again. */
static int loop_rx_drain(struct probe *p, char *err, size_t errlen)
{
	struct ibv_wc wc[16];
	int n, i;

	n = ibv_poll_cq(p->loop_rx.recv_cq, 16, wc);
	if (n < 0)
		return errbuf_set(err, errlen, -EIO, "cannot poll the loopback RECV queue");
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return errbuf_set(err, errlen, -EIO, "loopback RECV failed: %s",
					  ibv_wc_status_str(wc[i].status));
	p->rx_posted -= (uint32_t)n;
	if (loop_rx_refill(p))
		return errbuf_set(err, errlen, -EIO, "cannot post loopback RECVs");
	return 0;
}

/* ------------------------------------------------------------------ */
/* A run                                                               */
/* ------------------------------------------------------------------ */

int64_t probe_sample_rtt_ticks(const struct probe_sample *s)
{
	return (int64_t)(s->t_w - s->t_pw) - (int64_t)(s->t_l - s->t_pl);
}

int64_t probe_sample_nic_rtt_ticks(const struct probe_sample *s, const struct probe_cfg *cfg)
{
	uint64_t d = (s->nic_w - s->nic_l) & cfg->nic_mask;
	/* The timestamps wrap at the mask: a difference above half of it is negative. */
	int64_t nic = d > cfg->nic_mask / 2 ? -(int64_t)((cfg->nic_mask - d) + 1) : (int64_t)d;
	double posts = ((double)s->t_pw - (double)s->t_pl) * cfg->nic_per_host;

	return nic - (int64_t)llround(posts);
}

/* The NIC's RTT into @res->rtt_nic, as record() does the host's. */
static void record_nic(struct flow_result *res, const struct probe_cfg *cfg,
		       const struct probe_sample *s)
{
	int64_t rtt = probe_sample_nic_rtt_ticks(s, cfg);

	if (rtt < 0)
		res->nic_loop_after_wire++;
	hist_record(res->rtt_nic, rtt < 0 ? 0 : (uint64_t)rtt);
}

static void record(struct flow_result *res, const struct probe_sample *s)
{
	int64_t rtt = probe_sample_rtt_ticks(s);

	hist_record(res->wire, s->t_w - s->t_pw);
	hist_record(res->loop, s->t_l - s->t_pl);
	if (rtt >= 0) {
		hist_record(res->rtt, (uint64_t)rtt);
	} else {
		res->loop_after_wire++;
		hist_record(res->rtt, 0);
		hist_record(res->rtt_neg, (uint64_t)-rtt);
	}
	res->samples++;
	/* The signed RTT by which SEND went first, for flow_result_order_bias_ticks(). */
	res->order_rtt_sum_ticks[s->loop_first] += (double)rtt;
	res->order_n[s->loop_first]++;
}

/* The receiver's counters at the start of the measured samples, in @t0. */
static void rx_trouble_begin(const struct probe_cfg *cfg, struct verbs_rx_trouble *t0)
{
	t0->rnr_naks_sent = t0->out_of_buffer = -1;
	if (cfg->rx_trouble && cfg->rx_trouble(cfg->rx_arg, t0))
		t0->rnr_naks_sent = t0->out_of_buffer = -1;
}

/* Their change since @t0 into @res, each where counted both times. */
static void rx_trouble_end(const struct probe_cfg *cfg, const struct verbs_rx_trouble *t0,
			   struct flow_result *res)
{
	struct verbs_rx_trouble t1;

	if (!cfg->rx_trouble || cfg->rx_trouble(cfg->rx_arg, &t1))
		return;
	if (t0->rnr_naks_sent >= 0 && t1.rnr_naks_sent >= t0->rnr_naks_sent)
		res->rx_rnr_naks_sent = t1.rnr_naks_sent - t0->rnr_naks_sent;
	if (t0->out_of_buffer >= 0 && t1.out_of_buffer >= t0->out_of_buffer)
		res->rx_out_of_buffer = t1.out_of_buffer - t0->out_of_buffer;
}

/* Has the measured part of the run reached its end? */
static bool run_done(const struct probe_cfg *cfg, const struct flow_result *res,
		     uint64_t start)
{
	if (cfg->iterations)
		return res->samples >= cfg->iterations;
	return res->samples && clock_read(cfg->clk) - start >= cfg->duration_ticks;
}

int probe_run(struct probe *p, const struct probe_cfg *cfg, struct flow_result *res)
{
	uint64_t check_ticks = clock_ns_to_ticks(cfg->clk, PROBE_CHECK_NS);
	struct verbs_rx_trouble t0 = { -1, -1 };
	struct probe_sample s = { 0 };
	bool measuring = false;
	uint64_t start = 0;
	int ret = 0;

	if (cfg->size_bytes > p->buf_bytes)
		return errbuf_set(res->error, sizeof(res->error), -EINVAL,
				  "size %zu above the buffer of %zu bytes", cfg->size_bytes,
				  p->buf_bytes);
	for (s.index = 0;; s.index++) {
		s.warmup = s.index < cfg->warmup;
		if (!s.warmup && s.index == cfg->warmup) {
			rx_trouble_begin(cfg, &t0);
			measuring = true;
			start = clock_read(cfg->clk);
		}
		if (!s.warmup && run_done(cfg, res, start))
			break;
		if (cfg->stop && *cfg->stop) {
			ret = errbuf_set(res->error, sizeof(res->error), -EINTR, "interrupted");
			break;
		}
		ret = sample_once(p, cfg, check_ticks, &s, res->error, sizeof(res->error));
		if (ret)
			break;
		res->msgs++;
		res->bytes += cfg->size_bytes;
		if (!s.warmup)
			record(res, &s);
		if (!s.warmup && res->rtt_nic && cfg->nic_mask)
			record_nic(res, cfg, &s);
		if (cfg->on_sample)
			cfg->on_sample(cfg->arg, &s);
		ret = loop_rx_drain(p, res->error, sizeof(res->error));
		if (ret)
			break;
	}
	if (measuring)
		rx_trouble_end(cfg, &t0, res);
	res->status = ret;
	return ret;
}
