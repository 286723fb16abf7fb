/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Log-linear bucket geometry over uint64_t, one parameter: @sub_bits.
 * Values below 2^(sub_bits + 1) have a bucket each (exact); above, every
 * power of two [2^e, 2^(e+1)) is split into 2^sub_bits linear buckets of
 * width 2^(e - sub_bits), so a bucket is at most 2^-sub_bits of its
 * values wide. The histogram (hist.h, 9 bits) and the sketch (sketch.h,
 * 6 bits) share it: every boundary of a coarser geometry is one of a
 * finer, so each bucket of the sketch is a union of whole buckets of the
 * histogram.
 */
#ifndef RPERF_LOGLIN_H
#define RPERF_LOGLIN_H

#include <stddef.h>
#include <stdint.h>

/*
 * The shift drops the bits below the sub_bits + 1 most significant ones
 * (none for the exact values); the kept bits, in [2^sub_bits,
 * 2^(sub_bits + 1)) once shifted, are the sub-bucket, and each shift step
 * moves the index up by 2^sub_bits. No branch, no division.
 */
static inline size_t loglin_index(uint64_t value, unsigned int sub_bits)
{
	uint64_t exact = (uint64_t)2 << sub_bits;
	unsigned int msb = 63 - (unsigned int)__builtin_clzll(value | (exact - 1));
	unsigned int shift = msb - sub_bits;

	return ((size_t)shift << sub_bits) + (size_t)(value >> shift);
}

static inline unsigned int loglin_shift(size_t idx, unsigned int sub_bits)
{
	return idx < ((size_t)2 << sub_bits) ? 0 : (unsigned int)(idx >> sub_bits) - 1;
}

/* The lowest value of bucket @idx. */
static inline uint64_t loglin_low(size_t idx, unsigned int sub_bits)
{
	unsigned int shift = loglin_shift(idx, sub_bits);

	return (uint64_t)(idx - ((size_t)shift << sub_bits)) << shift;
}

/* The width of bucket @idx: it holds loglin_low() .. loglin_low() + width - 1. */
static inline uint64_t loglin_width(size_t idx, unsigned int sub_bits)
{
	return (uint64_t)1 << loglin_shift(idx, sub_bits);
}

#endif
