/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The result of one flow: see result.h. */
#include <errno.h>
#include <string.h>

#include "engine/result.h"

int flow_result_init(struct flow_result *r, size_t size_bytes)
{
	memset(r, 0, sizeof(*r));
	r->size_bytes = size_bytes;
	r->rx_rnr_naks_sent = r->rx_out_of_buffer = -1;
	r->rtt = hist_new();
	r->wire = hist_new();
	r->loop = hist_new();
	r->rtt_neg = hist_new();
	if (r->rtt && r->wire && r->loop && r->rtt_neg)
		return 0;
	flow_result_release(r);
	return -ENOMEM;
}

void flow_result_release(struct flow_result *r)
{
	hist_free(r->rtt);
	hist_free(r->wire);
	hist_free(r->loop);
	hist_free(r->rtt_neg);
	hist_free(r->rtt_nic);
	memset(r, 0, sizeof(*r));
}

int flow_result_init_nic(struct flow_result *r)
{
	r->rtt_nic = hist_new();
	return r->rtt_nic ? 0 : -ENOMEM;
}

bool flow_result_order_bias_ticks(const struct flow_result *r, double *bias_ticks)
{
	double wire_first, loop_first;

	if (!r->order_n[0] || !r->order_n[1])
		return false;
	wire_first = r->order_rtt_sum_ticks[0] / (double)r->order_n[0];
	loop_first = r->order_rtt_sum_ticks[1] / (double)r->order_n[1];
	*bias_ticks = wire_first - loop_first;
	return true;
}

int flow_result_merge(struct flow_result *dst, const struct flow_result *src)
{
	int ret;

	ret = hist_merge(dst->rtt, src->rtt);
	if (!ret)
		ret = hist_merge(dst->wire, src->wire);
	if (!ret)
		ret = hist_merge(dst->loop, src->loop);
	if (!ret)
		ret = hist_merge(dst->rtt_neg, src->rtt_neg);
	if (!ret && dst->rtt_nic && src->rtt_nic)
		ret = hist_merge(dst->rtt_nic, src->rtt_nic);
	if (ret)
		return ret;
	dst->nic_loop_after_wire += src->nic_loop_after_wire;
	dst->samples += src->samples;
	dst->msgs += src->msgs;
	dst->bytes += src->bytes;
	dst->loop_after_wire += src->loop_after_wire;
	for (int i = 0; i < 2; i++) {
		dst->order_rtt_sum_ticks[i] += src->order_rtt_sum_ticks[i];
		dst->order_n[i] += src->order_n[i];
	}
	dst->retrans += src->retrans;
	/* Flows of one run overlap in time: the longest is the run's. */
	if (src->elapsed_ticks > dst->elapsed_ticks)
		dst->elapsed_ticks = src->elapsed_ticks;
	dst->rx_valid = dst->rx_valid && src->rx_valid;
	dst->rx_msgs += src->rx_msgs;
	dst->rx_bytes += src->rx_bytes;
	/* Port counters, as the receivers saw them: flows to one port overlap. */
	if (src->rx_rnr_naks_sent > dst->rx_rnr_naks_sent)
		dst->rx_rnr_naks_sent = src->rx_rnr_naks_sent;
	if (src->rx_out_of_buffer > dst->rx_out_of_buffer)
		dst->rx_out_of_buffer = src->rx_out_of_buffer;
	if (!dst->status && src->status) {
		dst->status = src->status;
		memcpy(dst->error, src->error, sizeof(dst->error));
	}
	return 0;
}
