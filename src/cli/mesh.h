/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf mesh` options as plain data: parsed and validated once, by
 * mesh_opts.c, before any agent is reached; what the run takes of them
 * (struct mesh_opts) filled from them there too.
 */
#ifndef RPERF_CLI_MESH_H
#define RPERF_CLI_MESH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/opts.h"
#include "coord/mesh.h"

#define MESH_MAX_TOPO_FILES	64

struct mesh_cli {
	const char *operand;		/* SCENARIO */
	const char *hosts;		/* --hosts */
	struct converge_opts conv;	/* --launch, --agent-command, --token-file, --timeout */
	unsigned port;
	int sls[MESH_MAX_CLASSES], tclasses[MESH_MAX_CLASSES];
	size_t n_sls, n_tclasses;
	double duration_s, warmup_s;
	size_t size_bytes;
	enum clock_source clock;
	bool clock_set;
	const char *device;
	int gid_index;
	double mad_k;
	const char *json_path, *csv_path, *om_path, *plot_prefix, *stream_path;
	double interval_s;
	unsigned count;
	unsigned sample;		/* --sample K: cross-leaf targets a host; 0: every pair */
	const char *topo_paths[MESH_MAX_TOPO_FILES];
	size_t n_topo;
	const char *topo_format;
	const char *reference;
	const char *routes, *replay;	/* --routes, --replay */
	double min_change_s;		/* --min-change; NAN: from the reference */
};

/* What `rperf mesh --help` says, options included. */
extern const struct opts_usage mesh_opts_usage;

/* The command line into @o: 0, OPTS_HELP, or -EINVAL with the reason. */
int mesh_opts_parse(int argc, char **argv, struct mesh_cli *o, char *err, size_t errlen);

/* The command line's settings over @sc's, and the classes, into @mo. */
int mesh_settings(const struct mesh_cli *o, struct scenario *sc, struct mesh_opts *mo,
		  char *err, size_t errlen);

/* --topology, --routes and --reference into @topo, @paths, @refs and @mo
 * (mesh_fabric.c); 0 or -errno with the reason. */
int mesh_fabric(const struct mesh_cli *o, struct topo *topo, struct topo_paths *paths,
		struct mesh_ref **refs, struct mesh_opts *mo, char *err, size_t errlen);

/* --sample: each host's leaf into *@leaf (malloc'ed) and @mo. */
int mesh_sample_leaves(const struct mesh_cli *o, size_t **leaf, struct mesh_opts *mo,
		       char *err, size_t errlen);

#endif
