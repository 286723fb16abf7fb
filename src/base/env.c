/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The host's facts for a run's JSON (see env.h), from uname and sysfs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "config.h"
#include "base/env.h"

static char env_cmdline[1024];

void env_set_cmdline(int argc, char **argv)
{
	size_t len = 0;
	int i;

	env_cmdline[0] = '\0';
	for (i = 0; i < argc && len < sizeof(env_cmdline) - 1; i++)
		len += (size_t)snprintf(env_cmdline + len, sizeof(env_cmdline) - len, "%s%s",
					i ? " " : "", argv[i]);
}

/* The first line of @path, without its newline, into @buf; "" when unreadable. */
static void env_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void run_env_host(struct run_env *e)
{
	struct utsname u;

	memset(e, 0, sizeof(*e));
	e->device_numa = -1;
	if (!uname(&u))
		snprintf(e->kernel, sizeof(e->kernel), "%s %s %s %s", u.sysname, u.release,
			 u.version, u.machine);
	snprintf(e->rdma_core, sizeof(e->rdma_core), "%s", RPERF_IBVERBS_VERSION);
	env_read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", e->governor,
		      sizeof(e->governor));
	snprintf(e->cmdline, sizeof(e->cmdline), "%s", env_cmdline);
}

int env_cpu_numa(int cpu)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int node = -1;

	if (cpu < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "node", 4) && d->d_name[4] >= '0' && d->d_name[4] <= '9') {
			node = atoi(d->d_name + 4);
			break;
		}
	closedir(dir);
	return node;
}

void run_env_worker(struct run_env *e, unsigned index, int cpu)
{
	if (index >= ENV_MAX_WORKERS)
		return;
	e->worker_cpu[index] = cpu;
	e->worker_numa[index] = env_cpu_numa(cpu);
	if ((int)index + 1 > e->n_workers)
		e->n_workers = (int)index + 1;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

json_t *run_env_json(const struct run_env *e)
{
	json_t *o, *w;
	int i;

	if (!e)
		return json_null();
	o = json_object();
	w = json_array();
	json_object_set_new(o, "kernel", str_or_null(e->kernel));
	json_object_set_new(o, "rdma_core", str_or_null(e->rdma_core));
	json_object_set_new(o, "cpufreq_governor", str_or_null(e->governor));
	json_object_set_new(o, "command_line", str_or_null(e->cmdline));
	json_object_set_new(o, "rperf_version", json_string(PACKAGE_VERSION));
	json_object_set_new(o, "device", str_or_null(e->device));
	json_object_set_new(o, "firmware", str_or_null(e->fw_ver));
	json_object_set_new(o, "link_layer", str_or_null(e->link_layer));
	json_object_set_new(o, "port_gbps", e->port_gbps > 0 ? json_real(e->port_gbps) : json_null());
	json_object_set_new(o, "device_numa_node", e->device_numa >= 0 ?
			    json_integer(e->device_numa) : json_null());
	for (i = 0; i < e->n_workers; i++)
		json_array_append_new(w, json_pack("{s:o, s:o}",
			"cpu", e->worker_cpu[i] >= 0 ? json_integer(e->worker_cpu[i]) : json_null(),
			"numa_node", e->worker_numa[i] >= 0 ? json_integer(e->worker_numa[i]) :
							       json_null()));
	json_object_set_new(o, "workers", w);
	return o;
}
