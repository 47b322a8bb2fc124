/*
 * t-stats-verdict.c: verdicts against the margin in both metric
 * directions, their boundaries, the estimate of samples needed to decide
 * an inconclusive effect, and the equivalence verdict of two one-sided
 * tests.
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

static struct effect make_effect(double est, double lo, double hi, size_t na, size_t nb)
{
	struct effect e = { .valid = true,
			    .n_a = na,
			    .n_b = nb,
			    .est = est,
			    .lo = lo,
			    .hi = hi,
			    .conf = 0.95,
			    .method = "test" };

	return e;
}

static void test_verdicts(void **state)
{
	static const struct {
		double lo, hi, margin;
		enum verdict higher, lower;
	} cases[] = {
		{ 0.03, 0.05, 0.02, VERDICT_IMPROVEMENT, VERDICT_REGRESSION },
		{ -0.05, -0.03, 0.02, VERDICT_REGRESSION, VERDICT_IMPROVEMENT },
		{ -0.01, 0.015, 0.02, VERDICT_NO_CHANGE, VERDICT_NO_CHANGE },
		{ -0.02, 0.02, 0.02, VERDICT_NO_CHANGE, VERDICT_NO_CHANGE },	  /* inclusive */
		{ 0.02, 0.05, 0.02, VERDICT_INCONCLUSIVE, VERDICT_INCONCLUSIVE }, /* touches +m */
		{ -0.05, -0.02, 0.02, VERDICT_INCONCLUSIVE, VERDICT_INCONCLUSIVE },
		{ -0.03, 0.01, 0.02, VERDICT_INCONCLUSIVE, VERDICT_INCONCLUSIVE },
		{ 0.01, 0.03, 0.02, VERDICT_INCONCLUSIVE, VERDICT_INCONCLUSIVE }, /* > 0, not > m */
		{ -0.03, 0.03, 0.02, VERDICT_INCONCLUSIVE, VERDICT_INCONCLUSIVE },
		{ 0.001, 0.002, 0, VERDICT_IMPROVEMENT, VERDICT_REGRESSION },
		{ 0, 0, 0, VERDICT_NO_CHANGE, VERDICT_NO_CHANGE },
		{ 0.001, 0.002, -1, VERDICT_IMPROVEMENT, VERDICT_REGRESSION }, /* margin < 0 is 0 */
	};
	struct effect e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e = make_effect((cases[i].lo + cases[i].hi) / 2, cases[i].lo, cases[i].hi, 10, 10);
		assert_int_equal(stats_verdict(&e, cases[i].margin, 1), cases[i].higher);
		assert_int_equal(stats_verdict(&e, cases[i].margin, -1), cases[i].lower);
	}
	e = make_effect(0.5, 0.4, 0.6, 3, 3);
	e.valid = false;
	assert_int_equal(stats_verdict(&e, 0.02, 1), VERDICT_INSUFFICIENT);
	assert_int_equal(stats_samples_to_decide(&e, 0.02), 0);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(stats_verdict_name(VERDICT_INSUFFICIENT), "insufficient samples");
	assert_string_equal(stats_verdict_name(VERDICT_NO_CHANGE), "no change");
	assert_string_equal(stats_verdict_key(VERDICT_NO_CHANGE), "no-change");
	assert_string_equal(stats_verdict_key(VERDICT_REGRESSION), "regression");
	assert_string_equal(stats_verdict_name(VERDICT_IMPROVEMENT), "improvement");
	assert_string_equal(stats_verdict_name(VERDICT_INCONCLUSIVE), "inconclusive");
	assert_false(stats_verdict_decided(VERDICT_INCONCLUSIVE));
	assert_false(stats_verdict_decided(VERDICT_INSUFFICIENT));
	assert_true(stats_verdict_decided(VERDICT_NO_CHANGE));
	assert_true(stats_verdict_decided(VERDICT_REGRESSION));
	assert_true(stats_verdict_decided(VERDICT_IMPROVEMENT));
}

/* The effect after n' samples if the estimate and the spread stay put. */
static struct effect shrink(const struct effect *e, size_t n_new)
{
	double s = log1p(e->est), f = sqrt((double)e->n_a / (double)n_new);
	struct effect g = *e;

	g.lo = expm1(s - (s - log1p(e->lo)) * f);
	g.hi = expm1(s + (log1p(e->hi) - s) * f);
	g.n_a = g.n_b = n_new;
	return g;
}

/*
 * samples_to_decide is the smallest n' whose shrunken interval decides:
 * at n' the verdict is decided, at n' - 1 it is not.
 */
static void test_samples_to_decide(void **state)
{
	static const struct {
		double est, lo, hi;
		enum verdict then;
	} cases[] = {
		{ 0.0, -0.04, 0.04, VERDICT_NO_CHANGE },
		{ 0.005, -0.03, 0.05, VERDICT_NO_CHANGE },
		{ 0.035, 0.01, 0.06, VERDICT_IMPROVEMENT },
		{ -0.06, -0.12, -0.01, VERDICT_REGRESSION },
		{ 0.1, -0.05, 0.3, VERDICT_IMPROVEMENT },
	};
	struct effect e, g;
	size_t i, need;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e = make_effect(cases[i].est, cases[i].lo, cases[i].hi, 10, 10);
		assert_int_equal(stats_verdict(&e, 0.02, 1), VERDICT_INCONCLUSIVE);
		need = stats_samples_to_decide(&e, 0.02);
		assert_true(need > 10);
		g = shrink(&e, need);
		assert_int_equal(stats_verdict(&g, 0.02, 1), cases[i].then);
		g = shrink(&e, need - 1);
		if (need - 1 > 10)
			assert_int_equal(stats_verdict(&g, 0.02, 1), VERDICT_INCONCLUSIVE);
	}
	/* the first case by hand: max(log 1.04 / log 1.02, log 0.96 / log 0.98)^2 * 10 */
	e = make_effect(0.0, -0.04, 0.04, 10, 10);
	assert_int_equal(stats_samples_to_decide(&e, 0.02), 41);

	/* unequal arms count as their harmonic mean: 5 and 20 are like 8 and 8 */
	e = make_effect(0.0, -0.04, 0.04, 5, 20);
	assert_int_equal(stats_samples_to_decide(&e, 0.02), 33);

	/* decided, on the margin, or no margin: not estimable */
	e = make_effect(0.0, -0.01, 0.01, 10, 10);
	assert_int_equal(stats_samples_to_decide(&e, 0.02), 0);
	e = make_effect(0.02, 0.0, 0.04, 10, 10);
	assert_int_equal(stats_samples_to_decide(&e, 0.02), 0);
	e = make_effect(0.0, -0.04, 0.04, 10, 10);
	assert_int_equal(stats_samples_to_decide(&e, 0), 0);
}

/* "No change" comes from the narrower equivalence interval; directions from the wide one. */
static void test_verdict_tost(void **state)
{
	struct effect dir = make_effect(0.001, -0.025, 0.027, 40, 40);
	struct effect eq = make_effect(0.001, -0.018, 0.019, 40, 40);

	(void)state;
	/* the two-sided interval straddles both margins, the TOST interval fits */
	assert_int_equal(stats_verdict(&dir, 0.02, 1), VERDICT_INCONCLUSIVE);
	assert_int_equal(stats_verdict_tost(&dir, &eq, 0.02, 1), VERDICT_NO_CHANGE);
	eq.hi = 0.021;
	assert_int_equal(stats_verdict_tost(&dir, &eq, 0.02, 1), VERDICT_INCONCLUSIVE);
	/* a direction needs the wide interval beyond the margin */
	dir = make_effect(-0.05, -0.07, -0.021, 40, 40);
	eq = make_effect(-0.05, -0.065, -0.03, 40, 40);
	assert_int_equal(stats_verdict_tost(&dir, &eq, 0.02, 1), VERDICT_REGRESSION);
	assert_int_equal(stats_verdict_tost(&dir, &eq, 0.02, -1), VERDICT_IMPROVEMENT);
	dir.hi = -0.019; /* the narrow one beyond the margin does not decide a direction */
	assert_int_equal(stats_verdict_tost(&dir, &eq, 0.02, 1), VERDICT_INCONCLUSIVE);
	dir.valid = false;
	assert_int_equal(stats_verdict_tost(&dir, &eq, 0.02, 1), VERDICT_INSUFFICIENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_samples_to_decide),
		cmocka_unit_test(test_verdict_tost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
