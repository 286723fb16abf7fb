/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Timestamps for the latency engine: a cheap cycle counter read on the hot
 * path, and the frequency that turns its ticks into nanoseconds once, for
 * the figures in flow/figures.
 *
 * Why two sources: the TSC (x86_64 rdtsc, aarch64 generic timer cntvct_el0)
 * costs a few ns to read and is what RPerf timestamps with, but it is only
 * usable when it is invariant (constant rate, never stops), which some
 * virtual machines (QEMU TCG, several hypervisors) do not promise.
 * CLOCK_MONOTONIC_RAW is the fallback everywhere: its ticks are ns.
 *
 * Frequency, in order: CPUID leaf 0x15 (crystal ratio; crystal Hz from ECX,
 * else from the Intel SDM table of nominal crystals, else derived from leaf
 * 0x16's base MHz as Linux does); otherwise calibration against
 * CLOCK_MONOTONIC_RAW. On aarch64, cntfrq_el0. /proc/cpuinfo is never read:
 * its "MHz" is the current core clock, not the TSC's.
 */
#ifndef RPERF_CLOCK_H
#define RPERF_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum clock_source {
	CLOCK_SRC_TSC,		/* rdtsc on x86_64, cntvct_el0 on aarch64 */
	CLOCK_SRC_MONOTONIC,	/* CLOCK_MONOTONIC_RAW, ticks are ns */
	CLOCK_SRC_VIRTUAL,	/* a model's clock, read through virt_read (tests:
				 * a simulated NIC's time); never parsed from a flag */
	CLOCK_SRC_NIC,		/* a NIC's completion timestamps: not read here,
				 * only converted (rdma/verbs sets its rate) */
};

struct clock_cal {
	enum clock_source source;
	double ticks_per_ns;		/* 1.0 for monotonic */
	double uncertainty_ppm;		/* of ticks_per_ns; 0 when enumerated by hardware */
	/* "cpuid-0x15", "cpuid-0x16", "calibrated-monotonic-raw", "cntfrq", "monotonic" */
	const char *method;
	const char *fallback;		/* why tsc was asked and monotonic given, or NULL */
	/* CLOCK_SRC_VIRTUAL only: the model's now, in its ticks. */
	uint64_t (*virt_read)(void *arg);
	void *virt_arg;
	double ns_per_tick;		/* the resolution: how far apart two readings
					 * that differ can be (1 / ticks_per_ns for the
					 * counter; the coarser of clock_getres and the
					 * counter under it for monotonic) */
};

#if defined(__x86_64__) || defined(__aarch64__)
#define CLOCK_HAVE_CYCLE_COUNTER 1
#else
#define CLOCK_HAVE_CYCLE_COUNTER 0
#endif

/*
 * The source clock_init() uses when @asked is wanted: monotonic in place
 * of tsc where the architecture has no cycle counter rperf can read
 * (@have_counter false: ppc64le, s390x, riscv64 ...), with *@why saying
 * so; @asked itself otherwise (*@why NULL). Pure.
 */
enum clock_source clock_source_resolve(enum clock_source asked, bool have_counter,
				       const char **why);

/*
 * Prepare the clock and fill cal. 0, or -errno with a message in err
 * (may be NULL): -ENOTSUP when the TSC is not invariant (the message
 * suggests --clock=monotonic); where the architecture has no cycle counter
 * at all, tsc falls back to monotonic and cal->fallback says why. -ERANGE
 * when calibration is too noisy to trust, -EINVAL for an unknown source.
 * A calibration takes about 160 ms.
 */
int clock_init(enum clock_source source, struct clock_cal *cal, char *err, size_t errlen);

/* @cal's ns_per_tick; 1 / ticks_per_ns where clock_init() did not set
 * it (a calibration rebuilt from its rate alone). Pure. */
double clock_ns_per_tick(const struct clock_cal *cal);
/*
 * Whether @cal's tick is too coarse for a median of @median_ns: coarser
 * than a tenth of it (a median of 300 ns timed in 40 ns ticks moves by
 * 13 % with a single tick). Pure.
 */
bool clock_tick_coarse(const struct clock_cal *cal, double median_ns);

static inline uint64_t clock_read_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Read the counter after every earlier instruction has completed, so a
 * timestamp taken right after a completion-queue poll is not executed
 * speculatively before the load that saw the completion. x86_64: LFENCE
 * then RDTSC (RDTSCP would also wait for earlier stores, which we do not
 * need, and clobbers ECX). aarch64: ISB then CNTVCT_EL0. The "memory"
 * clobber stops the compiler moving memory accesses across the read.
 */
static inline uint64_t clock_read_tsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	return clock_read_monotonic_ns();	/* clock_init refuses TSC here */
#endif
}

/* Hot path: the counter of the source cal was initialized for (the TSC
 * first: the virtual source's test costs the others nothing). */
static inline uint64_t clock_read(const struct clock_cal *cal)
{
	if (cal->source == CLOCK_SRC_TSC)
		return clock_read_tsc();
	if (cal->source == CLOCK_SRC_VIRTUAL)
		return cal->virt_read(cal->virt_arg);
	return clock_read_monotonic_ns();
}

/* @ticks (a count or a signed difference) in ns. Figures go through
 * flow/figures, which alone calls this for them. */
double clock_ticks_to_ns(const struct clock_cal *cal, double ticks);
/* Rounded to the nearest tick; 0 for ns <= 0 or NaN, UINT64_MAX on overflow. */
uint64_t clock_ns_to_ticks(const struct clock_cal *cal, double ns);

/*
 * A virtual clock for models: ticks are ns, read with @read(@arg). Only
 * tests make one; clock_init() and clock_source_parse() never do.
 */
void clock_init_virtual(struct clock_cal *cal, uint64_t (*read)(void *arg), void *arg);

/* "tsc" or "monotonic"; -EINVAL otherwise ("virtual" is not a choice). */
int clock_source_parse(const char *s, enum clock_source *out);
const char *clock_source_name(enum clock_source source);

/* ---------------------------------------------------------------------- */
/* Pure pieces of clock_init, exposed so unit tests can feed them synthetic data. */

/* The CPUID registers that decide whether the TSC is usable and its rate. */
struct clock_cpuid {
	bool intel;			/* vendor "GenuineIntel" */
	uint32_t max_leaf;		/* CPUID.0:EAX */
	uint32_t max_ext_leaf;		/* CPUID.80000000H:EAX */
	uint32_t leaf1_eax;		/* family / model / stepping */
	uint32_t leaf15_eax;		/* TSC/crystal ratio denominator */
	uint32_t leaf15_ebx;		/* TSC/crystal ratio numerator */
	uint32_t leaf15_ecx;		/* crystal Hz, 0 if not enumerated */
	uint32_t leaf16_eax;		/* processor base MHz */
	uint32_t ext7_edx;		/* CPUID.80000007H:EDX, bit 8 invariant TSC */
};

/* Fill c from the CPU; all zero on other architectures. */
void clock_cpuid_read(struct clock_cpuid *c);
bool clock_cpuid_invariant_tsc(const struct clock_cpuid *c);
/* Display family and model (extended fields folded in, as the SDM says). */
void clock_cpuid_family_model(uint32_t leaf1_eax, uint32_t *family, uint32_t *model);
/*
 * TSC frequency from leaves 0x15 / 0x16: 0 and hz, uncertainty_ppm, method;
 * -ENOENT when CPUID does not enumerate it (absent leaf, zero ratio, unknown
 * crystal): calibrate then.
 */
int clock_cpuid_tsc_hz(const struct clock_cpuid *c, double *hz, double *uncertainty_ppm,
		       const char **method);

/*
 * One calibration point: a counter value and the CLOCK_MONOTONIC_RAW ns read
 * between two counter reads bracket_ticks apart; ticks is their midpoint.
 */
struct clock_point {
	uint64_t ticks;
	uint64_t ns;
	uint64_t bracket_ticks;
};

/*
 * Fit the counter rate over n >= 3 increasing points (n - 1 windows).
 * ticks_per_ns is the overall ratio (first to last point). uncertainty_ppm
 * adds in quadrature the standard error of the per-window rates (noise and
 * wander) and the worst-case endpoint error (half of each end's bracket, plus
 * 1 ns of clock resolution) relative to the whole span. 0, or -EINVAL when a
 * window is empty or goes backwards.
 */
int clock_calib_fit(const struct clock_point *pts, size_t n, double *ticks_per_ns,
		    double *uncertainty_ppm);

#endif
