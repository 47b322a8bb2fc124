/*
 * effect.h: the numbers a comparison ends in (a summary of one config, an
 * effect with its interval and p-value, a verdict, the sequential engine's effect and why it
 * stopped), shared by stats/ that computes them, the engines that keep
 * them in result structs and render/ that draws them.
 *
 * Effects are relative changes of B versus A computed on the log scale:
 * est = exp(shift) - 1, so -0.05 means B is 5% lower than A.
 */
#ifndef WAKEBENCH_CORE_EFFECT_H
#define WAKEBENCH_CORE_EFFECT_H

#include <stdbool.h>
#include <stddef.h>

struct summary {
	size_t n;
	double median;
	/* distribution-free CI of the median from order statistics */
	bool ci_valid;	    /* false when n is too small (n < 5 at 95%) */
	bool ci_below_conf; /* [min, max], the widest there is, attains less than asked (n = 5) */
	double ci_lo, ci_hi;
	double ci_level; /* the attained coverage (>= the requested level unless ci_below_conf) */
	double mean, stddev, cv; /* stddev with n-1; cv = stddev / mean */
	double min, max;
	double sem;	  /* standard error of the mean: stddev / sqrt(n) */
	double mad;	  /* raw median absolute deviation (not scaled by 1.4826) */
	size_t noutliers; /* flagged by MAD, never dropped */
};

struct effect {
	bool valid;	    /* false: insufficient samples (see why) */
	size_t n_a, n_b;    /* unpaired: group sizes; paired: number of pairs (both) */
	double est;	    /* relative change of B vs A (Hodges-Lehmann on logs) */
	double lo, hi;	    /* CI of est */
	double conf;	    /* confidence level requested */
	double attained;    /* coverage the order-statistic CI attains (>= conf) */
	double p;	    /* two-sided p-value (exact for small n) */
	bool p_exact;	    /* p from the exact null distribution, not the normal one */
	double statistic;   /* Mann-Whitney U of B (pairs b > a, ties 1/2) or V (sum of positive
			       ranks) */
	const char *method; /* "mann-whitney-hl", "wilcoxon-signed-rank-hl" */
	const char *why;    /* when !valid: a short reason, e.g. "insufficient samples" */
};

enum verdict {
	VERDICT_INSUFFICIENT = 0, /* too few samples to say anything */
	VERDICT_INCONCLUSIVE,
	VERDICT_NO_CHANGE, /* CI entirely within +-margin: "no change larger than m" */
	VERDICT_REGRESSION,
	VERDICT_IMPROVEMENT,
};

/*
 * One effect of a factorial `ab`: the directional interval (two-sided, at
 * the per-look level) in e, the equivalence interval (each side at the
 * full per-look alpha: Schuirmann's two one-sided tests) in eq, the
 * verdict from both, and a guide to how many units in all would decide an
 * inconclusive one (0: no guide; beyond_budget: more than the budget).
 * p_adjusted: Holm-adjusted p for evidence lines (NAN otherwise).
 */
struct stats_seq_effect {
	struct effect e, eq;
	enum verdict v;
	size_t to_decide;
	bool beyond_budget;
	double p_adjusted;
};

enum stats_seq_stop {
	STATS_SEQ_RUNNING = 0,
	STATS_SEQ_DECIDED, /* every main effect decided at a look */
	STATS_SEQ_DONE,	   /* the fixed number of units ran */
	STATS_SEQ_BUDGET,  /* --max-samples reached, not decided */
	STATS_SEQ_TIME,	   /* --max-time reached, not decided */
	STATS_SEQ_ENDED,   /* the caller stopped early (signal, failure) */
};

#endif
