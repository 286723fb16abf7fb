/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Verbs plumbing: device and port discovery, GID choice, the port's rates
 * and what a run reports of it. RC QPs are verbs_qp.c, counters
 * verbs_counters.c. See verbs.h for the contracts.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "rdma/verbs.h"

/* ------------------------------------------------------------------ */
/* Device, port and GID                                                */
/* ------------------------------------------------------------------ */

/* @dev's best GID for @w into *@gid_index and *@gid: 0, or -errno with a
 * message naming the port. */
static int gid_pick(const struct verbs_dev *dev, const struct verbs_gid_want *w, int *gid_index,
		    union ibv_gid *gid, char *err, size_t errlen)
{
	size_t max = (size_t)dev->port_attr.gid_tbl_len * dev->dev_attr.phys_port_cnt;
	struct ibv_gid_entry best;
	int ret = verbs_gid_table_pick(dev->ctx, dev->port, max, w, &best);

	if (ret == -ENOENT)
		return errbuf_set(err, errlen, ret, "%s port %u: no RoCE v2 GID%s; give one with -x",
				  dev->name, dev->port, w->family == AF_INET ? " with an IPv4 address" :
				  w->family == AF_INET6 ? " with an IPv6 address" : "");
	if (ret)
		return errbuf_set(err, errlen, ret, "%s port %u: cannot read the GID table: %s",
				  dev->name, dev->port, strerror(-ret));
	*gid_index = (int)best.gid_index;
	*gid = best.gid;
	return 0;
}

int verbs_gid_on_vlan(const struct verbs_dev *dev, int gid_index)
{
	if (!dev->roce)
		return -EINVAL;
	return verbs_gid_netdev_is_vlan(dev->ctx, dev->port, gid_index);
}

int verbs_dev_pick_gid(struct verbs_dev *dev, const struct verbs_gid_want *w, char *err,
		       size_t errlen)
{
	if (!dev->roce)
		return 0;
	return gid_pick(dev, w, &dev->gid_index, &dev->gid, err, errlen);
}

static int gid_use_index(struct verbs_dev *dev, int idx, char *err, size_t errlen)
{
	struct ibv_gid_entry ent;
	int ret;

	if (idx >= dev->port_attr.gid_tbl_len)
		return errbuf_set(err, errlen, -EINVAL,
				  "%s port %u: GID index %d out of range (table has %d entries)",
				  dev->name, dev->port, idx, dev->port_attr.gid_tbl_len);
	ret = ibv_query_gid_ex(dev->ctx, dev->port, (uint32_t)idx, &ent, 0);
	if (ret)
		return errbuf_set(err, errlen, -EINVAL, "%s port %u: GID index %d is not in use",
				  dev->name, dev->port, idx);
	dev->gid_index = idx;
	dev->gid = ent.gid;
	return 0;
}

static const char *port_state_name(enum ibv_port_state st)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
					     "ACTIVE_DEFER" };

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "UNKNOWN";
}

static int dev_setup(struct verbs_dev *dev, int port, int gid_index, char *err, size_t errlen)
{
	int ret;

	snprintf(dev->name, sizeof(dev->name), "%s", ibv_get_device_name(dev->ctx->device));
	ret = ibv_query_device(dev->ctx, &dev->dev_attr);
	if (ret)
		return errbuf_set(err, errlen, -ret, "'%s': cannot query the device: %s",
				  dev->name, strerror(ret));
	if (port < 1 || port > dev->dev_attr.phys_port_cnt)
		return errbuf_set(err, errlen, -EINVAL, "'%s': no port %d (the device has %u)",
				  dev->name, port, dev->dev_attr.phys_port_cnt);
	dev->port = (uint8_t)port;
	ret = ibv_query_port(dev->ctx, dev->port, &dev->port_attr);
	if (ret)
		return errbuf_set(err, errlen, -ret, "%s port %d: cannot query the port: %s",
				  dev->name, port, strerror(ret));
	if (dev->port_attr.state != IBV_PORT_ACTIVE)
		return errbuf_set(err, errlen, -ENETDOWN, "%s port %d: port %s, not ACTIVE",
				  dev->name, port, port_state_name(dev->port_attr.state));
	dev->roce = dev->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	dev->gid_index = -1;
	dev->gid_given = gid_index >= 0;
	if (dev->roce)
		ret = gid_index < 0 ? verbs_dev_pick_gid(dev, &(struct verbs_gid_want){ 0 }, err,
						       errlen) :
				      gid_use_index(dev, gid_index, err, errlen);
	else if (gid_index >= 0)
		ret = gid_use_index(dev, gid_index, err, errlen);	/* GRH from this GID */
	else if (ibv_query_gid(dev->ctx, dev->port, 0, &dev->gid))
		memset(&dev->gid, 0, sizeof(dev->gid));	/* the port GID, for peers that route */
	if (!ret && !dev->roce && !dev->port_attr.lid)
		ret = errbuf_set(err, errlen, -ENETDOWN, "%s port %d: no LID assigned (is a subnet manager running?)",
				 dev->name, port);
	if (ret)
		return ret;
	dev->pkey = verbs_pkey_at(dev->ctx, dev->port, 0);
	dev->pd = ibv_alloc_pd(dev->ctx);
	if (!dev->pd)
		return errbuf_set(err, errlen, -ENOMEM, "%s: cannot allocate a protection domain",
				  dev->name);
	return 0;
}

/*
 * Why /dev/infiniband gives this user nothing, for the no-device message:
 * absent (no RDMA driver loaded), or a uverbs node this user cannot open
 * (permission), or "" when neither explains it.
 */
static const char *dev_node_why(char *buf, size_t cap)
{
	struct dirent *e;
	DIR *d = opendir("/dev/infiniband");

	buf[0] = '\0';
	if (!d)
		return errno == EACCES ? "; this user may not read /dev/infiniband" :
		       "; no /dev/infiniband: no RDMA driver is loaded";
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		snprintf(buf, cap, "/dev/infiniband/%.32s", e->d_name);
		if (access(buf, R_OK | W_OK)) {
			snprintf(buf, cap, "; /dev/infiniband/%.32s: %s for this user (see its "
				 "group, often rdma)", e->d_name, strerror(errno));
			closedir(d);
			return buf;
		}
		buf[0] = '\0';
	}
	closedir(d);
	return buf;
}

int verbs_no_device(char *err, size_t errlen)
{
	char why[160];

	return errbuf_set(err, errlen, -ENXIO, "no RDMA device found%s",
			  dev_node_why(why, sizeof(why)));
}

const char *const verbs_no_device_hints[] = {
	"an RDMA NIC needs rdma-core and ibverbs-providers installed and its driver loaded",
	"(mlx5_ib: ConnectX, irdma: Intel E810, bnxt_re: Broadcom); 'ibv_devinfo' lists it,",
	"its port PORT_ACTIVE; 'ulimit -l' must allow pinning the buffers (e.g. unlimited)",
	"no RDMA NIC: Soft-RoCE on an Ethernet port, 'rdma link add rxe0 type rxe netdev IFACE'",
	NULL,
};

int verbs_check_devices(char *err, size_t errlen)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	return list && n > 0 ? 0 : verbs_no_device(err, errlen);
}

static struct ibv_device *dev_find(struct ibv_device **list, int n, const char *name,
				   char *err, size_t errlen)
{
	char avail[256] = "";
	size_t used = 0;
	int i;

	if (n <= 0) {
		verbs_no_device(err, errlen);
		return NULL;
	}
	if (!name)
		return list[0];
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
		if (used < sizeof(avail))
			used += (size_t)snprintf(avail + used, sizeof(avail) - used, "%s%s",
						 i ? ", " : "", ibv_get_device_name(list[i]));
	}
	errbuf_set(err, errlen, -ENODEV, "unknown device '%s' (available: %s)", name, avail);
	return NULL;
}

int verbs_dev_open(struct verbs_dev *dev, const char *name, int port,
		   int gid_index, char *err, size_t errlen)
{
	struct ibv_device **list;
	struct ibv_device *d;
	int n = 0, ret;

	memset(dev, 0, sizeof(*dev));
	list = ibv_get_device_list(&n);
	if (!list)
		return verbs_no_device(err, errlen);
	d = dev_find(list, n, name, err, errlen);
	if (!d) {
		ibv_free_device_list(list);
		return n > 0 ? -ENODEV : -ENXIO;
	}
	dev->ctx = ibv_open_device(d);
	if (!dev->ctx) {
		ret = errbuf_set(err, errlen, -errno, "'%s': cannot open: %s",
				 ibv_get_device_name(d), strerror(errno));
		ibv_free_device_list(list);
		return ret;
	}
	ibv_free_device_list(list);
	dev->own_ctx = true;
	ret = dev_setup(dev, port, gid_index, err, errlen);
	if (ret)
		verbs_dev_close(dev);
	return ret;
}

int verbs_dev_adopt(struct verbs_dev *dev, struct ibv_context *ctx, int port,
		    int gid_index, char *err, size_t errlen)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->ctx = ctx;
	ret = dev_setup(dev, port, gid_index, err, errlen);
	if (ret)
		verbs_dev_close(dev);
	return ret;
}

uint16_t verbs_pkey_at(struct ibv_context *ctx, uint8_t port, uint16_t index)
{
	__be16 pkey = 0;

	if (ibv_query_pkey(ctx, port, index, &pkey) || !(be16toh(pkey) & 0x7fff))
		return 0;
	return be16toh(pkey);
}

int verbs_dev_use_pkey(struct verbs_dev *dev, uint16_t index, char *err, size_t errlen)
{
	uint16_t pkey;

	if (index >= dev->port_attr.pkey_tbl_len)
		return errbuf_set(err, errlen, -EINVAL,
				  "%s port %u: P_Key index %u out of range (table has %u entries)",
				  dev->name, dev->port, index, dev->port_attr.pkey_tbl_len);
	pkey = verbs_pkey_at(dev->ctx, dev->port, index);
	if (!pkey)
		return errbuf_set(err, errlen, -EINVAL, "%s port %u: P_Key index %u is empty",
				  dev->name, dev->port, index);
	dev->pkey_index = index;
	dev->pkey = pkey;
	return 0;
}

void verbs_dev_close(struct verbs_dev *dev)
{
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	if (dev->ctx && dev->own_ctx)
		ibv_close_device(dev->ctx);
	memset(dev, 0, sizeof(*dev));
}

size_t verbs_dev_max_msg_bytes(const struct verbs_dev *dev)
{
	return dev->port_attr.max_msg_sz;
}

int verbs_qp_pick_gid(struct verbs_qp *q, const struct verbs_gid_want *w, char *err,
		      size_t errlen)
{
	if (!q->dev->roce || q->dev->gid_given)
		return 0;
	return gid_pick(q->dev, w, &q->gid_index, &q->gid, err, errlen);
}

bool verbs_dev_is_soft(const struct verbs_dev *dev)
{
	/* rxe reports vendor 0xffffff; siw 0x626d74 ("bmt"). */
	return dev->dev_attr.vendor_id == 0xffffff || dev->dev_attr.vendor_id == 0x626d74;
}

/* ------------------------------------------------------------------ */
/* Paths, rates and the run's environment                              */
/* ------------------------------------------------------------------ */

const char *verbs_path_source_name(uint8_t source)
{
	static const char *const names[] = { "default", "option", "path_record" };

	return source < sizeof(names) / sizeof(names[0]) ? names[source] : "?";
}

double verbs_path_give_up_ns(const struct verbs_path *p)
{
	return (p->retry + 1.0) * 4096.0 * (double)(1ull << p->timeout);
}

const char *verbs_mtu_str(enum ibv_mtu mtu)
{
	static const char *const s[] = { "?", "256", "512", "1024", "2048", "4096" };

	return (unsigned)mtu < sizeof(s) / sizeof(s[0]) ? s[mtu] : "?";
}

/* PortInfo's active width code -> lanes; 0: unknown. */
static int verbs_lanes(uint8_t width)
{
	switch (width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

double verbs_lane_data_gbps(uint32_t speed, bool roce)
{
	switch (speed) {
	case 1: return roce ? 2.5 : 2;		/* SDR: 8b/10b on IB */
	case 2: return roce ? 5 : 4;		/* DDR */
	case 4: return roce ? 10 : 8;		/* QDR; 10GbE, 40GbE 4x */
	case 8: return 10;			/* FDR10: 64b/66b */
	case 16: return roce ? 14 : 14.0625 * 64 / 66;	/* FDR: 13.64 */
	case 32: return 25;			/* EDR */
	case 64: return 50;			/* HDR */
	case 128: return 100;			/* NDR */
	case 256: return 200;			/* XDR */
	default: return 0;
	}
}

uint32_t verbs_speed_from_rate_str(const char *rate)
{
	static const struct { const char *name; uint32_t code; } t[] = {
		{ "SDR", 1 }, { "DDR", 2 }, { "QDR", 4 }, { "FDR10", 8 }, { "FDR", 16 },
		{ "EDR", 32 }, { "HDR", 64 }, { "NDR", 128 }, { "XDR", 256 },
	};
	const char *p = strchr(rate, '(');
	size_t i, n;

	/* "800 Gb/sec (4X XDR)": the word after the width. */
	p = p ? strchr(p, ' ') : NULL;
	if (!p)
		return 0;
	p++;
	n = strcspn(p, ")\n");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].name) == n && !strncmp(p, t[i].name, n))
			return t[i].code;
	return 0;
}

/* The port's speed code; from sysfs when verbs has none for it (XDR needs
 * the extended field that older rdma-core lacks). */
static uint32_t port_speed(const struct verbs_dev *dev)
{
	char path[160], line[64] = "";
	FILE *f;

	if (verbs_lane_data_gbps(dev->port_attr.active_speed, dev->roce) > 0)
		return dev->port_attr.active_speed;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/rate", dev->name,
		 dev->port);
	f = fopen(path, "r");
	if (f && !fgets(line, sizeof(line), f))
		line[0] = '\0';
	if (f)
		fclose(f);
	return verbs_speed_from_rate_str(line);
}

void verbs_env(const struct verbs_dev *dev, struct run_env *e)
{
	char path[128], line[32];
	FILE *f;

	snprintf(e->device, sizeof(e->device), "%s", dev->name);
	snprintf(e->fw_ver, sizeof(e->fw_ver), "%s", dev->dev_attr.fw_ver);
	snprintf(e->link_layer, sizeof(e->link_layer), "%s", dev->roce ? "Ethernet" : "InfiniBand");
	e->port_gbps = verbs_lanes(dev->port_attr.active_width) *
		       verbs_lane_data_gbps(port_speed(dev), dev->roce);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node", dev->name);
	f = fopen(path, "r");
	e->device_numa = -1;
	if (f && fgets(line, sizeof(line), f))
		e->device_numa = atoi(line);
	if (f)
		fclose(f);
}
