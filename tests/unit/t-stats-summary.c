/*
 * t-stats-summary.c: the summary of one config: the distribution-free CI
 * of the median against published order-statistic tables (and an exact
 * integer recomputation), the moments, and MAD-flagged outliers including
 * the MAD = 0 fallback.
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

#include "stats/stats.h"

static void test_moments(void **state)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	static const double one[] = { 3 };

	(void)state;
	assert_close(stats_mean(x, 8), 5.0, 1e-12);
	assert_close(stats_median(x, 8), 4.5, 1e-12);
	/* sum of squared deviations 32, n - 1 = 7 */
	assert_close(stats_stddev(x, 8), sqrt(32.0 / 7), 1e-12);
	assert_close(stats_sem(x, 8), sqrt(32.0 / 7) / sqrt(8), 1e-12);
	/* |x - 4.5| sorted: .5 .5 .5 .5 .5 2.5 2.5 4.5 -> median .5 */
	assert_close(stats_mad(x, 8), 0.5, 1e-12);
	assert_close(stats_median(x, 7), 4.0, 1e-12);

	assert_true(isnan(stats_stddev(one, 1)));
	assert_true(isnan(stats_sem(one, 1)));
	assert_true(isnan(stats_median(one, 0)));
	assert_true(isnan(stats_mean(one, 0)));
	assert_close(stats_median(one, 1), 3.0, 0);
}

/*
 * 95% distribution-free CI of the median: ranks and attained coverage as
 * tabulated for the sign-test interval (Conover, Practical Nonparametric
 * Statistics; Hollander and Wolfe); n = 100 gives the familiar 40th and
 * 61st values.
 */
static void test_median_ci_published(void **state)
{
	static const struct {
		size_t n, lo, hi;
		double coverage;
	} table[] = {
		{ 6, 1, 6, 0.969 },    { 7, 1, 7, 0.984 },    { 8, 1, 8, 0.992 },
		{ 9, 2, 8, 0.961 },    { 10, 2, 9, 0.979 },   { 11, 2, 10, 0.988 },
		{ 12, 3, 10, 0.961 },  { 13, 3, 11, 0.978 },  { 14, 3, 12, 0.987 },
		{ 15, 4, 12, 0.965 },  { 20, 6, 15, 0.959 },  { 25, 8, 18, 0.957 },
		{ 30, 10, 21, 0.957 }, { 50, 18, 33, 0.967 }, { 100, 40, 61, 0.965 },
	};
	size_t i, lo, hi;
	double cov;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_int_equal(stats_median_ci_ranks(table[i].n, 0.95, &lo, &hi, &cov), 0);
		assert_int_equal(lo, table[i].lo);
		assert_int_equal(hi, table[i].hi);
		assert_close(cov, table[i].coverage, 0.0005);
	}
	/* 99%: n = 10 needs the whole range; n = 20 gives ranks 4 and 17 */
	assert_int_equal(stats_median_ci_ranks(10, 0.99, &lo, &hi, &cov), 0);
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 10);
	assert_close(cov, 0.998, 0.0005);
	assert_int_equal(stats_median_ci_ranks(20, 0.99, &lo, &hi, &cov), 0);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 17);
	assert_close(cov, 0.9974, 0.00005);

	/* n too small: even [min, max] covers only 1 - 2/2^n */
	assert_int_equal(stats_median_ci_ranks(5, 0.95, &lo, &hi, &cov), -1);
	assert_int_equal(stats_median_ci_ranks(1, 0.95, &lo, &hi, &cov), -1);
	assert_int_equal(stats_median_ci_ranks(0, 0.95, &lo, &hi, &cov), -1);
	assert_int_equal(stats_median_ci_ranks(10, 1.0, &lo, &hi, &cov), -1);
}

/* The same ranks recomputed with exact integer binomial sums, n = 6..60. */
static void test_median_ci_exact(void **state)
{
	size_t n, k, lo, hi;

	(void)state;
	for (n = 6; n <= 60; n++) {
		uint64_t tail = 0, c = 1; /* C(n, i) */
		size_t best = 0;
		double cov, best_cov = 0;

		for (k = 1; 2 * k <= n + 1; k++) {
			/* tail = sum_{i < k} C(n, i) */
			tail += c;
			c = c * (n - (k - 1)) / k;
			cov = 1 - 2 * ((double)tail / ldexp(1, (int)n));
			if (cov >= 0.95) {
				best = k;
				best_cov = cov;
			}
		}
		assert_int_equal(stats_median_ci_ranks(n, 0.95, &lo, &hi, &cov), 0);
		assert_int_equal(lo, best);
		assert_int_equal(hi, n + 1 - best);
		assert_close(cov, best_cov, 1e-9);
	}
}

static void test_summarize(void **state)
{
	static const double x[] = { 7, 3, 10, 1, 5, 9, 2, 8, 4, 6 };
	static const double small[] = { 1, 2, 3, 4, 5 };
	struct summary s;
	bool out[10];
	size_t i;

	(void)state;
	assert_int_equal(stats_summarize(x, 10, 0.95, &s, out), 0);
	assert_int_equal(s.n, 10);
	assert_close(s.median, 5.5, 1e-12);
	assert_true(s.ci_valid);
	assert_close(s.ci_lo, 2, 0); /* ranks 2 and 9 */
	assert_close(s.ci_hi, 9, 0);
	assert_close(s.ci_level, 0.978515625, 1e-12); /* 1 - 22/1024 */
	assert_close(s.mean, 5.5, 1e-12);
	assert_close(s.stddev, sqrt(82.5 / 9), 1e-12);
	assert_close(s.sem, sqrt(82.5 / 9) / sqrt(10), 1e-12);
	assert_close(s.cv, sqrt(82.5 / 9) / 5.5, 1e-12);
	assert_close(s.min, 1, 0);
	assert_close(s.max, 10, 0);
	assert_int_equal(s.noutliers, 0);
	for (i = 0; i < 10; i++)
		assert_false(out[i]);
	assert_true(stats_summary_noisy(&s, STATS_NOISE_CV_DEFAULT));

	/* n = 5: [min, max] at the 93.75% it attains (1 - 2/32), flagged */
	assert_int_equal(stats_summarize(small, 5, 0.95, &s, NULL), 0);
	assert_true(s.ci_valid);
	assert_true(s.ci_below_conf);
	assert_close(s.ci_lo, 1, 0);
	assert_close(s.ci_hi, 5, 0);
	assert_close(s.ci_level, 0.9375, 1e-12);
	assert_close(s.median, 3, 0);
	/* n = 4: too small */
	assert_int_equal(stats_summarize(small, 4, 0.95, &s, NULL), 0);
	assert_false(s.ci_valid);
	assert_false(s.ci_below_conf);
	assert_true(isnan(s.ci_lo));
	/* n = 10 reaches the level: not flagged */
	assert_int_equal(stats_summarize(x, 10, 0.95, &s, NULL), 0);
	assert_false(s.ci_below_conf);

	assert_int_equal(stats_summarize(small, 0, 0.95, &s, NULL), -1);
	assert_int_equal(stats_summarize(small, 5, 0, &s, NULL), -1);
}

static void test_summarize_rejects_nonfinite(void **state)
{
	double x[] = { 1, 2, 3, 4, 5, 6 };
	struct summary s;

	(void)state;
	x[3] = NAN;
	assert_int_equal(stats_summarize(x, 6, 0.95, &s, NULL), -1);
	x[3] = INFINITY;
	assert_int_equal(stats_summarize(x, 6, 0.95, &s, NULL), -1);
}

static void test_outliers_mad(void **state)
{
	/* median 11, MAD 1: cutoff 3.5 * 1.4826 = 5.19 from the median */
	static const double x[] = { 10, 11, 12, 11, 10, 11, 11, 50, 16, 17 };
	struct summary s;
	bool out[10];

	(void)state;
	assert_int_equal(stats_summarize(x, 10, 0.95, &s, out), 0);
	assert_close(s.median, 11, 0);
	assert_close(s.mad, 1, 0);
	assert_int_equal(s.noutliers, 2);
	assert_true(out[7]);  /* 50: 39 away */
	assert_true(out[9]);  /* 17: 6 away > 5.19 */
	assert_false(out[8]); /* 16: 5 away < 5.19 */
	assert_false(out[0]);
	/* flagged, never dropped: the moments still include them */
	assert_close(s.max, 50, 0);
	assert_close(s.mean, 15.9, 1e-12);
}

static void test_outliers_mad_zero(void **state)
{
	/*
	 * More than half equal: MAD = 0. The fallback scale is 1.2533 times
	 * the mean absolute deviation (96 / 7), cutoff 3.5 * 17.19 = 60.2:
	 * 100 is flagged, 6 is not (with a zero scale every value off the
	 * median would be).
	 */
	static const double x[] = { 5, 5, 5, 5, 5, 6, 100 };
	static const double same[] = { 4, 4, 4, 4, 4, 4 };
	struct summary s;
	bool out[7];

	(void)state;
	assert_int_equal(stats_summarize(x, 7, 0.95, &s, out), 0);
	assert_close(s.mad, 0, 0);
	assert_int_equal(s.noutliers, 1);
	assert_true(out[6]);
	assert_false(out[5]);

	assert_int_equal(stats_summarize(same, 6, 0.95, &s, out), 0);
	assert_int_equal(s.noutliers, 0);
	assert_close(s.stddev, 0, 0);
	assert_close(s.cv, 0, 0);
	assert_false(stats_summary_noisy(&s, STATS_NOISE_CV_DEFAULT));
	assert_true(s.ci_valid);
	assert_close(s.ci_lo, 4, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moments),
		cmocka_unit_test(test_median_ci_published),
		cmocka_unit_test(test_median_ci_exact),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_summarize_rejects_nonfinite),
		cmocka_unit_test(test_outliers_mad),
		cmocka_unit_test(test_outliers_mad_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
