/*
 * stats-calibration.c: calibrates wakebench's statistics on real A/A data
 * and times them on large inputs (bench/, never run by `make check`;
 * bench/stats-calibration.sh builds and feeds it).
 *
 *   stats-calibration aa MARGIN < values   one ops/s value per line, in
 *                                          the order the samples ran
 *   stats-calibration speed N              effects of N vs N samples
 *
 * `aa`: the values all come from one config, so any decided verdict other
 * than "no change" is false. Consecutive samples are labelled A B B A
 * (as `ab` orders its arms) and adjacent ones paired. It prints the
 * summary, the verdict of the adaptive rule at each look, the unpaired
 * effect, and a resampling calibration: 2000 experiments drawn from the
 * real pairs (with replacement, the two members swapped at random, since
 * under A/A the labels are arbitrary) run to the adaptive rule's end,
 * giving the wrong-verdict rate and "no change" rate on this machine's
 * real noise, and the power when B is made 5% slower.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "stats/stats.h"

#define MAX_VALUES  100000
#define EXPERIMENTS 2000

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_effect(const char *what, const struct effect *e, double margin)
{
	if (!e->valid) {
		printf("%-34s %s\n", what, e->why);
		return;
	}
	printf("%-34s %+6.2f%% [%+6.2f%%, %+6.2f%%] at %.2f%% (attained %.2f%%), p = %.3g: %s\n",
	       what, 100 * e->est, 100 * e->lo, 100 * e->hi, 100 * e->conf, 100 * e->attained, e->p,
	       stats_verdict_name(stats_verdict(e, margin, 1)));
}

/* Runs the adaptive rule over pairs drawn from the real ones. */
static enum verdict resampled_experiment(gsl_rng *rng, const double *pa, const double *pb,
					 size_t npairs, double ratio, double margin, size_t *used)
{
	double a[64], b[64];
	const size_t *looks;
	size_t nlooks = stats_adaptive_looks(&looks), n = 0, look;
	enum verdict v = VERDICT_INSUFFICIENT;
	struct effect e;

	for (look = 0; look < nlooks && looks[look] <= 64; look++) {
		for (; n < looks[look]; n++) {
			size_t i = gsl_rng_uniform_int(rng, npairs);
			bool swap = gsl_rng_uniform(rng) < 0.5;

			a[n] = swap ? pb[i] : pa[i];
			b[n] = (swap ? pa[i] : pb[i]) * ratio;
		}
		v = stats_adaptive_verdict(a, b, n, look, 0.95, margin, 1, &e);
		if (stats_verdict_decided(v))
			break;
	}
	*used = n;
	return v;
}

static void calibrate(const double *pa, const double *pb, size_t npairs, double ratio,
		      double margin)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t count[VERDICT_IMPROVEMENT + 1] = {0}, i, used, total = 0;

	gsl_rng_set(rng, 2026);
	for (i = 0; i < EXPERIMENTS; i++) {
		count[resampled_experiment(rng, pa, pb, npairs, ratio, margin, &used)]++;
		total += used;
	}
	printf("resampled, B x %.2f, margin %.0f%%: %d experiments: regression %.2f%%, "
	       "improvement %.2f%%, no change %.2f%%, inconclusive %.2f%%, mean %.1f pairs\n",
	       ratio, 100 * margin, EXPERIMENTS, 100.0 * count[VERDICT_REGRESSION] / EXPERIMENTS,
	       100.0 * count[VERDICT_IMPROVEMENT] / EXPERIMENTS,
	       100.0 * count[VERDICT_NO_CHANGE] / EXPERIMENTS,
	       100.0 * count[VERDICT_INCONCLUSIVE] / EXPERIMENTS, (double)total / EXPERIMENTS);
	gsl_rng_free(rng);
}

static int cmd_aa(double margin)
{
	static double x[MAX_VALUES], pa[MAX_VALUES / 2], pb[MAX_VALUES / 2];
	size_t n = 0, npairs, i, look, nlooks;
	const size_t *looks;
	struct summary s;
	struct effect e;

	while (n < MAX_VALUES && scanf("%lf", &x[n]) == 1)
		n++;
	if (stats_summarize(x, n, 0.95, &s, NULL)) {
		fprintf(stderr, "stats-calibration: no usable values on stdin\n");
		return 1;
	}
	printf("%zu samples: median %.0f [%.0f, %.0f], mean %.0f, CV %.2f%%, min %.0f, max %.0f, "
	       "%zu MAD outliers\n",
	       s.n, s.median, s.ci_lo, s.ci_hi, s.mean, 100 * s.cv, s.min, s.max, s.noutliers);

	/* A B B A: pair 2k is (A, B), pair 2k+1 is (B, A) */
	npairs = n / 2;
	for (i = 0; i < npairs; i++) {
		pa[i] = i % 2 ? x[2 * i + 1] : x[2 * i];
		pb[i] = i % 2 ? x[2 * i] : x[2 * i + 1];
	}
	nlooks = stats_adaptive_looks(&looks);
	for (look = 0; look < nlooks && looks[look] <= npairs; look++) {
		char what[64];
		enum verdict v =
		    stats_adaptive_verdict(pa, pb, looks[look], look, 0.95, margin, 1, &e);

		snprintf(what, sizeof(what), "paired, look %zu (%zu pairs)", look + 1, looks[look]);
		print_effect(what, &e, margin);
		if (stats_verdict_decided(v)) {
			printf("%-34s the adaptive rule stops here: %s\n", "",
			       stats_verdict_name(v));
			break;
		}
	}
	stats_effect_paired(pa, pb, npairs, 0.95, &e);
	print_effect("paired, all pairs, fixed n", &e, margin);
	stats_effect_unpaired(pa, npairs, pb, npairs, 0.95, &e);
	print_effect("unpaired A vs B, fixed n", &e, margin);
	if (npairs >= 10) {
		calibrate(pa, pb, npairs, 1.0, margin);
		calibrate(pa, pb, npairs, 1.0, 0);
		calibrate(pa, pb, npairs, 0.95, margin);
	}
	return 0;
}

static int cmd_speed(size_t n)
{
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b)), t0, t1, t2, t3;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct summary s;
	struct effect e;
	size_t i;

	for (i = 0; i < n; i++) {
		a[i] = 2.5e6 * (1 + 0.05 * gsl_rng_uniform(rng));
		b[i] = 2.45e6 * (1 + 0.05 * gsl_rng_uniform(rng));
	}
	t0 = seconds();
	stats_summarize(a, n, 0.95, &s, NULL);
	t1 = seconds();
	stats_effect_unpaired(a, n, b, n, 0.95, &e);
	t2 = seconds();
	stats_effect_paired(a, b, n, 0.95, &e);
	t3 = seconds();
	printf("n = %zu per side: summary %.3f s, unpaired effect %.3f s (%.3g differences), "
	       "paired effect %.3f s (%.3g Walsh averages)\n",
	       n, t1 - t0, t2 - t1, (double)n * n, t3 - t2, (double)n * (n + 1) / 2);
	free(a);
	free(b);
	gsl_rng_free(rng);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "aa"))
		return cmd_aa(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "speed"))
		return cmd_speed((size_t)atol(argv[2]));
	fprintf(stderr, "usage: stats-calibration aa MARGIN < values | speed N\n");
	return 2;
}
