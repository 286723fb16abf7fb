/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the lldpcli -f json reader (the local chassis from
 * the input, else named "local"), then routes and locate.
 */
#include "fuzz_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_topo(data, size, "lldp", size % 2 ? "local" : NULL);
}
