/*
 * t-stats-effect.c: unpaired (Mann-Whitney / Hodges-Lehmann) and paired
 * (Wilcoxon signed-rank / Hodges-Lehmann) effects against published
 * values: the critical-value tables of both tests, Hollander and Wolfe's
 * examples (also R's documented wilcox.test outputs), and brute-force
 * enumeration of the permutation distributions for small samples; the
 * normal approximations against exact and permutation values; the
 * large-sample selection against plain sorting.
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
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "stats/stats.h"

/* Largest s with P(S <= s) <= 0.025: the two-sided 5% critical value. */
static long critical_value(const double *cdf, size_t smax)
{
	long s = -1;

	while ((size_t)(s + 1) <= smax && cdf[s + 1] <= 0.025)
		s++;
	return s;
}

/* Published two-sided 5% critical values of the signed-rank T. */
static void test_signed_rank_table(void **state)
{
	static const struct {
		size_t n;
		long crit;
	} table[] = { { 6, 0 },	  { 7, 2 },   { 8, 3 },	  { 9, 5 },   { 10, 8 },
		      { 15, 25 }, { 20, 52 }, { 25, 89 }, { 30, 137 } };
	double cdf[30 * 31 / 2 + 1];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_int_equal(stats_signed_rank_null_cdf(table[i].n, cdf), 0);
		assert_int_equal(critical_value(cdf, table[i].n * (table[i].n + 1) / 2),
				 table[i].crit);
	}
	assert_int_equal(stats_signed_rank_null_cdf(5, cdf), 0);
	assert_int_equal(critical_value(cdf, 15), -1); /* no 5% test with 5 pairs */
}

/* Published two-sided 5% critical values of the Mann-Whitney U. */
static void test_mann_whitney_table(void **state)
{
	static const struct {
		size_t na, nb;
		long crit;
	} table[] = { { 4, 4, 0 },    { 5, 5, 2 },  { 6, 6, 5 },  { 8, 8, 13 },
		      { 10, 10, 23 }, { 5, 10, 8 }, { 10, 5, 8 }, { 20, 20, 127 } };
	double cdf[401];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_int_equal(stats_mann_whitney_null_cdf(table[i].na, table[i].nb, cdf), 0);
		assert_int_equal(critical_value(cdf, table[i].na * table[i].nb), table[i].crit);
	}
}

/* The exact null distributions against enumeration of every arrangement. */
static void test_null_cdf_enumerated(void **state)
{
	double cdf[64], count[64];
	unsigned mask, bit;
	size_t s;

	(void)state;
	/* signed rank, n = 10: every sign pattern */
	memset(count, 0, sizeof(count));
	for (mask = 0; mask < 1u << 10; mask++) {
		for (s = 0, bit = 0; bit < 10; bit++)
			if (mask & (1u << bit))
				s += bit + 1;
		count[s]++;
	}
	assert_int_equal(stats_signed_rank_null_cdf(10, cdf), 0);
	for (s = 0; s <= 55; s++) {
		double run = 0;
		size_t t;

		for (t = 0; t <= s; t++)
			run += count[t];
		assert_close(cdf[s], run / 1024, 1e-12);
	}

	/* Mann-Whitney, 4 vs 7: every choice of 4 positions among 11 */
	memset(count, 0, sizeof(count));
	for (mask = 0; mask < 1u << 11; mask++) {
		size_t u = 0, others_below = 0;

		if (__builtin_popcount(mask) != 4)
			continue;
		for (bit = 0; bit < 11; bit++) {
			if (mask & (1u << bit))
				u += others_below;
			else
				others_below++;
		}
		count[u]++;
	}
	assert_int_equal(stats_mann_whitney_null_cdf(4, 7, cdf), 0);
	for (s = 0; s <= 28; s++) {
		double run = 0;
		size_t t;

		for (t = 0; t <= s; t++)
			run += count[t];
		assert_close(cdf[s], run / 330, 1e-12);
	}
}

static void exp_all(const double *x, size_t n, double *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = exp(x[i]);
}

/*
 * Hollander and Wolfe (1973), p. 29, Table 3.1: Hamilton depression scale
 * before (y) and after (x) treatment; R's ?wilcox.test example. V = 40,
 * one-sided p = 0.01953 (two-sided 0.0390625), pseudomedian 0.46. The
 * effect works on logs, so exp() of the scores gives their differences.
 */
static void test_paired_hollander_wolfe(void **state)
{
	static const double x[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30 };
	static const double y[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29 };
	double ex[9], ey[9];
	struct effect e;

	(void)state;
	exp_all(x, 9, ex);
	exp_all(y, 9, ey);
	assert_int_equal(stats_effect_paired(ey, ex, 9, 0.95, &e), 0);
	assert_true(e.valid);
	assert_string_equal(e.method, "wilcoxon-signed-rank-hl");
	assert_int_equal(e.n_a, 9);
	assert_close(e.statistic, 40, 0);
	assert_true(e.p_exact);
	assert_close(e.p, 0.0390625, 1e-12);
	assert_close(log1p(e.est), 0.46, 1e-9);
	/* Walsh averages 6 and 40 of 45: qsignrank(0.025, 9) = 6 */
	assert_close(log1p(e.lo), 0.01, 1e-9);
	assert_close(log1p(e.hi), 0.786, 1e-9);
	assert_close(e.attained, 1 - 20.0 / 512, 1e-12);
}

/*
 * Hollander and Wolfe (1973), p. 69: permeability constants at 12-26 weeks
 * (x) and at term (y); R's ?wilcox.test example. W = 35, one-sided
 * p = 0.1272, Hodges-Lehmann shift 0.305.
 */
static void test_unpaired_hollander_wolfe(void **state)
{
	static const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	static const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	double ex[10], ey[5];
	struct effect e;

	(void)state;
	exp_all(x, 10, ex);
	exp_all(y, 5, ey);
	assert_int_equal(stats_effect_unpaired(ey, 5, ex, 10, 0.95, &e), 0);
	assert_true(e.valid);
	assert_string_equal(e.method, "mann-whitney-hl");
	assert_close(e.statistic, 35, 0);
	assert_true(e.p_exact);
	assert_close(e.p / 2, 0.1272, 0.00005);
	assert_close(e.p, 0.2544122544, 1e-9); /* 2 * 382 / 3003 */
	assert_close(log1p(e.est), 0.305, 1e-9);
	/* differences 9 and 42 of 50 (critical U for 5 vs 10 is 8) */
	assert_close(log1p(e.lo), -0.15, 1e-9);
	assert_close(log1p(e.hi), 0.76, 1e-9);
	assert_close(e.attained, 0.96004, 0.00001);

	/* swapping the arms mirrors everything */
	assert_int_equal(stats_effect_unpaired(ex, 10, ey, 5, 0.95, &e), 0);
	assert_close(e.statistic, 15, 0);
	assert_close(log1p(e.est), -0.305, 1e-9);
	assert_close(log1p(e.lo), -0.76, 1e-9);
	assert_close(e.p, 0.2544122544, 1e-9);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Random small samples: the whole unpaired result recomputed by brute
 * force: every difference sorted for the estimate and CI, and the p-value
 * by enumerating every split of the pooled values.
 */
static void test_unpaired_brute_force(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int trial;

	(void)state;
	gsl_rng_set(rng, 20260401);
	for (trial = 0; trial < 60; trial++) {
		size_t na = 4 + gsl_rng_uniform_int(rng, 3), nb = 4 + gsl_rng_uniform_int(rng, 3);
		size_t N = na + nb, M = na * nb, i, j, k, extreme = 0, splits = 0;
		double a[8], b[8], la[8], lb[8], pooled[16], diff[64], cdf[65];
		double u_obs = 0, mean = M / 2.0, p;
		unsigned mask;
		struct effect e;

		for (i = 0; i < na; i++)
			a[i] = gsl_ran_lognormal(rng, 10, 0.1);
		for (j = 0; j < nb; j++)
			b[j] = gsl_ran_lognormal(rng, 10.03, 0.1);
		for (i = 0; i < na; i++)
			pooled[i] = la[i] = log(a[i]);
		for (j = 0; j < nb; j++)
			pooled[na + j] = lb[j] = log(b[j]);
		for (i = 0; i < na; i++)
			for (j = 0; j < nb; j++) {
				diff[i * nb + j] = lb[j] - la[i];
				u_obs += lb[j] > la[i];
			}
		qsort(diff, M, sizeof(double), cmp_double);
		/* permutation p: splits at least as far from M/2 as observed */
		for (mask = 0; mask < 1u << N; mask++) {
			double u = 0;

			if ((size_t)__builtin_popcount(mask) != nb)
				continue;
			for (i = 0; i < N; i++)
				for (j = 0; j < N; j++)
					if ((mask & (1u << i)) && !(mask & (1u << j)))
						u += pooled[i] > pooled[j];
			splits++;
			extreme += fabs(u - mean) >= fabs(u_obs - mean) - 1e-9;
		}
		p = (double)extreme / splits;

		assert_int_equal(stats_effect_unpaired(a, na, b, nb, 0.95, &e), 0);
		assert_true(e.valid);
		assert_close(e.statistic, u_obs, 0);
		assert_close(e.p, p, 1e-9);
		assert_close(log1p(e.est),
			     M % 2 ? diff[M / 2] : (diff[M / 2 - 1] + diff[M / 2]) / 2, 1e-9);
		assert_int_equal(stats_mann_whitney_null_cdf(na, nb, cdf), 0);
		for (k = 0; cdf[k] <= 0.025; k++)
			;
		assert_true(k >= 1);
		assert_close(log1p(e.lo), diff[k - 1], 1e-9);
		assert_close(log1p(e.hi), diff[M - k], 1e-9);
	}
	gsl_rng_free(rng);
}

/* Random small pairs: estimate, CI and p by enumeration of sign patterns. */
static void test_paired_brute_force(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int trial;

	(void)state;
	gsl_rng_set(rng, 6121866);
	for (trial = 0; trial < 60; trial++) {
		size_t n = 6 + gsl_rng_uniform_int(rng, 9), M = n * (n + 1) / 2, i, j, k;
		double a[14], b[14], d[14], rank[14], walsh[105], cdf[106];
		double v_obs = 0, mean = M / 2.0, p, extreme = 0;
		unsigned mask;
		struct effect e;

		for (i = 0; i < n; i++) {
			a[i] = gsl_ran_lognormal(rng, 12, 0.05);
			b[i] = a[i] * gsl_ran_lognormal(rng, 0.01, 0.03);
			d[i] = log(b[i]) - log(a[i]);
		}
		for (i = 0; i < n; i++) {
			rank[i] = 1;
			for (j = 0; j < n; j++)
				rank[i] += fabs(d[j]) < fabs(d[i]);
			if (d[i] > 0)
				v_obs += rank[i];
		}
		for (mask = 0; mask < 1u << n; mask++) {
			double v = 0;

			for (i = 0; i < n; i++)
				if (mask & (1u << i))
					v += i + 1;
			extreme += fabs(v - mean) >= fabs(v_obs - mean) - 1e-9;
		}
		p = extreme / (1u << n);
		for (i = 0, k = 0; i < n; i++)
			for (j = i; j < n; j++)
				walsh[k++] = (d[i] + d[j]) / 2;
		qsort(walsh, M, sizeof(double), cmp_double);

		assert_int_equal(stats_effect_paired(a, b, n, 0.95, &e), 0);
		assert_true(e.valid);
		assert_int_equal(e.n_a, n);
		assert_close(e.statistic, v_obs, 0);
		assert_close(e.p, p, 1e-9);
		assert_close(log1p(e.est),
			     M % 2 ? walsh[M / 2] : (walsh[M / 2 - 1] + walsh[M / 2]) / 2, 1e-9);
		assert_int_equal(stats_signed_rank_null_cdf(n, cdf), 0);
		for (k = 0; cdf[k] <= 0.025; k++)
			;
		assert_close(log1p(e.lo), walsh[k - 1], 1e-9);
		assert_close(log1p(e.hi), walsh[M - k], 1e-9);
	}
	gsl_rng_free(rng);
}

/*
 * Normal approximations: without ties, at 60 per side (beyond the exact
 * range) the continuity-corrected normal p must agree with the exact
 * null distribution, which the building blocks still compute.
 */
static void test_normal_approximation_without_ties(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double cdf[3601];
	double a[60], b[60];
	struct effect e;
	size_t i, u, smax;
	int trial;

	(void)state;
	gsl_rng_set(rng, 1945);
	for (trial = 0; trial < 10; trial++) {
		for (i = 0; i < 60; i++) {
			a[i] = gsl_ran_lognormal(rng, 5, 0.05);
			b[i] = gsl_ran_lognormal(rng, 5.008, 0.05);
		}
		assert_int_equal(stats_effect_unpaired(a, 60, b, 60, 0.95, &e), 0);
		assert_false(e.p_exact);
		assert_int_equal(stats_mann_whitney_null_cdf(60, 60, cdf), 0);
		u = (size_t)e.statistic;
		smax = 3600;
		assert_close(e.p, 2 * fmin(cdf[u], cdf[smax - u]), 0.005);
		/* R's convention: |U - mn/2| - 1/2 over sqrt(mn(N+1)/12) */
		assert_close(e.p,
			     2 * gsl_cdf_ugaussian_Q((fabs(e.statistic - 1800) - 0.5) /
						     sqrt(3600.0 * 121 / 12)),
			     1e-12);

		/* paired: exact up to 1000 pairs, and near the normal approximation */
		assert_int_equal(stats_effect_paired(a, b, 60, 0.95, &e), 0);
		assert_true(e.p_exact);
		assert_int_equal(stats_signed_rank_null_cdf(60, cdf), 0);
		u = (size_t)e.statistic;
		smax = 60 * 61 / 2;
		assert_close(e.p, fmin(1, 2 * fmin(cdf[u], cdf[smax - u])), 1e-12);
		assert_close(e.p,
			     2 * gsl_cdf_ugaussian_Q((fabs(e.statistic - 915) - 0.5) /
						     sqrt(60.0 * 61 * 121 / 24)),
			     0.005);
	}
	gsl_rng_free(rng);
}

/*
 * With heavy ties the p-value comes from the tie-corrected normal
 * approximation: compare it with the exact permutation p conditional on
 * the ties (every split of 10 + 10 values taking 1..5).
 */
static void test_normal_approximation_with_ties(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int trial;

	(void)state;
	gsl_rng_set(rng, 77);
	for (trial = 0; trial < 4; trial++) {
		double a[10], b[10], pooled[20], u_obs = 0, extreme = 0, splits = 0, ties, v;
		struct effect e;
		unsigned mask;
		size_t i, j;

		for (i = 0; i < 10; i++) {
			a[i] = 1 + gsl_rng_uniform_int(rng, 5);
			b[i] = 1 + gsl_rng_uniform_int(rng, 5) + (trial & 1);
			pooled[i] = a[i];
			pooled[10 + i] = b[i];
		}
		for (i = 0; i < 10; i++)
			for (j = 0; j < 10; j++)
				u_obs += (b[j] > a[i]) + 0.5 * (b[j] == a[i]);
		for (mask = 0; mask < 1u << 20; mask++) {
			double u = 0;

			if (__builtin_popcount(mask) != 10)
				continue;
			for (i = 0; i < 20; i++) {
				if (!(mask & (1u << i)))
					continue;
				for (j = 0; j < 20; j++)
					if (!(mask & (1u << j)))
						u += (pooled[i] > pooled[j]) +
						     0.5 * (pooled[i] == pooled[j]);
			}
			splits++;
			extreme += fabs(u - 50) >= fabs(u_obs - 50) - 1e-9;
		}
		assert_int_equal(stats_effect_unpaired(a, 10, b, 10, 0.95, &e), 0);
		assert_false(e.p_exact);
		assert_close(e.statistic, u_obs, 1e-9);
		/* the tie-corrected variance, R's convention */
		for (v = 1, ties = 0; v <= 6; v++) {
			double t = 0;

			for (i = 0; i < 20; i++)
				t += pooled[i] == v;
			ties += t * t * t - t;
		}
		assert_close(e.p,
			     2 * gsl_cdf_ugaussian_Q((fabs(u_obs - 50) - 0.5) /
						     sqrt(100.0 / 12 * (21 - ties / (20 * 19)))),
			     1e-12);
		/*
		 * and near the permutation p given the ties (the continuity
		 * correction of 1/2 is generous when U moves in steps of 1/2)
		 */
		assert_close(e.p, extreme / splits, 0.05);
	}
	gsl_rng_free(rng);
}

/* Zeros and ties in paired differences take the normal path; p = 1 when all are zero. */
static void test_paired_zeros_and_ties(void **state)
{
	double a[8] = { 100, 100, 100, 100, 100, 100, 100, 100 };
	double b[8] = { 100, 110, 110, 90, 120, 130, 105, 140 };
	struct effect e;

	(void)state;
	assert_int_equal(stats_effect_paired(a, b, 8, 0.95, &e), 0);
	assert_true(e.valid);
	assert_false(e.p_exact);
	/* |log ratios| of the 7 non-zero pairs: 110 and 90 differ, so only 110 ties */
	assert_true(e.p > 0 && e.p < 1);
	assert_int_equal(stats_effect_paired(a, a, 8, 0.95, &e), 0);
	assert_true(e.valid);
	assert_close(e.p, 1, 0);
	assert_close(e.est, 0, 0);
	assert_close(e.lo, 0, 0);
	assert_close(e.hi, 0, 0);
}

/*
 * Equal ratios from different values are ties, and a ratio of 1 within a
 * relative 1e-9 is a zero: log(220/200) and log(110/100) differ in the
 * last bits of a double.
 */
static void test_paired_ties_within_tolerance(void **state)
{
	double a[8] = { 100, 200, 300, 100, 250, 100, 1e6, 100 };
	double b[8] = { 110, 220, 330, 120, 310, 150, 1e6 * (1 + 1e-12), 170 };
	struct effect e;

	(void)state;
	assert_true(log(220.0) - log(200.0) != log(110.0) - log(100.0)); /* in doubles */
	assert_int_equal(stats_effect_paired(a, b, 8, 0.95, &e), 0);
	assert_true(e.valid);
	/* a tie (three equal 10% ratios) and a zero: the exact table does not apply */
	assert_false(e.p_exact);
	/* 7 non-zero, all positive: V = 28, the midranks 2, 2, 2 count once each */
	assert_close(e.statistic, 28, 1e-12);
}

static void test_invalid_inputs(void **state)
{
	double a[6] = { 10, 11, 12, 13, 14, 15 }, b[6] = { 11, 12, 13, 14, 15, 16 };
	struct effect e;

	(void)state;
	assert_int_equal(stats_effect_unpaired(a, 3, b, 6, 0.95, &e), 0);
	assert_false(e.valid);
	assert_non_null(strstr(e.why, "insufficient samples"));
	assert_true(isnan(e.est));
	assert_int_equal(stats_effect_unpaired(a, 4, b, 4, 0.95, &e), 0);
	assert_true(e.valid); /* 4 per side: [min, max] difference, coverage 1 - 2/70 */
	assert_close(e.attained, 1 - 2.0 / 70, 1e-12);
	assert_int_equal(stats_effect_unpaired(a, 4, b, 4, 0.99, &e), 0);
	assert_false(e.valid); /* even [min, max] covers only 97.1% */

	/* 5 pairs cannot reach 95% (1 - 2/32); 6 can */
	assert_int_equal(stats_effect_paired(a, b, 5, 0.95, &e), 0);
	assert_false(e.valid);
	assert_non_null(strstr(e.why, "insufficient pairs"));
	assert_int_equal(stats_effect_paired(a, b, 6, 0.95, &e), 0);
	assert_true(e.valid);
	assert_close(e.p, 2.0 / 64, 1e-12); /* all six positive */

	b[2] = 0;
	assert_int_equal(stats_effect_paired(a, b, 6, 0.95, &e), 0);
	assert_false(e.valid);
	assert_non_null(strstr(e.why, "positive"));
	assert_int_equal(stats_effect_unpaired(a, 6, b, 6, 0.95, &e), 0);
	assert_false(e.valid);
	b[2] = NAN;
	assert_int_equal(stats_effect_unpaired(a, 6, b, 6, 0.95, &e), 0);
	assert_false(e.valid);
	assert_int_equal(stats_effect_paired(a, b, 6, 1.0, &e), -1);
	assert_int_equal(stats_effect_unpaired(a, 6, b, 6, 0, &e), -1);
}

/* A pure ratio is recovered exactly: B = 0.9 A gives -10% with a point CI. */
static void test_ratio_scale(void **state)
{
	double a[12], b[12];
	struct effect e;
	size_t i;

	(void)state;
	for (i = 0; i < 12; i++) {
		a[i] = 1e6 * (1 + 0.01 * (double)i);
		b[i] = 0.9 * a[i];
	}
	assert_int_equal(stats_effect_paired(a, b, 12, 0.95, &e), 0);
	assert_close(e.est, -0.1, 1e-12);
	assert_close(e.lo, -0.1, 1e-12);
	assert_close(e.hi, -0.1, 1e-12);
	assert_true(e.p < 0.01);
	assert_int_equal(stats_effect_unpaired(a, 12, b, 12, 0.95, &e), 0);
	assert_true(e.est < -0.09 && e.est > -0.11);
	assert_true(e.lo < e.est && e.est < e.hi);
}

/* Selection in large matrices (with ties) against sorting every cell. */
static void test_selection_against_sorting(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t na = 300, nb = 170, n = 400, i, j, pos;
	double *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b));
	double *d = malloc(n * sizeof(*d));
	double *all = malloc(90000 * sizeof(*all)); /* na * na >= n (n+1) / 2 >= na * nb */
	uint64_t ks[] = { 1, 2, 17, 1000, 25500, 25501, 50999, 51000 };
	uint64_t kw[] = { 1, 3, 399, 40100, 40101, 80199, 80200 };
	double out[8];

	(void)state;
	gsl_rng_set(rng, 42);
	for (i = 0; i < na; i++)
		a[i] = round(gsl_ran_gaussian(rng, 20)) / 4; /* many ties */
	for (j = 0; j < nb; j++)
		b[j] = round(gsl_ran_gaussian(rng, 30)) / 4;
	for (i = 0; i < n; i++)
		d[i] = gsl_rng_uniform(rng) < 0.1 ? 0 : gsl_ran_gaussian(rng, 1);
	gsl_sort(a, 1, na);
	gsl_sort(b, 1, nb);
	gsl_sort(d, 1, n);

	for (i = pos = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			all[pos++] = b[j] - a[i];
	gsl_sort(all, 1, pos);
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		assert_close(stats_kth_pairwise_difference(a, na, b, nb, ks[i]), all[ks[i] - 1], 0);
	stats_pairwise_difference_kths(a, na, b, nb, ks, 8, out);
	for (i = 0; i < 8; i++)
		assert_close(out[i], all[ks[i] - 1], 0);
	assert_true(isnan(stats_kth_pairwise_difference(a, na, b, nb, 0)));
	assert_true(isnan(stats_kth_pairwise_difference(a, na, b, nb, 51001)));

	for (i = pos = 0; i < n; i++)
		for (j = i; j < n; j++)
			all[pos++] = (d[i] + d[j]) / 2;
	gsl_sort(all, 1, pos);
	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		assert_close(stats_kth_walsh_average(d, n, kw[i]), all[kw[i] - 1], 0);

	/* three distinct values only: rounds must still end */
	for (i = 0; i < na; i++)
		a[i] = (double)(i % 2);
	for (i = 0; i < n; i++)
		d[i] = (double)(i % 3);
	gsl_sort(a, 1, na);
	gsl_sort(d, 1, n);
	for (i = pos = 0; i < na; i++)
		for (j = 0; j < na; j++)
			all[pos++] = a[j] - a[i];
	gsl_sort(all, 1, pos);
	for (i = 0; i < 6; i++) {
		uint64_t k = 1 + (uint64_t)i * (pos - 1) / 5;

		assert_close(stats_kth_pairwise_difference(a, na, a, na, k), all[k - 1], 0);
	}
	for (i = pos = 0; i < n; i++)
		for (j = i; j < n; j++)
			all[pos++] = (d[i] + d[j]) / 2;
	gsl_sort(all, 1, pos);
	for (i = 0; i < 6; i++) {
		uint64_t k = 1 + (uint64_t)i * (pos - 1) / 5;

		assert_close(stats_kth_walsh_average(d, n, k), all[k - 1], 0);
	}

	free(a);
	free(b);
	free(d);
	free(all);
	gsl_rng_free(rng);
}

/*
 * Past 2^20 differences the effect selects instead of enumerating: its
 * estimate and CI must still be the exact order statistics.
 */
static void test_large_unpaired(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t na = 1100, nb = 1000, i, j, pos = 0, M = na * nb;
	double *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b));
	double *la = malloc(na * sizeof(*la)), *lb = malloc(nb * sizeof(*lb));
	double *all = malloc(M * sizeof(*all));
	struct effect e;

	(void)state;
	gsl_rng_set(rng, 9);
	for (i = 0; i < na; i++)
		la[i] = log(a[i] = gsl_ran_lognormal(rng, 14, 0.05));
	for (j = 0; j < nb; j++)
		lb[j] = log(b[j] = gsl_ran_lognormal(rng, 13.98, 0.05));
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			all[pos++] = lb[j] - la[i];
	gsl_sort(all, 1, M);

	assert_int_equal(stats_effect_unpaired(a, na, b, nb, 0.95, &e), 0);
	assert_true(e.valid);
	assert_false(e.p_exact);
	assert_close(log1p(e.est), (all[M / 2 - 1] + all[M / 2]) / 2, 1e-12);
	assert_true(e.p < 1e-6); /* a 2% shift with 5% noise and 1000 per side */
	assert_true(e.attained >= 0.95 && e.attained < 0.951);
	/* the CI bounds are order statistics of the differences */
	{
		double lo = log1p(e.lo), hi = log1p(e.hi);
		size_t klo = 0, khi = 0;

		while (klo < M && all[klo] < lo - 1e-12)
			klo++;
		while (khi < M && all[khi] < hi - 1e-12)
			khi++;
		assert_close(all[klo], lo, 1e-12);
		assert_close(all[khi], hi, 1e-12);
		/* symmetric ranks: k and M + 1 - k (0-based: k - 1 and M - k) */
		assert_int_equal(klo + khi, M - 1);
	}
	free(a);
	free(b);
	free(la);
	free(lb);
	free(all);
	gsl_rng_free(rng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signed_rank_table),
		cmocka_unit_test(test_mann_whitney_table),
		cmocka_unit_test(test_null_cdf_enumerated),
		cmocka_unit_test(test_paired_hollander_wolfe),
		cmocka_unit_test(test_unpaired_hollander_wolfe),
		cmocka_unit_test(test_unpaired_brute_force),
		cmocka_unit_test(test_paired_brute_force),
		cmocka_unit_test(test_normal_approximation_without_ties),
		cmocka_unit_test(test_normal_approximation_with_ties),
		cmocka_unit_test(test_paired_zeros_and_ties),
		cmocka_unit_test(test_paired_ties_within_tolerance),
		cmocka_unit_test(test_invalid_inputs),
		cmocka_unit_test(test_ratio_scale),
		cmocka_unit_test(test_selection_against_sorting),
		cmocka_unit_test(test_large_unpaired),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
