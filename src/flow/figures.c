/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Ticks into figures (see figures.h): every figure's time unit comes
 * from here, never from a division by the clock's rate elsewhere.
 */
#include "flow/figures.h"

double figures_ns(const struct clock_cal *clk, double ticks)
{
	return clock_ticks_to_ns(clk, ticks);
}

double figures_s(const struct clock_cal *clk, double ticks)
{
	return clock_ticks_to_ns(clk, ticks) / 1e9;
}

int figures_hist_add_ns(struct hist *dst_ns, const struct hist *src, const struct clock_cal *clk)
{
	return hist_merge_scaled(dst_ns, src, 1.0 / clk->ticks_per_ns);
}

int figures_sketch_add_ns(struct sketch **dst_ns, const struct hist *src,
			  const struct clock_cal *clk)
{
	return sketch_add_hist(dst_ns, src, 1.0 / clk->ticks_per_ns);
}

double figures_tick_ratio(const struct clock_cal *to, const struct clock_cal *from)
{
	return to->ticks_per_ns / from->ticks_per_ns;
}
