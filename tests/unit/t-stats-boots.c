/*
 * t-stats-boots.c: unpaired effects with boots as units (stats/boots.c):
 * the per-boot medians of logs, the pooled two-sample t interval against
 * a hand computation with the tabulated t quantile, the three levels (boots,
 * the same boots, one boot each) and their verdicts, and a seeded
 * simulation with a per-boot offset in which the boot-level interval covers
 * at its level while the sample-level one (the old behaviour) does not.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/stats.h"

static void test_log_medians(void **state)
{
	/* boots out of order; boot 7 has an even count, boot 2 an odd one */
	const double x[] = { 4, 1, 9, 2, 16, 8, 5 };
	const size_t boot[] = { 7, 2, 7, 2, 2, 7, 7 };
	const double bad[] = { 1, -1 };
	const size_t bb[] = { 0, 0 };
	double med[7];
	size_t ids[7];

	(void)state;
	assert_int_equal(stats_boot_log_medians(x, boot, 7, med, ids), 2);
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[1], 7);
	assert_close(med[0], log(2), 1e-12);	       /* 1, 2, 16 */
	assert_close(med[1], log(sqrt(5 * 8)), 1e-12); /* 4, 5, 8, 9: the middle two */
	assert_int_equal(stats_boot_log_medians(bad, bb, 2, med, NULL), -1);
	assert_int_equal(stats_boot_log_medians(x, boot, 0, med, NULL), 0);
}

/* One sample per boot, so each boot's median is the sample's log. */
static void test_pooled_t_by_hand(void **state)
{
	const double la[] = { 0, 0.02, -0.02 }, lb[] = { 0.1, 0.12, 0.08 };
	const size_t ia[] = { 1, 2, 3 }, ib[] = { 4, 5, 6 };
	double a[3], b[3], half;
	struct boot_effect be;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		a[i] = 1e6 * exp(la[i]);
		b[i] = 1e6 * exp(lb[i]);
	}
	assert_int_equal(stats_effect_boots(a, ia, 3, b, ib, 3, 0.95, &be), 0);
	assert_int_equal(be.level, EFFECT_LEVEL_BOOTS);
	assert_true(be.e.valid);
	assert_string_equal(be.e.method, "t-boot-medians");
	assert_int_equal(be.boots_a, 3);
	assert_int_equal(be.boots_b, 3);
	assert_int_equal(be.e.n_a, 3); /* boots: stats_samples_to_decide counts boots */
	assert_close(be.df, 4, 0);
	/* sp^2 = (0.0008 + 0.0008) / 4, se = 0.02 sqrt(2/3), t(0.975, 4) = 2.776445 (tables) */
	half = 2.776445 * 0.02 * sqrt(2.0 / 3.0);
	assert_close(be.e.est, expm1(0.1), 1e-12);
	assert_close(be.e.lo, expm1(0.1 - half), 1e-6);
	assert_close(be.e.hi, expm1(0.1 + half), 1e-6);
	assert_close(be.e.statistic, 0.1 / (0.02 * sqrt(2.0 / 3.0)), 1e-9);
	/* t = 6.1237 with 4 df: two-sided p = 0.00360 */
	assert_close(be.e.p, 0.00360, 0.00005);
	assert_close(be.between_sd, expm1(0.02), 1e-12);
	assert_int_equal(be.sd_from, BOOT_SD_BOTH);
	assert_int_equal(stats_boot_verdict(&be, 0.02, 1), VERDICT_IMPROVEMENT);
	assert_int_equal(stats_boot_verdict(&be, 0.02, -1), VERDICT_REGRESSION);
	assert_string_equal(stats_effect_level_key(be.level), "boots");
	assert_string_equal(stats_effect_level_unit(be.level), "boot");
}

/* Several samples per boot: only each boot's median counts. */
static void test_boot_medians_are_the_units(void **state)
{
	/* boot 1: median 100; boot 2: median 102 (an outlier in it changes nothing) */
	const double a[] = { 99, 100, 101, 101, 102, 1e9 };
	const size_t ia[] = { 1, 1, 1, 2, 2, 2 };
	const double b[] = { 90, 95, 100, 105, 110 };
	const size_t ib[] = { 3, 3, 3, 3, 3 };
	struct boot_effect be, be2;
	double b2[5];
	size_t i;

	(void)state;
	assert_int_equal(stats_effect_boots(a, ia, 6, b, ib, 5, 0.95, &be), 0);
	assert_int_equal(be.level, EFFECT_LEVEL_BOOTS);
	assert_int_equal(be.n_a, 6);
	assert_int_equal(be.n_b, 5);
	assert_int_equal(be.boots_b, 1);
	assert_close(be.df, 1, 0);
	/* the spread comes from A's two boots only, as the caller must say */
	assert_int_equal(be.sd_from, BOOT_SD_A);
	assert_int_equal(be.sd_boots, 2);
	assert_close(be.e.est, 100.0 / sqrt(100.0 * 102.0) - 1, 1e-12);
	/* spreading B's samples around the same median leaves the effect alone */
	for (i = 0; i < 5; i++)
		b2[i] = 100 + 3.0 * ((double)i - 2);
	stats_effect_boots(a, ia, 6, b2, ib, 5, 0.95, &be2);
	assert_close(be2.e.est, be.e.est, 1e-12);
	assert_close(be2.e.lo, be.e.lo, 1e-12);
	assert_close(be2.e.hi, be.e.hi, 1e-12);
}

static void test_one_boot_each_is_never_decided(void **state)
{
	double a[10], b[10];
	size_t ia[10], ib[10], i;
	struct boot_effect be;
	struct effect e;

	(void)state;
	for (i = 0; i < 10; i++) {
		a[i] = 1000 + (double)i;
		b[i] = 700 + (double)i; /* -30%: within one boot, beyond doubt */
		ia[i] = 1;
		ib[i] = 2;
	}
	stats_effect_boots(a, ia, 10, b, ib, 10, 0.95, &be);
	stats_effect_unpaired(a, 10, b, 10, 0.95, &e);
	assert_int_equal(be.level, EFFECT_LEVEL_ONE_BOOT);
	assert_true(be.e.valid);
	assert_close(be.e.lo, e.lo, 0);
	assert_close(be.e.hi, e.hi, 0);
	assert_true(isnan(be.df));
	assert_true(isnan(be.between_sd));
	assert_int_equal(stats_verdict(&be.e, 0.02, 1), VERDICT_REGRESSION);
	assert_int_equal(stats_boot_verdict(&be, 0.02, 1), VERDICT_INCONCLUSIVE);
	assert_string_equal(stats_effect_level_key(be.level), "one-boot");
	assert_string_equal(stats_effect_level_unit(be.level), "sample");
	/* too few samples for any interval: insufficient, as before */
	stats_effect_boots(a, ia, 3, b, ib, 10, 0.95, &be);
	assert_false(be.e.valid);
	assert_int_equal(stats_boot_verdict(&be, 0.02, 1), VERDICT_INSUFFICIENT);
}

static void test_same_boots_use_samples(void **state)
{
	double a[8], b[8];
	size_t ia[8], ib[8], i;
	struct boot_effect be;
	struct effect e;

	(void)state;
	for (i = 0; i < 8; i++) {
		a[i] = 1000 + (double)i;
		b[i] = 700 + (double)i;
		ia[i] = ib[i] = i % 2 ? 5 : 9; /* both groups in boots 5 and 9 */
	}
	stats_effect_boots(a, ia, 8, b, ib, 8, 0.95, &be);
	stats_effect_unpaired(a, 8, b, 8, 0.95, &e);
	assert_int_equal(be.level, EFFECT_LEVEL_SAME_BOOTS);
	assert_int_equal(be.boots_a, 2);
	assert_close(be.e.lo, e.lo, 0);
	assert_close(be.e.hi, e.hi, 0);
	assert_string_equal(be.e.method, "mann-whitney-hl");
	assert_int_equal(stats_boot_verdict(&be, 0.02, 1), VERDICT_REGRESSION);
	assert_string_equal(stats_effect_level_key(be.level), "same-boots");
}

static void test_invalid_inputs(void **state)
{
	const double a[] = { 1, 2, 3, 4 }, b[] = { 1, 0, 3, 4 };
	const size_t ia[] = { 1, 1, 2, 2 }, ib[] = { 3, 3, 4, 4 };
	struct boot_effect be;

	(void)state;
	assert_int_equal(stats_effect_boots(a, ia, 4, a, ib, 4, 1.0, &be), -1);
	assert_int_equal(stats_effect_boots(a, ia, 4, b, ib, 4, 0.95, &be), 0);
	assert_false(be.e.valid);
	assert_non_null(be.e.why);
	assert_int_equal(stats_boot_verdict(&be, 0.02, 1), VERDICT_INSUFFICIENT);
	assert_int_equal(stats_effect_boots(a, ia, 4, b, ib, 0, 0.95, &be), 0);
	assert_false(be.e.valid);
}

/* All boots equal: a zero-width interval at the difference, not a NAN. */
static void test_no_spread(void **state)
{
	const double a[] = { 100, 100, 100 }, b[] = { 90, 90, 90 };
	const size_t ia[] = { 1, 2, 3 }, ib[] = { 4, 5, 6 };
	struct boot_effect be;

	(void)state;
	stats_effect_boots(a, ia, 3, b, ib, 3, 0.95, &be);
	assert_true(be.e.valid);
	assert_close(be.e.lo, -0.1, 1e-12);
	assert_close(be.e.hi, -0.1, 1e-12);
	assert_close(be.e.p, 0, 0);
	stats_effect_boots(a, ia, 3, a, ib, 3, 0.95, &be);
	assert_close(be.e.p, 1, 0);
	assert_int_equal(stats_boot_verdict(&be, 0.02, 1), VERDICT_NO_CHANGE);
}

/* A/A groups of k boots of n AR(1) samples, each boot offset by N(0, sd). */
static void simulate(gsl_rng *rng, size_t k, size_t n, double boot_sd, double *x, size_t *id,
		     size_t first)
{
	size_t i, j, o = 0;

	for (i = 0; i < k; i++) {
		double off = gsl_ran_gaussian(rng, boot_sd), e = gsl_ran_gaussian(rng, 0.03);

		for (j = 0; j < n; j++) {
			if (j)
				e = 0.5 * e + sqrt(0.75) * gsl_ran_gaussian(rng, 0.03);
			x[o] = 1e6 * exp(off + e);
			id[o++] = first + i;
		}
	}
}

static void test_simulated_coverage(void **state)
{
	enum { RUNS = 2000, K = 4, N = 8 };
	double a[K * N], b[K * N];
	size_t ia[K * N], ib[K * N], r, covered = 0, wrong = 0, old_covered = 0;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	(void)state;
	gsl_rng_set(rng, 11);
	for (r = 0; r < RUNS; r++) {
		struct boot_effect be;
		struct effect old;
		enum verdict v;

		simulate(rng, K, N, 0.02, a, ia, 0);
		simulate(rng, K, N, 0.02, b, ib, K);
		stats_effect_boots(a, ia, K * N, b, ib, K * N, 0.95, &be);
		assert_int_equal(be.level, EFFECT_LEVEL_BOOTS);
		covered += be.e.lo <= 0 && 0 <= be.e.hi;
		v = stats_boot_verdict(&be, 0.0, 1);
		wrong += v == VERDICT_REGRESSION || v == VERDICT_IMPROVEMENT;
		stats_effect_unpaired(a, K * N, b, K * N, 0.95, &old);
		old_covered += old.lo <= 0 && 0 <= old.hi;
	}
	gsl_rng_free(rng);
	print_message("# boot sd 2%%, 4 boots x 8 AR(1) samples per group, %d A/A runs: coverage "
		      "%.1f%% (samples as units: %.1f%%), wrong decided verdicts at margin 0: "
		      "%.1f%%\n",
		      RUNS, 100.0 * covered / RUNS, 100.0 * old_covered / RUNS,
		      100.0 * wrong / RUNS);
	/* 95% +- 2% is four standard errors at 2000 runs */
	assert_true(covered >= RUNS * 93 / 100 && covered <= RUNS * 97 / 100);
	/* the hard case, no margin: every interval excluding 0 decides */
	assert_true(wrong <= RUNS * 7 / 100);
	/* and the simulation can tell: samples as units cover far less */
	assert_true(old_covered < RUNS * 85 / 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_medians),
		cmocka_unit_test(test_pooled_t_by_hand),
		cmocka_unit_test(test_boot_medians_are_the_units),
		cmocka_unit_test(test_one_boot_each_is_never_decided),
		cmocka_unit_test(test_same_boots_use_samples),
		cmocka_unit_test(test_invalid_inputs),
		cmocka_unit_test(test_no_spread),
		cmocka_unit_test(test_simulated_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
