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

#include "core/effect.h"

/* ---- one config ---- */

/* From this many values on a median CI is given, if need be [min, max] below the level asked. */
#define STATS_MEDIAN_CI_MIN_N 5

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

/*
 * Unpaired (different boots, kernels, hosts): Hodges-Lehmann shift of
 * log b - log a with the Mann-Whitney CI and p-value; at least 4 per side.
 * Exact p when both sides have fewer than 50 values and there are no ties,
 * normal approximation with tie and continuity correction otherwise.
 * Paired: d_i = log b_i - log a_i of adjacent samples; Hodges-Lehmann
 * (median of Walsh averages) with the signed-rank CI and p-value; exact p
 * below 50 pairs without ties or zero differences.
 *
 * Values must be positive and finite; otherwise (and with too few values
 * for a CI at conf) the effect is returned with valid = false and why set.
 * Returns -1 (nothing printed) only for a conf outside (0, 1).
 */
int stats_effect_unpaired(const double *a, size_t na, const double *b, size_t nb, double conf,
			  struct effect *e);
int stats_effect_paired(const double *a, const double *b, size_t n, double conf, struct effect *e);
/*
 * The same effect seen from the other side (A versus B): estimate and
 * interval become 1 / (1 + x) - 1, p is unchanged; and the verdict with
 * regression and improvement exchanged.
 */
void stats_effect_invert(struct effect *e);
enum verdict stats_verdict_invert(enum verdict v);

/* ---- rank building blocks (rank.c), exposed for tests and reuse ---- */

/*
 * Exact null distribution (no ties) of the Mann-Whitney U for samples of
 * na and nb: cdf[u] = P(U <= u) for u = 0..na*nb. -1 when na*nb > 10^6.
 */
int stats_mann_whitney_null_cdf(size_t na, size_t nb, double *cdf);
/*
 * Exact null distribution (no ties, no zeros) of the Wilcoxon signed-rank
 * V (sum of the ranks of positive differences) for n differences:
 * cdf[v] = P(V <= v) for v = 0..n(n+1)/2. -1 when n > 1000.
 */
int stats_signed_rank_null_cdf(size_t n, double *cdf);
/* The k-th smallest (1-based) b_j - a_i, a and b sorted ascending; NAN if k is out of range. */
double stats_kth_pairwise_difference(const double *a_sorted, size_t na, const double *b_sorted,
				     size_t nb, uint64_t k);
/* The k-th smallest (1-based) Walsh average (d_i + d_j) / 2, i <= j, d sorted. */
double stats_kth_walsh_average(const double *d_sorted, size_t n, uint64_t k);
/* Several k at once (enumerates small matrices once, selects in large ones). */
void stats_pairwise_difference_kths(const double *a_sorted, size_t na, const double *b_sorted,
				    size_t nb, const uint64_t *ks, size_t nk, double *out);
void stats_walsh_average_kths(const double *d_sorted, size_t n, const uint64_t *ks, size_t nk,
			      double *out);

/* ---- verdicts ---- */

/*
 * better: +1 higher is better, -1 lower is better (enum better in
 * runner/sample.h); a neutral metric (0) is judged as higher-is-better, so
 * callers should word its verdict as "higher"/"lower". margin: e.g. 0.02,
 * on the relative scale of est/lo/hi (a negative margin counts as 0).
 *   CI entirely above +margin: improvement (regression if lower is better)
 *   CI entirely below -margin: regression (improvement if lower is better)
 *   CI entirely within [-margin, +margin]: no change larger than the margin
 *   otherwise inconclusive; an invalid effect: insufficient.
 */
enum verdict stats_verdict(const struct effect *e, double margin, int better);
/* For people: "insufficient samples", "inconclusive", "no change", ... */
const char *stats_verdict_name(enum verdict v);
/*
 * A verdict in the words every output uses, against its margin: "no change
 * larger than 2%", "regression beyond the 2% margin", "improvement beyond
 * the 2% margin", "inconclusive at a 2% margin", "insufficient samples";
 * then " (detail)" when detail is given (an interval, a guide, a reason).
 */
void stats_verdict_words(enum verdict v, double margin, const char *detail, char *buf, size_t len);
/* For JSON/CSV: "insufficient", "inconclusive", "no-change", "regression", "improvement". */
const char *stats_verdict_key(enum verdict v);
/* Regression, improvement or no change: what --until-decided waits for. */
bool stats_verdict_decided(enum verdict v);
/*
 * For an inconclusive verdict: roughly how many samples per arm (or pairs)
 * in total would make the CI narrow enough to decide, assuming the
 * estimate and the spread stay as observed (half-widths on the log scale
 * shrink as sqrt(n / n'); unequal arms count as their harmonic mean).
 * 0 when the verdict is not inconclusive, the margin is 0, or the
 * estimate sits exactly on the margin (no number of samples decides).
 */
size_t stats_samples_to_decide(const struct effect *e, double margin);

/* ---- multiplicity ---- */

/*
 * Holm's step-down adjustment of n p-values (Holm 1979): sort ascending,
 * adj_(i) = max over j <= i of min(1, (n - j + 1) p_(j)), written back in
 * the input order. Rejecting where adj <= alpha keeps the family-wise error
 * at alpha under any dependence. NAN p-values are left NAN and do not count
 * in n. adj may be p.
 */
void stats_holm_adjust(const double *p, size_t n, double *adj);

/* ---- the sequential engine of `ab` (sequential.c) ---- */

#define STATS_SEQ_ALPHA	      0.05 /* family-wise error of the primary verdicts */
#define STATS_SEQ_MAX_LOOKS   14
#define STATS_SEQ_MAX_UNITS   1000 /* the last look of the schedule */
#define STATS_SEQ_MAX_FEAT    2
#define STATS_SEQ_MAX_ARMS    (1u << STATS_SEQ_MAX_FEAT)
#define STATS_SEQ_MAX_EFFECTS 3 /* two main effects and their interaction */

struct stats_seq_params {
	unsigned nfeat;	      /* 1 (pairs) or 2 (blocks of four) */
	double margin;	      /* practical margin, e.g. 0.02 */
	int better;	      /* +1 higher is better, -1 lower */
	bool until_decided;   /* false: one look after `units` units */
	size_t units;	      /* fixed length */
	size_t max_units;     /* until decided: the budget in units (<= STATS_SEQ_MAX_UNITS) */
	uint64_t max_time_ns; /* until decided: stop adding units after this long; 0: none */
	double vif;	      /* serial-correlation allowance; 0: the design's (stats_seq_vif) */
};

/*
 * The engine: it owns the units (in time order), the look schedule, the
 * per-look levels, the stopping rule and the budget. The caller runs a
 * unit while stats_seq_wants_unit() and hands each one over with its arm
 * values of the primary metric (arm index: bit j set = token j applied;
 * NULL or a non-positive value: an incomplete unit, counted against the
 * budget but not analysed) and the time since the start. After the last
 * unit, s->eff[0 .. s->neff) hold the effects of the last look (main
 * effects first, then the interaction), s->stop says why it stopped.
 */
struct stats_seq {
	struct stats_seq_params p;
	unsigned narms, neff;
	double *y; /* complete units, narms values each */
	size_t n, cap;
	size_t units; /* run, complete or not */
	size_t plan[STATS_SEQ_MAX_LOOKS + 1], nplan, next;
	size_t looks;		     /* taken */
	bool time_planned;	     /* the budget was cut to what fits in max_time_ns */
	double alpha_two, alpha_one; /* nominal per-look levels (independent units) */
	double vif;		     /* the serial-correlation allowance of the design */
	enum stats_seq_stop stop;
	struct stats_seq_effect eff[STATS_SEQ_MAX_EFFECTS];
};

/* The schedule of looks, in complete units: 10, 16, 24, 32, 48, 64, 96, ... 1000. */
size_t stats_seq_schedule(const size_t **looks);
/*
 * Worst-case variance inflation, over AR(1) noise with 0 <= rho < 1 in
 * sample order, of the mean of unit contrasts: w[0..period) are the
 * weights of the samples of two consecutive (mirrored) units of unit_len
 * samples each, repeating. 1 for independent samples.
 */
double stats_ar1_worst_vif(const double *w, size_t period, size_t unit_len);
/* The allowance the engine uses for nfeat features (pairs A B | B A, Gray-code blocks). */
double stats_seq_vif(unsigned nfeat);
/* The nominal per-look levels for K looks (two-sided; one-sided for equivalence). */
void stats_seq_levels(unsigned nfeat, size_t K, double *alpha_two, double *alpha_one);

void stats_seq_init(struct stats_seq *s, const struct stats_seq_params *p);
bool stats_seq_wants_unit(const struct stats_seq *s);
void stats_seq_add_unit(struct stats_seq *s, const double *y, uint64_t elapsed_ns);
/* The caller stops early: a last analysis at the per-look level. */
void stats_seq_end(struct stats_seq *s);
void stats_seq_release(struct stats_seq *s);
/* The units its guides are capped at: the budget until decided, else the fixed length. */
size_t stats_seq_budget(const struct stats_seq *s);
/* Why it stopped, for JSON: "decided", "fixed-length", "max-samples", "max-time", "ended". */
const char *stats_seq_stop_key(enum stats_seq_stop stop);

/*
 * The factorial effects of n complete units y (narms = 2^nfeat values
 * each): one feature, b = y[1] vs a = y[0]; two features, each token's
 * main effect is the ratio of the geometric means of the arms with and
 * without it, the interaction y11 y00 vs y10 y01. Each is the paired
 * signed-rank effect (Hodges-Lehmann estimate) with the CI at the level
 * 1 - alpha_two widened for serial correlation by vif, the equivalence
 * interval at 1 - 2 alpha_one likewise, the p-value likewise, and the
 * verdict. to_decide is capped at budget. Returns the number of effects.
 */
size_t stats_seq_effects(const double *y, size_t n, unsigned nfeat, double alpha_two,
			 double alpha_one, double vif, double margin, int better, size_t budget,
			 struct stats_seq_effect *out);
/*
 * Evidence lines (secondary metrics, fixed level): Holm-adjust their p
 * over the n lines and keep a regression or improvement only where the
 * adjusted p is at most alpha (else inconclusive).
 */
void stats_seq_evidence_adjust(struct stats_seq_effect *lines, size_t n, double alpha);
/* The verdict from a directional and an equivalence interval. */
enum verdict stats_verdict_tost(const struct effect *dir, const struct effect *eq, double margin,
				int better);

/* ---- simulated experiments through the engine (simulate.c; tests, bench) ---- */

enum stats_sim_kind {
	STATS_SIM_LOGNORMAL = 0, /* log value ~ N(0, sigma^2), independent */
	STATS_SIM_STUDENT_T,	 /* log value ~ sigma t_df / sd(t_df), independent */
	STATS_SIM_AR1,		 /* log value AR(1) in sample order, marginal sd sigma */
};

struct stats_sim_noise {
	const char *name;
	enum stats_sim_kind kind;
	double sigma, rho, df;
};

struct stats_sim_result {
	enum verdict v[STATS_SEQ_MAX_EFFECTS];
	struct effect e[STATS_SEQ_MAX_EFFECTS];
	bool any_miss[STATS_SEQ_MAX_EFFECTS]; /* some look's interval missed the truth */
	size_t units, looks;
	enum stats_seq_stop stop;
};

/*
 * One simulated `ab` run with params p: samples in ab's order (--order
 * abba) with noise nz and true relative effects effect[0 .. nfeat) (the
 * arms multiply: no interaction), fed unit by unit to the engine, with a
 * pretend clock of one second per unit. Deterministic for a seed.
 */
void stats_sim_run(const struct stats_seq_params *p, const struct stats_sim_noise *nz,
		   const double *effect, uint64_t seed, struct stats_sim_result *r);

/* ---- boots as units: unpaired effects at the experiment level (boots.c) ---- */

#include <sys/types.h>

/*
 * The level an unpaired effect between two groups is inferred at. Samples
 * are tagged with their boot (an experiment, or the experiments of one
 * boot or one `vm` round: equal tags, same boot).
 */
enum effect_level {
	/* units are boots: each boot's median of log values, pooled-variance t */
	EFFECT_LEVEL_BOOTS = 0,
	/* both groups ran in exactly the same boots: their offsets cancel, samples are units */
	EFFECT_LEVEL_SAME_BOOTS,
	/*
	 * one boot in each group (different boots): boot-to-boot variation is
	 * unknown; the interval is the within-boot one (samples as units) and
	 * covers within-boot noise only
	 */
	EFFECT_LEVEL_ONE_BOOT,
};

/* Where the between-boot spread of an EFFECT_LEVEL_BOOTS effect comes from. */
enum boot_sd_from { BOOT_SD_BOTH = 0, BOOT_SD_A, BOOT_SD_B };

struct boot_effect {
	/*
	 * EFFECT_LEVEL_BOOTS: method "t-boot-medians", n_a/n_b are the numbers
	 * of boots, attained = conf, statistic = t; otherwise the unpaired
	 * effect of the samples (stats_effect_unpaired)
	 */
	struct effect e;
	enum effect_level level;
	size_t n_a, n_b;	 /* samples */
	size_t boots_a, boots_b; /* distinct boots */
	double between_sd;	 /* BOOTS: pooled sd of the boots' log medians as a ratio - 1 */
	size_t sd_boots;	 /* BOOTS: the boots it was estimated from */
	enum boot_sd_from sd_from;
	double df; /* BOOTS: degrees of freedom, boots_a + boots_b - 2; else NAN */
};

/*
 * The median of the logs of each boot's values: x[i] belongs to boot
 * boot[i]. med[] (and ids[] when not NULL) receive one entry per distinct
 * boot, in ascending boot order; both need room for n. Returns the number
 * of boots, or -1 when a value is not positive and finite.
 */
ssize_t stats_boot_log_medians(const double *x, const size_t *boot, size_t n, double *med,
			       size_t *ids);
/*
 * B versus A with boots as units (see enum effect_level for the three
 * cases). At least 3 boots in all between two groups that do not share
 * their boots (1 + 2 leaves one degree of freedom; its interval is wide, as
 * it should be); the between-boot spread is pooled over both groups, so a
 * group of one boot borrows it from the other's boots. Returns -1 only for
 * a conf outside (0, 1).
 */
int stats_effect_boots(const double *a, const size_t *boot_a, size_t na, const double *b,
		       const size_t *boot_b, size_t nb, double conf, struct boot_effect *be);
/*
 * stats_verdict() of be->e, except that EFFECT_LEVEL_ONE_BOOT is never
 * decided: inconclusive (or insufficient when the samples cannot give an
 * interval at all).
 */
enum verdict stats_boot_verdict(const struct boot_effect *be, double margin, int better);
/* For JSON/CSV: "boots", "same-boots", "one-boot". */
const char *stats_effect_level_key(enum effect_level level);
/* The unit of inference at that level: "boot" or "sample". */
const char *stats_effect_level_unit(enum effect_level level);

#endif
