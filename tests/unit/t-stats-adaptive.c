/*
 * t-stats-adaptive.c: the stopping rule of `ab --until-decided`, checked
 * by simulation (DESIGN section 5): thousands of seeded experiments run
 * the way `ab` runs them (blocks A B B A, a discarded warm-up after every
 * toggle, adjacent samples paired) on throughput with skewed noise, 5%
 * outliers and linear drift, stopped at the first decided verdict of the
 * look schedule.
 *
 * Asserted: on A/A data the rate of wrong decided verdicts (regression
 * or improvement) is at most 5%, with the practical margin and also with
 * no margin at all (where any interval excluding 0 decides, so the
 * per-look level alone must hold the line); the same simulation catches
 * the naive rule (95% at every look), so it can fail; A/A runs decide
 * "no change" often enough to make the rule useful; a true 5% drop is
 * found. The rates are printed as TAP diagnostics.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/stats.h"

#define EXPERIMENTS 2000
#define MAX_PAIRS   64

/*
 * Throughput of one sample: a ceiling, slowed by interference that is
 * lognormal (heavy right tail, so the log values are skewed too), with 5%
 * of samples hit by a burst that costs 20-50%, and a linear drift of
 * -0.1% per sample time (-19% over the longest run).
 */
struct noise {
	const char *name;
	double slowdown_median, slowdown_sigma;
	double outlier_rate, outlier_lo, outlier_hi;
	double drift_per_sample;
};

/* A shared, noisy machine like this one: about 9% CV with the bursts. */
static const struct noise noisy = {
    .name = "noisy (slowdown median 3%, sigma 0.8)",
    .slowdown_median = 0.03,
    .slowdown_sigma = 0.8,
    .outlier_rate = 0.05,
    .outlier_lo = 0.5,
    .outlier_hi = 0.8,
    .drift_per_sample = 0.001,
};

/* A quieter machine: 1% median slowdown; the same bursts and drift. */
static const struct noise quiet = {
    .name = "quiet (slowdown median 1%, sigma 0.5)",
    .slowdown_median = 0.01,
    .slowdown_sigma = 0.5,
    .outlier_rate = 0.05,
    .outlier_lo = 0.5,
    .outlier_hi = 0.8,
    .drift_per_sample = 0.001,
};

static double draw_sample(gsl_rng *rng, const struct noise *noise, double t, double level)
{
	double slowdown =
	    gsl_ran_lognormal(rng, log(noise->slowdown_median), noise->slowdown_sigma);
	double v = 2.5e6 * level * (1 - noise->drift_per_sample * t) / (1 + slowdown);

	if (gsl_rng_uniform(rng) < noise->outlier_rate)
		v *= gsl_ran_flat(rng, noise->outlier_lo, noise->outlier_hi);
	return v;
}

enum rule {
	RULE_ADAPTIVE, /* stats_adaptive_verdict: Bonferroni over the looks */
	RULE_NAIVE,    /* 95% at every look: what the schedule must not do */
};

/*
 * One experiment; B's true level is ratio times A's. Returns the verdict
 * it stops with (decided, or whatever the last look says).
 */
static enum verdict run_experiment(gsl_rng *rng, const struct noise *noise, double ratio,
				   double margin, enum rule rule, size_t *pairs_used)
{
	double a[MAX_PAIRS], b[MAX_PAIRS], t = 0;
	const size_t *looks;
	size_t nlooks = stats_adaptive_looks(&looks), npairs = 0, look;
	enum verdict v = VERDICT_INSUFFICIENT;
	int prev_arm = -1;
	struct effect e;

	assert_true(looks[nlooks - 1] <= MAX_PAIRS);
	for (look = 0; look < nlooks; look++) {
		while (npairs < looks[look]) {
			/* pairs alternate A,B and B,A: blocks A B B A */
			int first = npairs % 2 ? 1 : 0, s;

			for (s = 0; s < 2; s++) {
				int arm = s ? !first : first; /* 0 = A, 1 = B */

				if (prev_arm >= 0 && prev_arm != arm)
					t += 1; /* the discarded warm-up after a toggle */
				if (arm)
					b[npairs] = draw_sample(rng, noise, t, ratio);
				else
					a[npairs] = draw_sample(rng, noise, t, 1);
				t += 1;
				prev_arm = arm;
			}
			npairs++;
		}
		if (rule == RULE_ADAPTIVE) {
			v = stats_adaptive_verdict(a, b, npairs, look, 0.95, margin, 1, &e);
		} else {
			assert_int_equal(stats_effect_paired(a, b, npairs, 0.95, &e), 0);
			v = stats_verdict(&e, margin, 1);
		}
		assert_int_not_equal(v, VERDICT_INSUFFICIENT);
		if (stats_verdict_decided(v))
			break;
	}
	*pairs_used = npairs;
	return v;
}

struct tally {
	size_t n, verdicts[VERDICT_IMPROVEMENT + 1];
	double mean_pairs;
};

static struct tally simulate(uint64_t seed, const struct noise *noise, double ratio, double margin,
			     enum rule rule)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tally t;
	size_t i, pairs, total_pairs = 0;

	memset(&t, 0, sizeof(t));
	gsl_rng_set(rng, seed);
	for (i = 0; i < EXPERIMENTS; i++) {
		t.verdicts[run_experiment(rng, noise, ratio, margin, rule, &pairs)]++;
		total_pairs += pairs;
	}
	t.n = EXPERIMENTS;
	t.mean_pairs = (double)total_pairs / EXPERIMENTS;
	gsl_rng_free(rng);
	return t;
}

static double rate(const struct tally *t, size_t count)
{
	return (double)count / (double)t->n;
}

/* One-sided 95% Clopper-Pearson upper bound of a binomial rate. */
static double upper_bound(const struct tally *t, size_t count)
{
	if (count >= t->n)
		return 1;
	return gsl_cdf_beta_Pinv(0.95, (double)count + 1, (double)(t->n - count));
}

/* The model's spread without drift, for the reader of the diagnostics. */
static void describe(const struct noise *noise)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double x[10000];
	struct summary s;
	size_t i;

	gsl_rng_set(rng, 5);
	for (i = 0; i < 10000; i++)
		x[i] = draw_sample(rng, noise, 0, 1);
	assert_int_equal(stats_summarize(x, 10000, 0.95, &s, NULL), 0);
	print_message("# noise model %s: CV %.1f%%, %.1f%% flagged as outliers by MAD\n",
		      noise->name, 100 * s.cv, 100.0 * (double)s.noutliers / 10000);
	gsl_rng_free(rng);
}

static void report(const char *what, const struct noise *noise, const struct tally *t)
{
	print_message("# %s, %s: %zu experiments: regression %.2f%%, improvement %.2f%%, "
		      "no change %.2f%%, inconclusive %.2f%%, mean %.1f pairs\n",
		      what, noise->name, t->n, 100 * rate(t, t->verdicts[VERDICT_REGRESSION]),
		      100 * rate(t, t->verdicts[VERDICT_IMPROVEMENT]),
		      100 * rate(t, t->verdicts[VERDICT_NO_CHANGE]),
		      100 * rate(t, t->verdicts[VERDICT_INCONCLUSIVE]), t->mean_pairs);
}

static size_t wrong_on_aa(const struct tally *t)
{
	return t->verdicts[VERDICT_REGRESSION] + t->verdicts[VERDICT_IMPROVEMENT];
}

/*
 * A/A with the default 2% margin: few wrong verdicts, and "no change" is
 * decided often (on the quiet machine mostly), else the rule is useless.
 */
static void check_aa_margin(const struct noise *noise, uint64_t seed, double min_no_change)
{
	struct tally t = simulate(seed, noise, 1.0, 0.02, RULE_ADAPTIVE);
	size_t wrong = wrong_on_aa(&t);

	describe(noise);
	report("A/A, margin 2%, adaptive rule", noise, &t);
	print_message("# A/A, margin 2%%, %s: wrong decided verdicts %.2f%% (95%% upper bound "
		      "%.2f%%), decided no change %.2f%%\n",
		      noise->name, 100 * rate(&t, wrong), 100 * upper_bound(&t, wrong),
		      100 * rate(&t, t.verdicts[VERDICT_NO_CHANGE]));
	assert_true(rate(&t, wrong) <= 0.05);
	assert_true(upper_bound(&t, wrong) <= 0.05);
	assert_true(rate(&t, t.verdicts[VERDICT_NO_CHANGE]) >= min_no_change);
}

static void test_aa_margin_noisy(void **state)
{
	(void)state;
	check_aa_margin(&noisy, 1, 0.3);
}

static void test_aa_margin_quiet(void **state)
{
	(void)state;
	check_aa_margin(&quiet, 4, 0.8);
}

/*
 * A/A with no margin: every interval that excludes 0 decides, so this is
 * the per-look level alone against six looks, drift and outliers.
 */
static void test_aa_no_margin(void **state)
{
	struct tally t = simulate(2, &noisy, 1.0, 0, RULE_ADAPTIVE);
	size_t wrong = wrong_on_aa(&t);

	(void)state;
	report("A/A, margin 0, adaptive rule", &noisy, &t);
	print_message("# A/A, margin 0: wrong decided verdicts %.2f%% (95%% upper bound %.2f%%)\n",
		      100 * rate(&t, wrong), 100 * upper_bound(&t, wrong));
	assert_true(rate(&t, wrong) <= 0.05);
	assert_true(upper_bound(&t, wrong) <= 0.05);
}

/* The simulation can fail: 95% at each of six looks inflates the rate. */
static void test_naive_rule_is_caught(void **state)
{
	struct tally naive = simulate(2, &noisy, 1.0, 0, RULE_NAIVE);
	size_t wrong = wrong_on_aa(&naive);

	(void)state;
	report("A/A, margin 0, naive 95% at every look", &noisy, &naive);
	assert_true(rate(&naive, wrong) > 0.05);
}

/* Power: B is 5% slower; the rule must mostly say regression, rarely anything else decided. */
static void test_power(void **state)
{
	struct tally t = simulate(3, &noisy, 0.95, 0.02, RULE_ADAPTIVE);
	size_t found = t.verdicts[VERDICT_REGRESSION];
	size_t wrong = t.verdicts[VERDICT_IMPROVEMENT] + t.verdicts[VERDICT_NO_CHANGE];

	(void)state;
	report("B 5% slower, margin 2%, adaptive rule", &noisy, &t);
	print_message("# power to detect a true 5%% drop with a 2%% margin: %.2f%% "
		      "(wrong decided verdicts %.2f%%)\n",
		      100 * rate(&t, found), 100 * rate(&t, wrong));
	assert_true(rate(&t, found) >= 0.5);
	assert_true(rate(&t, wrong) <= 0.05);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aa_margin_noisy), cmocka_unit_test(test_aa_margin_quiet),
	    cmocka_unit_test(test_aa_no_margin),    cmocka_unit_test(test_naive_rule_is_caught),
	    cmocka_unit_test(test_power),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
