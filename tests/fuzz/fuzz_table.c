/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* libFuzzer target: the reader of the plain high/low VLArb table. */
#include "fuzz_qosconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_qosconf(data, size, QOSCONF_FORMAT_TABLE);
}
