/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What a mesh run holds (mesh.h): its options, its pairs, outliers and
 * located hops, and where a step is. Apart from mesh.h so that the rules
 * over a run (mesh_outlier.h, mesh_locate.h) read it without depending
 * on the engine that fills it.
 */
#ifndef RPERF_MESH_RUN_H
#define RPERF_MESH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/hist.h"
#include "base/sketch.h"
#include "coord/coord.h"
#include "fabric/locate.h"
#include "fabric/topo.h"
#include "fabric/topo_paths.h"

#define MESH_MAX_HOSTS		4096
#define MESH_STEP_FLOWS		SCENARIO_MAX_FLOWS	/* the pairings of one step */
#define MESH_MAX_CLASSES	16
#define MESH_WHY_MAX		320

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
	size_t sample_k;		/* --sample: cross-leaf targets a host; 0: every pair */
	const size_t *leaf;		/* with sample_k: each host's leaf (mesh_leaves()) */
};

/* A pair's p50 as the rules read it (of a struct hist_quantile, what they use). */
struct mesh_p50 {
	uint64_t value, lo, hi;		/* ns; the 95 % interval's ends (RESOLVED only) */
	uint8_t state;			/* enum hist_q_state */
	bool lo_whole;			/* the interval's low end is a figure: judged */
	bool hi_whole;			/* and its high end, within the samples */
};

/* An ordered pair on a class: what it measured. */
struct mesh_pair {
	int src, dst;			/* host indices */
	struct sketch *rtt_ns;		/* its RTTs in ns (0: unresolved); NULL: none came */
	char *error;			/* its flow's, when it failed; NULL: none */
	char *why;			/* an outlier's reason; NULL: none */
	struct mesh_p50 p50;		/* as the outlier rule read it */
	uint16_t cls;			/* of the classes (MESH_MAX_CLASSES) */
	bool measured;			/* scheduled in this pass (a sampled one skips some) */
	bool outlier;
};
/*
 * The pairs are n_classes * n * (n - 1): at 4096 hosts, 16.8 million a
 * class, 72 bytes each (128 with the whole struct hist_quantile it
 * held before). A pair holds what every pair needs; its reasons, which few
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
 * and part of the round (mesh_round_parts()); in a sampled pass, round is
 * the schedule's step (mesh_sample.h) and half 0. */
struct mesh_step_info {
	unsigned pass;
	size_t round, half, cls, part;
	size_t index;			/* of the pass's steps */
	const size_t *pairs;		/* the pairs it measured (indices) */
	size_t n_pairs;
	bool cut_short;
};

struct mesh_sample;

struct mesh_run {
	const struct mesh_opts *o;
	struct mesh_sample *sample;	/* o->sample_k: the sampled schedule; else NULL */
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

#endif
