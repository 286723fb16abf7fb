/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Where a measuring thread runs and where its buffers live: cores local to
 * the NIC (hwloc), thread pinning, and huge-page buffers with a fallback.
 * A worker on a core of another NUMA node, or one that migrates, adds its
 * own noise to every sample; the paper pins each thread for that reason.
 */
#ifndef RPERF_PIN_H
#define RPERF_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <infiniband/verbs.h>

/*
 * Choose the CPU for worker @index: the @index-th core (first PU of each
 * core) among those local to @ibdev's NUMA node and allowed to this
 * process, wrapping around. Returns the OS CPU number or -errno.
 */
int pin_pick_cpu(struct ibv_context *ctx, int index, char *err, size_t errlen);

/* Bind the calling thread to OS CPU @cpu. */
int pin_thread(int cpu, char *err, size_t errlen);

/* The calling thread's CPU set, kept to be given back (pin_restore). */
struct pin_saved {
	unsigned char set[128];		/* a cpu_set_t */
	bool ok;
};
void pin_save(struct pin_saved *s);
void pin_restore(const struct pin_saved *s);

#define PIN_HUGE_BYTES (2u << 20)	/* a huge page */

/* Page-aligned buffer of at least @bytes; with @huge, try 2 MiB huge pages
 * first and set *@got_huge to whether that worked. */
void *pin_buf_alloc(size_t bytes, bool huge, bool *got_huge);
void pin_buf_free(void *buf, size_t bytes, bool huge);

#endif
