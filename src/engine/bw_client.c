/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The bw client around the load engine: the server-query protocol and
 * the interval sampling, kept out of the command so that it only sets up,
 * starts workers and prints. See bw_client.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "engine/bw_client.h"
#include "engine/client.h"
#include "flow/figures.h"

int bw_client_init(struct bw_client *c, const struct bw_client_cfg *cfg, struct load *l)
{
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->load = l;
	c->res = calloc(cfg->n_qps, sizeof(*c->res));
	c->query_fd = malloc(cfg->n_qps * sizeof(*c->query_fd));
	c->snaps = calloc(cfg->max_snaps, sizeof(*c->snaps));
	if (!c->res || !c->query_fd || !c->snaps) {
		bw_client_release(c);
		return -ENOMEM;
	}
	for (i = 0; i < cfg->n_qps; i++)
		c->query_fd[i] = -1;
	return 0;
}

void bw_client_release(struct bw_client *c)
{
	unsigned i;

	for (i = 0; c->res && i < c->n_res; i++)
		flow_result_release(&c->res[i]);
	free(c->res);
	free(c->query_fd);
	free(c->snaps);
	c->res = NULL;
	c->query_fd = NULL;
	c->snaps = NULL;
	c->n_res = 0;
}

int bw_client_results_init(struct bw_client *c, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < c->load->n_qps; i++) {
		c->load->qps[i].res = &c->res[i];
		if (flow_result_init(&c->res[i], c->cfg.size_bytes))
			return errbuf_set(err, errlen, -ENOMEM, "out of memory");
		c->n_res = i + 1;
	}
	return 0;
}

/*
 * Over rdma_cm the flow has no socket: its counters are asked on a side
 * connection. Without one (an older server) the run goes on, and the
 * received figures are unknown: c->rx_error says why.
 */
static int bw_client_attach(struct bw_client *c)
{
	const struct flow_opts *o = c->cfg.flow;
	int fd;

	fd = conn_client_attach(o->host, o->tcp_port, c->cfg.cm->flow_id, c->cfg.cm->secret,
				(int)(o->timeout_s * 1000), c->rx_error, sizeof(c->rx_error));
	if (fd >= 0)
		c->rx_error[0] = '\0';
	return fd;
}

/*
 * What the device made of --hw-rate on @qp, read back: the slowest QP's
 * rate is the client's. A device that kept no static rate would run at
 * the port's rate while the report says limited: refused.
 */
static int bw_client_rate_applied(struct bw_client *c, const struct verbs_qp *qp, char *err,
				  size_t errlen)
{
	enum ibv_rate rate;
	uint64_t bps;
	int ret;

	ret = verbs_qp_static_rate(qp, &rate, err, errlen);
	if (ret)
		return ret;
	bps = verbs_static_rate_bps(rate);
	if (!bps)
		return errbuf_set(err, errlen, -EOPNOTSUPP, "--hw-rate %" PRIu64 ": %s applied no "
				  "static rate (it reads back as the port's rate)",
				  c->cfg.hw_rate_bps, qp->dev->name);
	if (!c->hw_rate_applied_bps || bps < c->hw_rate_applied_bps)
		c->hw_rate_applied_bps = bps;
	return 0;
}

int bw_client_connect_qp(struct bw_client *c, unsigned i, char *err, size_t errlen)
{
	const struct flow_opts *o = c->cfg.flow;
	struct load_qp *q = &c->load->qps[i];
	struct verbs_path path = c->cfg.path;
	int ret;

	/* The NIC limits a QP by its address vector's static rate. */
	if (c->cfg.hw_rate_bps) {
		path.static_rate = (uint8_t)verbs_static_rate_for_kbps(c->cfg.hw_rate_bps / 1000);
		if (!path.static_rate)
			return errbuf_set(err, errlen, -EINVAL, "--hw-rate %" PRIu64 ": the slowest "
					  "static rate is 2.5 Gb/s", c->cfg.hw_rate_bps);
	}
	ret = client_connect(o, c->cfg.cm, &q->qp, &path, c->cfg.size_bytes, err, errlen);
	if (ret < 0)
		return ret;
	q->ctl_fd = ret;
	q->ctl_any_event = o->rdma_cm;
	c->query_fd[i] = o->rdma_cm ? bw_client_attach(c) : ret;
	if (o->rdma_cm && c->cfg.write && c->query_fd[i] < 0)
		return errbuf_set(err, errlen, -EPROTO, "--write over rdma_cm: %s", c->rx_error);
	/* The target of the WRITEs, and of the zero-length WRITE that ends a
	 * run (over TCP; over rdma_cm SENDs do without, see load.c). */
	if (!o->rdma_cm || c->cfg.write) {
		ret = load_qp_ask_mr_on(q, c->query_fd[i], c->cfg.size_bytes, o->host,
					BW_CLIENT_QUERY_MS, err, errlen);
		if (ret)
			return ret;
	}
	q->write = c->cfg.write;
	return c->cfg.hw_rate_bps ? bw_client_rate_applied(c, &q->qp, err, errlen) : 0;
}

/*
 * The server is asked at each interval boundary, but its answers are read
 * at the next one: on a shaped path the query waits behind the data in
 * the switch's queue, and the worker must not stop posting meanwhile.
 */
static bool bw_client_ask(struct bw_client *c)
{
	struct conn_msg q = { .kind = CONN_MSG_QUERY };
	bool ok = true;
	unsigned i;

	for (i = 0; i < c->load->n_qps; i++)
		ok = ok && c->query_fd[i] >= 0 &&
		     !conn_send_msg(c->query_fd[i], &q, BW_CLIENT_QUERY_MS);
	return ok;
}

/* Read the answers to bw_client_ask() into @s (and, at the end, the results). */
static void bw_client_answers(struct bw_client *c, struct bw_snap *s, bool last)
{
	struct conn_msg a;
	unsigned i;

	for (i = 0; i < c->load->n_qps && s->rx_valid; i++) {
		if (conn_recv_msg(c->query_fd[i], &a, BW_CLIENT_QUERY_MS) ||
		    a.kind != CONN_MSG_STATS) {
			s->rx_valid = false;
			break;
		}
		s->rx_msgs += a.v[0];
		s->rx_bytes += a.v[1];
		c->res[i].rx_valid = last;
		c->res[i].rx_msgs = a.v[0];
		c->res[i].rx_bytes = a.v[1];
	}
}

/* At the end: each flow's receiver port counters (RNR NAKs sent,
 * out-of-buffer drops), where the server counts them. */
static void bw_client_rx_trouble(struct bw_client *c)
{
	struct conn_msg a;
	unsigned i;

	for (i = 0; i < c->load->n_qps; i++) {
		if (c->query_fd[i] < 0 ||
		    conn_request(c->query_fd[i], CONN_MSG_RX, CONN_MSG_RX, &a, BW_CLIENT_QUERY_MS))
			continue;
		c->res[i].rx_rnr_naks_sent = (int64_t)a.v[0] - 1;
		c->res[i].rx_out_of_buffer = (int64_t)a.v[1] - 1;
	}
}

void bw_client_on_interval(void *arg, const struct load_interval *iv)
{
	struct bw_client *c = arg;
	size_t k = c->n_taken;
	struct bw_snap *s;

	if (k >= c->cfg.max_snaps)
		return;
	if (k && c->snaps[k - 1].rx_valid)
		bw_client_answers(c, &c->snaps[k - 1], false);
	/* Once an answer went missing, the ones after it would not match. */
	c->rx_broken = c->rx_broken || (k && !c->snaps[k - 1].rx_valid);
	s = &c->snaps[k];
	*s = (struct bw_snap){ .t_ticks = iv->now_ticks - iv->start_ticks, .msgs = iv->msgs,
			       .bytes = iv->bytes };
	s->rx_valid = !c->rx_broken && bw_client_ask(c);
	c->n_taken = k + 1;
	if (iv->last && s->rx_valid)
		bw_client_answers(c, s, true);
	/* Only when every answer was read: the socket then holds none. */
	if (iv->last && s->rx_valid)
		bw_client_rx_trouble(c);
	__atomic_store_n(&c->n_snaps, iv->last ? k + 1 : k, __ATOMIC_RELEASE);
}

void bw_client_close(struct bw_client *c)
{
	struct load_qp *q;
	unsigned i;

	for (i = 0; i < c->load->n_qps; i++) {
		q = &c->load->qps[i];
		if (c->query_fd[i] >= 0 && c->query_fd[i] != q->ctl_fd)
			close(c->query_fd[i]);
		if (q->ctl_fd >= 0 && !q->ctl_any_event)
			close(q->ctl_fd);
		c->query_fd[i] = -1;
	}
}

void bw_client_finish(struct bw_client *c)
{
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
}

bool bw_client_ready(const struct bw_client_set *s, size_t k, size_t *n_snaps,
		     bool *all_done)
{
	bool ready = true;
	unsigned i;

	*all_done = true;
	for (i = 0; i < s->n; i++) {
		bool done = __atomic_load_n(&s->c[i]->done, __ATOMIC_ACQUIRE);

		n_snaps[i] = __atomic_load_n(&s->c[i]->n_snaps, __ATOMIC_ACQUIRE);
		*all_done = *all_done && done;
		ready = ready && (n_snaps[i] > k || done);
	}
	return ready;
}

/* Client @c's snapshot @k, or its last when it stopped before; NULL if none. */
static const struct bw_snap *bw_client_snap_at(const struct bw_client *c, size_t k, size_t n)
{
	if (!n)
		return NULL;
	return &c->snaps[k < n ? k : n - 1];
}

void bw_client_sum(const struct bw_client_set *s, size_t k, const size_t *n_snaps,
		   struct bw_interval *iv)
{
	const struct bw_snap *a, *b;
	double end_s;
	unsigned i;

	memset(iv, 0, sizeof(*iv));
	iv->rx_valid = true;
	iv->start_s = k * s->interval_s;
	for (i = 0; i < s->n; i++) {
		b = bw_client_snap_at(s->c[i], k, n_snaps[i]);
		a = k ? bw_client_snap_at(s->c[i], k - 1, n_snaps[i]) : NULL;
		if (!b)
			continue;
		end_s = figures_s(s->clk, (double)b->t_ticks);
		iv->end_s = end_s > iv->end_s ? end_s : iv->end_s;
		iv->msgs += b->msgs - (a ? a->msgs : 0);
		iv->bytes += b->bytes - (a ? a->bytes : 0);
		iv->rx_valid = iv->rx_valid && b->rx_valid && (!a || a->rx_valid);
		iv->rx_msgs += b->rx_msgs - (a ? a->rx_msgs : 0);
		iv->rx_bytes += b->rx_bytes - (a ? a->rx_bytes : 0);
	}
	if (iv->end_s < iv->start_s)
		iv->end_s = iv->start_s;
}

/*
 * How often the follower looks for the workers' next snapshots: a
 * twentieth of an interval, within 10-100 ms. It shares the host with
 * the workers (on a guest of one vCPU, with the NIC too): a look every
 * 10 ms whatever the interval was 100 wake-ups a second for nothing.
 */
static useconds_t bw_follow_look_us(double interval_s)
{
	double us = interval_s * 1e6 / 20;

	return us < 10000 ? 10000 : us > 100000 ? 100000 : (useconds_t)us;
}

size_t bw_client_follow(const struct bw_client_set *s, struct bw_interval *iv,
			void (*on_interval)(void *arg, const struct bw_interval *iv), void *arg)
{
	size_t n[FLOW_MAX_THREADS], k = 0, i, most;
	useconds_t look_us = bw_follow_look_us(s->interval_s);
	bool all_done;

	for (;;) {
		if (!bw_client_ready(s, k, n, &all_done)) {
			usleep(look_us);
			continue;
		}
		for (most = 0, i = 0; i < s->n; i++)
			most = n[i] > most ? n[i] : most;
		if (k >= most)
			return k;
		bw_client_sum(s, k, n, &iv[k]);
		on_interval(arg, &iv[k]);
		k++;
		if (all_done && k >= most)
			return k;
	}
}

void bw_client_merge(const struct bw_client_set *s, size_t size_bytes,
		     struct flow_result *total)
{
	const struct bw_client *c;
	uint64_t retrans = 0;
	unsigned i, j;

	flow_result_init(total, size_bytes);
	total->rx_valid = true;
	for (i = 0; i < s->n; i++) {
		c = s->c[i];
		if (!c->n_res)
			total->rx_valid = false;
		for (j = 0; j < c->n_res; j++)
			flow_result_merge(total, &c->res[j]);
		/* Port counters: the workers' windows overlap; never add them. */
		if (c->n_res && c->res[0].retrans > retrans)
			retrans = c->res[0].retrans;
	}
	total->retrans = retrans;
}
