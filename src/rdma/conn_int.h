/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What conn.c (TCP) lends conn_cm.c (rdma_cm): the one clock and the one
 * bounded wait both paths time their steps with.
 */
#ifndef RPERF_CONN_INT_H
#define RPERF_CONN_INT_H

#include <stdint.h>

/* CLOCK_MONOTONIC in ms. */
int64_t conn_now_ms(void);
/* Wait for @events on @fd until @deadline_ms (past it: look once, not wait):
 * 0, -ETIMEDOUT or -errno. */
int conn_wait_fd(int fd, short events, int64_t deadline_ms);

#endif
