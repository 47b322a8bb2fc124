/*
 * effect.c: the relative change of B versus A with its confidence interval
 * and p-value (DESIGN section 5), unpaired and paired.
 *
 * Both work on log values, so that the effect is a ratio (a 5% drop is the
 * same effect at 2 M ops/s and at 200 k ops/s) and is reported as
 * exp(shift) - 1.
 *
 * Unpaired: the Hodges-Lehmann shift (median of all log b_j - log a_i) and
 * the distribution-free CI [D_(k), D_(M+1-k)] of those M = na nb
 * differences, k from the Mann-Whitney null distribution (Hollander and
 * Wolfe, chapter 4). Paired: the Hodges-Lehmann estimate (median of the
 * Walsh averages of d_i = log b_i - log a_i) with the CI from the
 * signed-rank null distribution (Hollander and Wolfe, chapter 3).
 *
 * p-values follow the textbook (and R's wilcox.test) conventions: exact
 * without ties (or zeros), otherwise the normal approximation with the
 * tie-corrected variance and a continuity correction. Unpaired: exact
 * below 50 values per side. Paired: exact up to 1000 pairs (the signed-rank
 * distribution is cheap to count that far), and two paired differences
 * are ties (or a difference is zero) when they agree within a relative
 * 1e-9, not only when the doubles are equal: log(220/200) and log(110/100)
 * are the same ratio. Zero differences are dropped from the signed-rank
 * test (Wilcoxon's convention) but kept in the Hodges-Lehmann estimate
 * and CI.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

#include "util/util.h"

/* Exact distributions below this many values per side (R's choice). */
#define EXACT_BELOW 50
/* Paired: exact signed-rank distribution up to this many pairs. */
#define PAIRED_EXACT_MAX 1000
/* Log ratios closer than this are ties (a relative 1e-9 between ratios). */
#define PAIRED_TIE_TOL 1e-9

static void effect_init(struct effect *e, size_t na, size_t nb, double conf, const char *method)
{
	memset(e, 0, sizeof(*e));
	e->n_a = na;
	e->n_b = nb;
	e->conf = conf;
	e->est = e->lo = e->hi = e->p = e->attained = e->statistic = NAN;
	e->method = method;
}

/* Sorted logs of x; false when a value cannot be logged. */
static bool sorted_logs(const double *x, size_t n, double *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] <= 0)
			return false;
		out[i] = log(x[i]);
	}
	gsl_sort(out, 1, n);
	return true;
}

/* Two-sided p of a statistic s with an exact null CDF over 0..smax. */
static double exact_two_sided(const double *cdf, size_t smax, double s)
{
	size_t v = (size_t)llround(s);
	/* symmetric null: P(S >= v) = P(S <= smax - v) */
	double lower = cdf[v], upper = cdf[smax - v];
	double p = 2 * (lower < upper ? lower : upper);

	return p < 1 ? p : 1;
}

/* Two-sided p of s against N(mean, sd^2) with a continuity correction. */
static double normal_two_sided(double s, double mean, double sd)
{
	double z = s - mean;

	if (!(sd > 0))
		return 1;
	z = (z - copysign(0.5, z)) / sd;
	if (fabs(s - mean) <= 0.5)
		return 1;
	return 2 * gsl_cdf_ugaussian_Q(fabs(z));
}

/*
 * Rank of the CI's lower bound: the largest k >= 1 with P(S <= k-1) <=
 * (1 - conf) / 2, exact from cdf when given, else from the normal
 * approximation (continuity-corrected, untied variance). 0 when even the
 * extreme order statistics do not reach conf. attained receives the
 * coverage 1 - 2 P(S <= k-1).
 */
static uint64_t ci_rank(const double *cdf, uint64_t smax, double sd, double conf, double *attained)
{
	double half_alpha = (1 - conf) / 2, mean = smax / 2.0;
	uint64_t k = 0, kmax = (smax + 1) / 2; /* keeps D_(k) <= D_(M+1-k) */

	if (cdf) {
		while (k < kmax && cdf[k] <= half_alpha)
			k++;
		if (k)
			*attained = 1 - 2 * cdf[k - 1];
		return k;
	}
	k = (uint64_t)fmax(0, floor(mean + 0.5 - gsl_cdf_ugaussian_Qinv(half_alpha) * sd));
	if (k > kmax)
		k = kmax;
	if (k)
		*attained = 1 - 2 * gsl_cdf_ugaussian_P((k - 0.5 - mean) / sd);
	return k;
}

int stats_effect_unpaired(const double *a, size_t na, const double *b, size_t nb, double conf,
			  struct effect *e)
{
	double *la, *lb, *cdf = NULL, rank_sum_b = 0, tie_sum = 0, shift[4];
	size_t i, j, N = na + nb;
	uint64_t M = (uint64_t)na * nb, k, ks[4];
	bool ties = false, small;
	double mean, sd;

	effect_init(e, na, nb, conf, "mann-whitney-hl");
	if (!(conf > 0 && conf < 1))
		return -1;
	if (na < 4 || nb < 4) {
		e->why = "insufficient samples (at least 4 per side)";
		return 0;
	}
	la = xmalloc(na * sizeof(*la));
	lb = xmalloc(nb * sizeof(*lb));
	if (!sorted_logs(a, na, la) || !sorted_logs(b, nb, lb)) {
		e->why = "values must be positive and finite (effects are ratios)";
		goto out;
	}

	/* Midranks of the pooled sample by merging the two sorted arrays. */
	for (i = j = 0; i < na || j < nb;) {
		double v = (j >= nb || (i < na && la[i] < lb[j])) ? la[i] : lb[j];
		size_t ta = 0, tb = 0, t, first = i + j + 1;

		while (i < na && la[i] == v)
			i++, ta++;
		while (j < nb && lb[j] == v)
			j++, tb++;
		t = ta + tb;
		rank_sum_b += tb * (first + (t - 1) / 2.0);
		if (t > 1) {
			ties = true;
			tie_sum += (double)t * t * t - t;
		}
	}
	e->statistic = rank_sum_b - nb * (nb + 1) / 2.0;

	small = na < EXACT_BELOW && nb < EXACT_BELOW;
	if (small) {
		cdf = xmalloc((M + 1) * sizeof(*cdf));
		if (stats_mann_whitney_null_cdf(na, nb, cdf))
			BUG("Mann-Whitney null distribution for %zu x %zu", na, nb);
	}
	mean = M / 2.0;
	if (small && !ties) {
		e->p = exact_two_sided(cdf, M, e->statistic);
		e->p_exact = true;
	} else {
		sd = sqrt(M / 12.0 * ((N + 1) - tie_sum / ((double)N * (N - 1))));
		e->p = normal_two_sided(e->statistic, mean, sd);
	}

	sd = sqrt(M * (N + 1) / 12.0);
	k = ci_rank(cdf, M, sd, conf, &e->attained);
	if (k == 0) {
		e->why = "insufficient samples for a CI at this confidence level";
		goto out;
	}
	ks[0] = k;
	ks[1] = M + 1 - k;
	ks[2] = (M + 1) / 2;
	ks[3] = M / 2 + 1;
	stats_pairwise_difference_kths(la, na, lb, nb, ks, 4, shift);
	e->lo = expm1(shift[0]);
	e->hi = expm1(shift[1]);
	e->est = expm1(shift[2] + (shift[3] - shift[2]) / 2);
	e->valid = true;
out:
	free(cdf);
	free(la);
	free(lb);
	return 0;
}

struct signed_abs {
	double abs;
	bool positive;
};

static int cmp_signed_abs(const void *pa, const void *pb)
{
	const struct signed_abs *x = pa, *y = pb;

	return (x->abs > y->abs) - (x->abs < y->abs);
}

/*
 * The exact signed-rank null CDF for n pairs, kept for the next call: the
 * sequential engine asks for the same n at several levels and for every
 * evidence metric, and counting it costs O(n^3) at n = 1000.
 */
static const double *signed_rank_cdf(size_t n)
{
	static double *cache;
	static size_t cache_n;

	if (!cache || cache_n != n) {
		free(cache);
		cache = xmalloc((n * (n + 1) / 2 + 1) * sizeof(*cache));
		stats_signed_rank_null_cdf(n, cache);
		cache_n = n;
	}
	return cache;
}

int stats_effect_paired(const double *a, const double *b, size_t n, double conf, struct effect *e)
{
	const double *cdf = NULL;
	double *d = NULL, v = 0, tie_sum = 0, walsh[4], mean, sd;
	struct signed_abs *r = NULL;
	size_t i, nz = 0;
	uint64_t M = (uint64_t)n * (n + 1) / 2, k, ks[4];
	bool ties = false;

	effect_init(e, n, n, conf, "wilcoxon-signed-rank-hl");
	if (!(conf > 0 && conf < 1))
		return -1;
	if (n == 0) {
		e->why = "insufficient samples (no pairs)";
		return 0;
	}
	d = xmalloc(n * sizeof(*d));
	r = xmalloc(n * sizeof(*r));
	for (i = 0; i < n; i++) {
		if (!isfinite(a[i]) || !isfinite(b[i]) || a[i] <= 0 || b[i] <= 0) {
			e->why = "values must be positive and finite (effects are ratios)";
			goto out;
		}
		d[i] = log(b[i]) - log(a[i]);
		if (fabs(d[i]) <= PAIRED_TIE_TOL)
			d[i] = 0;
		if (d[i] != 0) {
			r[nz].abs = fabs(d[i]);
			r[nz].positive = d[i] > 0;
			nz++;
		}
	}
	gsl_sort(d, 1, n);

	/* V: the sum of the midranks of |d| over the positive d, zeros dropped. */
	qsort(r, nz, sizeof(*r), cmp_signed_abs);
	for (i = 0; i < nz;) {
		size_t t = 1, j;
		double midrank;

		/* a run of gaps within the tolerance is one tie group */
		while (i + t < nz && r[i + t].abs - r[i + t - 1].abs <= PAIRED_TIE_TOL)
			t++;
		midrank = i + 1 + (t - 1) / 2.0;
		for (j = i; j < i + t; j++)
			if (r[j].positive)
				v += midrank;
		if (t > 1) {
			ties = true;
			tie_sum += (double)t * t * t - t;
		}
		i += t;
	}
	e->statistic = v;
	/* One exact distribution for n serves the CI and, without zeros, p. */
	if (n <= PAIRED_EXACT_MAX)
		cdf = signed_rank_cdf(n);
	if (nz == 0) {
		e->p = 1;
	} else if (cdf && !ties && nz == n) {
		e->p = exact_two_sided(cdf, M, v);
		e->p_exact = true;
	} else {
		mean = (double)nz * (nz + 1) / 4;
		sd = sqrt((double)nz * (nz + 1) * (2 * nz + 1) / 24 - tie_sum / 48);
		e->p = normal_two_sided(v, mean, sd);
	}

	/* The CI uses every pair, zeros included. */
	sd = sqrt((double)n * (n + 1) * (2 * n + 1) / 24);
	k = ci_rank(cdf, M, sd, conf, &e->attained);
	if (k == 0) {
		e->why = "insufficient pairs for a CI at this confidence level";
		goto out;
	}
	ks[0] = k;
	ks[1] = M + 1 - k;
	ks[2] = (M + 1) / 2;
	ks[3] = M / 2 + 1;
	stats_walsh_average_kths(d, n, ks, 4, walsh);
	e->lo = expm1(walsh[0]);
	e->hi = expm1(walsh[1]);
	e->est = expm1(walsh[2] + (walsh[3] - walsh[2]) / 2);
	e->valid = true;
out:
	free(r);
	free(d);
	return 0;
}

void stats_effect_invert(struct effect *e)
{
	double lo = e->lo, hi = e->hi;
	size_t n = e->n_a;

	if (!e->valid)
		return;
	/* on the log scale the shift and its interval change sign: A vs B is 1 / (B vs A) */
	e->est = 1.0 / (1.0 + e->est) - 1.0;
	e->lo = 1.0 / (1.0 + hi) - 1.0;
	e->hi = 1.0 / (1.0 + lo) - 1.0;
	e->n_a = e->n_b;
	e->n_b = n;
}

enum verdict stats_verdict_invert(enum verdict v)
{
	if (v == VERDICT_REGRESSION)
		return VERDICT_IMPROVEMENT;
	if (v == VERDICT_IMPROVEMENT)
		return VERDICT_REGRESSION;
	return v;
}
