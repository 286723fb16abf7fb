/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The NIC's completion clock (verbs.h, verbs_dev_nic_clock): what a
 * device says of the timestamps it writes in its CQEs, for lat's
 * --clock hw. Apart from verbs.c, which creates the CQs that carry them.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/errbuf.h"
#include "rdma/verbs.h"

int verbs_dev_nic_clock(struct verbs_dev *dev, struct clock_cal *cal, uint64_t *mask,
			char *err, size_t errlen)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_device_attr_ex a;
	int ret;

	ret = ibv_query_device_ex(dev->ctx, NULL, &a);
	if (ret)
		return errbuf_set(err, errlen, -ret, "%s: cannot query the device: %s", dev->name,
				  strerror(ret));
	if (!a.hca_core_clock || !a.completion_timestamp_mask)
		return errbuf_set(err, errlen, -EOPNOTSUPP,
				  "%s: no completion timestamps (hca_core_clock %" PRIu64
				  " kHz, completion_timestamp_mask %#" PRIx64 "): --clock hw needs "
				  "a NIC that stamps its CQEs", dev->name,
				  (uint64_t)a.hca_core_clock, (uint64_t)a.completion_timestamp_mask);
	ret = ibv_query_rt_values_ex(dev->ctx, &v);
	if (ret || !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return errbuf_set(err, errlen, -EOPNOTSUPP, "%s: cannot read the NIC's clock "
				  "(ibv_query_rt_values_ex: %s)", dev->name,
				  ret ? strerror(ret) : "no raw clock");
	*cal = (struct clock_cal){ .source = CLOCK_SRC_NIC,
				   .ticks_per_ns = (double)a.hca_core_clock / 1e6,
				   .method = "hca_core_clock" };
	*mask = a.completion_timestamp_mask;
	return 0;
}
