/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Pinning and buffers: see pin.h. hwloc tells which cores sit next to the
 * NIC (through sysfs local_cpus); a virtual device such as rxe has none and
 * gets every core.
 */
#define _GNU_SOURCE	/* sched_getaffinity */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <hwloc.h>
#include <hwloc/openfabrics-verbs.h>

#include "base/errbuf.h"
#include "base/pin.h"

/* First PU of each core in @set, in order; returns the chosen PU or -1. */
static int nth_core_pu(hwloc_topology_t topo, hwloc_const_cpuset_t set, int index)
{
	int ncores, i, pu, n = 0;
	hwloc_bitmap_t pus;
	hwloc_obj_t core;

	ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE);
	if (ncores <= 0)
		return -1;
	index %= ncores;
	for (i = 0; i < ncores; i++) {
		core = hwloc_get_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE, i);
		if (!core || n++ != index)
			continue;
		pus = hwloc_bitmap_dup(core->cpuset);
		hwloc_bitmap_and(pus, pus, set);
		pu = hwloc_bitmap_first(pus);
		hwloc_bitmap_free(pus);
		return pu;
	}
	return -1;
}

int pin_pick_cpu(struct ibv_context *ctx, int index, char *err, size_t errlen)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t set;
	int cpu = -1;

	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo))
		return errbuf_set(err, errlen, -EIO, "cannot read the CPU topology");
	set = hwloc_bitmap_alloc();
	if (set && !hwloc_ibv_get_device_cpuset(topo, ctx->device, set)) {
		hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(topo));
		if (hwloc_bitmap_iszero(set))
			hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(topo));
		cpu = nth_core_pu(topo, set, index);
	}
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(topo);
	if (cpu < 0)
		return errbuf_set(err, errlen, -ENODEV, "'%s': no usable core near the device",
				  ibv_get_device_name(ctx->device));
	return cpu;
}

int pin_thread(int cpu, char *err, size_t errlen)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t set;
	int ret = 0;

	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo))
		return errbuf_set(err, errlen, -EIO, "cannot read the CPU topology");
	set = hwloc_bitmap_alloc();
	if (!set) {
		hwloc_topology_destroy(topo);
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	hwloc_bitmap_only(set, (unsigned)cpu);
	if (!hwloc_bitmap_isincluded(set, hwloc_topology_get_allowed_cpuset(topo)))
		ret = errbuf_set(err, errlen, -EINVAL, "CPU %d is not available", cpu);
	else if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT))
		ret = errbuf_set(err, errlen, -errno, "cannot pin to CPU %d: %s", cpu,
				 strerror(errno));
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(topo);
	return ret;
}

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

void *pin_buf_alloc(size_t bytes, bool huge, bool *got_huge)
{
	void *p;

	*got_huge = false;
	if (huge) {
		p = mmap(NULL, round_up(bytes, PIN_HUGE_BYTES), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED) {
			*got_huge = true;
			return p;
		}
	}
	if (posix_memalign(&p, 4096, round_up(bytes ? bytes : 1, 4096)))
		return NULL;
	memset(p, 0, round_up(bytes ? bytes : 1, 4096));
	return p;
}

void pin_buf_free(void *buf, size_t bytes, bool huge)
{
	if (!buf)
		return;
	if (huge)
		munmap(buf, round_up(bytes, PIN_HUGE_BYTES));
	else
		free(buf);
}

_Static_assert(sizeof(((struct pin_saved *)0)->set) == sizeof(cpu_set_t), "pin_saved");

void pin_save(struct pin_saved *s)
{
	memset(s->set, 0, sizeof(s->set));
	s->ok = !sched_getaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)s->set);
}

void pin_restore(const struct pin_saved *s)
{
	if (s->ok)
		sched_setaffinity(0, sizeof(cpu_set_t), (const cpu_set_t *)s->set);
}
