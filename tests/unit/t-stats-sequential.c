/*
 * t-stats-sequential.c: the sequential engine of `ab` (stats/sequential.c),
 * driven the way cmd-ab.c drives it. Simulated experiments come from
 * stats_sim_run(), which feeds samples in ab's order, so serial
 * correlation reaches the engine as on a real machine.
 *
 * Asserted (fixed seeds, bounds with a margin over the simulation's own
 * noise; bench/stats-calibration.c prints the same figures with 10,000
 * experiments per cell): the plan and levels; the budget, the time limit
 * and incomplete units; coverage of the fixed-length interval under AR(1)
 * noise with rho 0.5, and that the same simulation catches the plain
 * signed-rank interval; the chance that any look's interval misses the
 * truth on A/A runs; "no change" and power targets; the two-feature
 * family; Holm against R's p.adjust; the serial allowance against its
 * closed form.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stats/stats.h"

#define assert_close(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

static const struct stats_sim_noise ln3 = { .name = "lognormal 3%",
					    .kind = STATS_SIM_LOGNORMAL,
					    .sigma = 0.03 };
static const struct stats_sim_noise ar5 = {
	.name = "AR(1) 0.5", .kind = STATS_SIM_AR1, .sigma = 0.03, .rho = 0.5
};

static const struct stats_seq_params until64 = {
	.nfeat = 1, .margin = 0.02, .better = 1, .until_decided = true, .max_units = 64
};

/* Holm against R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02 */
static void test_holm(void **state)
{
	double p[5] = { 0.01, 0.04, 0.03, 0.005, NAN }, adj[5];

	(void)state;
	stats_holm_adjust(p, 5, adj);
	assert_close(adj[0], 0.03, 1e-15);
	assert_close(adj[1], 0.06, 1e-15);
	assert_close(adj[2], 0.06, 1e-15);
	assert_close(adj[3], 0.02, 1e-15);
	assert_true(isnan(adj[4]));
	/* capped at 1, in place */
	p[0] = 0.6;
	p[1] = 0.7;
	stats_holm_adjust(p, 2, p);
	assert_close(p[0], 1, 0);
	assert_close(p[1], 1, 0);
}

/* ABBA pairs: 1 + rho (1 - rho) / (1 + rho^2), at most (1 + sqrt 2) / 2 at rho = sqrt 2 - 1. */
static void test_serial_allowance(void **state)
{
	static const double pair_w[4] = { -1, 1, 1, -1 }, iid_w[2] = { -1, 1 };

	(void)state;
	assert_close(stats_ar1_worst_vif(pair_w, 4, 2), (1 + sqrt(2)) / 2, 1e-5);
	assert_close(stats_seq_vif(1), (1 + sqrt(2)) / 2, 1e-5);
	/* two features: the A A B B contrast of the second token is the worst */
	assert_true(stats_seq_vif(2) > 1.33 && stats_seq_vif(2) < 1.34);
	/* A B A B with no mirror: pair differences still correlate negatively, never above 1 */
	assert_close(stats_ar1_worst_vif(iid_w, 2, 2), 1, 1e-12);
}

static void test_plan_and_levels(void **state)
{
	struct stats_seq s;
	struct stats_seq_params p = until64;
	double a2, a1;

	(void)state;
	stats_seq_init(&s, &p);
	assert_int_equal(s.nplan, 6);
	assert_int_equal(s.plan[0], 10);
	assert_int_equal(s.plan[5], 64);
	/* calibrated levels spend more than Bonferroni's 0.05 / 6, and stay below 0.05 */
	assert_true(s.alpha_two > 0.05 / 6 && s.alpha_two < 0.05);
	assert_true(s.alpha_one > 0.05 / 6 && s.alpha_one < 0.05);
	stats_seq_release(&s);
	p.max_units = 30; /* the budget is the last look */
	stats_seq_init(&s, &p);
	assert_int_equal(s.nplan, 4);
	assert_int_equal(s.plan[3], 30);
	stats_seq_release(&s);
	p.until_decided = false; /* fixed length: one look at exactly alpha */
	p.units = 10;
	stats_seq_init(&s, &p);
	assert_int_equal(s.nplan, 1);
	assert_close(s.alpha_two, 0.05, 0);
	assert_close(s.alpha_one, 0.05, 0);
	stats_seq_release(&s);
	stats_seq_levels(2, 1, &a2, &a1);
	assert_close(a2, 0.05 / 3, 1e-15);
	/* more looks, lower levels */
	stats_seq_levels(1, 6, &a2, &a1);
	{
		double b2, b1;

		stats_seq_levels(1, 14, &b2, &b1);
		assert_true(b2 < a2 && b1 < a1);
	}
}

/* The budget counts every unit, complete or not; the clock stops it too. */
static void test_budget_and_time(void **state)
{
	struct stats_seq_params p = until64;
	double y[2] = { 1e6, 1e6 * 1.001 }, bad[2] = { 1e6, NAN };
	struct stats_seq s;
	size_t i;

	(void)state;
	p.max_units = 12;
	stats_seq_init(&s, &p);
	for (i = 0; stats_seq_wants_unit(&s); i++) {
		double wide[2] = { 1e6, 1e6 * (i % 2 ? 1.1 : 0.9) }; /* +-10%: undecidable */

		stats_seq_add_unit(&s, i % 3 ? wide : bad, 0);
	}
	assert_int_equal(s.units, 12);
	assert_int_equal(s.n, 8); /* every third unit was incomplete */
	assert_int_equal(s.stop, STATS_SEQ_BUDGET);
	assert_int_equal(s.looks, 1); /* 8 complete units never reached the look at 10 */
	stats_seq_release(&s);

	p.max_units = 64;
	p.max_time_ns = 2500000000ull; /* 2 units fit at 1 s each: the plan shrinks */
	stats_seq_init(&s, &p);
	stats_seq_add_unit(&s, y, 1000000000ull);
	assert_true(stats_seq_wants_unit(&s));
	assert_int_equal(s.p.max_units, 2);
	stats_seq_add_unit(&s, y, 2000000000ull);
	assert_int_equal(s.stop, STATS_SEQ_TIME);
	assert_int_equal(s.looks, 1);
	assert_false(s.eff[0].e.valid); /* 2 pairs: no interval at the level */
	stats_seq_release(&s);
	p.max_time_ns = 2500000000ull; /* a slower unit than planned: the clock stops it */
	stats_seq_init(&s, &p);
	stats_seq_add_unit(&s, y, 500000000ull);
	stats_seq_add_unit(&s, y, 2600000000ull);
	assert_int_equal(s.stop, STATS_SEQ_TIME);
	stats_seq_release(&s);

	/* the time budget plans the looks: 20 s at 1 s for the first unit is 20 units */
	p.max_time_ns = 20000000000ull;
	stats_seq_init(&s, &p);
	assert_int_equal(s.nplan, 6);
	stats_seq_add_unit(&s, y, 1000000000ull);
	assert_int_equal(s.p.max_units, 20);
	assert_int_equal(s.nplan, 3); /* 10, 16, 20 */
	assert_int_equal(s.plan[2], 20);
	stats_seq_release(&s);

	p.max_time_ns = 0; /* stopped by the caller: one last analysis */
	stats_seq_init(&s, &p);
	for (i = 0; i < 7; i++)
		stats_seq_add_unit(&s, y, 0);
	stats_seq_end(&s);
	assert_int_equal(s.stop, STATS_SEQ_ENDED);
	assert_int_equal(s.looks, 1);
	assert_int_equal(s.eff[0].e.n_a, 7);
	stats_seq_release(&s);
}

/* Runs with any look's interval missing the truth, and the verdict counts. */
struct tally {
	size_t miss, units, v[VERDICT_IMPROVEMENT + 1];
};

static void simulate(const struct stats_seq_params *p, const struct stats_sim_noise *nz,
		     const double *effect, size_t R, uint64_t seed, struct tally *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < R; i++) {
		struct stats_sim_result r;

		stats_sim_run(p, nz, effect, seed + i, &r);
		t->miss += r.any_miss[0] || r.any_miss[1] || r.any_miss[2];
		t->units += r.units;
		t->v[r.v[0]]++;
	}
}

/*
 * Fixed length under AR(1) noise, rho 0.5: the interval covers at 95 +-
 * 1.5% (the bounds allow 2.5 standard errors of 3000 runs more); the plain
 * signed-rank interval (no serial allowance) on the same data falls short,
 * so this simulation can fail.
 */
static void test_coverage_ar1(void **state)
{
	static const size_t ns[] = { 10, 20, 40 };
	struct stats_seq_params p = until64, plain;
	double zero = 0;
	size_t j, R = 3000;
	struct tally t, tp;

	(void)state;
	p.until_decided = false;
	plain = p;
	plain.vif = 1;
	for (j = 0; j < 3; j++) {
		p.units = plain.units = ns[j];
		simulate(&p, &ar5, &zero, R, 1000 * j, &t);
		simulate(&plain, &ar5, &zero, R, 1000 * j, &tp);
		print_message(
			"# AR(1) 0.5, %zu pairs: coverage %.2f%% (plain signed-rank %.2f%%)\n",
			ns[j], 100.0 - 100.0 * t.miss / R, 100.0 - 100.0 * tp.miss / R);
		assert_true(t.miss <= R * (0.065 + 0.010));
		assert_true(t.miss >= R * (0.035 - 0.010));
		if (ns[j] >= 20)
			assert_true(tp.miss > R * 0.062);
	}
}

/*
 * --until-decided on A/A data: the chance that any look's interval misses
 * the truth stays at 5% under AR(1) 0.5 (margin small, so intervals that
 * exclude 0 decide); the old rule (Bonferroni levels, no allowance) was
 * measured at 5.5-5.9% and a naive one (95% at every look) misses far more.
 */
static void test_until_decided_aa(void **state)
{
	struct stats_seq_params p = until64, naive;
	double zero = 0;
	size_t R = 2000;
	struct tally t;

	(void)state;
	p.margin = 0.001;
	simulate(&p, &ar5, &zero, R, 5000, &t);
	print_message("# A/A AR(1) 0.5: any look misses %.2f%%, wrong verdicts %.2f%%\n",
		      100.0 * t.miss / R,
		      100.0 * (t.v[VERDICT_REGRESSION] + t.v[VERDICT_IMPROVEMENT]) / R);
	assert_true(t.miss <= R * (0.05 + 0.012));
	assert_true(t.v[VERDICT_REGRESSION] + t.v[VERDICT_IMPROVEMENT] <= R * (0.05 + 0.012));
	/* the same simulation catches a rule that does not correct for looking */
	naive = p;
	naive.until_decided = false;
	{
		size_t i, miss = 0;
		struct stats_sim_result r;

		for (i = 0; i < R / 2; i++) {
			size_t k;
			bool any = false;

			/* 95% (plain) at each of the six looks, same data */
			for (k = 0; k < 6 && !any; k++) {
				static const size_t looks[] = { 10, 16, 24, 32, 48, 64 };

				naive.units = looks[k];
				naive.vif = 1;
				stats_sim_run(&naive, &ar5, &zero, 5000 + i, &r);
				any = r.any_miss[0];
			}
			miss += any;
		}
		print_message("# naive rule: any look misses %.2f%%\n", 200.0 * miss / R);
		assert_true(miss > R / 2 * 0.10);
	}
}

/* Targets of the issue at lognormal 3% noise, margin 2%. */
static void test_decides_fast(void **state)
{
	double zero = 0, drop = -0.05;
	size_t R = 1000;
	struct tally t;

	(void)state;
	simulate(&until64, &ln3, &zero, R, 9000, &t);
	print_message("# A/A lognormal 3%%: no change %.2f%%, wrong %.2f%%\n",
		      100.0 * t.v[VERDICT_NO_CHANGE] / R,
		      100.0 * (t.v[VERDICT_REGRESSION] + t.v[VERDICT_IMPROVEMENT]) / R);
	assert_true(t.v[VERDICT_NO_CHANGE] >= R * 0.60); /* target >= 50%; measured ~78% */
	assert_true(t.v[VERDICT_REGRESSION] + t.v[VERDICT_IMPROVEMENT] <= R * 0.02);
	simulate(&until64, &ln3, &drop, R, 19000, &t);
	print_message("# -5%% at lognormal 3%%: found %.2f%% in %.1f pairs on average\n",
		      100.0 * t.v[VERDICT_REGRESSION] / R, (double)t.units / R);
	assert_true(t.v[VERDICT_REGRESSION] >= R * 0.97);
	assert_true(t.units <= R * 26);
}

/* Two features: three effects share the 5%, and a true effect on one is found. */
static void test_two_features(void **state)
{
	struct stats_seq_params p = until64;
	double aa[2] = { 0, 0 }, one[2] = { -0.05, 0 };
	size_t R = 1000;
	struct tally t;

	(void)state;
	p.nfeat = 2;
	p.margin = 0.001;
	simulate(&p, &ar5, aa, R, 30000, &t);
	print_message("# two features, A/A AR(1) 0.5: any of three intervals misses %.2f%%\n",
		      100.0 * t.miss / R);
	assert_true(t.miss <= R * (0.05 + 0.02));
	p.margin = 0.02;
	simulate(&p, &ln3, one, R, 40000, &t);
	assert_true(t.v[VERDICT_REGRESSION] >= R * 0.95);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_serial_allowance),
		cmocka_unit_test(test_plan_and_levels),
		cmocka_unit_test(test_budget_and_time),
		cmocka_unit_test(test_coverage_ar1),
		cmocka_unit_test(test_until_decided_aa),
		cmocka_unit_test(test_decides_fast),
		cmocka_unit_test(test_two_features),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
