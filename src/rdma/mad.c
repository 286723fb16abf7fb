/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * SMP reads of a port's arbitration tables (see mad.h): PortInfo, the
 * SL2VL table and the four VLArb blocks, decoded field by field with
 * libibmad. No text from any tool is parsed here. The decoding takes its
 * replies from a function, so that it runs the same on a live fabric and
 * on a fuzzer's bytes.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "base/errbuf.h"
#include "rdma/mad.h"

#define MAD_TIMEOUT_MS		1000

struct mad_ctx {
	struct ibmad_port *port;
	ib_portid_t id;
};

/* The live mad_smp_fn: an SMP Get through libibmad. */
static int mad_query(void *ctx, uint8_t buf[MAD_SMP_DATA_BYTES], unsigned attr, unsigned mod,
		     const char *what, char *err, size_t errlen)
{
	struct mad_ctx *c = ctx;

	memset(buf, 0, MAD_SMP_DATA_BYTES);
	if (!smp_query_via(buf, &c->id, attr, mod, MAD_TIMEOUT_MS, c->port))
		return errbuf_set(err, errlen, -EIO, "%s query to %s failed", what,
				  portid2str(&c->id));
	return 0;
}

static int mad_portinfo(mad_smp_fn query, void *ctx, int port_num,
			struct mad_port_tables *t, char *err, size_t errlen)
{
	uint8_t buf[MAD_SMP_DATA_BYTES];
	int rc = query(ctx, buf, IB_ATTR_NODE_INFO, 0, "NodeInfo", err, errlen);

	if (rc)
		return rc;
	t->is_switch = mad_get_field(buf, 0, IB_NODE_TYPE_F) == IB_NODE_SWITCH;
	if (t->is_switch && !port_num) {
		rc = query(ctx, buf, IB_ATTR_SWITCH_INFO, 0, "SwitchInfo", err, errlen);
		if (rc)
			return rc;
		t->base_port0 = !mad_get_field(buf, 0, IB_SW_ENHANCED_PORT0_F);
	}
	rc = query(ctx, buf, IB_ATTR_PORT_INFO, (unsigned)port_num, "PortInfo", err, errlen);
	if (rc)
		return rc;
	t->port_num = port_num;
	t->vl_cap = mad_get_field(buf, 0, IB_PORT_VL_CAP_F);
	t->oper_vls = mad_get_field(buf, 0, IB_PORT_OPER_VLS_F);
	t->vl_high_limit = mad_get_field(buf, 0, IB_PORT_VL_HIGH_LIMIT_F);
	t->high_cap = mad_get_field(buf, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	t->low_cap = mad_get_field(buf, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	t->lid = mad_get_field(buf, 0, IB_PORT_LID_F);
	return 0;
}

/* VLArb blocks 1-2 are the low table, 3-4 the high table. */
static int mad_vlarb(mad_smp_fn query, void *ctx, int port_num, int block,
		     struct mad_vlarb_entry *e, char *err, size_t errlen)
{
	uint8_t buf[MAD_SMP_DATA_BYTES];
	int i, rc;

	rc = query(ctx, buf, IB_ATTR_VL_ARBITRATION, (unsigned)(block << 16 | port_num),
		   "VLArbitration", err, errlen);
	for (i = 0; !rc && i < MAD_VLARB_BLOCK; i++) {
		e[i].vl = buf[2 * i] & 0xf;
		e[i].weight = buf[2 * i + 1];
	}
	return rc;
}

static int mad_tables(mad_smp_fn query, void *ctx, const struct mad_port_addr *a,
		      struct mad_port_tables *t, char *err, size_t errlen)
{
	uint8_t buf[MAD_SMP_DATA_BYTES];
	unsigned mod = t->is_switch ? (unsigned)(a->in_port << 8 | a->port_num) : 0;
	int rc = 0, sl;

	if (t->low_cap)
		rc = mad_vlarb(query, ctx, a->port_num, 1, t->low, err, errlen);
	if (!rc && t->low_cap > MAD_VLARB_BLOCK)
		rc = mad_vlarb(query, ctx, a->port_num, 2, t->low + MAD_VLARB_BLOCK, err, errlen);
	if (!rc && t->high_cap)
		rc = mad_vlarb(query, ctx, a->port_num, 3, t->high, err, errlen);
	if (!rc && t->high_cap > MAD_VLARB_BLOCK)
		rc = mad_vlarb(query, ctx, a->port_num, 4, t->high + MAD_VLARB_BLOCK, err, errlen);
	if (!rc)
		rc = query(ctx, buf, IB_ATTR_SLVL_TABLE, mod, "SL2VL", err, errlen);
	for (sl = 0; !rc && sl < MAD_NUM_SLS; sl++)
		t->sl2vl[sl] = sl % 2 ? buf[sl / 2] & 0xf : buf[sl / 2] >> 4;
	return rc;
}

int mad_port_tables_decode(mad_smp_fn query, void *ctx, const struct mad_port_addr *addr,
			   struct mad_port_tables *out, char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = mad_portinfo(query, ctx, addr->port_num, out, err, errlen);
	if (!rc && !out->base_port0)
		rc = mad_tables(query, ctx, addr, out, err, errlen);
	return rc;
}

int mad_read_port_tables(const char *ca_name, int ca_port,
			 const struct mad_port_addr *addr,
			 struct mad_port_tables *out, char *err, size_t errlen)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct mad_ctx c = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	c.port = mad_rpc_open_port((char *)ca_name, ca_port, classes, 2);
	if (!c.port)
		return errbuf_set(err, errlen, -EACCES, "cannot open the umad port "
				  "(the ib_umad module, and root or read/write "
				  "access to /dev/infiniband/umad*, are needed)");
	if (addr->lid)
		ib_portid_set(&c.id, addr->lid, 0, 0);
	if (!addr->lid && (!addr->dr_path ||
			   str2drpath(&c.id.drpath, (char *)addr->dr_path, 0, 0) < 0))
		rc = errbuf_set(err, errlen, -EINVAL, "bad directed route '%s'",
				addr->dr_path ? addr->dr_path : "");
	else
		rc = mad_port_tables_decode(mad_query, &c, addr, out, err, errlen);
	mad_rpc_close_port(c.port);
	return rc;
}

const char *mad_pma_counter_name(enum mad_pma_counter which)
{
	return which == MAD_PMA_XMIT_DATA_SL ? "PortXmitDataSL" : "PortVLOpData";
}

void mad_pma_decode(enum mad_pma_counter which, const uint8_t *data,
		    uint64_t out[MAD_PMA_COUNTERS])
{
	int first = which == MAD_PMA_XMIT_DATA_SL ? IB_PC_XMT_DATA_SL_FIRST_F :
						    IB_PC_PORT_VL_OP_DATA_FIRST_F;
	int i;

	for (i = 0; i < MAD_PMA_COUNTERS; i++)
		out[i] = mad_get_field((void *)data, 0, (enum MAD_FIELDS)(first + i));
}

int mad_pma_read(const char *ca_name, int ca_port, int lid, int port_num,
		 enum mad_pma_counter which, int reset,
		 uint64_t out[MAD_PMA_COUNTERS], char *err, size_t errlen)
{
	int classes[] = { IB_PERFORMANCE_CLASS };
	unsigned attr = which == MAD_PMA_XMIT_DATA_SL ? IB_GSI_PORT_XMIT_DATA_SL :
							IB_GSI_PORT_PORT_VL_OP_DATA;
	uint8_t buf[IB_MAD_SIZE];
	struct ibmad_port *port;
	ib_portid_t id = { 0 };
	uint8_t *r;

	port = mad_rpc_open_port((char *)ca_name, ca_port, classes, 1);
	if (!port)
		return errbuf_set(err, errlen, -EACCES, "cannot open the umad port "
				  "(the ib_umad module, and root or read/write "
				  "access to /dev/infiniband/umad*, are needed)");
	ib_portid_set(&id, lid, 0, 0);
	memset(buf, 0, sizeof(buf));
	r = reset ? performance_reset_via(buf, &id, port_num, 0xffff, MAD_TIMEOUT_MS, attr, port) :
		    pma_query_via(buf, &id, port_num, MAD_TIMEOUT_MS, attr, port);
	mad_rpc_close_port(port);
	if (!r)
		return errbuf_set(err, errlen, -EIO, "%s %s to lid %d port %d failed (the "
				  "attribute is optional: does the port's PMA support it?)",
				  mad_pma_counter_name(which), reset ? "reset" : "query",
				  lid, port_num);
	mad_pma_decode(which, r, out);
	return 0;
}
