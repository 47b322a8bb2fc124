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
 * are sorted. Small ones are enumerated and sorted; large ones (a compare
 * over thousands of samples would need billions) are searched by the
 * weighted-median-of-row-medians selection of Johnson and Mizoguchi,
 * which discards at least a quarter of the remaining candidates per round,
 * so it costs O(rows log rows) per round and O(log(na nb)) rounds.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "util/util.h"

/* Enumerate and sort at most this many candidates at once. */
#define ENUMERATE_MAX ((uint64_t)1 << 20)

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

/* First column in [lo, hi) of row i whose value is >= v (strict: > v). */
static size_t row_search(const struct sorted_rows *m, size_t i, size_t lo, size_t hi, double v,
			 bool strict)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		double c = cell(m, i, mid);

		if (strict ? c <= v : c < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct weighted {
	double value;
	uint64_t weight;
};

static int cmp_weighted(const void *pa, const void *pb)
{
	const struct weighted *a = pa, *b = pb;

	return (a->value > b->value) - (a->value < b->value);
}

/*
 * The k-th smallest (1-based) cell of m. Each row keeps an active column
 * range [lo, hi); `below` counts the cells already known to rank below k.
 */
static double select_kth(const struct sorted_rows *m, uint64_t k)
{
	size_t n = m->nrows, i;
	size_t *lo = xmalloc(n * sizeof(*lo)), *hi = xmalloc(n * sizeof(*hi));
	size_t *lt = xmalloc(n * sizeof(*lt)), *le = xmalloc(n * sizeof(*le));
	struct weighted *w = xmalloc(n * sizeof(*w));
	uint64_t below = 0, gather_max = 4 * (uint64_t)n + 64;
	double result = NAN;

	for (i = 0; i < n; i++) {
		lo[i] = row_first(m, i);
		hi[i] = m->ncols;
	}
	for (;;) {
		uint64_t active = 0, half, acc, nlt, nle;
		size_t nw = 0;
		double pivot;

		for (i = 0; i < n; i++)
			active += hi[i] - lo[i];
		if (active <= gather_max) {
			double *buf = xmalloc((active ? active : 1) * sizeof(*buf));
			size_t pos = 0, j;

			for (i = 0; i < n; i++)
				for (j = lo[i]; j < hi[i]; j++)
					buf[pos++] = cell(m, i, j);
			gsl_sort(buf, 1, pos);
			result = buf[k - below - 1];
			free(buf);
			break;
		}
		for (i = 0; i < n; i++) {
			if (hi[i] == lo[i])
				continue;
			w[nw].value = cell(m, i, lo[i] + (hi[i] - lo[i] - 1) / 2);
			w[nw].weight = hi[i] - lo[i];
			nw++;
		}
		qsort(w, nw, sizeof(*w), cmp_weighted);
		half = (active + 1) / 2;
		for (i = 0, acc = 0; i < nw; i++) {
			acc += w[i].weight;
			if (acc >= half)
				break;
		}
		pivot = w[i < nw ? i : nw - 1].value;

		nlt = nle = below;
		for (i = 0; i < n; i++) {
			lt[i] = row_search(m, i, lo[i], hi[i], pivot, false);
			le[i] = row_search(m, i, lt[i], hi[i], pivot, true);
			nlt += lt[i] - lo[i];
			nle += le[i] - lo[i];
		}
		if (k <= nlt) {
			memcpy(hi, lt, n * sizeof(*hi));
		} else if (k <= nle) {
			result = pivot;
			break;
		} else {
			below = nle;
			memcpy(lo, le, n * sizeof(*lo));
		}
	}
	free(lo);
	free(hi);
	free(lt);
	free(le);
	free(w);
	return result;
}

/* All cells of a small matrix, sorted; then each k is an index. */
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
	gsl_sort(buf, 1, total);
	for (i = 0; i < nk; i++)
		out[i] = buf[ks[i] - 1];
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
	struct sorted_rows m = {.nrows = na, .ncols = nb, .x = a_sorted, .y = b_sorted};

	kths(&m, (uint64_t)na * nb, ks, nk, out);
}

void stats_walsh_average_kths(const double *d_sorted, size_t n, const uint64_t *ks, size_t nk,
			      double *out)
{
	struct sorted_rows m = {.nrows = n, .ncols = n, .x = d_sorted, .walsh = true};

	kths(&m, (uint64_t)n * (n + 1) / 2, ks, nk, out);
}

double stats_kth_pairwise_difference(const double *a_sorted, size_t na, const double *b_sorted,
				     size_t nb, uint64_t k)
{
	struct sorted_rows m = {.nrows = na, .ncols = nb, .x = a_sorted, .y = b_sorted};

	if (na == 0 || nb == 0 || k < 1 || k > (uint64_t)na * nb)
		return NAN;
	return select_kth(&m, k);
}

double stats_kth_walsh_average(const double *d_sorted, size_t n, uint64_t k)
{
	struct sorted_rows m = {.nrows = n, .ncols = n, .x = d_sorted, .walsh = true};

	if (n == 0 || k < 1 || k > (uint64_t)n * (n + 1) / 2)
		return NAN;
	return select_kth(&m, k);
}
