/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* libFuzzer target: the reader of opensm.conf's qos_* keys. */
#include "fuzz_qosconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_qosconf(data, size, QOSCONF_FORMAT_OPENSM);
}
