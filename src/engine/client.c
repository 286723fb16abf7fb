/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The client side every traffic command shares: see client.h.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/client.h"
#include "base/clock.h"
#include "base/errbuf.h"
#include "base/pin.h"

struct verbs_path client_spec_path(const struct flow_spec *spec, uint8_t timeout, uint8_t retry)
{
	return (struct verbs_path){ .sl = spec->sl, .tclass = spec->tclass, .timeout = timeout,
				    .retry = retry };
}

struct verbs_path client_path(const struct flow_opts *o)
{
	struct verbs_path p = client_spec_path(&o->spec, o->qp_timeout, o->retry);

	p.sl_source = o->sl_given ? VERBS_FROM_OPTION : VERBS_FROM_DEFAULT;
	p.tclass_source = o->tclass_given ? VERBS_FROM_OPTION : VERBS_FROM_DEFAULT;
	return p;
}

size_t client_path_warnings(const struct verbs_path *p, bool roce, int vlan,
			    char (*out)[CLIENT_WARNING_BYTES], size_t max)
{
	size_t n = 0;

	if (!roce)
		return 0;
	if (n < max && p->sl_source == VERBS_FROM_OPTION && vlan == 0)
		snprintf(out[n++], CLIENT_WARNING_BYTES,
			 "--sl %u does nothing on RoCE without a VLAN (no PCP to carry it): "
			 "the class is the traffic class's, DSCP %u (--tclass %u)",
			 p->sl, p->tclass >> 2, p->tclass);
	if (n < max && p->tclass_source == VERBS_FROM_OPTION && p->tclass == 0)
		snprintf(out[n++], CLIENT_WARNING_BYTES,
			 "--tclass 0 on RoCE: packets go in DSCP 0, usually the lossy default "
			 "class; --tclass is DSCP x 4 (DSCP 26: --tclass 104)");
	return n;
}

void client_path_from_record(struct verbs_path *p, const struct ibv_sa_path_rec *rec)
{
	if (!rec)
		return;
	if (p->sl_source != VERBS_FROM_OPTION && rec->sl <= 15) {
		p->sl = rec->sl;
		p->sl_source = VERBS_FROM_PATH_RECORD;
	}
	if (p->tclass_source != VERBS_FROM_OPTION) {
		p->tclass = rec->traffic_class;
		p->tclass_source = VERBS_FROM_PATH_RECORD;
	}
}

void client_path_from_route(const struct flow_opts *o, const struct conn_cm *cm,
			    struct verbs_path *p)
{
	if (o->rdma_cm && cm->id && cm->id->route.num_paths > 0)
		client_path_from_record(p, cm->id->route.path_rec);
}

uint64_t client_completion_timeout_ticks(const struct clock_cal *clk,
					 const struct verbs_path *path)
{
	return clock_ns_to_ticks(clk, 2 * verbs_path_give_up_ns(path) + 5e9);
}

int client_gid_want(const char *host, struct verbs_gid_want *w)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai;
	int s, ret;

	memset(w, 0, sizeof(*w));
	if (getaddrinfo(host, "9", &hints, &ai))
		return -EHOSTUNREACH;
	/* A connected UDP socket sends nothing: the kernel only routes it. */
	s = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ret = s < 0 || connect(s, ai->ai_addr, ai->ai_addrlen) ? -EHOSTUNREACH : 0;
	if (!ret)
		verbs_gid_want_from_sock(s, w);
	if (s >= 0)
		close(s);
	freeaddrinfo(ai);
	return ret;
}

int client_open_device(const struct flow_opts *o, struct verbs_dev *dev, struct conn_cm *cm,
		       char *err, size_t errlen)
{
	const char *via;
	int ret;

	if (!o->rdma_cm) {
		struct verbs_gid_want w;

		ret = verbs_dev_open(dev, o->device, o->ib_port, o->gid_index, err, errlen);
		/* The GID of the address and VLAN that reach the server. */
		if (!ret && o->gid_index < 0 && !client_gid_want(o->host, &w))
			ret = verbs_dev_pick_gid(dev, &w, err, errlen);
		if (!ret && o->pkey_index)
			ret = verbs_dev_use_pkey(dev, o->pkey_index, err, errlen);
		return ret;
	}
	/* No device: the same error, and exit status, as over TCP. */
	ret = verbs_check_devices(err, errlen);
	if (ret)
		return ret;
	ret = conn_cm_resolve(cm, o->host, o->tcp_port, o->spec.tclass, (int)(o->timeout_s * 1000),
			      err, errlen);
	if (ret)
		return ret;
	via = ibv_get_device_name(cm->id->verbs->device);
	if (o->device && strcmp(o->device, via))
		return errbuf_set(err, errlen, -ENODEV, "rdma_cm routes '%s' through '%s', not '%s'",
				  o->host, via, o->device);
	return verbs_dev_adopt(dev, cm->id->verbs, cm->id->port_num, o->gid_index, err, errlen);
}

/* rdma_cm: the hello travels as private data, the answer comes back. */
static int connect_cm(const struct flow_opts *o, struct conn_cm *cm, struct verbs_qp *q,
		      const struct verbs_path *path, size_t max_bytes, char *err, size_t errlen)
{
	struct conn_hello h = { .kind = CONN_HELLO_CLIENT }, r;
	int ret;

	verbs_qp_local(q, &h.ep);
	conn_cm_pkey(cm->id, &h.ep);	/* rdma_cm's, not --pkey-index's */
	h.path = *path;
	h.max_msg_bytes = (uint32_t)max_bytes;
	ret = conn_cm_connect(cm, q, &h, &r, (int)(o->timeout_s * 1000), err, errlen);
	if (ret)
		return ret;
	if (r.kind != CONN_HELLO_SERVER)
		return errbuf_set(err, errlen, -EPROTO, "'%s' is not an rperf server", o->host);
	cm->flow_id = r.flow_id;
	memcpy(cm->secret, r.secret, sizeof(cm->secret));
	return cm->ch->fd;
}

int client_connect(const struct flow_opts *o, struct conn_cm *cm, struct verbs_qp *q,
		   const struct verbs_path *path, size_t max_bytes, char *err, size_t errlen)
{
	if (o->rdma_cm)
		return connect_cm(o, cm, q, path, max_bytes, err, errlen);
	return conn_client_flow(o->host, o->tcp_port, q, path, max_bytes, NULL,
				flow_opts_token_of(o),
				(int)(o->timeout_s * 1000), err, errlen);
}

int client_pin_worker(const struct flow_opts *o, struct ibv_context *ctx, unsigned index,
		      char *err, size_t errlen)
{
	int cpu;

	cpu = o->n_cpus ? o->cpus[index] : pin_pick_cpu(ctx, (int)index, err, errlen);
	if (cpu < 0)
		return cpu;
	return pin_thread(cpu, err, errlen) ?: cpu;
}

bool client_error_is_usage(int ret)
{
	return ret == -ENODEV || ret == -EINVAL || ret == -EMSGSIZE;
}
