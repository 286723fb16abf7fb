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

/* ------------------------------------------------------------------ */
/* The schedule (pure)                                                 */
/* ------------------------------------------------------------------ */

/* One pairing of a round: hosts @a and @b (indices into the host list). */
struct mesh_match {
	int a, b;
};

/* Rounds of the circle method for @n hosts: n - 1 (even n), n (odd n), 0 (n < 2). */
size_t mesh_n_rounds(size_t n);
/*
 * The pairings of round @r (0 .. mesh_n_rounds(n) - 1) of @n hosts into
 * @out (room for n / 2): host 0 stays, the others turn one place a
 * round; for an odd @n a phantom host makes the bye and its pairing is
 * left out. Returns how many pairings: n / 2.
 */
size_t mesh_round(size_t n, size_t r, struct mesh_match *out);
/* The steps a round of @n hosts takes per class and direction: its
 * pairings MESH_STEP_FLOWS at a time (1 for n < 2). */
size_t mesh_round_parts(size_t n);
/* Part @p of a round's @k pairings: how many it holds (at most
 * MESH_STEP_FLOWS; 0 past the last), the first at *@at. */
size_t mesh_round_part(size_t k, size_t p, size_t *at);

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
