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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/hist.h"
#include "base/sketch.h"
#include "converge/coord.h"
#include "fabric/locate.h"
#include "fabric/topo.h"
#include "fabric/topo_paths.h"

#define MESH_MAX_HOSTS		4096
#define MESH_STEP_FLOWS		SCENARIO_MAX_FLOWS	/* the pairings of one step */
#define MESH_MAX_CLASSES	16
#define MESH_WHY_MAX		320

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

/* ------------------------------------------------------------------ */
/* A run                                                               */
/* ------------------------------------------------------------------ */

/* One class measured: an SL and, on RoCE, a traffic class. */
struct mesh_class {
	int sl, tclass;
};

/* An earlier pass's p50 of one pair (--reference), in ns. */
struct mesh_ref {
	char src[SCENARIO_HOST_MAX], dst[SCENARIO_HOST_MAX];
	int sl, tclass;
	double p50_ns, ci_low_ns, ci_high_ns;
};

struct mesh_opts {
	const char *const *hosts;	/* the agents' addresses, HOST or HOST:PORT */
	size_t n_hosts;
	struct mesh_class classes[MESH_MAX_CLASSES];
	size_t n_classes;
	double duration_s, warmup_s;	/* of each step */
	size_t size_bytes;
	double mad_k;			/* the outlier rule's k */
	const struct scenario *base;	/* [global] settings: device, ports, clock ... */
	const struct converge_opts *conv;	/* launch, token, timeout */
	const struct topo *topo;	/* --topology: locate the slow hops; NULL: not */
	const struct mesh_ref *refs;	/* --reference: pairs as their excess over it */
	size_t n_refs;
	const struct topo_paths *paths;	/* --routes: the real paths; NULL: shortest */
	double min_change_ns;		/* --min-change; NAN: from the reference */
};

/* An ordered pair on a class: what it measured. */
struct mesh_pair {
	int src, dst;			/* host indices */
	size_t cls;			/* of the classes */
	struct sketch *rtt_ns;		/* its RTTs in ns (0: unresolved); NULL: none came */
	char *error;			/* its flow's, when it failed; NULL: none */
	/* Its p50, as the outlier rule read it. */
	struct hist_quantile p50;
	bool outlier;
	char *why;			/* an outlier's reason; NULL: none */
};
/*
 * The pairs are n_classes * n * (n - 1): at 4096 hosts, 16.8 million a
 * class. A pair holds what every pair needs; its reasons, which few
 * pairs have, are allocated apart (and freed by mesh_reset()).
 */

enum mesh_outlier_kind { MESH_OUT_PAIR, MESH_OUT_HOST, MESH_OUT_CLASS };

/* The hops of one class, located over the topology (fabric/locate.h). */
struct mesh_locate {
	bool ok;			/* @res holds the fit; else @error says why not */
	struct locate_result res;
	size_t n_no_ref;		/* resolved pairs the reference has no figure of */
	double floor_ns;		/* with a reference: the change a hop must pass */
	char error[256];
};

struct mesh_outlier {
	enum mesh_outlier_kind kind;
	char name[300];			/* "h1 -> h2", "h3", "sl 1" */
	size_t cls;			/* the class it was judged in */
	char why[MESH_WHY_MAX];
};

/* Where a step is: which pass, round, half (0: a -> b, 1: b -> a), class,
 * and part of the round (mesh_round_parts()). */
struct mesh_step_info {
	unsigned pass;
	size_t round, half, cls, part;
	size_t index;			/* of the pass's steps */
	const size_t *pairs;		/* the pairs it measured (indices) */
	size_t n_pairs;
	bool cut_short;
};

struct mesh_run {
	const struct mesh_opts *o;
	struct mesh_pair *pairs;	/* n_classes * n * (n - 1): mesh_pair_index() */
	size_t n_pairs;
	size_t rounds, steps, steps_done;
	unsigned pass;
	double duration_s;		/* of the pass, connecting included */
	double connect_ms;
	bool authenticated;		/* every agent proved the token */
	struct mesh_outlier *outliers;
	size_t n_outliers;
	struct mesh_locate *loc;	/* one per class when o->topo, else NULL */
	bool complete;
	bool replayed;			/* read back from a saved mesh: no sketches */
	char error[512];
};

/* Called after each step, with the pairs it measured already joined. */
typedef void (*mesh_step_cb)(void *arg, const struct mesh_run *m,
			     const struct mesh_step_info *s);

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
 * The outlier rule over @m's pairs (pure): sets each pair's p50, outlier
 * and why, and m->outliers. 0 or -ENOMEM.
 */
int mesh_outliers(struct mesh_run *m);

/*
 * mesh_locate.c: the slow hops of each class (after mesh_outliers(), which
 * reads the p50s): every pair whose p50 and its interval are resolved,
 * named by its host (an agent's HOST:PORT is its HOST), as its excess over
 * the reference's p50 of the same pair when o->refs is given, solved over
 * o->topo by locate_hops_opt() into m->loc. A class that cannot be solved
 * says why in its error. 0 or -ENOMEM.
 */
int mesh_locate(struct mesh_run *m);
/* The reference's figure of pair @p, or NULL. */
const struct mesh_ref *mesh_ref_of(const struct mesh_run *m, const struct mesh_pair *p);

/*
 * mesh_replay.c: a saved mesh (rperf mesh --json) read back for --replay:
 * its hosts, classes and mad_k into @o, and a run @m over them whose
 * pairs hold the p50 and interval they had (no histograms; a pair whose
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
