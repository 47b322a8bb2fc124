/*
 * summary.c: the summary of one config (DESIGN section 5): median with its
 * distribution-free confidence interval from order statistics, mean,
 * standard deviation, standard error, coefficient of variation, range and
 * outliers flagged by the median absolute deviation.
 *
 * The median CI needs no distributional assumption: for n independent
 * values of a continuous distribution, the number B of values below the
 * true median is Binomial(n, 1/2), so [x_(k), x_(n+1-k)] covers the median
 * with probability P(k <= B <= n-k). We take the largest k whose coverage
 * is at least the requested level and report the coverage attained, which
 * is what the published tables (Conover, Hollander and Wolfe) list. Where
 * even [min, max] falls short of the level (n = 5 at 95%: 93.75%), from
 * STATS_MEDIAN_CI_MIN_N values on it is still given, flagged, with the
 * level it attains; below that "n too small".
 *
 * Pure functions: no I/O, no globals; values are copied before sorting.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

#include "util/util.h"

/* Iglewicz and Hoaglin: modified z-score 0.6745 (x - med) / MAD > 3.5. */
#define MAD_TO_SIGMA	 1.4826
#define MEANAD_TO_SIGMA	 1.2533
#define OUTLIER_Z_CUTOFF 3.5

static double median_of_sorted(const double *sorted, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return sorted[n / 2];
	return sorted[n / 2 - 1] + (sorted[n / 2] - sorted[n / 2 - 1]) / 2;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *c = xmalloc((n ? n : 1) * sizeof(*c));

	if (n)
		memcpy(c, x, n * sizeof(*c));
	gsl_sort(c, 1, n);
	return c;
}

double stats_median(const double *x, size_t n)
{
	double *c, med;

	if (n == 0)
		return NAN;
	c = sorted_copy(x, n);
	med = median_of_sorted(c, n);
	free(c);
	return med;
}

double stats_mean(const double *x, size_t n)
{
	double mean = 0;
	size_t i;

	if (n == 0)
		return NAN;
	/* Running mean (Welford): no overflow on large sums. */
	for (i = 0; i < n; i++)
		mean += (x[i] - mean) / (double)(i + 1);
	return mean;
}

double stats_stddev(const double *x, size_t n)
{
	double mean = 0, m2 = 0, delta;
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++) {
		delta = x[i] - mean;
		mean += delta / (double)(i + 1);
		m2 += delta * (x[i] - mean);
	}
	return sqrt(m2 / (double)(n - 1));
}

double stats_sem(const double *x, size_t n)
{
	if (n < 2)
		return NAN;
	return stats_stddev(x, n) / sqrt((double)n);
}

static double mad_about(const double *x, size_t n, double med)
{
	double *dev, mad;
	size_t i;

	dev = xmalloc(n * sizeof(*dev));
	for (i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	gsl_sort(dev, 1, n);
	mad = median_of_sorted(dev, n);
	free(dev);
	return mad;
}

double stats_mad(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	return mad_about(x, n, stats_median(x, n));
}

/* Coverage of [x_(k), x_(n+1-k)] for the median: 1 - 2 P(B <= k-1). */
static double median_ci_coverage(size_t n, size_t k)
{
	return 1 - 2 * gsl_cdf_binomial_P((unsigned)(k - 1), 0.5, (unsigned)n);
}

int stats_median_ci_ranks(size_t n, double conf, size_t *lo_rank, size_t *hi_rank, double *attained)
{
	size_t good, bad;

	if (!(conf > 0 && conf < 1) || n == 0 || n > UINT32_MAX)
		return -1;
	if (median_ci_coverage(n, 1) < conf)
		return -1; /* even [min, max] is not enough: n too small */
	/*
	 * Coverage falls as k grows: bisect for the largest k that still
	 * attains conf (k <= (n+1)/2 keeps the interval ordered).
	 */
	good = 1;
	bad = (n + 1) / 2 + 1;
	while (bad - good > 1) {
		size_t mid = good + (bad - good) / 2;

		if (median_ci_coverage(n, mid) >= conf)
			good = mid;
		else
			bad = mid;
	}
	*lo_rank = good;
	*hi_rank = n + 1 - good;
	if (attained)
		*attained = median_ci_coverage(n, good);
	return 0;
}

bool stats_summary_noisy(const struct summary *s, double max_cv)
{
	return s->n >= 2 && isfinite(s->cv) && fabs(s->cv) > max_cv;
}

int stats_summarize(const double *x, size_t n, double conf, struct summary *s, bool *outlier)
{
	double *c, scale;
	size_t i, lo, hi;

	memset(s, 0, sizeof(*s));
	if (n == 0 || !(conf > 0 && conf < 1))
		return -1;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -1;

	c = sorted_copy(x, n);
	s->n = n;
	s->median = median_of_sorted(c, n);
	s->min = c[0];
	s->max = c[n - 1];
	s->mean = stats_mean(x, n);
	s->stddev = stats_stddev(x, n);
	s->sem = stats_sem(x, n);
	s->cv = s->stddev / s->mean;

	s->ci_valid = stats_median_ci_ranks(n, conf, &lo, &hi, &s->ci_level) == 0;
	if (!s->ci_valid && n >= STATS_MEDIAN_CI_MIN_N) {
		s->ci_valid = s->ci_below_conf = true;
		lo = 1;
		hi = n;
		s->ci_level = median_ci_coverage(n, 1);
	}
	if (s->ci_valid) {
		s->ci_lo = c[lo - 1];
		s->ci_hi = c[hi - 1];
	} else {
		s->ci_lo = s->ci_hi = s->ci_level = NAN;
	}

	s->mad = mad_about(c, n, s->median);
	scale = MAD_TO_SIGMA * s->mad;
	if (scale == 0) {
		/* More than half the values are equal: use the mean deviation. */
		double sum = 0;

		for (i = 0; i < n; i++)
			sum += fabs(x[i] - s->median);
		scale = MEANAD_TO_SIGMA * sum / (double)n;
	}
	for (i = 0; i < n; i++) {
		bool out = scale > 0 && fabs(x[i] - s->median) > OUTLIER_Z_CUTOFF * scale;

		if (outlier)
			outlier[i] = out;
		s->noutliers += out;
	}
	free(c);
	return 0;
}
