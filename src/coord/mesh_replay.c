/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh --replay: a saved mesh (its --json) read back as a run
 * without sketches, each pair holding the p50 and the interval it
 * had, so that the hops can be located again over another topology or
 * other routes, without the agents. See mesh.h. Pure but for the read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "coord/mesh.h"

/* Class (@sl, @tclass) of @o, or -1. */
static int replay_class(const struct mesh_opts *o, int sl, int tclass)
{
	for (size_t k = 0; k < o->n_classes; k++)
		if (o->classes[k].sl == sl && o->classes[k].tclass == tclass)
			return (int)k;
	return -1;
}

/* Host @name's index (a hash lookup: a document may hold 4096 hosts
 * and 16.8 million pairs), or -1. */
static int replay_host(const struct mesh_replay *r, const char *name)
{
	return name ? (int)json_integer_value(json_object_get(r->host_ids, name)) - 1 : -1;
}

/* The hosts and classes of the document into r->o. */
static int replay_setup(struct mesh_replay *r, const char *path, char *err, size_t errlen)
{
	json_t *hosts = json_object_get(r->doc, "hosts"), *cfg = json_object_get(r->doc, "config");
	json_t *cls = json_object_get(cfg, "classes"), *v;
	size_t i;

	if (strcmp(json_string_value(json_object_get(r->doc, "command")) ?: "", "mesh") ||
	    !json_is_array(hosts) || !json_is_array(cls) || !json_is_array(json_object_get(r->doc,
	    "pairs")))
		return errbuf_set(err, errlen, -EINVAL, "--replay '%s': not an rperf mesh document",
				  path);
	if (json_array_size(hosts) < 2 || json_array_size(hosts) > MESH_MAX_HOSTS ||
	    !json_array_size(cls) || json_array_size(cls) > MESH_MAX_CLASSES)
		return errbuf_set(err, errlen, -EINVAL, "--replay '%s': %zu hosts and %zu classes "
				  "(2 to %d hosts, 1 to %d classes)", path, json_array_size(hosts),
				  json_array_size(cls), MESH_MAX_HOSTS, MESH_MAX_CLASSES);
	r->hosts = calloc(json_array_size(hosts), sizeof(*r->hosts));
	r->host_ids = json_object();
	if (!r->hosts || !r->host_ids)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	json_array_foreach(hosts, i, v) {
		r->hosts[i] = json_string_value(v);
		if (!r->hosts[i] || replay_host(r, r->hosts[i]) >= 0)
			return errbuf_set(err, errlen, -EINVAL, "--replay '%s': host %zu is %s", path,
					  i, r->hosts[i] ? "named twice" : "not a string");
		if (json_object_set_new(r->host_ids, r->hosts[i], json_integer((json_int_t)i + 1)))
			return errbuf_set(err, errlen, -ENOMEM, "out of memory");
		r->o.hosts = r->hosts;
		r->o.n_hosts = i + 1;
	}
	json_array_foreach(cls, i, v)
		r->o.classes[i] = (struct mesh_class){
			.sl = (int)json_integer_value(json_object_get(v, "sl")),
			.tclass = (int)json_integer_value(json_object_get(v, "tclass")) };
	r->o.n_classes = json_array_size(cls);
	r->o.mad_k = json_is_number(json_object_get(cfg, "mad_k")) ?
		     json_number_value(json_object_get(cfg, "mad_k")) : 3;
	return 0;
}

/* One pair of the document into its place: its p50 and interval when
 * all three are figures (else it stays unresolved, as loaded). */
static int replay_pair(struct mesh_replay *r, const json_t *p, const char *path, char *err,
		       size_t errlen)
{
	const json_t *q = json_object_get(p, "p50");
	int s = replay_host(r, json_string_value(json_object_get(p, "src")));
	int d = replay_host(r, json_string_value(json_object_get(p, "dst")));
	int k = replay_class(&r->o, (int)json_integer_value(json_object_get(p, "sl")),
			     (int)json_integer_value(json_object_get(p, "tclass")));
	double v = json_number_value(json_object_get(q, "value_ns")),
	       lo = json_number_value(json_object_get(q, "ci_low_ns")),
	       hi = json_number_value(json_object_get(q, "ci_high_ns"));
	struct mesh_p50 *h;

	if (s < 0 || d < 0 || s == d || k < 0)
		return errbuf_set(err, errlen, -EINVAL, "--replay '%s': a pair of hosts or a class "
				  "the document does not list", path);
	h = &r->m.pairs[mesh_pair_index(r->o.n_hosts, s, d, (size_t)k)].p50;
	if (!json_is_number(json_object_get(q, "value_ns")) ||
	    !json_is_number(json_object_get(q, "ci_low_ns")) ||
	    !json_is_number(json_object_get(q, "ci_high_ns")) || !(lo >= 0) || !(lo <= v) ||
	    !(v <= hi))
		return 0;
	*h = (struct mesh_p50){ .state = HIST_Q_RESOLVED, .lo_whole = true, .hi_whole = true,
		.value = (uint64_t)llround(v), .lo = (uint64_t)floor(lo), .hi = (uint64_t)ceil(hi) };
	return 0;
}

int mesh_replay_load(struct mesh_replay *r, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *p;
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->doc = json_load_file(path, 0, &je);
	if (!r->doc)
		return errbuf_set(err, errlen, -EINVAL, "--replay '%s': %s", path, je.text);
	ret = replay_setup(r, path, err, errlen);
	if (!ret && mesh_init(&r->m, &r->o))
		ret = errbuf_set(err, errlen, -ENOMEM, "out of memory");
	/* A pair the document gives no p50 for is none, not the zeroed
	 * pair's "resolved" 0 ns. */
	for (i = 0; !ret && i < r->m.n_pairs; i++)
		r->m.pairs[i].p50.state = HIST_Q_UNRESOLVED;
	json_array_foreach(json_object_get(r->doc, "pairs"), i, p)
		if (!ret)
			ret = replay_pair(r, p, path, err, errlen);
	r->m.complete = json_is_true(json_object_get(r->doc, "complete"));
	r->m.replayed = true;
	return ret;
}

void mesh_replay_free(struct mesh_replay *r)
{
	mesh_free(&r->m);
	free(r->hosts);
	json_decref(r->host_ids);
	json_decref(r->doc);
	memset(r, 0, sizeof(*r));
}
