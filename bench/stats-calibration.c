/*
 * stats-calibration.c: calibrates `ab`'s statistics (bench/, never run by
 * `make check`; bench/stats-calibration.sh builds and runs it).
 *
 *   stats-calibration sim [EXPERIMENTS]    simulated experiments per cell
 *                                          (default 10000)
 *   stats-calibration aa MARGIN < values   one ops/s value per line, in
 *                                          the order the samples ran
 *   stats-calibration speed N              effects of N vs N samples
 *
 * `sim` drives the shipped engine (stats_sim_run -> stats_seq_*, the very
 * functions `ab` calls) with samples generated in ab's order from each
 * noise model, so serial correlation reaches it as on a real machine (no
 * resampling, which would erase the time order). For each model it prints
 * the A/A rates (wrong decided verdicts, any look's interval missing the
 * truth, "no change"), power and mean pairs for true changes of -2%, -5%
 * and -15% with --until-decided --max-samples 64, the coverage of the
 * fixed-length 95% interval at 10, 20 and 40 pairs, and the family-wise
 * rate of false evidence lines (4 and 18 metrics, Holm) per A/A run.
 *
 * `aa`: the values come from one config, so any decided verdict other
 * than "no change" is false. Consecutive samples are labelled A B B A (as
 * `ab` orders its arms) and fed, in order, to the engine with
 * --until-decided --max-samples 64; the effect at every look is printed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/stats.h"

#define MAX_VALUES 100000

static const struct stats_sim_noise models[] = {
	{ .name = "lognormal 3%", .kind = STATS_SIM_LOGNORMAL, .sigma = 0.03 },
	{ .name = "lognormal 15%", .kind = STATS_SIM_LOGNORMAL, .sigma = 0.15 },
	{ .name = "lognormal 50%", .kind = STATS_SIM_LOGNORMAL, .sigma = 0.50 },
	{ .name = "Student t 3 df, sd 3%", .kind = STATS_SIM_STUDENT_T, .sigma = 0.03, .df = 3 },
	{ .name = "AR(1) rho 0.5, sd 3%", .kind = STATS_SIM_AR1, .sigma = 0.03, .rho = 0.5 },
	{ .name = "AR(1) rho 0.9, sd 3%", .kind = STATS_SIM_AR1, .sigma = 0.03, .rho = 0.9 },
};

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const struct stats_seq_params until_decided = {
	.nfeat = 1, .margin = 0.02, .better = 1, .until_decided = true, .max_units = 64
};

static void sim_cell(const struct stats_sim_noise *nz, double change, size_t R, uint64_t seed)
{
	size_t i, count[VERDICT_IMPROVEMENT + 1] = { 0 }, miss = 0, units = 0, units_right = 0;
	struct stats_sim_result r;

	for (i = 0; i < R; i++) {
		stats_sim_run(&until_decided, nz, &change, seed + i, &r);
		count[r.v[0]]++;
		miss += r.any_miss[0];
		units += r.units;
		if (change < 0 && r.v[0] == VERDICT_REGRESSION)
			units_right += r.units;
	}
	if (change == 0)
		printf("  A/A: wrong %.2f%% (regr %.2f%%, impr %.2f%%), any look misses %.2f%%, "
		       "no change %.2f%%, inconclusive %.2f%%, mean %.1f pairs\n",
		       100.0 * (count[VERDICT_REGRESSION] + count[VERDICT_IMPROVEMENT]) / R,
		       100.0 * count[VERDICT_REGRESSION] / R,
		       100.0 * count[VERDICT_IMPROVEMENT] / R, 100.0 * miss / R,
		       100.0 * count[VERDICT_NO_CHANGE] / R,
		       100.0 * count[VERDICT_INCONCLUSIVE] / R, (double)units / R);
	else
		printf("  %+.0f%%: found %.2f%% (mean %.1f pairs when found), wrong %.2f%%, no "
		       "change "
		       "%.2f%%, any look misses %.2f%%, mean %.1f pairs\n",
		       100 * change, 100.0 * count[VERDICT_REGRESSION] / R,
		       count[VERDICT_REGRESSION] ? (double)units_right / count[VERDICT_REGRESSION]
						 : 0,
		       100.0 * count[VERDICT_IMPROVEMENT] / R, 100.0 * count[VERDICT_NO_CHANGE] / R,
		       100.0 * miss / R, (double)units / R);
	fflush(stdout);
}

static void sim_coverage(const struct stats_sim_noise *nz, size_t R, uint64_t seed)
{
	static const size_t ns[] = { 10, 20, 40 };
	struct stats_seq_params p = until_decided;
	struct stats_sim_result r;
	double zero = 0;
	size_t j, i, miss;

	p.until_decided = false;
	printf("  fixed length, 95%% interval coverage:");
	for (j = 0; j < 3; j++) {
		p.units = ns[j];
		for (i = miss = 0; i < R; i++) {
			stats_sim_run(&p, nz, &zero, seed + i, &r);
			miss += r.any_miss[0];
		}
		printf(" %zu pairs %.2f%%%s", ns[j], 100.0 - 100.0 * miss / R, j < 2 ? "," : "\n");
	}
}

/* Independent metrics of the same noise model, fixed 20 pairs, Holm over them. */
static void sim_evidence(const struct stats_sim_noise *nz, size_t nmetrics, size_t R, uint64_t seed)
{
	struct stats_seq_params p = until_decided;
	struct stats_seq_effect *lines = calloc(nmetrics, sizeof(*lines));
	double *y = malloc(20 * 2 * sizeof(*y)), zero = 0;
	size_t i, j, any = 0, raw = 0;

	p.until_decided = false;
	p.units = 20;
	for (i = 0; i < R; i++) {
		size_t flagged = 0;

		for (j = 0; j < nmetrics; j++) {
			struct stats_sim_result r;

			stats_sim_run(&p, nz, &zero, (seed + i) * 131 + j, &r);
			lines[j].e = r.e[0];
			lines[j].v = r.v[0];
			raw += r.e[0].valid && (r.e[0].lo > 0 || r.e[0].hi < 0);
		}
		stats_seq_evidence_adjust(lines, nmetrics, STATS_SEQ_ALPHA);
		for (j = 0; j < nmetrics; j++)
			flagged += lines[j].p_adjusted <= STATS_SEQ_ALPHA;
		any += flagged > 0;
	}
	printf("  evidence, %zu metrics, 20 pairs: runs with a Holm-significant line %.2f%% "
	       "(lines whose interval excludes 0: %.3f per run)\n",
	       nmetrics, 100.0 * any / R, (double)raw / R);
	free(lines);
	free(y);
}

static int cmd_sim(size_t R)
{
	static const double changes[] = { 0, -0.02, -0.05, -0.15 };
	size_t m, c;
	double t0 = seconds();

	printf("# %zu experiments per cell; ab --until-decided --max-samples 64 --margin 2%%, "
	       "one feature, samples in ab's order\n",
	       R);
	for (m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		printf("%s\n", models[m].name);
		for (c = 0; c < 4; c++)
			sim_cell(&models[m], changes[c], R, 1000003 * (m + 1) + 7919 * c);
		sim_coverage(&models[m], R, 77777 * (m + 1));
		if (models[m].kind == STATS_SIM_AR1 && models[m].rho == 0.5) {
			sim_evidence(&models[m], 4, R / 4, 31337);
			sim_evidence(&models[m], 18, R / 10, 4242);
		}
	}
	printf("# %.0f s\n", seconds() - t0);
	return 0;
}

static void print_effect(const char *what, const struct stats_seq_effect *x)
{
	const struct effect *e = &x->e;

	if (!e->valid) {
		printf("%-34s %s\n", what, e->why);
		return;
	}
	printf("%-34s %+6.2f%% [%+6.2f%%, %+6.2f%%] at %.2f%%, p = %.3g: %s\n", what, 100 * e->est,
	       100 * e->lo, 100 * e->hi, 100 * e->conf, e->p, stats_verdict_name(x->v));
}

static int cmd_aa(double margin)
{
	static double x[MAX_VALUES];
	struct stats_seq_params p = until_decided;
	struct stats_seq s;
	size_t n = 0, i, looks = 0;
	struct summary sum;

	while (n < MAX_VALUES && scanf("%lf", &x[n]) == 1)
		n++;
	if (stats_summarize(x, n, 0.95, &sum, NULL)) {
		fprintf(stderr, "stats-calibration: no usable values on stdin\n");
		return 1;
	}
	printf("%zu samples: median %.0f [%.0f, %.0f], mean %.0f, CV %.2f%%, min %.0f, max %.0f, "
	       "%zu MAD outliers\n",
	       sum.n, sum.median, sum.ci_lo, sum.ci_hi, sum.mean, 100 * sum.cv, sum.min, sum.max,
	       sum.noutliers);
	p.margin = margin;
	stats_seq_init(&s, &p);
	/* A B B A: pair 2k is (A, B), pair 2k+1 is (B, A) */
	for (i = 0; i + 1 < n && stats_seq_wants_unit(&s); i += 2) {
		size_t u = i / 2;
		double y[2] = { u % 2 ? x[i + 1] : x[i], u % 2 ? x[i] : x[i + 1] };

		stats_seq_add_unit(&s, y, 0);
		if (s.looks != looks) {
			char what[64];

			looks = s.looks;
			snprintf(what, sizeof(what), "look %zu (%zu pairs)", looks, s.n);
			print_effect(what, &s.eff[0]);
		}
	}
	stats_seq_end(&s);
	printf("stopped: %s after %zu pairs\n",
	       s.stop == STATS_SEQ_DECIDED ? "decided" : "not decided", s.units);
	stats_seq_release(&s);
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
	if (argc >= 2 && !strcmp(argv[1], "sim"))
		return cmd_sim(argc > 2 ? (size_t)atol(argv[2]) : 10000);
	if (argc == 3 && !strcmp(argv[1], "aa"))
		return cmd_aa(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "speed"))
		return cmd_speed((size_t)atol(argv[2]));
	fprintf(stderr,
		"usage: stats-calibration sim [EXPERIMENTS] | aa MARGIN < values | speed N\n");
	return 2;
}
