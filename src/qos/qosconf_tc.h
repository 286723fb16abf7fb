/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The tc reader's one entry point outside qosconf's dispatcher: the
 * per-band byte counters of an ETS port, which a converge step reads
 * from the switch while it runs. Declared here, beside the reader that
 * knows the format, so that the reader below the dispatcher never needs
 * the dispatcher's header (qosconf.h) and nothing above qos/ reaches the
 * dispatcher for a counter.
 */
#ifndef RPERF_QOSCONF_TC_H
#define RPERF_QOSCONF_TC_H

#include <stddef.h>
#include <stdint.h>

#include "qos/arb.h"

/*
 * Per-band byte counters of an ETS port from @text, the output of `tc -s
 * -j qdisc show dev PORT invisible`: the bytes each band's own qdisc
 * (parent MAJOR:N of the ets qdisc, band N-1) sent. bytes[] gets
 * *n_bands entries. 0, or -EINVAL with the reason in @err.
 */
int qosconf_tc_band_bytes(const char *text, uint64_t bytes[ARB_MAX_BANDS], int *n_bands,
			  char *err, size_t errlen);

#endif
