/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The warnings of an InfiniBand arbitration configuration (arb_ib_warn.c),
 * for arb_ib.c's analysis.
 */
#ifndef RPERF_QOS_ARB_IB_WARN_H
#define RPERF_QOS_ARB_IB_WARN_H

#include "qos/arb_types.h"

/*
 * Add to @res the warnings @cfg deserves under @params: @packet_bytes per
 * queue, @unlimited the same port with the limit ignored (NULL: none).
 */
void arb_ib_warnings(const struct arb_config *cfg, const struct arb_params *params,
		     const uint32_t *packet_bytes, const struct arb_result *unlimited,
		     struct arb_result *res);

#endif
