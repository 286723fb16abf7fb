/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Sizes, times and rates from text: see units.h. One table of suffixes
 * per kind, one number reader for all of them, so that "500ms" or "5"
 * cannot mean one thing to a command and another to a scenario file.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"

struct unit {
	const char *suffix;
	double mult;
};

/* Above every uint64_t: 2^64. */
#define UNITS_U64_LIMIT 18446744073709551616.0

static const struct unit units_time[] = {
	{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 },
	{ "m", 60e9 }, { "min", 60e9 }, { NULL, 0 },
};

/* Each multiple as a letter alone, with "bit", and per second. */
static const struct unit units_rate[] = {
	{ "", 1e9 },
	{ "bit", 1 }, { "bps", 1 }, { "b/s", 1 }, { "bit/s", 1 },
	{ "k", 1e3 }, { "kbit", 1e3 }, { "kbps", 1e3 }, { "kb/s", 1e3 }, { "kbit/s", 1e3 },
	{ "m", 1e6 }, { "mbit", 1e6 }, { "mbps", 1e6 }, { "mb/s", 1e6 }, { "mbit/s", 1e6 },
	{ "g", 1e9 }, { "gbit", 1e9 }, { "gbps", 1e9 }, { "gb/s", 1e9 }, { "gbit/s", 1e9 },
	{ "t", 1e12 }, { "tbit", 1e12 }, { "tbps", 1e12 }, { "tb/s", 1e12 }, { "tbit/s", 1e12 },
	{ NULL, 0 },
};

static const struct unit units_size[] = {
	{ "", 1 }, { "b", 1 }, { "k", 0x1p10 }, { "kb", 0x1p10 }, { "kib", 0x1p10 },
	{ "m", 0x1p20 }, { "mb", 0x1p20 }, { "mib", 0x1p20 }, { "g", 0x1p30 },
	{ "gb", 0x1p30 }, { "gib", 0x1p30 }, { "t", 0x1p40 }, { "tb", 0x1p40 },
	{ "tib", 0x1p40 }, { NULL, 0 },
};

/* The multiplier of @suffix in @tab, 0 when it has none. */
static double units_mult(const struct unit *tab, const char *suffix)
{
	for (; tab->suffix; tab++)
		if (!strcasecmp(tab->suffix, suffix))
			return tab->mult;
	return 0;
}

/* A number starts with a digit or a dot: no sign, blank, inf or nan. */
static int units_number_start(const char *s)
{
	return s && (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1])));
}

int units_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int units_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!units_number_start(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* A decimal number followed by one of @tab's suffixes -> the product;
 * *@suffix (unless NULL): where the suffix starts. */
static int units_scaled(const char *s, const struct unit *tab, double *out,
			const char **suffix)
{
	char *end;
	double v, mult;

	if (!units_number_start(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v))
		return -ERANGE;
	if (suffix)
		*suffix = end;
	mult = units_mult(tab, end);
	if (!mult)
		return -EINVAL;
	*out = v * mult;
	return *out < UNITS_U64_LIMIT ? 0 : -ERANGE;
}

int units_parse_bytes(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	char *end;
	double mult;
	uint64_t m;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	mult = units_mult(units_size, end);
	if (!mult)
		return -EINVAL;
	m = (uint64_t)mult;
	if (errno || (v && m > UINT64_MAX / v))
		return -ERANGE;
	*bytes = v * m;
	return 0;
}

int units_parse_ns(const char *s, uint64_t *ns)
{
	double v;
	int ret = units_scaled(s, units_time, &v, NULL);

	if (ret)
		return ret;
	*ns = (uint64_t)(v + 0.5);
	return 0;
}

/* Whether @suffix is a rate per second in bytes ("GB/s", "MBps"): no
 * rate of rperf is, and reading one as bits would be 8 times off, so it
 * is refused. The b of bits is lowercase there ("Gbps", "Gb/s"). */
static bool units_rate_in_bytes(const char *suffix)
{
	size_t n = strlen(suffix);

	return n >= 2 && (!strcasecmp(suffix + n - 2, "ps") || !strcasecmp(suffix + n - 2, "/s")) &&
	       strchr(suffix, 'B');
}

int units_parse_bps(const char *s, uint64_t *bps)
{
	const char *suffix;
	double v;
	int ret = units_scaled(s, units_rate, &v, &suffix);

	if (ret)
		return ret;
	if (units_rate_in_bytes(suffix))
		return -EINVAL;
	if (v > 0 && v < 1)
		return -ERANGE;
	*bps = (uint64_t)(v + 0.5);
	return 0;
}
