/*
 * stats-pocock.c: generates the per-look levels of `ab --until-decided`
 * (the table `pocock_levels` in src/stats/sequential.c). bench/, never run
 * by `make check`; bench/stats-calibration.sh builds it, and
 *
 *   stats-pocock [SEQUENCES]      (default 200000)
 *
 * prints the table.
 *
 * The rule looks at the fixed schedule of the engine (10, 16, 24, ... 1000
 * units) and, at every look, tests with the exact Wilcoxon signed-rank
 * distribution at one constant nominal level (Pocock's design). The level
 * is the largest one for which the chance that any of the first K looks
 * rejects a true null is at most alpha. Under the null (differences
 * independent, continuous, symmetric about the true effect) the joint law
 * of the signed-rank statistics at all looks depends only on the order of
 * the absolute differences (a uniformly random permutation) and on their
 * signs (fair coins): it is distribution-free, so simulating permutations
 * and coins calibrates the rule for every such distribution at once. A CI
 * misses the true effect exactly when the test of that effect rejects, so
 * the same level bounds the chance that any look's interval misses.
 *
 * V (the sum of the ranks of the positive differences) is updated as each
 * unit arrives with two Fenwick trees over the global ranks: adding |d_n|
 * raises by one the rank of every earlier positive difference above it,
 * and, if d_n > 0, adds its own rank among the first n.
 *
 * Four columns per K: two-sided at alpha 0.05 (one feature) and 0.05/3
 * (two features: two main effects and the interaction), and one-sided at
 * the same alphas (the equivalence test, TOST at the full alpha). The
 * quantile is taken 1.5 Monte Carlo standard errors inside alpha, so the
 * table errs on the safe side of the simulation's own noise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t next_random(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL); /* splitmix64 */

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fenwick_add(uint32_t *t, size_t n, size_t i)
{
	for (i++; i <= n; i += i & -i)
		t[i]++;
}

/* How many inserted below rank i (0-based, exclusive). */
static uint64_t fenwick_below(const uint32_t *t, size_t i)
{
	uint64_t s = 0;

	for (; i > 0; i -= i & -i)
		s += t[i];
	return s;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* The largest level a with #(p <= a) <= target, p sorted. */
static double level_for(double *p, size_t n, double target)
{
	size_t i;

	qsort(p, n, sizeof(*p), cmp_double);
	i = (size_t)floor(target);
	if (i >= n)
		return 1;
	/* everything strictly below p[i] is allowed; p[i] itself is not (ties) */
	while (i > 0 && p[i - 1] == p[i])
		i--;
	if (i == 0)
		return 0;
	return p[i - 1];
}

int main(int argc, char **argv)
{
	static const double alphas[2] = { 0.05, 0.05 / 3 };
	const size_t *looks;
	size_t nlooks = stats_seq_schedule(&looks), R = argc > 1 ? (size_t)atol(argv[1]) : 200000;
	size_t N = looks[nlooks - 1], r, k, i, c;
	double **cdf = malloc(nlooks * sizeof(*cdf));
	double *min2 = malloc(nlooks * R * sizeof(*min2)),
	       *min1 = malloc(nlooks * R * sizeof(*min1));
	double *buf = malloc(R * sizeof(*buf)), table[STATS_SEQ_MAX_LOOKS][4];
	uint32_t *perm = malloc(N * sizeof(*perm)), *all = malloc((N + 1) * sizeof(*all));
	uint32_t *pos = malloc((N + 1) * sizeof(*pos));
	unsigned char *sign = malloc(N);

	for (k = 0; k < nlooks; k++) {
		cdf[k] = malloc((looks[k] * (looks[k] + 1) / 2 + 1) * sizeof(double));
		stats_signed_rank_null_cdf(looks[k], cdf[k]);
	}
	for (r = 0; r < R; r++) {
		uint64_t v = 0, npos = 0;
		double m2 = 1, m1 = 1;

		for (i = 0; i < N; i++)
			perm[i] = (uint32_t)i;
		for (i = N - 1; i > 0; i--) {
			size_t j = next_random() % (i + 1);
			uint32_t t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (i = 0; i < N; i += 64) {
			uint64_t bits = next_random();

			for (c = 0; c < 64 && i + c < N; c++)
				sign[i + c] = (bits >> c) & 1;
		}
		memset(all, 0, (N + 1) * sizeof(*all));
		memset(pos, 0, (N + 1) * sizeof(*pos));
		for (i = 0, k = 0; i < N && k < nlooks; i++) {
			uint64_t below = fenwick_below(all, perm[i]);

			/* earlier positives above |d_i| move up one rank */
			v += npos - fenwick_below(pos, perm[i]);
			if (sign[i]) {
				v += below + 1;
				npos++;
				fenwick_add(pos, N, perm[i]);
			}
			fenwick_add(all, N, perm[i]);
			if (i + 1 == looks[k]) {
				uint64_t M = (uint64_t)looks[k] * (looks[k] + 1) / 2;
				double lo = cdf[k][v], hi = cdf[k][M - v];
				double p2 = fmin(1, 2 * fmin(lo, hi));

				m2 = fmin(m2, p2);
				m1 = fmin(m1, lo);
				min2[k * R + r] = m2;
				min1[k * R + r] = m1;
				k++;
			}
		}
	}
	for (k = 0; k < nlooks; k++) {
		for (c = 0; c < 4; c++) {
			double a = alphas[c % 2];
			double target = a * R - 1.5 * sqrt(a * (1 - a) * R);

			memcpy(buf, (c < 2 ? min2 : min1) + k * R, R * sizeof(*buf));
			table[k][c] = level_for(buf, R, target);
		}
	}
	printf("/* generated by bench/stats-pocock.c with %zu sequences */\n", R);
	printf("static const double pocock_levels[STATS_SEQ_MAX_LOOKS][4] = {\n");
	for (k = 0; k < nlooks; k++)
		printf("\t{%.9g, %.9g, %.9g, %.9g}, /* K = %zu (last look %zu) */\n", table[k][0],
		       table[k][1], table[k][2], table[k][3], k + 1, looks[k]);
	printf("};\n");
	return 0;
}
