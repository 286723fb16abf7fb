/*
 * The client side every traffic command shares: see client.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/client.h"
#include "base/clock.h"
#include "base/errbuf.h"
#include "base/jsonfile.h"
#include "base/pin.h"

struct verbs_path client_path(const struct flow_opts *o)
{
	return (struct verbs_path){
		.sl = o->sl,
		.tclass = o->tclass,
		.timeout = o->qp_timeout,
		.retry = o->retry,
	};
}

uint64_t client_completion_timeout_ticks(const struct clock_cal *clk,
					 const struct verbs_path *path)
{
	return clock_ns_to_ticks(clk, 2 * verbs_path_give_up_ns(path) + 5e9);
}

int client_open_device(const struct flow_opts *o, struct verbs_dev *dev, struct conn_cm *cm,
		       char *err, size_t errlen)
{
	const char *via;
	int ret;

	if (!o->rdma_cm)
		return verbs_dev_open(dev, o->device, o->ib_port, o->gid_index, err, errlen);
	/* No device: the same error, and exit status, as over TCP. */
	ret = verbs_check_devices(err, errlen);
	if (ret)
		return ret;
	ret = conn_cm_resolve(cm, o->host, o->tcp_port, o->tclass, (int)(o->timeout_s * 1000),
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
	h.path = *path;
	h.max_msg_bytes = (uint32_t)max_bytes;
	ret = conn_cm_connect(cm, q, &h, &r, (int)(o->timeout_s * 1000), err, errlen);
	if (ret)
		return ret;
	if (r.kind != CONN_HELLO_SERVER)
		return errbuf_set(err, errlen, -EPROTO, "'%s' is not an rperf server", o->host);
	if (r.status)
		return errbuf_set(err, errlen, r.status, "server '%s' refused the flow: %s",
				  o->host, strerror(-r.status));
	cm->flow_id = r.flow_id;
	memcpy(cm->secret, r.secret, sizeof(cm->secret));
	return cm->ch->fd;
}

int client_connect(const struct flow_opts *o, struct conn_cm *cm, struct verbs_qp *q,
		   const struct verbs_path *path, size_t max_bytes, char *err, size_t errlen)
{
	if (o->rdma_cm)
		return connect_cm(o, cm, q, path, max_bytes, err, errlen);
	return conn_client_flow(o->host, o->tcp_port, q, path, max_bytes,
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

FILE *client_file_open(const char *path, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
	return f;
}

bool client_error_is_usage(int ret)
{
	return ret == -ENODEV || ret == -EINVAL || ret == -EMSGSIZE;
}

int client_begin(const struct flow_opts *o, char *err, size_t errlen)
{
	int ret;

	if (o->json_path) {
		ret = jsonfile_check(o->json_path, err, errlen);
		if (ret)
			return ret;
	}
	srand48(getpid() ^ (long)clock_read_monotonic_ns());
	return 0;
}
