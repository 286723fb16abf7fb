/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Where a run happened, for its JSON: the kernel, rdma-core, the device
 * and its firmware and port rate, the NUMA nodes of the device and of the
 * workers, the CPU frequency governor, rperf's version and command line.
 * Facts only, read once; unknown ones stay empty (-1 for numbers), never
 * guessed. The host's facts are read here, the device's by the rdma
 * layer (verbs_env()).
 */
#ifndef RPERF_ENV_H
#define RPERF_ENV_H

#include <jansson.h>

#define ENV_MAX_WORKERS		64

struct run_env {
	char kernel[288];		/* uname: sysname release version machine */
	char rdma_core[32];		/* the libibverbs rperf was built against */
	char governor[32];		/* cpu0's cpufreq scaling governor */
	char cmdline[1024];		/* argv, space-separated */
	char device[64];
	char fw_ver[64];
	char link_layer[16];		/* "InfiniBand", "Ethernet" */
	double port_gbps;		/* active width x lane data rate; 0: unknown */
	int device_numa;		/* -1: unknown */
	int n_workers;
	int worker_cpu[ENV_MAX_WORKERS];
	int worker_numa[ENV_MAX_WORKERS];	/* -1: unknown */
};

/* Remember the whole command line for every later run_env_host(). */
void env_set_cmdline(int argc, char **argv);

/* Host facts into @e (device fields cleared). */
void run_env_host(struct run_env *e);

/* Worker @index ran on OS CPU @cpu (< 0: unknown): its NUMA node too. */
void run_env_worker(struct run_env *e, unsigned index, int cpu);

/*
 * As JSON: {"kernel", "rdma_core", "cpufreq_governor", "command_line",
 * "rperf_version", "device", "firmware", "link_layer", "port_gbps",
 * "device_numa_node", "workers": [{"cpu", "numa_node"}]}; unknown facts
 * are null; NULL gives null. The agents send it too, so it lives here.
 */
json_t *run_env_json(const struct run_env *e);

/* The NUMA node of OS CPU @cpu, or -1. */
int env_cpu_numa(int cpu);

#endif
