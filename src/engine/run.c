/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the lat and bw runs and a source share (run.h): the device, clock
 * and path of a run, the size sweep, and the probe's and load's settings
 * every source runs them with.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/client.h"
#include "engine/run.h"

size_t run_sweep_sizes(size_t max_bytes, size_t *sizes, size_t cap)
{
	size_t n = 0, s;

	for (s = 2; s <= RUN_SWEEP_MAX_BYTES && s <= max_bytes && n < cap; s <<= 1)
		sizes[n++] = s;
	return n;
}

void run_load_cfg_init(struct load_cfg *cfg, const struct flow_spec *spec,
		       const struct clock_cal *clk, const struct verbs_path *path)
{
	cfg->size_bytes = spec->size_bytes;
	cfg->rate_bps = flow_spec_qp_rate_bps(spec);
	cfg->on_ticks = clock_ns_to_ticks(clk, (double)spec->on_ns);
	cfg->off_ticks = clock_ns_to_ticks(clk, (double)spec->off_ns);
	cfg->drain_timeout_ticks = client_completion_timeout_ticks(clk, path);
	cfg->clk = clk;
}

void run_probe_cfg_init(struct probe_cfg *cfg, size_t size_bytes, const struct clock_cal *clk,
			const struct verbs_path *path)
{
	cfg->size_bytes = size_bytes;
	cfg->sample_timeout_ticks = client_completion_timeout_ticks(clk, path);
	cfg->clk = clk;
}

int run_common_prepare(struct run_common *c, const struct flow_opts *flow, char *err,
		       size_t errlen)
{
	int ret;

	c->flow = flow;
	ret = clock_init(flow->clock, &c->clk, err, errlen);
	/* --clock hw|both chose no host clock: the TSC where it is invariant,
	 * else monotonic, saying so (it only times the interval between the
	 * posts, and with both the host's RTT). */
	if (ret == -ENOTSUP && flow->rtt_clock != FLOW_RTT_HOST) {
		ret = clock_init(CLOCK_SRC_MONOTONIC, &c->clk, err, errlen);
		c->clk.fallback = "the TSC is not invariant: the host's side of --clock hw or both "
				  "is timed with monotonic";
	}
	if (ret)
		return ret;
	c->path = client_path(flow);
	ret = client_open_device(flow, &c->dev, &c->cm0, err, errlen);
	if (!ret) {
		client_path_from_route(flow, &c->cm0, &c->path);
		c->n_warnings = client_path_warnings(&c->path, c->dev.roce,
						     verbs_gid_on_vlan(&c->dev, c->dev.gid_index),
						     c->warnings, 2);
	}
	run_env_host(&c->env);
	if (!ret)
		verbs_env(&c->dev, &c->env);
	return ret;
}

void run_common_release(struct run_common *c)
{
	verbs_dev_close(&c->dev);
	if (c->cm0.id || c->cm0.ch)
		conn_cm_close(&c->cm0);
}
