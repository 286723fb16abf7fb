/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Where an arbitration configuration comes from, for analyze and
 * converge alike: files in any qosconf format, a live port whose tables
 * are read over SMP MADs, or an opensm.conf read for a live port (its
 * caps, operational VLs and node type). One loader, so both commands
 * read the same port the same way.
 */
#ifndef RPERF_QOS_ARB_SOURCE_H
#define RPERF_QOS_ARB_SOURCE_H

#include <stddef.h>

#include "qos/arb_types.h"
#include "qos/qosconf_types.h"

#define ARB_SOURCE_MAX_FILES	QOSCONF_MAX_SOURCES
#define ARB_SOURCE_PORT_MAX	96

struct arb_source {
	const char *files[ARB_SOURCE_MAX_FILES];
	int n_files;
	const char *port;	/* "LID:PORT" or "DRPATH:PORT"; NULL: no live port */
	const char *ca;		/* "NAME[:PORT]": the local port MADs leave from; NULL: the first */
	bool node_type_given;	/* opts->node_type was chosen, not derived from the port */
};

/* What was loaded, for reports. */
struct arb_source_info {
	enum qosconf_format format;	/* of the files; SMPQUERY for a live port alone */
	bool live;			/* the tables themselves came from the port */
	bool fabric_error;		/* the port could not be read (not bad usage) */
	enum qosconf_node_type node_type;
	char port_name[ARB_SOURCE_PORT_MAX];	/* "lid 1 port 3", or "" */
};

/*
 * Check a port value given as @what (an option or key) without touching
 * the fabric: 0, or -EINVAL with the reason, naming both, in @err.
 */
int arb_source_port_check(const char *what, const char *value, char *err, size_t errlen);

/*
 * Load @src into @cfg with @opts (format, node type, in-port). 0, or
 * -errno with the whole reason in @err: nothing is printed here.
 */
int arb_source_load(const struct arb_source *src, const struct qosconf_opts *opts,
		    struct arb_config *cfg, struct arb_source_info *info, char *err,
		    size_t errlen);

struct mad_port_tables;

/* What a live port holds (read over MADs, with VLArb tables: not a base
 * port 0, a cap above 0), as the smpquery reader would take its text,
 * into @cfg. */
void arb_source_live_config(const struct mad_port_tables *t, struct arb_config *cfg);

#endif
