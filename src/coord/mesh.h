/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh: the latency of every ordered pair of a set of hosts, per
 * class (SL, and traffic class on RoCE), measured through the converge
 * agents. The pairs are scheduled as a round-robin tournament (the
 * circle method): N - 1 rounds of N / 2 disjoint pairs for an even N, N
 * rounds with one host idle in each for an odd N. Each round runs as two
 * steps per class, a -> b then b -> a, so no host is in two measurements
 * at once; a round of more pairings than a step holds (MESH_STEP_FLOWS,
 * a scenario's flows) runs as several parts of that many, one after the
 * other. Every step is a converge step of lat flows (coord_run_step);
 * each flow's RTT histogram, in ns, joins its pair's sketch (base/sketch.h:
 * at most 8 KiB a pair where a histogram takes 224 KiB).
 *
 * With o->sample_k, a pass is the sampled schedule instead
 * (mesh_sample.h): the pairs under each leaf switch and sample_k a host
 * across leaves, the next rotation each pass; the pairs it leaves out
 * are not measured, not judged and not reported (measured false).
 *
 * Then the outliers, by a robust rule over comparable pairs (one class):
 * a pair whose p50 lies, even at the low end of its 95 % interval, above
 * median + k * 1.4826 * MAD of its class's p50s (and above 105 % of the
 * median, so that a spread tighter than the method's resolution names no
 * one); a host most of whose pairs are outliers; a class whose median is
 * above the fastest class's by the same rule. Each says why.
 *
 * Engines never print: a caller's callback hears of each step as it ends.
 */
#ifndef RPERF_MESH_H
#define RPERF_MESH_H

#include "coord/mesh_run.h"
#include "coord/mesh_outlier.h"
#include "coord/mesh_locate.h"
#include "coord/mesh_round.h"

/*
 * The mesh's hosts into @hosts (at most MESH_MAX_HOSTS, none twice), *@n
 * of them, two or more: the hosts and destinations of scenario @path's
 * flows in order of first use (@sc loaded from it), or, @path NULL, those
 * of @list (HOST, HOST:PORT or [IPV6]:PORT by commas or blanks), split in
 * *@buf (malloc'ed, for the caller to free), which they point into; @sc
 * then the defaults. 0, or -EINVAL or -ENOMEM with the reason in @err.
 */
int mesh_hosts(const char *path, const char *list, struct scenario *sc, char **buf,
	       const char **hosts, size_t *n, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* A run                                                               */
/* ------------------------------------------------------------------ */

/* The index of pair @src -> @dst on class @cls among @n hosts' pairs. */
size_t mesh_pair_index(size_t n, int src, int dst, size_t cls);

/* @m ready for a pass of @o: every pair empty. 0 or -ENOMEM. */
int mesh_init(struct mesh_run *m, const struct mesh_opts *o);
/* Forget the pass's figures (pairs empty again, outliers gone). */
void mesh_reset(struct mesh_run *m);
void mesh_free(struct mesh_run *m);

/*
 * One pass: connect to (or launch) the agents, run every step, hang up.
 * A signal or a failure ends it early; what was measured is kept, with
 * m->complete false and m->error set. Then the outliers. 0 or -errno.
 */
int mesh_run_pass(struct mesh_run *m, mesh_step_cb cb, void *arg);

/*
 * What step @st measured into its pairs (@pairs: their indices, as its
 * flows are ordered): each flow's error, and its RTTs joined to its
 * pair's sketch in ns. 0 or -ENOMEM (a pair says why it holds less).
 */
int mesh_join(struct mesh_run *m, const struct converge_step *st, const size_t *pairs);

/*
 * mesh_replay.c: a saved mesh (rperf mesh --json) read back for --replay:
 * its hosts, classes and mad_k into @o, and a run @m over them whose
 * pairs hold the p50 and interval they had (no sketches; a pair whose
 * three figures are not all numbers stays unresolved). The caller sets
 * o.topo, o.refs and o.paths, then calls mesh_locate(&m). 0, or -EINVAL
 * (not a mesh document, a pair of a host or class it does not list) or
 * -ENOMEM, with @err set; mesh_replay_free() in every case.
 */
struct mesh_replay {
	json_t *doc;
	const char **hosts;
	json_t *host_ids;		/* a host's name -> its index + 1 */
	struct mesh_opts o;
	struct mesh_run m;
};
int mesh_replay_load(struct mesh_replay *r, const char *path, char *err, size_t errlen);
void mesh_replay_free(struct mesh_replay *r);

#endif
