/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the MAD decoders as a live read uses them. The input
 * is the data of the SMP replies a port gives, 64 bytes each, in the
 * order rperf asks for them (rdma/mad.c: NodeInfo, SwitchInfo on a
 * switch's port 0, PortInfo, the VLArb blocks its caps call for, SL2VL),
 * after one byte that is the port number; an input that ends early is a
 * query that failed. A port with tables becomes a configuration as
 * `rperf analyze --port` makes it (qos/arb_source.c), and is analyzed
 * with an IB model (which one, its LID picks); the PerfMgt decoder takes the bytes after the
 * replies as a PortCounters reply.
 *
 * Each field must come out within its width (VLs 0-15, caps and limits
 * 0-255), and the models must take what the decoders give.
 */
#include <errno.h>
#include <stdio.h>

#include "qos/arb_source.h"
#include "fuzz.h"
#include "qos/arb.h"
#include "rdma/mad.h"

struct fuzz_mad_in {
	const uint8_t *data;
	size_t size, at;
};

/* The next reply from the input; -EIO once it is used up. */
static int fuzz_mad_query(void *ctx, uint8_t buf[MAD_SMP_DATA_BYTES], unsigned attr,
			  unsigned mod, const char *what, char *err, size_t errlen)
{
	struct fuzz_mad_in *in = ctx;

	(void)attr, (void)mod;
	if (in->size - in->at < MAD_SMP_DATA_BYTES) {
		snprintf(err, errlen, "%s: no reply", what);
		return -EIO;
	}
	memcpy(buf, in->data + in->at, MAD_SMP_DATA_BYTES);
	in->at += MAD_SMP_DATA_BYTES;
	return 0;
}

static void fuzz_mad_check(const struct mad_port_tables *t)
{
	int i;

	if (t->vl_cap > 15 || t->oper_vls > 15 || t->vl_high_limit > 255 ||
	    t->high_cap > 255 || t->low_cap > 255 || t->lid > 0xffff)
		abort();
	for (i = 0; i < MAD_VLARB_ENTRIES; i++)
		if (t->high[i].vl > 15 || t->low[i].vl > 15)
			abort();
	for (i = 0; i < MAD_NUM_SLS; i++)
		if (t->sl2vl[i] > 15)
			abort();
}

/* The port's configuration through an IB model, picked by its LID (one
 * a run: the packet model runs each table to its exact period). */
static void fuzz_mad_analyze(const struct mad_port_tables *t)
{
	static const enum arb_model models[] = { ARB_MODEL_IB_PACKET, ARB_MODEL_IB_FLUID,
						 ARB_MODEL_DTABLE };
	static struct arb_result res;
	struct arb_params params;
	struct arb_config cfg;

	arb_source_live_config(t, &cfg);
	arb_params_init(&params);
	params.runs = 2;	/* the tables, not the run length */
	params.model = models[(unsigned)t->lid % (sizeof(models) / sizeof(models[0]))];
	arb_analyze(&cfg, &params, &res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_mad_in in = { data, size, 1 };
	struct mad_port_addr addr = { .lid = 1 };
	uint64_t pma[MAD_PMA_COUNTERS];
	struct mad_port_tables t;
	uint8_t reply[MAD_SMP_DATA_BYTES] = { 0 };
	char err[256];

	if (size < 1)
		return 0;
	addr.port_num = data[0];
	if (!mad_port_tables_decode(fuzz_mad_query, &in, &addr, &t, err, sizeof(err))) {
		fuzz_mad_check(&t);
		/* as source_read_port() refuses a port without tables */
		if (!t.base_port0 && (t.high_cap || t.low_cap))
			fuzz_mad_analyze(&t);
	}
	memcpy(reply, data + in.at, size - in.at < sizeof(reply) ? size - in.at : sizeof(reply));
	mad_pma_decode(MAD_PMA_XMIT_DATA_SL, reply, pma);
	mad_pma_decode(MAD_PMA_RCV_DATA_VL, reply, pma);
	for (in.at = 0; in.at < MAD_PMA_COUNTERS; in.at++)
		if (pma[in.at] > MAD_PMA_SATURATED)
			abort();
	return 0;
}
