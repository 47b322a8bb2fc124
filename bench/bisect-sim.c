/*
 * bisect-sim.c: whole bisections with the shipped decision rule
 * (src/stats/bisect.c, the functions `wakebench bisect run` calls), on
 * simulated boots with this machine's noise, to measure how often a
 * bisection ends at the wrong candidate.
 *
 * Model. N candidates in order; the first bad one is drawn uniformly from
 * 1 .. N-1 (0 is the good reference, N-1 the bad one); candidates before it
 * sit at level 0, the rest at log(1 + change). Every boot draws an offset
 * (normal, sd `boot_sd` on the log scale: 8.5% between boots on the
 * development machine), optionally AR(1) across boots in time order, and
 * then `samples` samples of log values with AR(1) noise in sample order
 * (lag-1 autocorrelation 0.37 as measured, marginal sd `within_sd`); the
 * boot's level is the median of its samples' logs, as `bisect` computes
 * it from the store.
 *
 * Procedure, as the command runs it: the references in pairs of boots
 * until their separation is established (bisect_refs_seq_*), the search
 * with a sequential step per candidate (bisect_step_*, skip when
 * undecided), then the confirmation: the first bad and its predecessor
 * measured again, which must come out bad and good.
 *
 * Outcomes: "wrong" (a confirmed result that is not the true first bad),
 * "no result" (references not apart, every candidate of the last range
 * skipped, or the confirmation disagreed), "right". Also the boots used.
 *
 *   bench/bisect-sim.sh [-t TRIALS] [-s SEED] [-a ALPHA] [-B MAX_BOOTS] [-R MAX_REF_BOOTS]
 *                       [-b BOOT_SD] [-w WITHIN_SD] [-n SAMPLES] [-r RHO] [-d BOOT_RHO]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/bisect.h"

static uint64_t rng_state = 0x853c49e6748fea9bull;

static double uniform01(void)
{
	/* xorshift64*: fast and good enough for a simulation */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal01(void)
{
	double u1 = uniform01(), u2 = uniform01();

	if (u1 <= 0)
		u1 = 1e-300;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

struct model {
	double boot_sd, within_sd, rho, boot_rho;
	size_t samples;
	double prev_offset; /* AR(1) of the boot offsets in time order */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One boot of a kernel at `level`: the median of its samples' logs. */
static double boot(struct model *m, double level, size_t *nboots)
{
	double x[64], e, offset;
	size_t i, n = m->samples < 64 ? m->samples : 64;

	(*nboots)++;
	offset = m->boot_rho * m->prev_offset +
		 sqrt(1 - m->boot_rho * m->boot_rho) * m->boot_sd * normal01();
	m->prev_offset = offset;
	e = m->within_sd * normal01();
	for (i = 0; i < n; i++) {
		if (i)
			e = m->rho * e + sqrt(1 - m->rho * m->rho) * m->within_sd * normal01();
		x[i] = level + offset + e;
	}
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

enum outcome { RIGHT = 0, WRONG, NO_RESULT };

struct params {
	double alpha;
	size_t max_boots, max_ref_boots;
};

static enum bisect_verdict step(struct model *m, const struct bisect_refs *r,
				const struct params *p, double level, size_t *nboots)
{
	struct bisect_step s;

	bisect_step_init(&s, r, p->alpha, p->max_boots);
	while (bisect_step_wants_boot(&s))
		bisect_step_add_boot(&s, boot(m, level, nboots));
	return s.d.v;
}

static enum outcome bisection(struct model *m, const struct params *p, size_t n, double change,
			      size_t *nboots)
{
	size_t first = 1 + (size_t)(uniform01() * (double)(n - 1)), fb;
	double bad_level = log1p(change);
	struct bisect_refs_seq rs;
	struct bisect_refs r;
	struct bisect_search srch;
	enum outcome o;
	ssize_t i;

	if (first > n - 1)
		first = n - 1;
	m->prev_offset = 0;
	bisect_refs_seq_init(&rs, p->alpha, p->max_ref_boots);
	while (bisect_refs_seq_wants_pair(&rs)) {
		double g = boot(m, 0, nboots);

		bisect_refs_seq_add_pair(&rs, g, boot(m, bad_level, nboots));
	}
	if (rs.d.v != BISECT_BAD)
		return NO_RESULT;
	bisect_refs_seq_refs(&rs, &r);
	bisect_search_init(&srch, n);
	while ((i = bisect_search_next(&srch)) >= 0)
		bisect_search_record(&srch, (size_t)i,
				     step(m, &r, p, (size_t)i >= first ? bad_level : 0, nboots));
	if (!bisect_search_found(&srch)) {
		bisect_search_release(&srch);
		return NO_RESULT;
	}
	fb = srch.first_bad;
	bisect_search_release(&srch);
	if (step(m, &r, p, fb >= first ? bad_level : 0, nboots) != BISECT_BAD ||
	    step(m, &r, p, fb - 1 >= first ? bad_level : 0, nboots) != BISECT_GOOD)
		return NO_RESULT;
	o = fb == first ? RIGHT : WRONG;
	return o;
}

int main(int argc, char **argv)
{
	struct model m = { .boot_sd = 0.085, .within_sd = 0.05, .rho = 0.37, .samples = 5 };
	struct params p = { .alpha = BISECT_ALPHA_DEFAULT,
			    .max_boots = BISECT_MAX_BOOTS_DEFAULT,
			    .max_ref_boots = BISECT_MAX_REF_BOOTS_DEFAULT };
	static const size_t ns[] = { 10, 100, 1000 };
	static const double changes[] = { 0.02, 0.05, 0.15, 0.30 };
	unsigned long trials = 2000, seed = 1;
	size_t a, b;
	int c;

	while ((c = getopt(argc, argv, "t:s:a:B:R:b:w:n:r:d:")) != -1) {
		switch (c) {
		case 't':
			trials = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 10);
			break;
		case 'a':
			p.alpha = atof(optarg);
			break;
		case 'B':
			p.max_boots = strtoul(optarg, NULL, 10);
			break;
		case 'R':
			p.max_ref_boots = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			m.boot_sd = atof(optarg);
			break;
		case 'w':
			m.within_sd = atof(optarg);
			break;
		case 'n':
			m.samples = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			m.rho = atof(optarg);
			break;
		case 'd':
			m.boot_rho = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: bisect-sim [-t TRIALS] [-s SEED] [-a ALPHA] "
					"[-B MAX_BOOTS] [-R MAX_REF_BOOTS] [-b BOOT_SD] "
					"[-w WITHIN_SD] [-n SAMPLES] [-r RHO] [-d BOOT_RHO]\n");
			return 2;
		}
	}
	if (!trials || m.samples < 1 || m.rho < 0 || m.rho >= 1 || m.boot_rho < 0 ||
	    m.boot_rho >= 1 || !(p.alpha > 0 && p.alpha < 1)) {
		fprintf(stderr, "bisect-sim: a value out of range\n");
		return 2;
	}
	rng_state ^= seed * 0x9e3779b97f4a7c15ull;
	printf("# %lu bisections per cell; alpha %g per step, at most %zu boots per step and "
	       "%zu per reference;\n# boots: offset sd %.1f%% (AR(1) %.2f across boots), %zu "
	       "samples each, within sd %.1f%%, AR(1) %.2f\n",
	       trials, p.alpha, p.max_boots, p.max_ref_boots, 100 * m.boot_sd, m.boot_rho,
	       m.samples, 100 * m.within_sd, m.rho);
	printf("# %-10s %7s %9s %9s %9s %11s %10s\n", "candidates", "change", "wrong", "wrong-se",
	       "no-result", "right", "boots/run");
	for (b = 0; b < sizeof(changes) / sizeof(changes[0]); b++)
		for (a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
			unsigned long k, cnt[3] = { 0, 0, 0 };
			size_t nboots = 0;
			double w;

			for (k = 0; k < trials; k++)
				cnt[bisection(&m, &p, ns[a], changes[b], &nboots)]++;
			w = (double)cnt[WRONG] / (double)trials;
			printf("  %-10zu %6.0f%% %8.2f%% %8.2f%% %8.2f%% %10.2f%% %10.1f\n", ns[a],
			       100 * changes[b], 100 * w, 100 * sqrt(w * (1 - w) / (double)trials),
			       100.0 * (double)cnt[NO_RESULT] / (double)trials,
			       100.0 * (double)cnt[RIGHT] / (double)trials,
			       (double)nboots / (double)trials);
		}
	return 0;
}
