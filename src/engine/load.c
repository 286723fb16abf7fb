/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The bandwidth engine: see load.h for the method and the contracts.
 */
#define _GNU_SOURCE	/* ppoll */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "rdma/conn.h"
#include "base/errbuf.h"
#include "engine/load.h"
#include "base/pin.h"

#define LOAD_CHECK_NS 50e6	/* how often the loop looks at the peers and the stop flag */
#define WR_FLUSH (1ull << 63)	/* wr_id bit: the zero-length WRITE that ends a run */
#define LOAD_ACK_BATCH 64	/* CQ events acknowledged at once */

/* ------------------------------------------------------------------ */
/* Bursts                                                              */
/* ------------------------------------------------------------------ */

bool load_burst_on(const struct load_burst *b, uint64_t now)
{
	if (!b->off_ticks || now < b->start_ticks)
		return !b->off_ticks;
	return (now - b->start_ticks) % (b->on_ticks + b->off_ticks) < b->on_ticks;
}

uint64_t load_burst_on_time(const struct load_burst *b, uint64_t now)
{
	uint64_t t, period = b->on_ticks + b->off_ticks, rem;

	if (now < b->start_ticks)
		return 0;
	t = now - b->start_ticks;
	if (!b->off_ticks)
		return t;
	rem = t % period;
	return t / period * b->on_ticks + (rem < b->on_ticks ? rem : b->on_ticks);
}

uint64_t load_burst_at(const struct load_burst *b, uint64_t on_ticks)
{
	if (!b->off_ticks)
		return b->start_ticks + on_ticks;
	return b->start_ticks + on_ticks / b->on_ticks * (b->on_ticks + b->off_ticks) +
	       on_ticks % b->on_ticks;
}

uint64_t load_burst_next_on(const struct load_burst *b, uint64_t now)
{
	uint64_t period = b->on_ticks + b->off_ticks;

	if (load_burst_on(b, now))
		return now;
	if (now < b->start_ticks)
		return b->start_ticks;
	return b->start_ticks + ((now - b->start_ticks) / period + 1) * period;
}

/* ------------------------------------------------------------------ */
/* Pacing                                                              */
/* ------------------------------------------------------------------ */

int load_pace_init(struct load_pace *p, uint64_t start_ticks, size_t size_bytes,
		   uint64_t rate_bps, double ticks_per_s)
{
	double num = (double)size_bytes * 8 * ticks_per_s, den = (double)rate_bps;

	if (!rate_bps || !size_bytes || !(ticks_per_s > 0))
		return -EINVAL;
	/* Keep the fraction within 63 bits; halving both keeps the ratio. */
	while (num >= 9e18 && den >= 2) {
		num /= 2;
		den /= 2;
	}
	if (num >= 9e18 || num < 1)
		return -EINVAL;
	p->start_ticks = start_ticks;
	p->num = (uint64_t)(num + 0.5);
	p->den = (uint64_t)(den + 0.5);
	return 0;
}

uint64_t load_pace_due(const struct load_pace *p, uint64_t n)
{
	return p->start_ticks + (uint64_t)((unsigned __int128)n * p->num / p->den);
}

uint64_t load_pace_count(const struct load_pace *p, uint64_t now)
{
	if (now < p->start_ticks)
		return 0;
	/* Message n is due when n * num / den <= now - start. */
	return (uint64_t)((unsigned __int128)(now - p->start_ticks) * p->den / p->num) + 1;
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

int load_cfg_check(const struct load_cfg *c, char *err, size_t errlen)
{
	if (!c->tx_depth || c->tx_depth > LOAD_MAX_DEPTH)
		return errbuf_set(err, errlen, -EINVAL, "--tx-depth %u: expected 1 to %u",
				  c->tx_depth, LOAD_MAX_DEPTH);
	if (!c->batch || c->batch > LOAD_MAX_BATCH || c->batch > c->tx_depth)
		return errbuf_set(err, errlen, -EINVAL,
				  "--batch %u: expected 1 to %u and at most --tx-depth (%u)",
				  c->batch, LOAD_MAX_BATCH, c->tx_depth);
	if (!c->cq_mod || c->cq_mod > c->tx_depth)
		return errbuf_set(err, errlen, -EINVAL,
				  "--cq-mod %u: expected 1 to --tx-depth (%u)", c->cq_mod,
				  c->tx_depth);
	if (!c->on_ticks != !c->off_ticks)
		return errbuf_set(err, errlen, -EINVAL, "a bursty run needs both an on and an "
				  "off time above 0");
	return 0;
}

int load_init(struct load *l, struct verbs_dev *dev, unsigned n_qps, uint32_t tx_depth,
	      size_t buf_bytes, bool hugepages, bool event, bool *got_huge, char *err,
	      size_t errlen)
{
	struct verbs_qp_opts o = { .send_depth = tx_depth + 1, .recv_depth = 1 };
	struct load_qp *q;
	unsigned i;
	int ret;

	memset(l, 0, sizeof(*l));
	l->dev = dev;
	l->buf_bytes = buf_bytes ? buf_bytes : 1;
	l->tx_depth = tx_depth;
	l->qps = calloc(n_qps, sizeof(*l->qps));
	if (!l->qps)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	*got_huge = hugepages;
	if (event) {
		ret = verbs_chan_create(dev, &l->chan, err, errlen);
		if (ret) {
			load_release(l);
			return ret;
		}
	}
	o.send_chan = l->chan;
	for (i = 0; i < n_qps; i++) {
		q = &l->qps[i];
		o.cq_context = q;
		q->ctl_fd = -1;
		q->buf = pin_buf_alloc(l->buf_bytes, hugepages, &q->buf_huge);
		if (!q->buf) {
			load_release(l);
			return errbuf_set(err, errlen, -ENOMEM, "cannot allocate %zu bytes",
					  l->buf_bytes);
		}
		l->n_qps = i + 1;
		*got_huge = *got_huge && q->buf_huge;
		o.buf = q->buf;
		o.buf_bytes = l->buf_bytes;
		ret = verbs_qp_create(&q->qp, dev, &o, err, errlen);
		if (ret) {
			load_release(l);
			return ret;
		}
	}
	return 0;
}

void load_release(struct load *l)
{
	unsigned i;

	for (i = l->n_qps; i--;) {
		/* A CQ cannot go while events taken from it are unacknowledged. */
		if (l->qps[i].unacked)
			ibv_ack_cq_events(l->qps[i].qp.send_cq, l->qps[i].unacked);
		verbs_qp_destroy(&l->qps[i].qp);
		pin_buf_free(l->qps[i].buf, l->buf_bytes, l->qps[i].buf_huge);
	}
	free(l->qps);
	if (l->chan)
		ibv_destroy_comp_channel(l->chan);
	memset(l, 0, sizeof(*l));
}

/* ------------------------------------------------------------------ */
/* Posting and completions                                             */
/* ------------------------------------------------------------------ */

/* Post a list of @n requests on @q; every cq_mod-th one is signaled (and,
 * with no rkey, the last) and its wr_id says how many requests its
 * completion stands for. */
static int qp_post(struct load_qp *q, const struct load_cfg *cfg, uint32_t n)
{
	struct ibv_send_wr wr[LOAD_MAX_BATCH], *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)q->qp.buf,
		.length = (uint32_t)cfg->size_bytes,
		.lkey = q->qp.mr->lkey,
	};
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		wr[i] = (struct ibv_send_wr){
			.sg_list = &sge,
			.num_sge = 1,
			.next = i + 1 < n ? &wr[i + 1] : NULL,
		};
		if (q->write) {
			wr[i].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr[i].imm_data = htobe32((uint32_t)cfg->size_bytes);
			wr[i].wr.rdma.remote_addr = q->remote_addr;
			wr[i].wr.rdma.rkey = q->rkey;
		} else {
			wr[i].opcode = IBV_WR_SEND;
		}
		/*
		 * Without a target for the zero-length WRITE that ends a run
		 * (SENDs over rdma_cm: qp_flush), the last of each list is
		 * signaled too, or a paced run's last few would never report.
		 */
		if (++q->unsignaled >= cfg->cq_mod || (!q->rkey && i + 1 == n)) {
			wr[i].send_flags = IBV_SEND_SIGNALED;
			wr[i].wr_id = q->unsignaled;
			q->unsignaled = 0;
		}
	}
	ret = ibv_post_send(q->qp.qp, wr, &bad);
	if (ret)
		return -ret;
	q->outstanding += n;
	q->posted += n;
	return 0;
}

/*
 * End of a run: requests posted since the last signaled one would never
 * report. A signaled zero-length RDMA WRITE after them (RC completes in
 * order) does, and the server sees nothing: it consumes no RECV.
 */
static int qp_flush(struct load_qp *q)
{
	struct ibv_send_wr wr = {
		.wr_id = WR_FLUSH | q->unsignaled,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = q->remote_addr, .rkey = q->rkey },
	}, *bad;
	int ret;

	if (!q->unsignaled || !q->rkey)
		return 0;
	ret = ibv_post_send(q->qp.qp, &wr, &bad);
	if (ret)
		return -ret;
	q->outstanding++;
	q->unsignaled = 0;
	return 0;
}

int load_qp_ask_mr(struct load_qp *q, size_t size_bytes, const char *peer, int timeout_ms,
		   char *err, size_t errlen)
{
	return load_qp_ask_mr_on(q, q->ctl_fd, size_bytes, peer, timeout_ms, err, errlen);
}

int load_qp_ask_mr_on(struct load_qp *q, int fd, size_t size_bytes, const char *peer,
		      int timeout_ms, char *err, size_t errlen)
{
	struct conn_msg a;
	int ret;

	ret = conn_request(fd, CONN_MSG_MR, CONN_MSG_MR, &a, timeout_ms);
	if (ret || a.v[2] < size_bytes || !a.v[1])
		return errbuf_set(err, errlen, ret ? ret : -EPROTO,
				  "server '%s' did not say where to write", peer);
	q->remote_addr = a.v[0];
	q->rkey = (uint32_t)a.v[1];
	return 0;
}

static bool peer_gone(const struct load_qp *q);

/* Count what completed on @q until its CQ is empty; 1 if anything did,
 * 0 if not, or -errno. */
static int qp_reap(struct load_qp *q, const struct load_cfg *cfg, char *err, size_t errlen)
{
	struct ibv_wc wc[32];
	uint64_t covered;
	int n, i, got = 0;

again:
	n = ibv_poll_cq(q->qp.send_cq, 32, wc);
	if (n < 0)
		return errbuf_set(err, errlen, -EIO, "cannot poll a completion queue");
	for (i = 0; i < n; i++) {
		/* A killed server fails the requests in flight too: say why. */
		if (wc[i].status != IBV_WC_SUCCESS && peer_gone(q))
			return conn_err_peer_gone(err, errlen, cfg->peer);
		if (wc[i].status != IBV_WC_SUCCESS)
			return errbuf_set(err, errlen, -EIO, "%s to '%s' failed: %s",
					  q->write ? "RDMA WRITE" : "SEND", cfg->peer,
					  ibv_wc_status_str(wc[i].status));
		covered = wc[i].wr_id & ~WR_FLUSH;
		q->outstanding -= (uint32_t)covered + !!(wc[i].wr_id & WR_FLUSH);
		q->res->msgs += covered;
		q->res->bytes += covered * cfg->size_bytes;
	}
	got += n;
	if (n == 32)
		goto again;
	return got > 0;
}

/* Whether @q's window has room for a list of cfg->batch requests. */
static bool qp_room(const struct load_qp *q, const struct load_cfg *cfg)
{
	return q->outstanding + cfg->batch <= cfg->tx_depth;
}

/* Post on @q what the window, the burst and the pace allow, in lists of cfg->batch. */
static int qp_fill(struct load_qp *q, const struct load_cfg *cfg, const struct load_pace *pace,
		   const struct load_burst *burst, uint64_t now)
{
	uint64_t due;
	uint32_t n;
	int ret;

	if (!load_burst_on(burst, now))
		return 0;
	for (;;) {
		n = cfg->batch;
		if (!qp_room(q, cfg))
			return 0;
		if (cfg->rate_bps) {
			due = load_pace_count(pace, burst->start_ticks +
					      load_burst_on_time(burst, now)) - q->posted;
			if (!due || (int64_t)due < 0)
				return 0;
			n = due < n ? (uint32_t)due : n;
		}
		ret = qp_post(q, cfg, n);
		if (ret)
			return ret;
	}
}

/* ------------------------------------------------------------------ */
/* A run                                                               */
/* ------------------------------------------------------------------ */

struct load_state {
	struct load_pace pace;
	struct load_burst burst;
	uint64_t start, end, now;
	uint64_t next_iv;
	unsigned iv_index;
	uint64_t next_check, last_progress;
};

static void interval_emit(struct load *l, const struct load_cfg *cfg, struct load_state *st,
			  bool last)
{
	struct load_interval iv = {
		.index = st->iv_index++,
		.start_ticks = st->start,
		.now_ticks = st->now,
		.last = last,
	};
	unsigned i;

	if (!cfg->on_interval)
		return;
	for (i = 0; i < l->n_qps; i++) {
		iv.msgs += l->qps[i].res->msgs;
		iv.bytes += l->qps[i].res->bytes;
	}
	cfg->on_interval(cfg->arg, &iv);
}

static bool peer_gone(const struct load_qp *q)
{
	if (q->ctl_fd < 0)
		return false;
	return q->ctl_any_event ? conn_fd_readable(q->ctl_fd) : conn_peer_gone(q->ctl_fd);
}

/* Every LOAD_CHECK_NS: a peer gone, a stop, a stall? */
static int run_check(struct load *l, const struct load_cfg *cfg, struct load_state *st,
		     char *err, size_t errlen)
{
	unsigned i;

	st->next_check = st->now + clock_ns_to_ticks(cfg->clk, LOAD_CHECK_NS);
	for (i = 0; i < l->n_qps; i++)
		if (peer_gone(&l->qps[i]))
			return conn_err_peer_gone(err, errlen, cfg->peer);
	if (cfg->stop && *cfg->stop)
		return errbuf_set(err, errlen, -EINTR, "interrupted");
	if (st->now - st->last_progress > cfg->drain_timeout_ticks)
		return errbuf_set(err, errlen, -ETIMEDOUT, "no completion from '%s' within %.1f s",
				  cfg->peer,
				  clock_ticks_to_ns(cfg->clk, cfg->drain_timeout_ticks) / 1e9);
	return 0;
}

uint64_t load_wake_at(const struct load *l, const struct load_cfg *cfg,
		      const struct load_pace *pace, const struct load_burst *burst,
		      uint64_t now, uint64_t limit)
{
	uint64_t due;
	unsigned i;

	if (burst && !load_burst_on(burst, now)) {
		now = load_burst_next_on(burst, now);
		if (!cfg->rate_bps)
			return now < limit ? now : limit;
	}
	if (!cfg->rate_bps)
		return limit;
	for (i = 0; i < l->n_qps; i++) {
		if (!qp_room(&l->qps[i], cfg))
			continue;
		due = load_pace_due(pace, l->qps[i].posted);
		/* The pace runs on the on-time: its due time, on the wall clock. */
		if (burst)
			due = load_burst_at(burst, due - pace->start_ticks);
		due = due > now ? due : now;
		limit = due < limit ? due : limit;
	}
	return limit;
}

/* How many send CQs are armed: the most events the channel can hold. */
static unsigned armed_count(const struct load *l)
{
	unsigned i, n = 0;

	for (i = 0; i < l->n_qps; i++)
		n += l->qps[i].armed;
	return n;
}

/*
 * Take the events the channel holds; acknowledge them in batches. Only an
 * armed CQ raises one, so the reads stop when none is left armed, without
 * a last read that finds nothing (a system call each).
 */
static void chan_take(struct load *l)
{
	struct load_qp *q;
	struct ibv_cq *cq;
	void *ctx;

	while (armed_count(l) && !ibv_get_cq_event(l->chan, &cq, &ctx)) {
		q = ctx;
		q->armed = false;
		if (++q->unacked >= LOAD_ACK_BATCH) {
			ibv_ack_cq_events(cq, q->unacked);
			q->unacked = 0;
		}
	}
}

/*
 * Event mode: nothing can be posted before a completion or @wake. Arm
 * every send CQ, look once more (a completion that came before the arm
 * raises no event), then sleep on the channel until an event or @wake.
 * The caller's next pass reaps what woke it. A CQ stays armed until its
 * event is taken (arming is a system call on software NICs): an event
 * raised meanwhile waits in the channel and ends the next sleep at once.
 */
static int run_wait(struct load *l, const struct load_cfg *cfg, struct load_state *st,
		    uint64_t wake, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = l->chan->fd, .events = POLLIN };
	struct timespec ts;
	unsigned i;
	double ns;
	int ret, got = 0;

	for (i = 0; i < l->n_qps; i++) {
		if (l->qps[i].armed)
			continue;
		if (ibv_req_notify_cq(l->qps[i].qp.send_cq, 0))
			return errbuf_set(err, errlen, -EIO, "cannot arm a completion queue");
		l->qps[i].armed = true;
	}
	for (i = 0; i < l->n_qps; i++) {
		ret = qp_reap(&l->qps[i], cfg, err, errlen);
		if (ret < 0)
			return ret;
		got |= ret;
	}
	st->now = clock_read(cfg->clk);
	if (got)
		st->last_progress = st->now;
	if (got || wake <= st->now)
		return 0;
	ns = ceil(clock_ticks_to_ns(cfg->clk, wake - st->now));
	ts.tv_sec = (time_t)(ns / 1e9);
	ts.tv_nsec = (long)(ns - (double)ts.tv_sec * 1e9);
	ret = ppoll(&pfd, 1, &ts, NULL);
	if (ret < 0 && errno != EINTR)
		return errbuf_set(err, errlen, -errno, "cannot wait for completions: %s",
				  strerror(errno));
	if (ret > 0)
		chan_take(l);
	return 0;
}

/* One pass over the QPs: reap, then post. 0 or -errno. */
static int run_pass(struct load *l, const struct load_cfg *cfg, struct load_state *st,
		    bool post, char *err, size_t errlen)
{
	struct load_qp *q;
	unsigned i;
	int ret;

	for (i = 0; i < l->n_qps; i++) {
		q = &l->qps[i];
		ret = qp_reap(q, cfg, err, errlen);
		if (ret < 0)
			return ret;
		if (ret || !q->outstanding)
			st->last_progress = st->now;
		if (!post)
			continue;
		ret = qp_fill(q, cfg, &st->pace, &st->burst, st->now);
		if (ret)
			return errbuf_set(err, errlen, ret, "cannot post to '%s': %s", cfg->peer,
					  strerror(-ret));
	}
	return 0;
}

static bool all_done(const struct load *l)
{
	unsigned i;

	for (i = 0; i < l->n_qps; i++)
		if (l->qps[i].outstanding)
			return false;
	return true;
}

/* Stop posting, flush, wait for the outstanding requests to complete. */
static int run_drain(struct load *l, const struct load_cfg *cfg, struct load_state *st,
		     char *err, size_t errlen)
{
	unsigned i;
	int ret = 0;

	for (i = 0; i < l->n_qps && !ret; i++)
		ret = qp_flush(&l->qps[i]);
	if (ret)
		return errbuf_set(err, errlen, ret, "cannot post to '%s': %s", cfg->peer,
				  strerror(-ret));
	st->last_progress = st->now;
	while (!all_done(l)) {
		st->now = clock_read(cfg->clk);
		ret = run_pass(l, cfg, st, false, err, errlen);
		if (!ret && st->now >= st->next_check)
			ret = run_check(l, cfg, st, err, errlen);
		if (!ret && cfg->event)
			ret = run_wait(l, cfg, st, st->next_check, err, errlen);
		if (ret)
			return ret;
		if (cfg->yield)
			sched_yield();
	}
	return 0;
}

/* The latest a waiting worker may sleep to: the end, the next check or interval. */
static uint64_t run_limit(const struct load_cfg *cfg, const struct load_state *st)
{
	uint64_t t = st->end < st->next_check ? st->end : st->next_check;

	return cfg->interval_ticks && st->next_iv < t ? st->next_iv : t;
}

static int run_loop(struct load *l, const struct load_cfg *cfg, struct load_state *st,
		    char *err, size_t errlen)
{
	int ret;

	for (;;) {
		st->now = clock_read(cfg->clk);
		if (st->now >= st->end)
			return 0;
		ret = run_pass(l, cfg, st, true, err, errlen);
		if (!ret && st->now >= st->next_check)
			ret = run_check(l, cfg, st, err, errlen);
		if (ret)
			return ret;
		if (cfg->interval_ticks && st->now >= st->next_iv) {
			interval_emit(l, cfg, st, false);
			st->next_iv = st->start + (st->iv_index + 1ull) * cfg->interval_ticks;
		}
		if (cfg->event) {
			ret = run_wait(l, cfg, st, load_wake_at(l, cfg, &st->pace, &st->burst, st->now,
							       run_limit(cfg, st)), err, errlen);
			if (ret)
				return ret;
		} else if (cfg->yield) {
			sched_yield();
		}
	}
}

int load_run(struct load *l, const struct load_cfg *cfg, struct flow_result *res)
{
	struct load_state st = { 0 };
	char err[sizeof(res->error)];
	unsigned i;
	int ret, slack;

	for (i = 0; i < l->n_qps; i++) {
		l->qps[i].res = &res[i];
		res[i].size_bytes = cfg->size_bytes;
	}
	ret = load_cfg_check(cfg, err, sizeof(err));
	if (!ret && (cfg->size_bytes > l->buf_bytes || cfg->tx_depth > l->tx_depth))
		ret = errbuf_set(err, sizeof(err), -EINVAL,
				 "size or depth above what the QPs were made for");
	if (!ret && cfg->event && !l->chan)
		ret = errbuf_set(err, sizeof(err), -EINVAL,
				 "event mode on QPs made without a completion channel");
	/* Wake at the pace's deadlines, not up to the default 50 us later. */
	slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (cfg->event && slack > 1)
		prctl(PR_SET_TIMERSLACK, 1ul, 0, 0, 0);
	st.start = st.now = st.last_progress = clock_read(cfg->clk);
	st.end = st.start + cfg->duration_ticks;
	st.next_iv = st.start + cfg->interval_ticks;
	st.burst = (struct load_burst){ .start_ticks = st.start, .on_ticks = cfg->on_ticks,
					.off_ticks = cfg->off_ticks };
	if (!ret && cfg->rate_bps &&
	    load_pace_init(&st.pace, st.start, cfg->size_bytes, cfg->rate_bps,
			   cfg->clk->ticks_per_ns * 1e9))
		ret = errbuf_set(err, sizeof(err), -EINVAL,
				 "cannot pace %zu-byte messages at %llu bit/s", cfg->size_bytes,
				 (unsigned long long)cfg->rate_bps);
	if (!ret)
		ret = run_loop(l, cfg, &st, err, sizeof(err));
	if (!ret)
		ret = run_drain(l, cfg, &st, err, sizeof(err));
	st.now = clock_read(cfg->clk);
	for (i = 0; i < l->n_qps; i++)
		res[i].elapsed_ticks = st.now - st.start;
	interval_emit(l, cfg, &st, true);
	if (cfg->event && slack > 1)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	if (ret) {
		res[0].status = ret;
		memcpy(res[0].error, err, sizeof(err));
	}
	return ret;
}
