/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * figures: the one place where a run's clock ticks become the figures
 * that are judged, sent and printed (ns, s). The engines count in ticks
 * of their calibrated clock; the criteria, the agent's result message,
 * the coordinator's class histograms, bw's interval sums and the report
 * all take their figures from here, so that a tick is turned into time
 * by one rule. Pacing and timeouts (how long to wait or sleep) are not
 * figures: the engines keep converting those with base/clock themselves.
 */
#ifndef RPERF_FIGURES_H
#define RPERF_FIGURES_H

#include "base/clock.h"
#include "base/hist.h"
#include "base/sketch.h"

/* @ticks of @clk (a count, a mean or a signed difference) in ns. */
double figures_ns(const struct clock_cal *clk, double ticks);

/* How many ticks of @to make one of @from (a NIC's clock against the host's). */
double figures_tick_ratio(const struct clock_cal *to, const struct clock_cal *from);

/* @ticks of @clk in seconds. */
double figures_s(const struct clock_cal *clk, double ticks);

/*
 * Add @src, a histogram in ticks of @clk, into @dst_ns, a histogram in
 * ns (each bucket scaled, see hist_merge_scaled). 0, or -EINVAL for a
 * clock without a rate, -ENOMEM.
 */
int figures_hist_add_ns(struct hist *dst_ns, const struct hist *src, const struct clock_cal *clk);
/* The same into a sketch in ns, *@dst_ns (allocated when NULL): see
 * sketch_add_hist(). 0, -EINVAL, -ENOMEM, -EOVERFLOW. */
int figures_sketch_add_ns(struct sketch **dst_ns, const struct hist *src,
			  const struct clock_cal *clk);

#endif
