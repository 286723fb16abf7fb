/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * pma_probe sl|vl LID PORT [reset]: the 16 PerfMgt counters that
 * converge's switch_counters = pma:/pma-vl: reads (rdma/mad.c), printed
 * on one line; tests/ib/counters.sh runs it under ibsim-run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/mad.h"

int main(int argc, char **argv)
{
	uint64_t v[MAD_PMA_COUNTERS];
	char err[256];
	int i;

	if (argc < 4 || (strcmp(argv[1], "sl") && strcmp(argv[1], "vl"))) {
		fprintf(stderr, "usage: pma_probe sl|vl LID PORT [reset]\n");
		return 2;
	}
	if (mad_pma_read(NULL, 0, atoi(argv[2]), atoi(argv[3]),
			 strcmp(argv[1], "sl") ? MAD_PMA_RCV_DATA_VL : MAD_PMA_XMIT_DATA_SL,
			 argc > 4 && !strcmp(argv[4], "reset"), v, err, sizeof(err))) {
		fprintf(stderr, "pma_probe: %s\n", err);
		return 1;
	}
	for (i = 0; i < MAD_PMA_COUNTERS; i++)
		printf("%s%llu", i ? " " : "", (unsigned long long)v[i]);
	printf("\n");
	return 0;
}
