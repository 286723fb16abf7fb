/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* libFuzzer target: the ibnetdiscover reader, then routes and locate. */
#include "fuzz_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_topo(data, size, "ibnetdiscover", NULL);
}
