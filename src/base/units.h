/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The units every value of rperf is written in, read in one place so a
 * value means the same on the command line and in a scenario file:
 *
 *   sizes  "64", "64B", "4k", "4KiB", "1m", "1g"   binary multiples, bytes
 *   times  "10", "10s", "500ms", "250us", "100ns", "2m", "1min"
 *          a bare number is seconds; "m" and "min" are minutes
 *   rates  "5", "5g", "5gbit", "10Gbps", "10Gb/s", "10Gbit/s", "10m",
 *          "800k", "800kbps", "1000bit", "1000bps", "1t"
 *          decimal multiples of bit/s, each multiple (k, m, g, t) alone,
 *          with "bit", "bps", "b/s" or "bit/s"; a bare number is Gb/s
 *          (the fabric's unit)
 *
 * Suffixes are case-insensitive, but for a rate per second in bytes
 * ("10GB/s", "10GBps"), which is refused rather than read as bits.
 * Nothing negative, no blanks, no "inf" or "nan". Every parser takes the whole string and returns 0 or
 * -EINVAL (-ERANGE when the value does not fit); it never prints.
 */
#ifndef RPERF_UNITS_H
#define RPERF_UNITS_H

#include <stdint.h>

/* The spellings a refused value's message shows, the same everywhere. */
#define UNITS_BPS_SPELLINGS	"10g, 10Gbps, 10Gb/s or 500m (bare: Gb/s)"
#define UNITS_NS_SPELLINGS	"10, 10s, 500ms, 1min; bare: seconds"

/* A whole-string unsigned integer (decimal, or hex with 0x) in
 * [@min, @max]. 0, -EINVAL (not a number) or -ERANGE (outside). */
int units_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A whole-string decimal number without a unit, >= 0. 0 or -EINVAL. */
int units_parse_double(const char *s, double *out);

/* A size with an optional binary suffix -> bytes. Whole numbers only.
 * 0, -EINVAL (bad number or suffix) or -ERANGE (overflows 64 bits). */
int units_parse_bytes(const char *s, uint64_t *bytes);

/* A time with an optional suffix (bare: seconds) -> nanoseconds, rounded.
 * 0, -EINVAL or -ERANGE. */
int units_parse_ns(const char *s, uint64_t *ns);

/* A rate with an optional suffix (bare: Gb/s) -> bit/s, rounded; a
 * nonzero rate below 1 bit/s is -ERANGE. 0, -EINVAL or -ERANGE. */
int units_parse_bps(const char *s, uint64_t *bps);

#endif
