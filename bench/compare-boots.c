/*
 * compare-boots.c: calibrates `compare`'s experiment-level inference
 * (stats_effect_boots() and stats_boot_verdict(), the functions
 * src/engine/compare.c calls) on simulated stores (bench/, never run by
 * `make check`; bench/compare-boots.sh builds and runs it).
 *
 *   compare-boots [-e EXPERIMENTS] [-s SEED] [-m MARGIN]
 *
 * One experiment is one `compare` of two groups with k boots each and n
 * samples per boot. Each boot has its own offset, lognormal with sd 0%, 1%
 * or 2% (the boot-to-boot spread); within a boot the log values follow an
 * AR(1) process with lag-1 correlation 0.5 and a marginal sd of 3%, in time
 * order. Group B is multiplied by 1 + change. For each cell it prints, on
 * A/A data (change 0): the rate of wrong decided verdicts (regression or
 * improvement), of "no change", and the coverage of the interval; then the
 * power (regression found) for true changes of -2%, -5% and -15%. For
 * comparison, on the same A/A data: the old sample-level inference (every
 * sample of a group pooled, Hodges-Lehmann with the Mann-Whitney CI) and
 * the coverage of Welch's interval on the same boot medians.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/stats.h"

#define MAX_BOOTS   8
#define MAX_PER	    20
#define MAX_SAMPLES (MAX_BOOTS * MAX_PER)
#define WITHIN_SD   0.03
#define RHO	    0.5

struct cell {
	size_t runs, wrong, nochange, covered, regression;
	size_t old_wrong, old_covered, welch_covered;
};

/* One group: k boots of n samples, values around 1e6 x ratio. */
static void group(gsl_rng *rng, size_t k, size_t n, double boot_sd, double ratio, size_t first_id,
		  double *x, size_t *id)
{
	size_t i, j, o = 0;

	for (i = 0; i < k; i++) {
		double off = boot_sd > 0 ? gsl_ran_gaussian(rng, boot_sd) : 0;
		double e = gsl_ran_gaussian(rng, WITHIN_SD); /* stationary start */

		for (j = 0; j < n; j++) {
			if (j)
				e = RHO * e +
				    sqrt(1 - RHO * RHO) * gsl_ran_gaussian(rng, WITHIN_SD);
			x[o] = 1e6 * ratio * exp(off + e);
			id[o++] = first_id + i;
		}
	}
}

static bool covers(const struct effect *e, double truth)
{
	return e->valid && e->lo <= truth && truth <= e->hi;
}

/* Welch's interval on the boot medians (for comparison, not shipped). */
static bool welch_covers(const double *a, const size_t *ia, const double *b, const size_t *ib,
			 size_t n, double truth)
{
	double ma[MAX_SAMPLES], mb[MAX_SAMPLES], m1 = 0, m2 = 0, v1 = 0, v2 = 0, se, df, q, d;
	ssize_t k1 = stats_boot_log_medians(a, ia, n, ma, NULL);
	ssize_t k2 = stats_boot_log_medians(b, ib, n, mb, NULL);
	ssize_t i;

	if (k1 < 2 || k2 < 2)
		return false;
	for (i = 0; i < k1; i++)
		m1 += ma[i] / (double)k1;
	for (i = 0; i < k2; i++)
		m2 += mb[i] / (double)k2;
	for (i = 0; i < k1; i++)
		v1 += (ma[i] - m1) * (ma[i] - m1) / (double)(k1 - 1);
	for (i = 0; i < k2; i++)
		v2 += (mb[i] - m2) * (mb[i] - m2) / (double)(k2 - 1);
	v1 /= (double)k1;
	v2 /= (double)k2;
	se = sqrt(v1 + v2);
	df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (double)(k1 - 1) + v2 * v2 / (double)(k2 - 1));
	q = gsl_cdf_tdist_Pinv(0.975, df);
	d = m2 - m1;
	return fabs(d - log1p(truth)) <= q * se;
}

static void run_cell(gsl_rng *rng, size_t k, size_t n, double boot_sd, double change, double margin,
		     size_t runs, bool aa, struct cell *c)
{
	double a[MAX_SAMPLES], b[MAX_SAMPLES];
	size_t ia[MAX_SAMPLES], ib[MAX_SAMPLES], r, total = k * n;

	memset(c, 0, sizeof(*c));
	for (r = 0; r < runs; r++) {
		struct boot_effect be;
		enum verdict v;

		group(rng, k, n, boot_sd, 1, 0, a, ia);
		group(rng, k, n, boot_sd, 1 + change, MAX_BOOTS, b, ib);
		stats_effect_boots(a, ia, total, b, ib, total, 0.95, &be);
		v = stats_boot_verdict(&be, margin, 1);
		c->runs++;
		c->covered += covers(&be.e, change);
		c->regression += v == VERDICT_REGRESSION;
		if (aa) {
			struct effect old;
			enum verdict ov;

			c->wrong += v == VERDICT_REGRESSION || v == VERDICT_IMPROVEMENT;
			c->nochange += v == VERDICT_NO_CHANGE;
			stats_effect_unpaired(a, total, b, total, 0.95, &old);
			ov = stats_verdict(&old, margin, 1);
			c->old_wrong += ov == VERDICT_REGRESSION || ov == VERDICT_IMPROVEMENT;
			c->old_covered += covers(&old, 0);
			c->welch_covered += welch_covers(a, ia, b, ib, total, 0);
		} else {
			c->wrong += v == VERDICT_IMPROVEMENT ||
				    (v == VERDICT_NO_CHANGE && fabs(change) > margin);
		}
	}
}

static double pct(size_t k, size_t n)
{
	return n ? 100.0 * (double)k / (double)n : NAN;
}

int main(int argc, char **argv)
{
	static const double boot_sds[] = { 0, 0.01, 0.02 };
	static const size_t pers[] = { 8, 20 }, boots[] = { 1, 2, 4, 8 };
	static const double changes[] = { -0.02, -0.05, -0.15 };
	size_t runs = 10000, s, p, b, ch;
	unsigned long seed = 20261201;
	double margin = 0.02;
	gsl_rng *rng;
	int opt;

	while ((opt = getopt(argc, argv, "e:s:m:")) != -1) {
		switch (opt) {
		case 'e':
			runs = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 10);
			break;
		case 'm':
			margin = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr,
				"usage: compare-boots [-e EXPERIMENTS] [-s SEED] [-m MARGIN]\n");
			return 2;
		}
	}
	if (!runs) {
		fprintf(stderr, "compare-boots: -e must be at least 1\n");
		return 2;
	}
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	printf("# %zu experiments per cell, seed %lu, margin %g%%, within-boot noise lognormal "
	       "%g%% with AR(1) %g\n",
	       runs, seed, 100 * margin, 100 * WITHIN_SD, RHO);
	printf("# A/A: wrong = decided regression or improvement; cover = the interval holds 0 "
	       "(one boot: the within-boot interval, never decided)\n");
	printf("# power = regression found for a true change; old = every sample pooled "
	       "(Hodges-Lehmann, Mann-Whitney); welch = Welch's t on the same boot medians\n");
	printf("%-7s %4s %5s | %6s %7s %6s | %7s %7s %7s | %9s %9s | %7s\n", "boot-sd", "n",
	       "boots", "wrong", "nochg", "cover", "pow-2%", "pow-5%", "pow-15%", "old-wrong",
	       "old-cover", "welch");
	for (s = 0; s < sizeof(boot_sds) / sizeof(*boot_sds); s++)
		for (p = 0; p < sizeof(pers) / sizeof(*pers); p++)
			for (b = 0; b < sizeof(boots) / sizeof(*boots); b++) {
				struct cell aa, pw[3];
				char welch[16];

				run_cell(rng, boots[b], pers[p], boot_sds[s], 0, margin, runs, true,
					 &aa);
				for (ch = 0; ch < 3; ch++)
					run_cell(rng, boots[b], pers[p], boot_sds[s], changes[ch],
						 margin, runs, false, &pw[ch]);
				if (boots[b] > 1)
					snprintf(welch, sizeof(welch), "%6.2f%%",
						 pct(aa.welch_covered, aa.runs));
				else
					snprintf(welch, sizeof(welch), "%7s", "-");
				printf("%6.0f%% %4zu %5zu | %5.2f%% %6.2f%% %5.2f%% | %6.2f%% "
				       "%6.2f%% "
				       "%6.2f%% | %8.2f%% %8.2f%% | %s\n",
				       100 * boot_sds[s], pers[p], boots[b], pct(aa.wrong, aa.runs),
				       pct(aa.nochange, aa.runs), pct(aa.covered, aa.runs),
				       pct(pw[0].regression, runs), pct(pw[1].regression, runs),
				       pct(pw[2].regression, runs), pct(aa.old_wrong, aa.runs),
				       pct(aa.old_covered, aa.runs), welch);
				fflush(stdout);
			}
	gsl_rng_free(rng);
	return 0;
}
