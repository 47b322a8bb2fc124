/*
 * rank.c: the rank-statistics building blocks behind the effects: exact
 * null distributions of the Mann-Whitney U and Wilcoxon signed-rank
 * statistics, and the k-th smallest pairwise difference or Walsh average
 * without materialising all of them.
 *
 * The exact distributions are counted by dynamic programming in doubles
 * (counts stay below 2^53 well past the sizes where they are used, and
 * only additions are involved, so the tails keep full relative precision).
 *
 * Pairwise differences b_j - a_i (na * nb of them) and Walsh averages
 * (d_i + d_j) / 2, i <= j (n (n+1) / 2 of them) form matrices whose rows
 * are sorted. Small ones (up to 2^16 cells) are enumerated and the wanted
 * order statistics picked by quickselect. Large ones (a compare over
 * thousands of samples would need billions of cells) are searched without
 * enumeration, in the spirit of Monahan's algorithm for the Hodges-Lehmann
 * estimator and Floyd and Rivest's selection: each round samples the
 * remaining candidates, brackets the wanted rank between two sampled
 * values, and counts the cells below each bracket in O(rows + columns)
 * with a two-pointer sweep (row boundaries move monotonically), so a few
 * rounds of linear work replace the quadratic enumeration. The sampling
 * uses a fixed-seed generator: results are exact and deterministic.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Enumerate at most this many candidates at once. */
#define ENUMERATE_MAX ((uint64_t)1 << 16)
/* Candidates sampled per round of the large-matrix selection. */
#define SELECT_SAMPLE 1024

int stats_mann_whitney_null_cdf(size_t na, size_t nb, double *cdf)
{
	size_t m = na < nb ? na : nb, n = na < nb ? nb : na;
	size_t umax = m * n, t, j, u;
	double *count, total = 0, run = 0;

	if (na == 0 || nb == 0 || m > 1000 || umax > 1000000)
		return -1;
	/*
	 * count[j][u]: ways to pick j of the first t pooled values for the
	 * smaller sample so that U (pairs with the other sample's value
	 * below) is u. Taking value t as the j-th pick adds t - j.
	 */
	count = xcalloc((m + 1) * (umax + 1), sizeof(*count));
	count[0] = 1;
	for (t = 1; t <= m + n; t++) {
		size_t jmax = t < m ? t : m;
		size_t jmin = t > n ? t - n : 1;

		for (j = jmax; j >= jmin && j >= 1; j--) {
			double *to = count + j * (umax + 1);
			const double *from = count + (j - 1) * (umax + 1);
			size_t add = t - j;

			for (u = umax; u >= add; u--) {
				to[u] += from[u - add];
				if (u == 0)
					break;
			}
		}
	}
	for (u = 0; u <= umax; u++)
		total += count[m * (umax + 1) + u];
	for (u = 0; u <= umax; u++) {
		run += count[m * (umax + 1) + u];
		cdf[u] = run / total;
	}
	cdf[umax] = 1;
	free(count);
	return 0;
}

int stats_signed_rank_null_cdf(size_t n, double *cdf)
{
	size_t smax = n * (n + 1) / 2, r, s;
	double *count, run = 0;

	if (n > 1000)
		return -1;
	count = xcalloc(smax + 1, sizeof(*count));
	count[0] = 1;
	for (r = 1; r <= n; r++)
		for (s = r * (r + 1) / 2; s >= r; s--)
			count[s] += count[s - r];
	for (s = 0; s <= smax; s++) {
		run += count[s];
		cdf[s] = run / ldexp(1, (int)n);
	}
	cdf[smax] = 1;
	free(count);
	return 0;
}

/* xorshift64*: a fixed-seed, private generator (no global state). */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline void swap_double(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/*
 * The k-th smallest (0-based) of v[0..n), reordering v: Hoare's selection
 * with random pivots and a three-way partition, so runs of ties (zero
 * differences are common) cost no more than distinct values.
 */
static double quickselect(double *v, size_t n, size_t k)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		double p = v[lo + next_random(&seed) % (hi - lo)];
		size_t lt = lo, i = lo, gt = hi;

		while (i < gt) {
			if (v[i] < p)
				swap_double(&v[lt++], &v[i++]);
			else if (v[i] > p)
				swap_double(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
	return v[lo];
}

/*
 * A matrix with sorted rows: row i holds columns [row_first(i), ncols).
 * Walsh averages: cell (i, j) = (x_i + x_j) / 2 for j >= i; differences:
 * cell (i, j) = y_j - x_i. Both ascend along a row because x and y are
 * sorted and rounding is monotone.
 */
struct sorted_rows {
	size_t nrows, ncols;
	const double *x, *y;
	bool walsh;
};

static inline double cell(const struct sorted_rows *m, size_t i, size_t j)
{
	if (m->walsh)
		return (m->x[i] + m->x[j]) / 2;
	return m->y[j] - m->x[i];
}

static inline size_t row_first(const struct sorted_rows *m, size_t i)
{
	return m->walsh ? i : 0;
}

static inline bool cell_below(double c, double v, bool or_equal)
{
	return or_equal ? c <= v : c < v;
}

/*
 * For every row, the first column whose cell is >= v (or_equal: > v),
 * clamped to the row's active range [lo, hi); returns how many active
 * cells lie below. Differences: the boundary only moves right as x_i
 * grows; Walsh averages (counted over all j, then cut at j >= i): it only
 * moves left. One sweep, O(rows + columns).
 */
static uint64_t count_below(const struct sorted_rows *m, double v, bool or_equal, const size_t *lo,
			    const size_t *hi, size_t *bound)
{
	const double *x = m->x, *y = m->y;
	uint64_t count = 0;
	size_t i, j, b;

	if (m->walsh) {
		for (i = 0, j = m->ncols; i < m->nrows; i++) {
			while (j > 0 && !cell_below((x[i] + x[j - 1]) / 2, v, or_equal))
				j--;
			b = j < lo[i] ? lo[i] : j > hi[i] ? hi[i] : j;
			bound[i] = b;
			count += b - lo[i];
		}
		return count;
	}
	for (i = 0, j = 0; i < m->nrows; i++) {
		while (j < m->ncols && cell_below(y[j] - x[i], v, or_equal))
			j++;
		b = j < lo[i] ? lo[i] : j > hi[i] ? hi[i] : j;
		bound[i] = b;
		count += b - lo[i];
	}
	return count;
}

/* A uniformly chosen active cell; cum[i] = active cells in rows 0..i. */
static double random_active_cell(const struct sorted_rows *m, const size_t *lo, const uint64_t *cum,
				 uint64_t active, uint64_t *seed)
{
	uint64_t r = next_random(seed) % active;
	size_t a = 0, b = m->nrows - 1;

	while (a < b) { /* first row with cum > r */
		size_t mid = a + (b - a) / 2;

		if (cum[mid] > r)
			b = mid;
		else
			a = mid + 1;
	}
	return cell(m, a, lo[a] + (size_t)(r - (a ? cum[a - 1] : 0)));
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/*
 * The k-th smallest (1-based) cell of m. Each row keeps an active column
 * range [lo, hi); `below` counts the cells known to rank below all active
 * ones. Each round brackets rank k between two sampled cells p1 <= p2 and
 * keeps only the side or the band [p1, p2] that holds it. When a band
 * fails to shrink the active set (ties at its ends), the next round also
 * resolves k against the pivots' own values and keeps only what lies
 * strictly between them, so every two rounds shrink it.
 */
static double select_kth(const struct sorted_rows *m, uint64_t k)
{
	size_t n = m->nrows, i;
	size_t *lo = xmalloc(n * sizeof(*lo)), *hi = xmalloc(n * sizeof(*hi));
	size_t *lt1 = xmalloc(n * sizeof(*lt1)), *le1 = xmalloc(n * sizeof(*le1));
	size_t *lt2 = xmalloc(n * sizeof(*lt2)), *le2 = xmalloc(n * sizeof(*le2));
	uint64_t *cum = xmalloc(n * sizeof(*cum));
	uint64_t below = 0, gather_max = 4 * ((uint64_t)n + m->ncols) + 64, last_active = 0;
	uint64_t seed = 0x2545f4914f6cdd1dULL ^ k;
	double *sample = xmalloc(SELECT_SAMPLE * sizeof(*sample)), result;

	for (i = 0; i < n; i++) {
		lo[i] = row_first(m, i);
		hi[i] = m->ncols;
	}
	for (;;) {
		uint64_t active = 0, c_lt1, c_le1, c_lt2, c_le2;
		double q, band = 2 * sqrt(SELECT_SAMPLE), p1, p2;
		long i1, i2;

		for (i = 0; i < n; i++) {
			active += hi[i] - lo[i];
			cum[i] = active;
		}
		if (active <= gather_max) {
			double *buf = xmalloc((active ? active : 1) * sizeof(*buf));
			size_t pos = 0, j;

			for (i = 0; i < n; i++)
				for (j = lo[i]; j < hi[i]; j++)
					buf[pos++] = cell(m, i, j);
			result = quickselect(buf, pos, k - below - 1);
			free(buf);
			break;
		}
		for (i = 0; i < SELECT_SAMPLE; i++)
			sample[i] = random_active_cell(m, lo, cum, active, &seed);
		qsort(sample, SELECT_SAMPLE, sizeof(sample[0]), cmp_double);
		q = (double)(k - below) / (double)active * SELECT_SAMPLE;
		i1 = (long)floor(q - band);
		i2 = (long)ceil(q + band);
		p1 = sample[i1 < 0 ? 0 : i1];
		p2 = sample[i2 >= SELECT_SAMPLE ? SELECT_SAMPLE - 1 : i2];

		c_lt1 = below + count_below(m, p1, false, lo, hi, lt1);
		c_le2 = below + count_below(m, p2, true, lo, hi, le2);
		if (k <= c_lt1) { /* below p1 */
			memcpy(hi, lt1, n * sizeof(*hi));
		} else if (k > c_le2) { /* above p2 */
			below = c_le2;
			memcpy(lo, le2, n * sizeof(*lo));
		} else if (active != last_active) { /* within [p1, p2] */
			below = c_lt1;
			memcpy(lo, lt1, n * sizeof(*lo));
			memcpy(hi, le2, n * sizeof(*hi));
		} else {
			c_le1 = below + count_below(m, p1, true, lo, hi, le1);
			if (k <= c_le1) {
				result = p1;
				break;
			}
			c_lt2 = below + count_below(m, p2, false, lo, hi, lt2);
			if (k > c_lt2) {
				result = p2;
				break;
			}
			below = c_le1; /* strictly between p1 and p2 */
			memcpy(lo, le1, n * sizeof(*lo));
			memcpy(hi, lt2, n * sizeof(*hi));
		}
		last_active = active;
	}
	free(lo);
	free(hi);
	free(lt1);
	free(le1);
	free(lt2);
	free(le2);
	free(cum);
	free(sample);
	return result;
}

/* All cells of a small matrix, then each k by quickselect. */
static void enumerate_kths(const struct sorted_rows *m, const uint64_t *ks, size_t nk, double *out)
{
	uint64_t total = 0, pos = 0;
	size_t i, j;
	double *buf;

	for (i = 0; i < m->nrows; i++)
		total += m->ncols - row_first(m, i);
	buf = xmalloc((total ? total : 1) * sizeof(*buf));
	for (i = 0; i < m->nrows; i++)
		for (j = row_first(m, i); j < m->ncols; j++)
			buf[pos++] = cell(m, i, j);
	for (i = 0; i < nk; i++)
		out[i] = quickselect(buf, total, ks[i] - 1);
	free(buf);
}

static void kths(const struct sorted_rows *m, uint64_t total, const uint64_t *ks, size_t nk,
		 double *out)
{
	size_t i;

	if (total <= ENUMERATE_MAX) {
		enumerate_kths(m, ks, nk, out);
		return;
	}
	for (i = 0; i < nk; i++)
		out[i] = select_kth(m, ks[i]);
}

void stats_pairwise_difference_kths(const double *a_sorted, size_t na, const double *b_sorted,
				    size_t nb, const uint64_t *ks, size_t nk, double *out)
{
	struct sorted_rows m = { .nrows = na, .ncols = nb, .x = a_sorted, .y = b_sorted };

	kths(&m, (uint64_t)na * nb, ks, nk, out);
}

void stats_walsh_average_kths(const double *d_sorted, size_t n, const uint64_t *ks, size_t nk,
			      double *out)
{
	struct sorted_rows m = { .nrows = n, .ncols = n, .x = d_sorted, .walsh = true };

	kths(&m, (uint64_t)n * (n + 1) / 2, ks, nk, out);
}

double stats_kth_pairwise_difference(const double *a_sorted, size_t na, const double *b_sorted,
				     size_t nb, uint64_t k)
{
	struct sorted_rows m = { .nrows = na, .ncols = nb, .x = a_sorted, .y = b_sorted };

	if (na == 0 || nb == 0 || k < 1 || k > (uint64_t)na * nb)
		return NAN;
	return select_kth(&m, k);
}

double stats_kth_walsh_average(const double *d_sorted, size_t n, uint64_t k)
{
	struct sorted_rows m = { .nrows = n, .ncols = n, .x = d_sorted, .walsh = true };

	if (n == 0 || k < 1 || k > (uint64_t)n * (n + 1) / 2)
		return NAN;
	return select_kth(&m, k);
}
