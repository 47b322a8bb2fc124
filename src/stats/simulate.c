/*
 * simulate.c: simulated `ab` experiments driven through the shipped
 * sequential engine, for the unit tests and bench/stats-calibration.c.
 * Samples are produced in the order `ab` runs them (pairs A B | B A ...,
 * Gray-code blocks 00 10 11 01 | 01 11 10 00 for two features) from a
 * noise model in sample order, and handed to stats_seq_add_unit() one
 * unit at a time, exactly as engine/abrun.c does; so serial correlation reaches
 * the engine as it would on a real machine. Deterministic for a seed.
 */
#include "stats/stats.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* The next log-scale noise value of the series. */
static double next_noise(const struct stats_sim_noise *nz, gsl_rng *rng, double *state, bool first)
{
	double e;

	switch (nz->kind) {
	case STATS_SIM_STUDENT_T: /* scaled so that the sd is sigma */
		return nz->sigma * gsl_ran_tdist(rng, nz->df) / sqrt(nz->df / (nz->df - 2));
	case STATS_SIM_AR1:
		e = gsl_ran_gaussian(rng, nz->sigma);
		/* stationary from the first sample: x_t = rho x_{t-1} + sqrt(1 - rho^2) e_t */
		*state = first ? e : nz->rho * *state + sqrt(1 - nz->rho * nz->rho) * e;
		return *state;
	case STATS_SIM_LOGNORMAL:
	default:
		return gsl_ran_gaussian(rng, nz->sigma);
	}
}

/* The arm order of unit u, as engine/abrun.c's unit_order() with --order abba. */
static void unit_order(unsigned nfeat, size_t u, int *seq)
{
	static const int gray[4] = { 0, 1, 3, 2 };
	unsigned i, n = 1u << nfeat;

	for (i = 0; i < n; i++) {
		int s = nfeat == 1 ? (int)i : gray[i];

		seq[u % 2 ? n - 1 - i : i] = s;
	}
}

/* The true effect (log scale) of effect k. */
static double true_log_effect(unsigned nfeat, const double *effect, unsigned k)
{
	if (k < nfeat)
		return log1p(effect[k]);
	return 0; /* the simulated effects multiply: no interaction */
}

void stats_sim_run(const struct stats_seq_params *p, const struct stats_sim_noise *nz,
		   const double *effect, uint64_t seed, struct stats_sim_result *r)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_seq s;
	double state = 0, y[STATS_SEQ_MAX_ARMS];
	size_t looks = 0, t = 0;
	int seq[STATS_SEQ_MAX_ARMS];
	unsigned k, i, narms = 1u << p->nfeat;

	memset(r, 0, sizeof(*r));
	gsl_rng_set(rng, (unsigned long)seed);
	stats_seq_init(&s, p);
	while (stats_seq_wants_unit(&s)) {
		unit_order(p->nfeat, s.units, seq);
		for (i = 0; i < narms; i++) {
			int m = seq[i];
			double level = 0;

			for (k = 0; k < p->nfeat; k++)
				if (m & (1 << k))
					level += log1p(effect[k]);
			y[m] = 1e6 * exp(level + next_noise(nz, rng, &state, t == 0));
			t++;
		}
		/* a pretend clock: one second per unit */
		stats_seq_add_unit(&s, y, (uint64_t)(s.units + 1) * 1000000000ull);
		if (s.looks != looks) {
			looks = s.looks;
			for (k = 0; k < s.neff; k++) {
				const struct effect *e = &s.eff[k].e;
				double truth = true_log_effect(p->nfeat, effect, k);

				if (e->valid && (log1p(e->lo) > truth || log1p(e->hi) < truth))
					r->any_miss[k] = true;
			}
		}
	}
	stats_seq_end(&s);
	for (k = 0; k < s.neff; k++) {
		r->v[k] = s.eff[k].v;
		r->e[k] = s.eff[k].e;
	}
	r->units = s.units;
	r->looks = s.looks;
	r->stop = s.stop;
	stats_seq_release(&s);
	gsl_rng_free(rng);
}
