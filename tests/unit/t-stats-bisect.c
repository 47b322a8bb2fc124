/*
 * t-stats-bisect.c: the decisions of `bisect` (stats/bisect.c): one look
 * against a hand computation with the tabulated t quantile, both
 * directions of the references, the midpoint left undecided, too few
 * boots; the references' check; the sequential step (its Bonferroni level,
 * failed boots, stopping at the first decided look); the search with skips;
 * and a seeded simulation in which a candidate sitting exactly at the
 * midpoint is called bad no more often than alpha / 2.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/bisect.h"

static void test_decide_by_hand(void **state)
{
	const double g[] = { 0, 0.1 }, b[] = { 1.0, 1.1 }, c[] = { 0.05, 0.15 };
	struct bisect_refs r = { .good = g, .ng = 2, .bad = b, .nb = 2 };
	struct bisect_decision d;
	/* t(0.975, 3 df) = 3.182446 (tables); sd = sqrt(0.015 / 3); se = sd sqrt(1/2 + 1/8 + 1/8)
	 */
	double sd = sqrt(0.015 / 3), half = 3.182446 * sd * sqrt(0.75);

	(void)state;
	bisect_decide(&r, c, 2, 0.05, &d);
	assert_true(d.valid);
	assert_close(d.df, 3, 0);
	assert_close(d.sd, sd, 1e-12);
	assert_close(d.level, 0.95, 1e-12);
	assert_close(d.separation, 1.0, 1e-12);
	/* c = 0.1, midpoint 0.55: L = -0.45, position 0.05 */
	assert_close(d.position, 0.05, 1e-12);
	assert_close(d.pos_lo, 0.05 - half, 1e-5);
	assert_close(d.pos_hi, 0.05 + half, 1e-5);
	assert_close(d.vs_good, expm1(0.05), 1e-12);
	assert_close(d.vs_bad, expm1(-0.95), 1e-12);
	assert_int_equal(d.v, BISECT_GOOD);
	assert_string_equal(bisect_verdict_key(d.v), "good");
}

static void test_decide_directions(void **state)
{
	const double lo[] = { 0, 0.1, 0.05 }, hi[] = { 1.0, 1.1, 1.05 };
	const double near_hi[] = { 1.02, 1.08 }, near_lo[] = { 0.02, 0.08 }, mid[] = { 0.5, 0.6 };
	struct bisect_refs up = { .good = lo, .ng = 3, .bad = hi, .nb = 3 };
	struct bisect_refs down = { .good = hi, .ng = 3, .bad = lo, .nb = 3 };
	struct bisect_decision d;

	(void)state;
	bisect_decide(&up, near_hi, 2, 0.01, &d);
	assert_int_equal(d.v, BISECT_BAD);
	assert_true(d.position > 0.9 && d.position < 1.1);
	/* The metric fell from good to bad: a low candidate is bad now. */
	bisect_decide(&down, near_lo, 2, 0.01, &d);
	assert_int_equal(d.v, BISECT_BAD);
	assert_true(d.separation < 0);
	assert_true(d.position > 0.9 && d.position < 1.1);
	bisect_decide(&down, near_hi, 2, 0.01, &d);
	assert_int_equal(d.v, BISECT_GOOD);
	/* At the midpoint: neither side. */
	bisect_decide(&up, mid, 2, 0.01, &d);
	assert_true(d.valid);
	assert_int_equal(d.v, BISECT_UNDECIDED);
	assert_true(d.pos_lo < 0.5 && d.pos_hi > 0.5);
	assert_string_equal(bisect_verdict_key(d.v), "undecided");
}

static void test_decide_too_few(void **state)
{
	const double g[] = { 0 }, b[] = { 1 }, c[] = { 0.1 };
	struct bisect_refs r = { .good = g, .ng = 1, .bad = b, .nb = 1 };
	const double same[] = { 0.5, 0.5 };
	struct bisect_refs flat = { .good = same, .ng = 2, .bad = same, .nb = 2 };
	struct bisect_decision d;

	(void)state;
	bisect_decide(&r, c, 1, 0.05, &d);
	assert_false(d.valid);
	assert_non_null(d.why);
	assert_int_equal(d.v, BISECT_UNDECIDED);
	bisect_decide(&r, c, 0, 0.05, &d);
	assert_false(d.valid);
	bisect_decide(&flat, c, 1, 0.05, &d);
	assert_false(d.valid);
	assert_string_equal(d.why, "the references have the same level");
}

static void test_refs_check(void **state)
{
	const double g[] = { 0, 0.1, 0.05 }, b[] = { 1.0, 1.1, 1.05 }, near[] = { 0.3, -0.2, 0.2 };
	struct bisect_refs apart = { .good = g, .ng = 3, .bad = b, .nb = 3 };
	struct bisect_refs close = { .good = g, .ng = 3, .bad = near, .nb = 3 };
	struct bisect_refs few = { .good = g, .ng = 1, .bad = b, .nb = 1 };
	struct bisect_decision d;
	/* sd = 0.05 (each group's ss 0.005, df 4), se = sd sqrt(2/3), t(0.975, 4) = 2.776445 */
	double half = 2.776445 * 0.05 * sqrt(2.0 / 3);

	(void)state;
	bisect_refs_check(&apart, 0.05, &d);
	assert_true(d.valid);
	assert_int_equal(d.v, BISECT_BAD);
	assert_close(d.sd, 0.05, 1e-12);
	assert_close(d.sep_lo, 1.0 - half, 1e-5);
	assert_close(d.sep_hi, 1.0 + half, 1e-5);
	bisect_refs_check(&close, 0.05, &d);
	assert_true(d.valid);
	assert_int_equal(d.v, BISECT_UNDECIDED);
	assert_non_null(d.why);
	bisect_refs_check(&few, 0.05, &d);
	assert_false(d.valid);
}

static void test_step_sequential(void **state)
{
	const double g[] = { 0, 0.1, 0.05, 0.02 }, b[] = { 1.0, 1.1, 1.05, 0.98 };
	struct bisect_refs r = { .good = g, .ng = 4, .bad = b, .nb = 4 };
	struct bisect_step s;

	(void)state;
	/* looks at 1, 2, 3, 4 boots and the budget 6: five */
	assert_int_equal(bisect_looks(1, 6), 5);
	assert_int_equal(bisect_looks(1, 1), 1);
	assert_int_equal(bisect_looks(2, 6), 4);
	assert_int_equal(bisect_looks(1, 32), 10);
	bisect_step_init(&s, &r, 0.05, 6);
	/* the last look 80% of alpha, the four earlier ones 5% each */
	assert_close(s.alpha_final, 0.04, 1e-15);
	assert_close(s.alpha_look, 0.0025, 1e-15);
	assert_true(bisect_step_wants_boot(&s));
	/* a failed boot: counted, not analysed */
	bisect_step_add_boot(&s, NAN);
	assert_int_equal(s.boots, 1);
	assert_int_equal(s.nc, 0);
	assert_true(bisect_step_wants_boot(&s));
	bisect_step_add_boot(&s, 1.03);
	assert_int_equal(s.nc, 1);
	/* one clear boot near the bad level decides (df 6) */
	assert_int_equal(s.d.v, BISECT_BAD);
	assert_false(bisect_step_wants_boot(&s));
	bisect_step_add_boot(&s, 0.0); /* ignored once done */
	assert_int_equal(s.nc, 1);

	/* at the midpoint: runs to the budget undecided */
	bisect_step_init(&s, &r, 0.05, 6);
	while (bisect_step_wants_boot(&s))
		bisect_step_add_boot(&s, 0.525);
	assert_int_equal(s.boots, 6);
	assert_int_equal(s.nc, 6);
	assert_int_equal(s.looks, 5);
	assert_int_equal(s.d.v, BISECT_UNDECIDED);

	/* every boot failed */
	bisect_step_init(&s, &r, 0.05, 3);
	while (bisect_step_wants_boot(&s))
		bisect_step_add_boot(&s, NAN);
	assert_int_equal(s.nc, 0);
	assert_false(s.d.valid);
}

static void test_refs_sequential(void **state)
{
	struct bisect_refs_seq s;
	struct bisect_refs r;
	const double g[] = { 0, 0.1, 0.05, 0.02, 0.08, 0.03 };

	(void)state;
	bisect_refs_seq_init(&s, 0.05, 6);
	/* pairs looked at: 2, 3, 4, and the budget 6 (80% of alpha) */
	assert_close(s.alpha_look, 0.05 * 0.2 / 3, 1e-15);
	assert_close(s.alpha_final, 0.05 * 0.8, 1e-15);
	bisect_refs_seq_add_pair(&s, g[0], 1.0);
	assert_true(bisect_refs_seq_wants_pair(&s));
	assert_false(s.d.valid);		 /* no look at one pair */
	bisect_refs_seq_add_pair(&s, g[1], NAN); /* the bad boot failed */
	bisect_refs_seq_add_pair(&s, g[2], 1.1);
	bisect_refs_seq_refs(&s, &r);
	assert_int_equal(r.ng, 3);
	assert_int_equal(r.nb, 2);
	assert_true(s.d.valid);
	while (bisect_refs_seq_wants_pair(&s))
		bisect_refs_seq_add_pair(&s, g[s.pairs], 1.0 + g[s.pairs]);
	assert_int_equal(s.d.v, BISECT_BAD);
	/* apart and precise enough before the budget */
	assert_true(s.pairs < 6);
	assert_true(s.d.sep_hi - s.d.sep_lo <= fabs(s.d.separation));

	/* never apart: runs to the budget */
	bisect_refs_seq_init(&s, 0.05, 4);
	while (bisect_refs_seq_wants_pair(&s))
		bisect_refs_seq_add_pair(&s, g[s.pairs], g[(s.pairs + 3) % 6]);
	assert_int_equal(s.pairs, 4);
	assert_int_not_equal(s.d.v, BISECT_BAD);
}

/* The search against an oracle: first bad at `first`, `skip` undecided. */
static size_t search_with(size_t n, size_t first, const unsigned char *skip, bool *found,
			  size_t *lo, size_t *hi)
{
	struct bisect_search s;
	ssize_t i;
	size_t steps = 0;

	bisect_search_init(&s, n);
	while ((i = bisect_search_next(&s)) >= 0) {
		assert_true((size_t)i > s.last_good && (size_t)i < s.first_bad);
		bisect_search_record(&s, (size_t)i,
				     skip && skip[i]	  ? BISECT_UNDECIDED
				     : (size_t)i >= first ? BISECT_BAD
							  : BISECT_GOOD);
		steps++;
		assert_true(steps <= n);
	}
	*found = bisect_search_found(&s);
	*lo = s.last_good;
	*hi = s.first_bad;
	bisect_search_release(&s);
	return steps;
}

static void test_search(void **state)
{
	unsigned char skip[16] = { 0 };
	size_t n, first, lo, hi, steps;
	bool found;

	(void)state;
	for (n = 2; n <= 16; n++)
		for (first = 1; first < n; first++) {
			steps = search_with(n, first, NULL, &found, &lo, &hi);
			assert_true(found);
			assert_int_equal(hi, first);
			assert_int_equal(lo, first - 1);
			/* binary: at most ceil(log2(n - 1)) steps */
			assert_true(steps <= (size_t)ceil(log2((double)(n - 1))));
		}
	/* 10 candidates, first bad 6; the middle (4) undecided: its neighbours decide */
	skip[4] = 1;
	steps = search_with(10, 6, skip, &found, &lo, &hi);
	assert_true(found);
	assert_int_equal(hi, 6);
	/* 5 and 6 both undecided when the first bad is 6: left open between 4 and 7 */
	memset(skip, 0, sizeof(skip));
	skip[5] = skip[6] = 1;
	search_with(10, 6, skip, &found, &lo, &hi);
	assert_false(found);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 7);
}

/*
 * The guarantee of one step: a candidate exactly at the midpoint is called
 * bad with probability at most alpha / 2 (and good likewise), whatever the
 * looks; normal boots, references of 4 boots each measured afresh per trial.
 */
static void test_midpoint_error_rate(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const double alpha = 0.1, sd = 0.1, sep = 0.3;
	const int trials = 4000;
	int t, nbad = 0, ngood = 0;
	double p, se;

	(void)state;
	gsl_rng_set(rng, 16);
	for (t = 0; t < trials; t++) {
		double g[4], b[4];
		struct bisect_refs r = { .good = g, .ng = 4, .bad = b, .nb = 4 };
		struct bisect_step s;
		int i;

		for (i = 0; i < 4; i++) {
			g[i] = gsl_ran_gaussian(rng, sd);
			b[i] = sep + gsl_ran_gaussian(rng, sd);
		}
		bisect_step_init(&s, &r, alpha, 8);
		while (bisect_step_wants_boot(&s))
			bisect_step_add_boot(&s, sep / 2 + gsl_ran_gaussian(rng, sd));
		nbad += s.d.v == BISECT_BAD;
		ngood += s.d.v == BISECT_GOOD;
	}
	gsl_rng_free(rng);
	p = (double)nbad / trials;
	se = sqrt(0.05 * 0.95 / trials);
	print_message("# midpoint: called bad %.2f%%, good %.2f%% (bound %.1f%% each)\n", 100 * p,
		      100.0 * ngood / trials, 100 * alpha / 2);
	assert_true(p <= alpha / 2 + 3 * se);
	assert_true((double)ngood / trials <= alpha / 2 + 3 * se);
	/* and not trivially: some decisions happen at the midpoint by chance */
	assert_true(nbad + ngood > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide_by_hand),	cmocka_unit_test(test_decide_directions),
		cmocka_unit_test(test_decide_too_few),	cmocka_unit_test(test_refs_check),
		cmocka_unit_test(test_step_sequential), cmocka_unit_test(test_refs_sequential),
		cmocka_unit_test(test_search),		cmocka_unit_test(test_midpoint_error_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
