/*
 * `rperf lat` command line -> struct lat_opts. Kept apart from cmd_lat.c
 * so the unit tests exercise every rule without a device.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "base/errbuf.h"
#include "cli/lat.h"

enum {
	OPT_WARMUP = FLOW_OPT_END,
};

static const struct option lat_long_opts[] = {
	FLOW_LONG_OPTS,
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_sizes(const char *arg, struct lat_opts *o, char *err, size_t errlen)
{
	char buf[512], *tok, *save;

	if (strlen(arg) >= sizeof(buf))
		return errbuf_set(err, errlen, -EINVAL, "--size list too long");
	strcpy(buf, arg);
	o->n_sizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_sizes == LAT_MAX_SIZES)
			return errbuf_set(err, errlen, -EINVAL, "--size: at most %d sizes",
					  LAT_MAX_SIZES);
		if (flow_parse_size(tok, &o->sizes[o->n_sizes]))
			return errbuf_set(err, errlen, -EINVAL,
					  "--size '%s': expected bytes from 1 to 4g (k, m, g suffixes)",
					  tok);
		o->n_sizes++;
	}
	if (!o->n_sizes)
		return errbuf_set(err, errlen, -EINVAL, "--size '%s': no size given", arg);
	return 0;
}

static void lat_opts_defaults(struct lat_opts *o)
{
	memset(o, 0, sizeof(*o));
	flow_opts_defaults(&o->flow);
	o->iterations = 1000;
	o->warmup = 100;
	o->sizes[0] = 64;
	o->n_sizes = 1;
}

/* One of lat's own options; the shared ones go to flow_opt_one(). */
static int lat_opt_one(int c, const char *arg, struct lat_opts *o, bool *n_given,
		       char *err, size_t errlen)
{
	switch (c) {
	case 'n':
		*n_given = true;
		return flow_parse_num("--iters", arg, 1, UINT64_MAX / 2, &o->iterations, err,
				      errlen);
	case 'D':
		return flow_parse_seconds("--duration", arg, &o->duration_s, err, errlen);
	case OPT_WARMUP:
		return flow_parse_num("--warmup", arg, 0, UINT64_MAX / 2, &o->warmup, err, errlen);
	case 's':
		return parse_sizes(arg, o, err, errlen);
	case 'a':
		o->all_sizes = true;
		return 0;
	}
	return flow_opt_one(c, arg, &o->flow, err, errlen) ? -EINVAL : 0;
}

int lat_opts_parse(int argc, char **argv, struct lat_opts *o, char *err, size_t errlen)
{
	bool n_given = false, s_given = false;
	int c;

	lat_opts_defaults(o);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" FLOW_SHORT_OPTS "n:D:s:ah", lat_long_opts,
				NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return 0;
		}
		if (flow_opt_bad(c, argv, err, errlen) < 0)
			return -EINVAL;
		s_given = s_given || c == 's';
		if (lat_opt_one(c, optarg, o, &n_given, err, errlen))
			return -EINVAL;
	}
	if (o->all_sizes && s_given)
		return errbuf_set(err, errlen, -EINVAL, "give -s or -a, not both");
	if (flow_opts_finish(argc, argv, &o->flow, err, errlen))
		return -EINVAL;
	if (o->all_sizes)
		o->n_sizes = 0;
	if (o->duration_s > 0 && n_given)
		return errbuf_set(err, errlen, -EINVAL, "give -n or -D, not both");
	if (o->duration_s > 0)
		o->iterations = 0;
	return 0;
}

size_t lat_sweep_sizes(size_t max_bytes, size_t *sizes, size_t cap)
{
	size_t n = 0, s;

	for (s = 2; s <= LAT_SWEEP_MAX_BYTES && s <= max_bytes && n < cap; s <<= 1)
		sizes[n++] = s;
	return n;
}
