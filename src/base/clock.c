/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Clock setup: is the cycle counter usable, and how many ticks per ns.
 * The decisions (CPUID decoding, calibration fit) are pure functions over
 * register values and measured points; the rest only gathers their inputs.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "base/clock.h"

/* Calibration: CAL_WINDOWS windows of CAL_WINDOW_NS, about 160 ms in all. */
#define CAL_WINDOWS		8
#define CAL_WINDOW_NS		20000000L
/* Tries per point; the narrowest bracket wins (a preempted try is wide). */
#define CAL_POINT_TRIES		7
/* Beyond this the machine is too noisy for the rate to mean anything. */
#define CAL_MAX_PPM		10000.0

static int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Units and names */

double clock_ticks_to_ns(const struct clock_cal *cal, double ticks)
{
	return ticks / cal->ticks_per_ns;
}

uint64_t clock_ns_to_ticks(const struct clock_cal *cal, double ns)
{
	double t = ns * cal->ticks_per_ns;

	if (!(t > 0.0))
		return 0;
	if (t >= 18446744073709551616.0)	/* 2^64 */
		return UINT64_MAX;
	return (uint64_t)(t + 0.5);
}

static const char *const source_names[] = {
	[CLOCK_SRC_TSC] = "tsc",
	[CLOCK_SRC_MONOTONIC] = "monotonic",
	[CLOCK_SRC_VIRTUAL] = "virtual",
	[CLOCK_SRC_NIC] = "nic",
};

int clock_source_parse(const char *s, enum clock_source *out)
{
	size_t i;

	for (i = 0; s && i <= CLOCK_SRC_MONOTONIC; i++) {
		if (!strcmp(s, source_names[i])) {
			*out = (enum clock_source)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *clock_source_name(enum clock_source source)
{
	if ((size_t)source < sizeof(source_names) / sizeof(source_names[0]))
		return source_names[source];
	return "unknown";
}

/* ---------------------------------------------------------------------- */
/* CPUID decoding (pure) */

void clock_cpuid_family_model(uint32_t leaf1_eax, uint32_t *family, uint32_t *model)
{
	uint32_t fam = (leaf1_eax >> 8) & 0xf;
	uint32_t mod = (leaf1_eax >> 4) & 0xf;

	if (fam == 0x6 || fam == 0xf)
		mod |= ((leaf1_eax >> 16) & 0xf) << 4;
	if (fam == 0xf)
		fam += (leaf1_eax >> 20) & 0xff;
	*family = fam;
	*model = mod;
}

bool clock_cpuid_invariant_tsc(const struct clock_cpuid *c)
{
	return c->max_ext_leaf >= 0x80000007u && (c->ext7_edx & (1u << 8));
}

/*
 * Intel SDM vol. 3, "Determining the Processor Base Frequency": when leaf
 * 0x15 leaves ECX zero, these family 6 models have a known crystal. Skylake
 * server (0x55) is left out on purpose: its workstation parts share the
 * model number with a 24 MHz crystal instead of 25 MHz (Linux dropped it too).
 */
static uint32_t known_crystal_hz(const struct clock_cpuid *c)
{
	static const struct { uint32_t model, hz; } table[] = {
		{ 0x5c, 19200000 },	/* Goldmont */
		{ 0x5f, 25000000 },	/* Goldmont D (Denverton) */
	};
	uint32_t family, model;
	size_t i;

	clock_cpuid_family_model(c->leaf1_eax, &family, &model);
	if (!c->intel || family != 6)
		return 0;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].model == model)
			return table[i].hz;
	}
	return 0;
}

int clock_cpuid_tsc_hz(const struct clock_cpuid *c, double *hz, double *uncertainty_ppm,
		       const char **method)
{
	double ratio, crystal_hz;

	if (c->max_leaf < 0x15 || !c->leaf15_eax || !c->leaf15_ebx)
		return -ENOENT;
	ratio = (double)c->leaf15_ebx / (double)c->leaf15_eax;
	crystal_hz = c->leaf15_ecx ? (double)c->leaf15_ecx : (double)known_crystal_hz(c);
	if (crystal_hz > 0.0) {
		*hz = crystal_hz * ratio;
		*uncertainty_ppm = 0.0;
		*method = "cpuid-0x15";
		return 0;
	}
	/*
	 * Skylake / Kaby Lake clients enumerate the ratio but not the crystal;
	 * the TSC then runs at the base frequency of leaf 0x16, which is given
	 * in whole MHz: up to half a MHz of rounding.
	 */
	if (c->max_leaf >= 0x16 && c->leaf16_eax) {
		*hz = (double)c->leaf16_eax * 1e6;
		*uncertainty_ppm = 0.5 / (double)c->leaf16_eax * 1e6;
		*method = "cpuid-0x16";
		return 0;
	}
	return -ENOENT;
}

#if defined(__x86_64__)
void clock_cpuid_read(struct clock_cpuid *c)
{
	uint32_t a, b, cx, d;

	memset(c, 0, sizeof(*c));
	__cpuid(0, a, b, cx, d);
	c->max_leaf = a;
	c->intel = b == 0x756e6547 && d == 0x49656e69 && cx == 0x6c65746e;
	__cpuid(1, c->leaf1_eax, b, cx, d);
	if (c->max_leaf >= 0x15)
		__cpuid_count(0x15, 0, c->leaf15_eax, c->leaf15_ebx, c->leaf15_ecx, d);
	if (c->max_leaf >= 0x16)
		__cpuid_count(0x16, 0, c->leaf16_eax, b, cx, d);
	__cpuid(0x80000000, c->max_ext_leaf, b, cx, d);
	if (c->max_ext_leaf >= 0x80000007)
		__cpuid(0x80000007, a, b, cx, c->ext7_edx);
}
#else
void clock_cpuid_read(struct clock_cpuid *c)
{
	memset(c, 0, sizeof(*c));
}
#endif

/* ---------------------------------------------------------------------- */
/* Calibration (fit is pure; measurement below) */

int clock_calib_fit(const struct clock_point *pts, size_t n, double *ticks_per_ns,
		    double *uncertainty_ppm)
{
	double rate, mean = 0.0, var = 0.0, spread, endpoint;
	double span_ticks, span_ns;
	size_t i, m = n - 1;

	if (n < 3)
		return -EINVAL;
	for (i = 1; i < n; i++) {
		if (pts[i].ticks <= pts[i - 1].ticks || pts[i].ns <= pts[i - 1].ns)
			return -EINVAL;
		mean += (double)(pts[i].ticks - pts[i - 1].ticks) /
			(double)(pts[i].ns - pts[i - 1].ns);
	}
	mean /= (double)m;
	for (i = 1; i < n; i++) {
		double r = (double)(pts[i].ticks - pts[i - 1].ticks) /
			   (double)(pts[i].ns - pts[i - 1].ns);

		var += (r - mean) * (r - mean);
	}
	var /= (double)(m - 1);
	span_ticks = (double)(pts[m].ticks - pts[0].ticks);
	span_ns = (double)(pts[m].ns - pts[0].ns);
	rate = span_ticks / span_ns;
	spread = sqrt(var / (double)m) / rate;
	endpoint = (double)(pts[0].bracket_ticks + pts[m].bracket_ticks) / 2.0 / span_ticks +
		   1.0 / span_ns;
	*ticks_per_ns = rate;
	*uncertainty_ppm = 1e6 * sqrt(spread * spread + endpoint * endpoint);
	return 0;
}

/* A (ticks, ns) pair from the narrowest of a few counter-clock-counter brackets. */
static void calib_point(struct clock_point *p)
{
	int i;

	p->bracket_ticks = UINT64_MAX;
	for (i = 0; i < CAL_POINT_TRIES; i++) {
		uint64_t t0 = clock_read_tsc();
		uint64_t ns = clock_read_monotonic_ns();
		uint64_t t1 = clock_read_tsc();

		if (t1 - t0 < p->bracket_ticks) {
			p->bracket_ticks = t1 - t0;
			p->ticks = t0 + (t1 - t0) / 2;
			p->ns = ns;
		}
	}
}

static int calibrate(struct clock_cal *cal, char *err, size_t errlen)
{
	struct clock_point pts[CAL_WINDOWS + 1];
	const struct timespec window = { 0, CAL_WINDOW_NS };
	double rate, ppm;
	int i;

	calib_point(&pts[0]);
	for (i = 1; i <= CAL_WINDOWS; i++) {
		nanosleep(&window, NULL);
		calib_point(&pts[i]);
	}
	if (clock_calib_fit(pts, CAL_WINDOWS + 1, &rate, &ppm))
		return set_err(err, errlen, -ERANGE,
			       "tsc calibration failed: the counter did not advance with "
			       "CLOCK_MONOTONIC_RAW; use --clock=monotonic");
	if (ppm > CAL_MAX_PPM)
		return set_err(err, errlen, -ERANGE,
			       "tsc calibration too noisy (%.0f ppm over %d windows); "
			       "use --clock=monotonic", ppm, CAL_WINDOWS);
	cal->ticks_per_ns = rate;
	cal->uncertainty_ppm = ppm;
	cal->method = "calibrated-monotonic-raw";
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Setup per source */

#if defined(__x86_64__)
static int tsc_init(struct clock_cal *cal, char *err, size_t errlen)
{
	struct clock_cpuid c;
	double hz;

	clock_cpuid_read(&c);
	if (!clock_cpuid_invariant_tsc(&c))
		return set_err(err, errlen, -ENOTSUP,
			       "invariant tsc not available (CPUID 0x80000007 EDX bit 8 clear, "
			       "as under QEMU TCG and some hypervisors): use --clock=monotonic");
	if (clock_cpuid_tsc_hz(&c, &hz, &cal->uncertainty_ppm, &cal->method))
		return calibrate(cal, err, errlen);
	cal->ticks_per_ns = hz / 1e9;
	return 0;
}
#elif defined(__aarch64__)
static int tsc_init(struct clock_cal *cal, char *err, size_t errlen)
{
	uint64_t frq;

	/* The generic timer is architecturally constant-rate: no invariance check. */
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
	if (!frq)
		return calibrate(cal, err, errlen);
	cal->ticks_per_ns = (double)frq / 1e9;
	cal->uncertainty_ppm = 0.0;
	cal->method = "cntfrq";
	return 0;
}
#else
static int tsc_init(struct clock_cal *cal, char *err, size_t errlen)
{
	(void)cal;
	return set_err(err, errlen, -ENOTSUP,
		       "no cycle counter support on this architecture: use --clock=monotonic");
}
#endif

enum clock_source clock_source_resolve(enum clock_source asked, bool have_counter,
				       const char **why)
{
	*why = NULL;
	if (asked != CLOCK_SRC_TSC || have_counter)
		return asked;
	*why = "this architecture has no cycle counter rperf can read: monotonic instead of tsc";
	return CLOCK_SRC_MONOTONIC;
}

void clock_init_virtual(struct clock_cal *cal, uint64_t (*read)(void *arg), void *arg)
{
	*cal = (struct clock_cal){ .source = CLOCK_SRC_VIRTUAL, .ticks_per_ns = 1.0,
				   .method = "virtual", .virt_read = read, .virt_arg = arg };
}

double clock_ns_per_tick(const struct clock_cal *cal)
{
	if (cal->ns_per_tick > 0)
		return cal->ns_per_tick;
	return cal->ticks_per_ns > 0 ? 1.0 / cal->ticks_per_ns : 1.0;
}

bool clock_tick_coarse(const struct clock_cal *cal, double median_ns)
{
	return median_ns > 0 && clock_ns_per_tick(cal) > median_ns / 10;
}

/* CLOCK_MONOTONIC_RAW's resolution: clock_getres's, or that of the
 * counter the kernel reads for it where rperf can know it (aarch64's
 * generic timer: 40 ns at 25 MHz, though clock_getres says 1 ns). */
static double monotonic_ns_per_tick(void)
{
	struct timespec res = { 0, 1 };
	double ns;

	clock_getres(CLOCK_MONOTONIC_RAW, &res);
	ns = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;
#if defined(__aarch64__)
	{
		uint64_t frq;

		__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
		if (frq && 1e9 / (double)frq > ns)
			ns = 1e9 / (double)frq;
	}
#endif
	return ns > 0 ? ns : 1.0;
}

int clock_init(enum clock_source source, struct clock_cal *cal, char *err, size_t errlen)
{
	struct timespec ts;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	source = clock_source_resolve(source, CLOCK_HAVE_CYCLE_COUNTER, &cal->fallback);
	cal->source = source;
	cal->ticks_per_ns = 1.0;
	cal->uncertainty_ppm = 0.0;
	cal->method = "monotonic";
	cal->ns_per_tick = 1.0;
	if (source == CLOCK_SRC_TSC) {
		ret = tsc_init(cal, err, errlen);
		if (!ret && cal->ticks_per_ns > 0)
			cal->ns_per_tick = 1.0 / cal->ticks_per_ns;
		return ret;
	}
	if (source != CLOCK_SRC_MONOTONIC)
		return set_err(err, errlen, -EINVAL, "unknown clock source %d", (int)source);
	if (cal->fallback)
		cal->method = "monotonic, no cycle counter";
	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts))
		return set_err(err, errlen, -errno, "CLOCK_MONOTONIC_RAW: %s", strerror(errno));
	cal->ns_per_tick = monotonic_ns_per_tick();
	return 0;
}
