/*
 * stats.h: summaries, confidence intervals, tests and verdicts. Pure
 * functions without I/O, unit-tested against published reference values
 * (DESIGN section 5).
 *
 * Effects are relative changes of B versus A computed on the log scale:
 * est = exp(shift) - 1, so -0.05 means B is 5% lower than A.
 */
#ifndef WAKEBENCH_STATS_H
#define WAKEBENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- one config ---- */

struct summary {
	size_t n;
	double median;
	/* distribution-free CI of the median from order statistics */
	bool ci_valid; /* false when n is too small (n < 6) */
	double ci_lo, ci_hi;
	double ci_level;	 /* the attained coverage (>= the requested level) */
	double mean, stddev, cv; /* stddev with n-1; cv = stddev / mean */
	double min, max;
	double sem;	  /* standard error of the mean: stddev / sqrt(n) */
	double mad;	  /* raw median absolute deviation (not scaled by 1.4826) */
	size_t noutliers; /* flagged by MAD, never dropped */
};

/* The CV above which a summary is called noisy (DESIGN section 5). */
#define STATS_NOISE_CV_DEFAULT 0.05

/*
 * Summarise x[0..n). outlier (may be NULL) receives one flag per value:
 * |x - median| > 3.5 * 1.4826 * MAD (Iglewicz and Hoaglin's modified
 * z-score above 3.5). When MAD is 0 (more than half the values equal) the
 * scale falls back to 1.2533 * the mean absolute deviation from the median;
 * when that is 0 too, all values are equal and none is flagged.
 * conf is e.g. 0.95. Returns -1 (nothing printed) when n is 0, conf is not
 * in (0, 1) or a value is not finite; 0 otherwise.
 * With n = 1, stddev, sem and cv are NAN (undefined), not 0.
 */
int stats_summarize(const double *x, size_t n, double conf, struct summary *s, bool *outlier);
double stats_median(const double *x, size_t n); /* NAN when n = 0 */
double stats_mean(const double *x, size_t n);	/* NAN when n = 0 */
double stats_stddev(const double *x,
		    size_t n);		     /* sample standard deviation (n - 1); NAN if n < 2 */
double stats_sem(const double *x, size_t n); /* standard error of the mean; NAN if n < 2 */
/* The raw median absolute deviation from the median; NAN when n = 0. */
double stats_mad(const double *x, size_t n);
/* True when the coefficient of variation exceeds max_cv (e.g. 0.05). */
bool stats_summary_noisy(const struct summary *s, double max_cv);
/*
 * Order-statistic ranks (1-based) of the distribution-free CI of the median:
 * the largest k with P(k <= B <= n-k) >= conf, B ~ Binomial(n, 1/2).
 * Returns -1 when no such interval exists (n too small).
 */
int stats_median_ci_ranks(size_t n, double conf, size_t *lo_rank, size_t *hi_rank,
			  double *attained);

/* ---- effects between two configs ---- */

struct effect {
	bool valid;	    /* false: insufficient samples */
	size_t n_a, n_b;    /* unpaired: group sizes; paired: number of pairs */
	double est;	    /* relative change of B vs A (Hodges-Lehmann on logs) */
	double lo, hi;	    /* CI of est */
	double conf;	    /* confidence level used */
	double p;	    /* two-sided p-value (exact for small n) */
	const char *method; /* "mann-whitney-hl", "wilcoxon-signed-rank-hl" */
};

/* Unpaired (different boots, kernels, hosts): at least 4 per side. */
int stats_effect_unpaired(const double *a, size_t na, const double *b, size_t nb, double conf,
			  struct effect *e);
/* Paired: a[i] and b[i] are adjacent samples of the two arms. */
int stats_effect_paired(const double *a, const double *b, size_t n, double conf, struct effect *e);

/* ---- verdicts ---- */

enum verdict {
	VERDICT_INSUFFICIENT = 0, /* too few samples to say anything */
	VERDICT_INCONCLUSIVE,
	VERDICT_NO_CHANGE, /* CI entirely within +-margin: "no change larger than m" */
	VERDICT_REGRESSION,
	VERDICT_IMPROVEMENT,
};

/*
 * better: +1 higher is better, -1 lower is better (enum better in
 * runner/sample.h). margin: e.g. 0.02.
 */
enum verdict stats_verdict(const struct effect *e, double margin, int better);
const char *stats_verdict_name(enum verdict v);
/*
 * For an inconclusive verdict: roughly how many samples per arm (or pairs)
 * would make the CI narrow enough to decide, assuming the spread stays as
 * observed. 0 when it cannot be estimated.
 */
size_t stats_samples_to_decide(const struct effect *e, double margin);

/* ---- adaptive length (ab --until-decided) ---- */

/* The fixed schedule of looks (numbers of pairs) and the per-look level. */
size_t stats_adaptive_looks(const size_t **looks);
double stats_adaptive_conf(double overall_conf, size_t nlooks);

#endif
