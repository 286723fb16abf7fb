/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The references a run is compared with, read back from the documents
 * rperf wrote (reference.c): lat --reference (a lat document, and the
 * differences of its percentiles with this run's) and mesh --reference
 * (a mesh document's pairs). The keys read are doc_keys.h's, shared with
 * the code that writes them; lat's and mesh's commands include it.
 */
#ifndef RPERF_REPORT_REFERENCE_H
#define RPERF_REPORT_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hist.h"
#include "engine/run.h"
#include "report/doc_keys.h"

struct mesh_ref;

/*
 * `rperf lat --reference FILE`: what the measured path adds to a
 * reference path (back to back, or one whose latency is known), per
 * size, from an earlier `rperf lat --json` document over the reference.
 *
 * Each difference is of two percentiles, measured minus reference, with
 * a conservative interval from the two percentiles' own 95 % intervals:
 * [lo_measured - hi_reference, hi_measured - lo_reference]. Both
 * intervals cover their percentiles together with probability at least
 * 1 - 0.05 - 0.05 (Bonferroni), so the difference's interval covers the
 * difference of the true percentiles with at least REF_CONFIDENCE.
 *
 * A difference of percentiles is not a percentile of the differences:
 * the medians' difference is the shift between the two distributions;
 * the tails' differences are what a shift adds only when the
 * distributions differ by one.
 *
 * The document is read as hostile input: every field used is checked
 * (types, states against values, intervals around their values), and a
 * file that is not a complete lat document is refused, naming it.
 */

/* The coverage of every difference's interval (Bonferroni, two 95 % CIs). */
#define REF_CONFIDENCE	(1.0 - 2.0 * (1.0 - HIST_CI_CONFIDENCE))
/* The percentiles compared, as lat's JSON names them. */
#define REF_N_PCTS	3
extern const char *const ref_pct_keys[REF_N_PCTS];
/* The largest reference document read (its bytes). */
#define REF_MAX_FILE_BYTES	(16u << 20)

/* measured - reference, or why it is not a figure. */
struct ref_diff {
	enum hist_q_state state;	/* RESOLVED, else the first side's state that is not */
	bool by_reference;		/* not RESOLVED: the reference's side is why */
	double value_ns;		/* RESOLVED */
	bool has_lo, has_hi;		/* the interval's sides (false: open) */
	double lo_ns, hi_ns;
};

/*
 * The difference @m - @r of one percentile: a figure when both are
 * resolved (the measured side's state first, then the reference's,
 * otherwise), with the interval [m.lo - r.hi, m.hi - r.lo]; a side is
 * open when either side it needs is. Pure.
 */
void ref_diff(const struct ref_pct *m, const struct ref_pct *r, struct ref_diff *d);

/* One size of the reference run. */
struct ref_size {
	size_t size_bytes;
	struct ref_pct pct[REF_N_PCTS];		/* in ref_pct_keys' order */
};

/* A reference run, as read from its document. */
struct ref_doc {
	const char *path;		/* as given: every message names it */
	char clock[16];			/* its clock's source ("tsc", "monotonic") */
	size_t n;
	struct ref_size sizes[RUN_MAX_SIZES];
};

/*
 * Read and check @path, an `rperf lat --json` document, into @d. 0, or
 * -errno / -EPROTO with the reason (naming the file) in @err.
 */
int ref_doc_load(const char *path, struct ref_doc *d, char *err, size_t errlen);

/*
 * Check the reference against the run it qualifies: the same clock
 * source (@clock) and at least one of its @n sizes. 0, or -EINVAL with
 * the reason in @err. @missing (NULL: not asked) gets a list of the
 * sizes the reference lacks ("" when none).
 */
int ref_doc_check(const struct ref_doc *d, const char *clock, const size_t *sizes, size_t n,
		  char *missing, size_t missinglen, char *err, size_t errlen);

/*
 * ref_doc_check() against lat run @r, prepared: its clock and its sizes
 * (known once the port is, for -a). 0, or -EINVAL with the reason in
 * @err; @warn gets what the user should hear of the sizes the reference
 * lacks (those are left out of the comparison), or "".
 */
int ref_doc_check_run(const struct ref_doc *d, const struct run_lat *r, char *warn,
		      size_t warnlen, char *err, size_t errlen);

/* The reference's size @size_bytes, or NULL. */
const struct ref_size *ref_doc_find(const struct ref_doc *d, size_t size_bytes);

/*
 * mesh --reference: the pairs of an earlier `rperf mesh --json` document
 * whose p50 and both sides of its interval are figures, into *@refs
 * (malloc'ed, for the caller to free), *@n of them. 0; -EINVAL with the
 * reason in @err for a file that is no mesh document, not JSON, or larger
 * than REF_MAX_FILE_BYTES; -ENOMEM.
 */
int report_mesh_ref_load(const char *path, struct mesh_ref **refs, size_t *n, char *err,
			 size_t errlen);

#endif
