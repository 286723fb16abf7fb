/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh's engine: the schedule (every pair by the round-robin of
 * mesh_round.c, or --sample's subset of mesh_sample.c), each step run
 * through the converge coordinator, every measured pair's RTTs gathered. The
 * outlier rule is mesh_outlier.c, the slow hops mesh_locate.c. See mesh.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/mesh.h"
#include "coord/mesh_sample.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"
#include "flow/figures.h"

/* ------------------------------------------------------------------ */
/* The hosts                                                           */
/* ------------------------------------------------------------------ */

/* Add @h to @hosts (at most MESH_MAX_HOSTS, none twice). 0 or -EINVAL. */
static int mesh_host_add(const char **hosts, size_t *n, const char *h, char *err, size_t errlen)
{
	char host[SCENARIO_HOST_MAX];
	uint16_t port;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(hosts[i], h))
			return 0;
	if (*n == MESH_MAX_HOSTS)
		return errbuf_set(err, errlen, -EINVAL, "at most %d hosts", MESH_MAX_HOSTS);
	if (strlen(h) >= SCENARIO_HOST_MAX || scenario_agent_addr(h, host, sizeof(host), &port))
		return errbuf_set(err, errlen, -EINVAL, "host '%s': expected HOST, HOST:PORT or "
				  "[IPV6]:PORT", h);
	hosts[(*n)++] = h;
	return 0;
}

int mesh_hosts(const char *path, const char *list, struct scenario *sc, char **buf,
	       const char **hosts, size_t *n, char *err, size_t errlen)
{
	char *tok, *save;
	size_t i;
	int ret = 0;

	*n = 0;
	if (path) {
		ret = scenario_load(path, sc, err, errlen);
		for (i = 0; !ret && i < sc->n_flows; i++) {
			ret = mesh_host_add(hosts, n, sc->flows[i].host, err, errlen);
			ret = ret ? ret : mesh_host_add(hosts, n, sc->flows[i].dest, err, errlen);
		}
	} else {
		scenario_defaults(sc, "--hosts");
		*buf = strdup(list);
		if (!*buf)
			return errbuf_set(err, errlen, -ENOMEM, "out of memory");
		for (tok = strtok_r(*buf, ", \t\n", &save); !ret && tok;
		     tok = strtok_r(NULL, ", \t\n", &save))
			ret = mesh_host_add(hosts, n, tok, err, errlen);
	}
	if (!ret && *n < 2)
		ret = errbuf_set(err, errlen, -EINVAL, "a mesh needs two hosts or more");
	return ret;
}

/* ------------------------------------------------------------------ */
/* The pairs                                                           */
/* ------------------------------------------------------------------ */

size_t mesh_pair_index(size_t n, int src, int dst, size_t cls)
{
	return cls * n * (n - 1) + (size_t)src * (n - 1) + (size_t)(dst < src ? dst : dst - 1);
}

/* The steps pass m->pass takes: a sampled one's vary with its rotation. */
static int mesh_pass_steps(struct mesh_run *m)
{
	struct mesh_sample_pass sp;
	size_t i;

	if (!m->sample)
		return 0;
	if (mesh_sample_pass(m->sample, m->pass ? m->pass - 1 : 0, &sp))
		return -ENOMEM;
	m->rounds = sp.n_steps;
	m->steps = 0;
	for (i = 0; i < sp.n_steps; i++)
		m->steps += (sp.step_at[i + 1] - sp.step_at[i] + MESH_STEP_FLOWS - 1) / MESH_STEP_FLOWS;
	m->steps *= m->o->n_classes;
	mesh_sample_pass_free(&sp);
	return 0;
}

/* The sampled schedule of o->sample_k over o->leaf: 0, or -ENOMEM (freed). */
static int mesh_init_sample(struct mesh_run *m)
{
	int ret;

	m->sample = calloc(1, sizeof(*m->sample));
	ret = m->sample ? mesh_sample_init(m->sample, m->o->leaf, m->o->n_hosts,
					   m->o->sample_k) : -ENOMEM;
	ret = ret ? ret : mesh_pass_steps(m);
	if (ret)
		mesh_free(m);
	return ret;
}

int mesh_init(struct mesh_run *m, const struct mesh_opts *o)
{
	size_t n = o->n_hosts, k, s, d;

	memset(m, 0, sizeof(*m));
	m->o = o;
	m->n_pairs = o->n_classes * n * (n - 1);
	m->pairs = calloc(m->n_pairs ? m->n_pairs : 1, sizeof(*m->pairs));
	if (!m->pairs)
		return -ENOMEM;
	for (k = 0; k < o->n_classes; k++)
		for (s = 0; s < n; s++)
			for (d = 0; d < n; d++)
				if (s != d)
					m->pairs[mesh_pair_index(n, (int)s, (int)d, k)] =
						(struct mesh_pair){ .src = (int)s, .dst = (int)d,
								    .cls = k };
	m->rounds = mesh_n_rounds(n);
	m->steps = m->rounds * 2 * o->n_classes * mesh_round_parts(n);
	return o->sample_k ? mesh_init_sample(m) : 0;
}

void mesh_reset(struct mesh_run *m)
{
	struct mesh_pair *p;
	size_t i;

	for (i = 0; i < m->n_pairs; i++) {
		p = &m->pairs[i];
		sketch_free(p->rtt_ns);
		free(p->error);
		free(p->why);
		*p = (struct mesh_pair){ .src = p->src, .dst = p->dst, .cls = p->cls };
	}
	free(m->outliers);
	m->outliers = NULL;
	m->n_outliers = 0;
	for (i = 0; m->loc && i < m->o->n_classes; i++)
		locate_free(&m->loc[i].res);
	free(m->loc);
	m->loc = NULL;
	m->steps_done = 0;
	m->complete = false;
	m->error[0] = '\0';
	m->duration_s = m->connect_ms = 0;
	m->authenticated = false;
}

void mesh_free(struct mesh_run *m)
{
	mesh_reset(m);
	free(m->pairs);
	m->pairs = NULL;
	if (m->sample)
		mesh_sample_free(m->sample);
	free(m->sample);
	m->sample = NULL;
}

/* ------------------------------------------------------------------ */
/* A pass                                                              */
/* ------------------------------------------------------------------ */

/*
 * The step's flows into c->sc: one lat flow per pairing of @mt, from a to
 * b (@half 0) or b to a (1), on class @cls; their pairs' indices into
 * @pairs. Returns how many.
 */
static size_t mesh_step_flows(struct mesh_run *m, struct coord *c, const struct mesh_match *mt,
			      size_t n_mt, size_t half, size_t cls, size_t *pairs)
{
	const struct mesh_opts *o = m->o;
	struct scenario_flow *f;
	int s, d;
	size_t i;

	for (i = 0; i < n_mt; i++) {
		s = half ? mt[i].b : mt[i].a;
		d = half ? mt[i].a : mt[i].b;
		f = &c->sc.flows[i];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "mesh%zu-%d-%d", cls, s, d);
		snprintf(f->section, sizeof(f->section), "%s", f->name);
		snprintf(f->host, sizeof(f->host), "%s", o->hosts[s]);
		snprintf(f->dest, sizeof(f->dest), "%s", o->hosts[d]);
		f->type = SCENARIO_FLOW_LAT;
		f->has_type = true;
		flow_spec_defaults(&f->spec);
		f->spec.sl = (uint8_t)o->classes[cls].sl;
		f->spec.tclass = (uint8_t)o->classes[cls].tclass;
		f->spec.size_bytes = o->size_bytes;
		pairs[i] = mesh_pair_index(o->n_hosts, s, d, cls);
		m->pairs[pairs[i]].measured = true;
	}
	c->sc.n_flows = n_mt;
	return n_mt;
}

/* Pair @p's error, @what (a copy): 0 or -ENOMEM. */
static int mesh_pair_error(struct mesh_pair *p, const char *what)
{
	free(p->error);
	p->error = strdup(what);
	return p->error ? 0 : -ENOMEM;
}

int mesh_join(struct mesh_run *m, const struct converge_step *st, const size_t *pairs)
{
	const struct converge_flow *cf;
	struct mesh_pair *p;
	size_t i;
	int ret = 0;

	for (i = 0; i < st->n_flows; i++) {
		cf = &st->flows[i];
		p = &m->pairs[pairs[i]];
		if (cf->error[0] && mesh_pair_error(p, cf->error))
			ret = -ENOMEM;
		if (!cf->rtt)
			continue;
		if (figures_sketch_add_ns(&p->rtt_ns, cf->rtt, &cf->rtt_clk) &&
		    mesh_pair_error(p, "its RTTs do not fit a sketch"))
			ret = -ENOMEM;
	}
	return ret;
}

/* The step's histograms, freed: the pairs hold what they measured. */
static void mesh_step_release(struct converge_step *st)
{
	size_t k;

	for (k = 0; k < st->n_classes; k++)
		hist_free(st->classes[k].lat_ns);
	for (k = 0; k < st->n_flows; k++)
		hist_free(st->flows[k].rtt);
}

/*
 * A coordinator for a pass: @o's settings, its hosts, one step's room;
 * NULL with the reason in @err.
 */
static struct coord *mesh_coord(const struct mesh_opts *o, char *err, size_t errlen)
{
	struct coord *c = calloc(1, sizeof(*c));

	if (c)
		c->steps = calloc(1, sizeof(*c->steps));
	if (!c || !c->steps) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->o = o->conv;
	c->sc = *o->base;
	c->sc.n_flows = 0;
	c->sc.duration_s = o->duration_s;
	c->sc.warmup_s = o->warmup_s;
	c->hosts = o->hosts;
	c->n_hosts = o->n_hosts;
	run_env_host(&c->env);
	if (o->conv->token_file && token_read(o->conv->token_file, c->token, sizeof(c->token),
						  err, errlen)) {
		free(c->steps);
		free(c);
		return NULL;
	}
	return c;
}

/*
 * One step: the @n pairings at @mt (at most MESH_STEP_FLOWS) of the
 * round, direction, class and part @si names; their pairs' indices into
 * @pairs. 0, or what coord_run_step() or a signal ended it with.
 */
static int mesh_step(struct mesh_run *m, struct coord *c, const struct mesh_match *mt,
		     size_t n, struct mesh_step_info si, size_t *pairs, mesh_step_cb cb,
		     void *arg)
{
	int ret;

	mesh_step_flows(m, c, mt, n, si.half, si.cls, pairs);
	log_info("mesh: round %zu of %zu, part %zu, %s, sl %d", si.round + 1, m->rounds,
		 si.part + 1, si.half ? "back" : "forth", m->o->classes[si.cls].sl);
	c->n_steps = 0;
	ret = coord_run_step(c, 0, false, 0);
	if (mesh_join(m, &c->steps[0], pairs) && !ret) {
		snprintf(c->error, sizeof(c->error), "out of memory");
		ret = -ENOMEM;
	}
	si.pass = m->pass;
	si.index = m->steps_done++;
	si.pairs = pairs;
	si.n_pairs = n;
	si.cut_short = c->steps[0].cut_short;
	mesh_step_release(&c->steps[0]);
	if (cb)
		cb(arg, m, &si);
	return !ret && stop_requested() ? -EINTR : ret;
}

/* Every step of the pass through @c; stops at the first failure or signal. */
static int mesh_steps(struct mesh_run *m, struct coord *c, mesh_step_cb cb, void *arg)
{
	const struct mesh_opts *o = m->o;
	struct mesh_match *mt = calloc(o->n_hosts / 2 + 1, sizeof(*mt));
	size_t pairs[MESH_STEP_FLOWS], r, h, k, p, n, at;
	int ret = 0;

	if (!mt)
		return snprintf(c->error, sizeof(c->error), "out of memory"), -ENOMEM;
	for (r = 0; !ret && r < m->rounds; r++) {
		n = mesh_round(o->n_hosts, r, mt);
		for (k = 0; !ret && k < o->n_classes; k++)
			for (h = 0; !ret && h < 2; h++)
				for (p = 0; !ret && p < mesh_round_parts(o->n_hosts); p++) {
					size_t in = mesh_round_part(n, p, &at);

					ret = mesh_step(m, c, mt + at, in, (struct mesh_step_info){
						.round = r, .half = h, .cls = k, .part = p },
						pairs, cb, arg);
				}
	}
	free(mt);
	return ret;
}

/*
 * A step's @n pairings at @mt, MESH_STEP_FLOWS at a time, on every class
 * (@si: where it is). Stops at the first failure or signal.
 */
static int mesh_step_parts(struct mesh_run *m, struct coord *c, const struct mesh_match *mt,
			   size_t n, struct mesh_step_info si, mesh_step_cb cb, void *arg)
{
	size_t pairs[MESH_STEP_FLOWS], at, in;
	int ret = 0;

	for (si.cls = 0; !ret && si.cls < m->o->n_classes; si.cls++)
		for (si.part = 0; !ret && (in = mesh_round_part(n, si.part, &at)); si.part++)
			ret = mesh_step(m, c, mt + at, in, si, pairs, cb, arg);
	return ret;
}

/* Every step of the pass, sampled: the rotation of pass m->pass. */
static int mesh_sample_steps(struct mesh_run *m, struct coord *c, mesh_step_cb cb, void *arg)
{
	struct mesh_sample_pass sp;
	size_t i;
	int ret = mesh_sample_pass(m->sample, m->pass ? m->pass - 1 : 0, &sp);

	if (ret)
		return snprintf(c->error, sizeof(c->error), "out of memory"), ret;
	for (i = 0; !ret && i < sp.n_steps; i++)
		ret = mesh_step_parts(m, c, sp.pairs + sp.step_at[i],
				      sp.step_at[i + 1] - sp.step_at[i],
				      (struct mesh_step_info){ .round = i }, cb, arg);
	mesh_sample_pass_free(&sp);
	return ret;
}

int mesh_run_pass(struct mesh_run *m, mesh_step_cb cb, void *arg)
{
	uint64_t t0 = ctl_now_ns();
	struct coord *c = mesh_coord(m->o, m->error, sizeof(m->error));
	int ret;

	if (!c)
		return -EINVAL;
	ret = coord_connect_agents(c);
	m->connect_ms = c->connect_ms;
	m->authenticated = c->authenticated;
	if (!ret && mesh_pass_steps(m))
		ret = (snprintf(c->error, sizeof(c->error), "out of memory"), -ENOMEM);
	if (!ret)
		ret = m->sample ? mesh_sample_steps(m, c, cb, arg) : mesh_steps(m, c, cb, arg);
	coord_hangup(c, ret != 0);
	if (ret)
		snprintf(m->error, sizeof(m->error), "%s", c->error[0] ? c->error :
			 ret == -EINTR ? "stopped by a signal" : strerror(-ret));
	m->complete = !ret;
	m->duration_s = (double)(ctl_now_ns() - t0) / 1e9;
	coord_agents_free(c);
	free(c->steps);
	free(c);
	return mesh_outliers(m) || mesh_locate(m) ? -ENOMEM : ret;
}
