/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The fabric's management plane, read over SMP MADs (libibmad/libibumad):
 * a port's PortInfo limits, its SL2VL row and both VLArb tables, as raw
 * numbers in plain structs. Apart from the verbs code because it needs
 * umad access (root, or read/write on /dev/infiniband/umad*), not a QP;
 * the qos readers turn what it returns into an arbitration description.
 */
#ifndef RPERF_RDMA_MAD_H
#define RPERF_RDMA_MAD_H

#include <stddef.h>
#include <stdint.h>

#define MAD_VLARB_ENTRIES	64
#define MAD_VLARB_BLOCK		32	/* entries in one VLArb attribute */
#define MAD_NUM_SLS		16
#define MAD_SMP_DATA_BYTES	64	/* an SMP's data (IB_SMP_DATA_SIZE) */

/* Where the port is: a LID and port number, or a directed route. */
struct mad_port_addr {
	int lid;			/* 0: use dr_path */
	const char *dr_path;		/* "0,1,3" (smpquery -D form) */
	int port_num;
	int in_port;			/* switch SL2VL row; 0 by default */
};

struct mad_vlarb_entry {
	uint8_t vl;
	uint8_t weight;
};

struct mad_port_tables {
	int lid;			/* the port's node's LID (PortInfo of port 0 on a switch) */
	int port_num;
	int is_switch;
	int base_port0;			/* a switch's port 0 without enhanced port 0: no VLArb tables */
	int vl_cap;			/* PortInfo codes: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14 */
	int oper_vls;
	int vl_high_limit;
	int high_cap;			/* VLArbHighCap */
	int low_cap;			/* VLArbLowCap */
	struct mad_vlarb_entry high[MAD_VLARB_ENTRIES];
	struct mad_vlarb_entry low[MAD_VLARB_ENTRIES];
	uint8_t sl2vl[MAD_NUM_SLS];
};

/*
 * Read @addr's tables through the first umad port (or @ca_name:@ca_port
 * when @ca_name is not NULL). Returns 0, or -errno with the reason in @err.
 */
int mad_read_port_tables(const char *ca_name, int ca_port,
			 const struct mad_port_addr *addr,
			 struct mad_port_tables *out, char *err, size_t errlen);

/*
 * One SMP Get: attribute @attr with modifier @mod of the port the context
 * @ctx names, its reply's data into @buf (@what names the attribute in
 * messages). 0, or -errno with the reason in @err.
 */
typedef int (*mad_smp_fn)(void *ctx, uint8_t buf[MAD_SMP_DATA_BYTES], unsigned attr,
			  unsigned mod, const char *what, char *err, size_t errlen);

/*
 * The tables of @addr's port from the replies @query gives, asked for in
 * the order and with the modifiers a live read uses (NodeInfo, SwitchInfo
 * on a switch's port 0, PortInfo, the VLArb blocks its caps call for,
 * SL2VL), into @out. Every reply is taken as hostile: each field is
 * masked to its width. 0, or @query's error.
 */
int mad_port_tables_decode(mad_smp_fn query, void *ctx, const struct mad_port_addr *addr,
			   struct mad_port_tables *out, char *err, size_t errlen);

/*
 * PerfMgt (GMP) counters of one port, per SL or per VL, LID-routed:
 * - PortXmitDataSL (optional; IBA 1.2.1): data the port transmitted on
 *   each SL, in 4-octet words;
 * - PortVLOpData (optional): data the port received on each VL, read as
 *   perfquery --vlopdata reads it (the request's OpCode left 0).
 * Both are 32-bit and stop at all ones.
 */
#define MAD_PMA_COUNTERS	16
#define MAD_PMA_SATURATED	0xffffffffu

enum mad_pma_counter {
	MAD_PMA_XMIT_DATA_SL,
	MAD_PMA_RCV_DATA_VL,
};

const char *mad_pma_counter_name(enum mad_pma_counter which);

/* The 16 counters of @which from a PerfMgt reply's data @data. */
void mad_pma_decode(enum mad_pma_counter which, const uint8_t *data,
		    uint64_t out[MAD_PMA_COUNTERS]);

/*
 * Read @which at @lid port @port_num through the first umad port (or
 * @ca_name:@ca_port); with @reset, clear them (a PerformanceSet of all
 * 16, as perfquery -R does) and return what the port then holds. Returns
 * 0, or -errno with the reason in @err.
 */
int mad_pma_read(const char *ca_name, int ca_port, int lid, int port_num,
		 enum mad_pma_counter which, int reset,
		 uint64_t out[MAD_PMA_COUNTERS], char *err, size_t errlen);

#endif
