/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The bandwidth engine: open-loop RC traffic from one worker thread over
 * one or more QPs, each QP a flow to an `rperf server`. It keeps up to a
 * window of requests outstanding per QP, posts them in lists, and either
 * sends as fast as the window allows or paces a constant bit rate against
 * absolute deadlines (start + n * interval, so a late post never shifts
 * the ones after it). SEND by default; with a remote MR, RDMA WRITE with
 * immediate, whose immediate lets the server count it as it counts SENDs.
 *
 * Completions are what it counts as sent: a signaled RC request completes
 * when the remote NIC acknowledged it. It busy-polls the send CQs, or, in
 * event mode, sleeps on a completion channel whenever it can post nothing
 * (window full, or the pace's next message not yet due), so that a NIC
 * run in software on the same CPU gets the time to do the work; it always
 * wakes by the next pace deadline, interval boundary and check. At every interval boundary it hands
 * a snapshot to a callback (run in the worker's thread, which may query the
 * server there). The engine never prints; errors end the run with a
 * message in the result and everything counted so far kept.
 */
#ifndef RPERF_LOAD_H
#define RPERF_LOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"
#include "engine/result.h"
#include "rdma/verbs.h"

#define LOAD_MAX_DEPTH 8192
#define LOAD_MAX_BATCH 64
/* The window when none is given (bw's --tx-depth, --cq-mod; an agent's
 * flows): deep enough that a shaped band never runs dry. */
#define LOAD_TX_DEPTH_DEFAULT 128
#define LOAD_CQ_MOD_DEFAULT 16

/*
 * A constant bit rate as an exact fraction of ticks: message n is due at
 * start + n * num / den ticks. Integer arithmetic: no drift however long
 * the run.
 */
struct load_pace {
	uint64_t start_ticks;
	uint64_t num;			/* message bits * ticks per second */
	uint64_t den;			/* bits per second */
};

/* Pace @size_bytes messages at @rate_bps on a clock of @ticks_per_s;
 * -EINVAL when the rate is 0 or the fraction does not fit. */
int load_pace_init(struct load_pace *p, uint64_t start_ticks, size_t size_bytes,
		   uint64_t rate_bps, double ticks_per_s);
/* When message @n (0-based) is due. */
uint64_t load_pace_due(const struct load_pace *p, uint64_t n);
/* How many messages are due by @now (those with due time <= now). */
uint64_t load_pace_count(const struct load_pace *p, uint64_t now);

/*
 * A bursty run: on for on_ticks, then off for off_ticks, from start_ticks
 * on (off_ticks 0: always on). A pace runs on the on-time alone, so a
 * paced bursty flow sends at its rate while on.
 */
struct load_burst {
	uint64_t start_ticks, on_ticks, off_ticks;
};

/* Whether @b is on at @now. */
bool load_burst_on(const struct load_burst *b, uint64_t now);
/* The on-time elapsed from the start to @now. */
uint64_t load_burst_on_time(const struct load_burst *b, uint64_t now);
/* The instant at which the on-time reaches @on_ticks (the earliest such). */
uint64_t load_burst_at(const struct load_burst *b, uint64_t on_ticks);
/* When the on phase after @now's begins (@now itself when it is on). */
uint64_t load_burst_next_on(const struct load_burst *b, uint64_t now);

/* One flow: a QP connected to the server, and where it may write. */
struct load_qp {
	struct verbs_qp qp;
	void *buf;
	bool buf_huge;
	int ctl_fd;			/* the flow's TCP socket, or -1 */
	bool ctl_any_event;		/* ctl_fd is an rdma_cm channel: any event ends it */
	uint64_t remote_addr;		/* the server's buffer (rkey != 0): where the */
	uint32_t rkey;			/* zero-length WRITE that ends a run goes */
	bool write;			/* post RDMA WRITE with immediate there, not SEND */
	/* Engine state. */
	uint32_t outstanding;
	uint32_t unsignaled;		/* posted since the last signaled request */
	uint32_t unacked;		/* CQ events taken and not yet acknowledged */
	bool armed;			/* its send CQ will raise an event (not taken yet) */
	uint64_t posted;
	struct flow_result *res;
};

struct load {
	struct verbs_dev *dev;
	struct ibv_comp_channel *chan;	/* event mode: every send CQ's events */
	struct load_qp *qps;
	unsigned n_qps;
	size_t buf_bytes;
	uint32_t tx_depth;
};

/* A snapshot at an interval boundary: what completed since the run began. */
struct load_interval {
	unsigned index;			/* 0, 1, ... */
	uint64_t start_ticks, now_ticks;
	uint64_t msgs, bytes;		/* over every QP of the worker */
	bool last;			/* the run's end (a partial interval) */
};

struct load_cfg {
	size_t size_bytes;
	uint32_t tx_depth;		/* requests outstanding per QP */
	uint32_t batch;			/* requests per post list */
	uint32_t cq_mod;		/* a signaled request every cq_mod (<= tx_depth) */
	uint64_t rate_bps;		/* per QP; 0: as fast as the window allows */
	uint64_t on_ticks, off_ticks;	/* bursty (struct load_burst); 0: always on */
	uint64_t duration_ticks;
	uint64_t interval_ticks;	/* 0: no interval callback */
	uint64_t drain_timeout_ticks;	/* wait for the last completions this long */
	const struct clock_cal *clk;
	const char *peer;		/* the server's name for messages */
	volatile sig_atomic_t *stop;
	bool yield;			/* busy polling: sched_yield() between polls */
	bool event;			/* wait for CQ events (load_init's @event) */
	void (*on_interval)(void *arg, const struct load_interval *iv);
	void *arg;
};

/*
 * @n_qps QPs with their CQs sized for @tx_depth and buffers of @buf_bytes,
 * left in RESET for the caller to connect (then set ctl_fd, remote_addr
 * and rkey). *@got_huge says whether every buffer got huge pages. With
 * @event the send CQs report to a completion channel (cfg->event runs).
 */
int load_init(struct load *l, struct verbs_dev *dev, unsigned n_qps, uint32_t tx_depth,
	      size_t buf_bytes, bool hugepages, bool event, bool *got_huge, char *err,
	      size_t errlen);
void load_release(struct load *l);

/*
 * Run for cfg->duration_ticks. @res has one result per QP (initialized
 * by the caller) and gets msgs, bytes and elapsed_ticks. Returns 0, or
 * -errno with res[0].status and res[0].error set; every count stays.
 */
int load_run(struct load *l, const struct load_cfg *cfg, struct flow_result *res);

/*
 * Event mode: the worker can post nothing now (@now); when must it look
 * again? The earliest due time of the next message of a paced QP whose
 * window has room, the next on phase of a bursty run (@burst, or NULL),
 * and at the latest @limit (the run's end, the next interval boundary or
 * check). Without a rate and on: @limit, only a completion helps.
 */
uint64_t load_wake_at(const struct load *l, const struct load_cfg *cfg,
		      const struct load_pace *pace, const struct load_burst *burst,
		      uint64_t now, uint64_t limit);

/*
 * Ask the server at the other end of @q's socket where its buffer is, so
 * that the run can end with a zero-length WRITE that makes the requests
 * posted since the last signaled one report (a paced QP leaves some).
 * @size_bytes must fit in it. 0 or -errno with a message naming @peer.
 */
int load_qp_ask_mr(struct load_qp *q, size_t size_bytes, const char *peer, int timeout_ms,
		   char *err, size_t errlen);
/* The same, asked on socket @fd (an rdma_cm flow's side connection). */
int load_qp_ask_mr_on(struct load_qp *q, int fd, size_t size_bytes, const char *peer,
		      int timeout_ms, char *err, size_t errlen);

/* Check @c against the engine's limits; 0 or -EINVAL with a message. */
int load_cfg_check(const struct load_cfg *c, char *err, size_t errlen);

#endif
