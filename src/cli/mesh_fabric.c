/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `rperf mesh`'s fabric inputs: --topology (and its --routes), the
 * --reference a pass is compared with, and --sample's leaves, read into
 * what the run takes (struct mesh_opts) before any agent is reached.
 */
#include <errno.h>
#include <stdlib.h>

#include "cli/mesh.h"
#include "base/errbuf.h"
#include "report/reference.h"

/* --topology, --routes and --reference into @topo, @paths, @refs and @mo. */
int mesh_fabric(const struct mesh_cli *o, struct topo *topo, struct topo_paths *paths,
		struct mesh_ref **refs, struct mesh_opts *mo, char *err, size_t errlen)
{
	int ret;

	if (!o->n_topo)
		return 0;
	ret = topo_read(topo, o->topo_paths, o->n_topo, o->topo_format, err, errlen);
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	mo->topo = topo;
	mo->min_change_ns = o->min_change_s * 1e9;
	if (o->routes) {
		ret = topo_paths_read(paths, topo, o->routes, err, errlen);
		if (ret)
			return ret == -ENOMEM ? ret : -EINVAL;
		mo->paths = paths;
	}
	if (o->reference) {
		ret = report_mesh_ref_load(o->reference, refs, &mo->n_refs, err, errlen);
		mo->refs = *refs;
	}
	return ret;
}

/* --sample: each host's leaf into *@leaf (malloc'ed) and @mo. */
int mesh_sample_leaves(const struct mesh_cli *o, size_t **leaf, struct mesh_opts *mo,
		       char *err, size_t errlen)
{
	if (!o->sample)
		return 0;
	*leaf = malloc(mo->n_hosts * sizeof(**leaf));
	if (!*leaf)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	mo->leaf = *leaf;
	return mesh_leaves(mo, *leaf, err, errlen);
}
