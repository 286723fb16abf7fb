/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What one step of `rperf converge` measured: its flows, its classes of
 * traffic at the destination (with their latency and shares) and the
 * comparison with the arbitration's analysis. The coordinator fills them
 * (coord_results.c); the report formats them. They live in converge, so
 * that the report includes converge and never the reverse.
 */
#ifndef RPERF_CONVERGE_STEP_H
#define RPERF_CONVERGE_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "base/clock.h"
#include "base/hist.h"
#include "flow/criteria.h"

#define CONVERGE_MAX_PORTS	16
#define CONVERGE_MAX_CLASSES	64
#define CONVERGE_MAX_FLOWS	64
#define CONVERGE_MAX_READINGS	8
/* The intervals a sink splits its window into (CTL_INTERVALS on the wire). */
#define CONVERGE_INTERVALS	20
/* The confidence of a share's interval. */
#define CONVERGE_SHARE_CONFIDENCE	0.95
/* The fewest shares whose lag-1 correlation can be estimated and corrected. */
#define CONVERGE_CI_MIN_N	5
/*
 * The lag-1 correlation of the shares is taken at its bias-corrected
 * estimate plus CONVERGE_RHO_Z standard errors (1 / sqrt(n)); at
 * CONVERGE_RHO_REFUSE or above no interval is given.
 */
#define CONVERGE_RHO_Z		1.0
#define CONVERGE_RHO_REFUSE	0.9

/*
 * A class's share against its analyzed one, given the share's interval:
 * WITHIN when the whole interval lies within the tolerance of the
 * analyzed share, OUT when the whole interval lies beyond it,
 * INCONCLUSIVE when it straddles the tolerance's edge (or there is no
 * interval: too few intervals, or shares too correlated to bound).
 */
enum converge_verdict { CONVERGE_WITHIN, CONVERGE_OUT, CONVERGE_INCONCLUSIVE };

/* "within", "out", "inconclusive". */
const char *converge_verdict_name(enum converge_verdict v);
/*
 * The verdict on a share whose interval is [@lo_pct, @hi_pct] (@has_ci
 * false: none) against @analyzed_pct with a tolerance of @tol_pp. Pure.
 */
enum converge_verdict converge_judge(bool has_ci, double lo_pct, double hi_pct,
				     double analyzed_pct, double tol_pp);
/* The worse of two verdicts: OUT over INCONCLUSIVE over WITHIN. */
enum converge_verdict converge_worse(enum converge_verdict a, enum converge_verdict b);
/*
 * An interval at CONVERGE_SHARE_CONFIDENCE for the mean of the @n
 * per-interval shares @pct that holds when consecutive intervals are
 * correlated (a slow start, drift): the lag-1 autocorrelation r1 is
 * corrected for its bias ((n r1 + 1) / (n - 4)), raised by
 * CONVERGE_RHO_Z / sqrt(n) to an upper bound rho, and the variance of the
 * mean is that of an AR(1) series with that rho: s^2 / n (1 + 2a) /
 * (1 - 2a / (n - 1)), a = sum over k < n of (1 - k / n) rho^k, with a t
 * quantile on n (1 - rho) / (1 + rho) - 1 degrees of freedom. Clamped to
 * 0 .. 100. False (no interval) when @n < CONVERGE_CI_MIN_N, rho >=
 * CONVERGE_RHO_REFUSE or fewer than two effective shares remain. @rho
 * gets the bias-corrected estimate (0 .. 1). Pure.
 */
bool converge_share_ci(const double *pct, unsigned n, double *lo_pct, double *hi_pct,
		       double *rho);

/*
 * Which of step @st's classes are judged (struct converge_class), and
 * whether any is (@st->judged); @analyzed false: there was no analysis
 * to compare with. Pure.
 */
struct converge_step;
void converge_step_judged(struct converge_step *st, bool analyzed);
/*
 * The verdict of a run of @n steps: their worst, and inconclusive when
 * nothing was judged (@judged false: no class judged in any step and no
 * criterion set; @analyzed false, no arbitration to compare with, counts
 * as judged: such a run only measures). Pure.
 */
enum converge_verdict converge_run_verdict(const struct converge_step *steps, size_t n,
					   bool analyzed, bool *judged);
/*
 * The window (s, whole) that would resolve an inconclusive share whose
 * interval over a window of @window_s is [@lo_pct, @hi_pct], against
 * @analyzed_pct with tolerance @tol_pp: the interval's half-width shrinks
 * as 1 / sqrt(window) (its spread taken as noise that averages out, at
 * the same centre) until it clears the tolerance's edge on one side. 0
 * when the centre lies on that edge (the interval would have to shrink
 * more than CONVERGE_RESOLVE_MAX_X times). Pure.
 */
#define CONVERGE_RESOLVE_MAX_X	100
double converge_resolve_s(double lo_pct, double hi_pct, double analyzed_pct, double tol_pp,
			  double window_s);

/*
 * A destination's port: its classes are analyzed and compared on their
 * own, against what that destination received.
 */
struct converge_port {
	const char *host;		/* the destination */
	double window_s;		/* its sink's window */
	double total_gbps;		/* received in all */
	double analysis_link_gbps;
	bool compared;			/* false: nothing saturates it */
	bool judged;			/* a class of it was judged (converge_step_judged) */
	bool within;			/* verdict == CONVERGE_WITHIN */
	enum converge_verdict verdict;	/* the worst of its compared classes' */
	unsigned n_iv;			/* intervals every flow it received reported */
	bool iv_seen;			/* n_iv is set */
	uint64_t refused_conns;		/* data connections its sink refused: no flow's secret, or no hello in time */
};

/*
 * One class of traffic at a destination: an SL on InfiniBand, an ETS
 * band (the flows' tclass -> DSCP -> band) on RoCE.
 */
struct converge_class {
	int port;			/* of the step's ports */
	const char *dest;		/* that port's destination */
	int key;			/* SL or band */
	int dscp;			/* ETS: a DSCP of its flows */
	unsigned n_lat, n_bw;
	bool saturating;		/* holds a bw flow without a rate */
	struct hist *lat_ns;		/* RTTs of its lat flows, in ns; NULL: none */
	uint64_t bytes;			/* received in the window */
	double gbps;
	double share_pct;		/* of all that was received */
	bool has_analyzed;
	double analyzed_pct;
	double diff_pp;			/* share_pct - analyzed_pct */
	bool within;			/* verdict == CONVERGE_WITHIN */
	enum converge_verdict verdict;
	/*
	 * Judged: its share was compared with one the arbitration decides
	 * (two or more classes saturate its port, and it is one of them).
	 * Otherwise @unjudged_why says why not; its verdict, if any, is
	 * nearly automatic (it is analyzed at its own measured rate, or gets
	 * what the others leave).
	 */
	bool judged;
	const char *unjudged_why;
	/* Inconclusive: the window that would resolve it (converge_resolve_s); 0: none. */
	double resolve_window_s;
	/* Its bytes in each of its port's intervals, their shares' interval. */
	uint64_t iv_bytes[CONVERGE_INTERVALS];
	bool has_ci;
	double ci_low_pct, ci_high_pct;
	double share_rho;		/* the shares' lag-1 correlation, bias-corrected */
	double reading_pct[CONVERGE_MAX_READINGS];	/* analyzed by each reading (fit) */
	/*
	 * Taken as saturating, yet below its analyzed share by more than the
	 * tolerance: it did not keep its queue at the port backlogged (an RC
	 * flow waiting out a retransmission timeout sends nothing). What its
	 * flows sent over their run and the retransmissions of their hosts'
	 * ports (has_retrans: every host said) tell why.
	 */
	bool not_backlogged;
	double sent_gbps;
	uint64_t retrans;
	bool has_retrans;
	/* The switch's own counters of the class's band over the window. */
	bool has_switch;
	double switch_share_pct;	/* of all the port sent */
	double switch_diff_pp;		/* switch_share_pct - share_pct */
	/*
	 * Congestion impact (--baseline, loaded steps): the class's RTT
	 * percentiles over the same percentiles of its lat flows run alone.
	 */
	bool has_impact;
	double impact_p50, impact_p99, impact_p99_9;
	/* Per factor (p50, p99, p99.9): why it has none, or NULL ("p50
	 * unresolved alone": a percentile it divides is not resolved). */
	const char *impact_why[3];
};

struct converge_flow {
	const char *name, *host, *dest, *type;
	int sl, tclass, dscp, class_key;
	int port;			/* its destination's, of the step's ports */
	uint64_t rate_bps;		/* bw: as configured; 0: unpaced */
	double duty_cycle;		/* bursty: on / (on + off); 1: always on */
	uint64_t bytes;			/* at the destination, in the window */
	double gbps;
	uint64_t sent_bytes;		/* what its source completed, tail included */
	double sent_gbps;		/* bw: sent_bytes over its run; 0: not known */
	int64_t host_retrans;		/* its host's port over the run; -1: not known */
	struct hist *rtt;		/* lat: its RTTs in its agent's ticks (owned), or NULL */
	struct clock_cal rtt_clk;	/* those ticks against the coordinator's ns */
	bool ran;			/* part of this step */
	/* --baseline all, loaded steps: what it carried when it ran alone. */
	bool has_isolated;
	double isolated_gbps;
	/*
	 * When it began: how long after the commanded instant its last worker
	 * did, on its agent's clock scaled to ours; that instant is placed on
	 * the agent's clock within sync_us (half its latest sync's round trip).
	 */
	bool has_start;
	double start_late_us;
	double sync_us;
	char error[256];
};

/* How closely a step's flows began at the one instant commanded. */
struct converge_start {
	size_t n;			/* flows whose agents said when they began */
	double late_max_us, late_p99_us;
	double sync_max_us;		/* the largest uncertainty of those instants */
};

/*
 * Which reading of the arbitration the measured shares fit (InfiniBand
 * ib-packet: every semantics the analysis evaluated; ETS: its one): per
 * reading, the largest and the RMS difference over the compared classes
 * of every port.
 */
struct converge_reading {
	char name[64];			/* "carry=yes,low=entry,limit0=alternate", "ets" */
	double max_diff_pp;
	double rms_diff_pp;
};

struct converge_fit {
	bool has;			/* the step was compared */
	int n;
	struct converge_reading readings[CONVERGE_MAX_READINGS];
	int configured;			/* index of the configured reading */
	int best;			/* index of the smallest max_diff_pp */
};

/*
 * One run: every flow, or the lat flows and the first @active_bw bw flows
 * of a sweep; or, for a baseline, flow @alone by itself.
 */
struct converge_step {
	unsigned active_bw;
	bool baseline;			/* a baseline step: flow @alone ran by itself */
	size_t alone;
	double window_s;		/* the shortest of its ports' */
	double total_gbps;		/* over every port */
	double analysis_link_gbps;	/* the first port's */
	bool compared;			/* false: nothing saturates any port */
	bool judged;			/* a class was judged (converge_step_judged) */
	double tolerance_pp;		/* what its classes were judged with */
	bool within;			/* every port's */
	enum converge_verdict verdict;	/* the worst of its compared ports' */
	struct converge_port ports[CONVERGE_MAX_PORTS];
	size_t n_ports;
	bool cut_short;			/* a signal or a failure: window_s is what ran */
	bool switch_read;		/* the switch's counters came, before and after */
	char switch_error[256];		/* why they did not, when asked for */
	struct converge_flow flows[CONVERGE_MAX_FLOWS];
	size_t n_flows;
	struct converge_class classes[CONVERGE_MAX_CLASSES];
	size_t n_classes;
	struct criteria criteria;	/* the scenario's pass/fail criteria, judged */
	struct converge_fit fit;
	double setup_ms;		/* its flows' setups sent until every agent was ready */
	struct converge_start start;
};

#endif
