/*
 * t-engine-ab.c: the ab engine's analysis (engine/ab.c) on samples made
 * here, where measuring is not the point: units formed from the run order
 * (warm-ups skipped, a failed sample leaves its unit incomplete, the last
 * unit may be short), a planted effect found with its verdict in words,
 * a planted null decided as no change, the sequential engine's own effects
 * reproduced to the last bit from the design it ended in and from that
 * design kept as JSON (what a stored ab is analysed with), the evidence
 * lines Holm-adjusted, the factorial's three effects, parameters that
 * describe no ab refused with the reason, and the fewest units a verdict
 * needs (named in the verdict below it, and by ab's size check).
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

#include "engine/ab.h"
#include "engine/abrun.h"

struct run {
	struct sample *s;
	struct ab_obs *obs;
	size_t n;
};

static uint64_t rng = 12345;

/* splitmix64, then a uniform in (0, 1) */
static double uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* lognormal noise of about sigma (Box-Muller) */
static double noise(double sigma)
{
	return exp(sigma * sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform()));
}

static void add(struct run *r, unsigned arm, bool warmup, double ops, double ctxsw)
{
	struct sample *s;

	r->s = realloc(r->s, (r->n + 1) * sizeof(*r->s));
	r->obs = realloc(r->obs, (r->n + 1) * sizeof(*r->obs));
	assert_non_null(r->s);
	assert_non_null(r->obs);
	s = &r->s[r->n];
	sample_init(s);
	s->index = (uint32_t)r->n;
	s->warmup = warmup;
	s->ops_per_s = ops;
	s->real_s = 1;
	s->ops = (uint64_t)ops;
	if (ctxsw > 0)
		sample_put(s, "ctxsw_per_op", ctxsw);
	r->obs[r->n].arm = arm;
	r->n++;
	/* the samples may have moved: every observation points at its sample again */
	for (size_t i = 0; i < r->n; i++)
		r->obs[i].s = &r->s[i];
}

/* n pairs in A B | B A order, a warm-up after each toggle; B is (1 + effect) times A. */
static void pairs(struct run *r, size_t n, double effect, double sigma)
{
	size_t u, i;

	for (u = 0; u < n; u++)
		for (i = 0; i < 2; i++) {
			unsigned arm = (unsigned)((u % 2) ^ i);
			double f = arm ? 1 + effect : 1;

			if (i == 1 || !u) /* the toggles: within each unit, and the start */
				add(r, arm, true, 1e6, 0);
			add(r, arm, false, 1e6 * f * noise(sigma), 0.5 / f * noise(sigma));
		}
}

static void release(struct run *r)
{
	free(r->s);
	free(r->obs);
	memset(r, 0, sizeof(*r));
}

/* A design as ab makes it, ended by its sequential engine fed the same units. */
static void design_of(const struct run *r, unsigned nfeat, size_t units, struct ab_design *d,
		      struct stats_seq *seq)
{
	static const char *const tok[2] = { "NO_DELAY_DEQUEUE", "NO_PLACE_LAG" };
	struct stats_seq_params sp = {
		.nfeat = nfeat, .margin = 0.02, .better = 1, .units = units, .max_units = 64
	};
	struct ab_result tmp;
	double y[4];
	size_t u;
	unsigned m;

	stats_seq_init(seq, &sp);
	ab_design_init(d, nfeat, tok, "ops_per_s", 1, 0.02, 0);
	/* the units in run order, as ab hands them over */
	ab_analyze(d, r->obs, r->n, &tmp);
	for (u = 0; u < tmp.nunits && stats_seq_wants_unit(seq); u++) {
		bool whole = true;

		for (m = 0; m < d->narms; m++) {
			long i = tmp.unit[u][m];

			whole = whole && i >= 0 && r->s[i].status == SAMPLE_OK;
			if (whole)
				y[m] = r->s[i].ops_per_s;
		}
		stats_seq_add_unit(seq, whole ? y : NULL, 0);
	}
	stats_seq_end(seq);
	ab_result_release(&tmp);
	ab_design_end(d, seq);
}

static void test_units(void **state)
{
	struct run r = { 0 };
	struct ab_design d;
	struct ab_result res;
	struct stats_seq seq;

	(void)state;
	pairs(&r, 6, 0.0, 0.01);
	sample_fail(&r.s[4], SAMPLE_FAILED, "planted"); /* unit 1's first measured sample */
	add(&r, 0, false, 1e6, 0.5);			/* a short last unit */
	design_of(&r, 1, 6, &d, &seq);
	ab_analyze(&d, r.obs, r.n, &res);
	assert_int_equal(res.nobs, r.n);
	assert_int_equal(res.nunits, 7);
	assert_int_equal(res.ncomplete, 5);
	assert_false(r.s[4].warmup);
	assert_int_equal(res.unit[1][1], 4); /* B A: B first */
	assert_int_equal(res.unit[6][0], (long)r.n - 1);
	assert_int_equal(res.unit[6][1], -1);
	assert_int_equal(res.eff[0].s.e.n_a, 5);
	ab_result_release(&res);
	stats_seq_release(&seq);
	release(&r);
}

/* The engine's own effects, to the last bit, from the design and from its JSON. */
static void test_reproduces_the_run(void **state)
{
	struct run r = { 0 };
	struct ab_design d, back;
	struct ab_result res, res2;
	struct stats_seq seq;
	json_object *params = json_object_new_object(), *feat = json_object_new_array();
	char why[256];

	(void)state;
	pairs(&r, 16, 0.08, 0.02);
	design_of(&r, 1, 16, &d, &seq);
	ab_analyze(&d, r.obs, r.n, &res);
	assert_int_equal(res.neff, 1);
	assert_memory_equal(&res.eff[0].s.e.est, &seq.eff[0].e.est, sizeof(double));
	assert_memory_equal(&res.eff[0].s.e.lo, &seq.eff[0].e.lo, sizeof(double));
	assert_memory_equal(&res.eff[0].s.e.hi, &seq.eff[0].e.hi, sizeof(double));
	assert_memory_equal(&res.eff[0].s.e.p, &seq.eff[0].e.p, sizeof(double));
	assert_int_equal(res.eff[0].s.v, seq.eff[0].v);
	/* a planted 8% on 2% noise: an improvement, said in words */
	assert_int_equal(res.eff[0].s.v, VERDICT_IMPROVEMENT);
	assert_string_equal(res.eff[0].verdict, "improvement beyond the 2% margin");
	assert_string_equal(res.eff[0].what, "NO_DELAY_DEQUEUE");
	assert_true(res.eff[0].s.e.est > 0.04 && res.eff[0].s.e.est < 0.12);
	/* the ratios of the per-pair plot */
	assert_int_equal(res.ncomplete, 16);
	assert_true(res.ratio[0] > 1.0);

	/* stored as the parameters keep it, read back: the same numbers */
	json_object_array_add(feat, json_object_new_string("NO_DELAY_DEQUEUE"));
	json_object_object_add(params, "feature", feat);
	json_object_object_add(params, "margin", json_object_new_double(0.02));
	json_object_object_add(params, "design", ab_design_json(&d));
	assert_int_equal(ab_design_parse(json_object_to_json_string(params), "pipe", &back, why,
					 sizeof(why)),
			 0);
	assert_false(back.rebuilt);
	assert_memory_equal(&back.alpha_two, &d.alpha_two, sizeof(double));
	assert_memory_equal(&back.vif, &d.vif, sizeof(double));
	assert_int_equal(back.budget, d.budget);
	assert_int_equal(back.stop, d.stop);
	ab_analyze(&back, r.obs, r.n, &res2);
	assert_memory_equal(&res2.eff[0].s.e.est, &res.eff[0].s.e.est, sizeof(double));
	assert_memory_equal(&res2.eff[0].s.e.lo, &res.eff[0].s.e.lo, sizeof(double));
	assert_memory_equal(&res2.eff[0].s.e.hi, &res.eff[0].s.e.hi, sizeof(double));
	assert_memory_equal(&res2.eff[0].s.e.p, &res.eff[0].s.e.p, sizeof(double));
	assert_string_equal(res2.eff[0].verdict, res.eff[0].verdict);

	/* evidence: ctxsw_per_op moves the other way, Holm-adjusted over its lines */
	assert_int_equal(res.nevidence, 1);
	assert_string_equal(res.evidence[0].metric, "ctxsw_per_op");
	assert_string_equal(res.evidence[0].why, "");
	assert_int_equal(res.nlines, 1);
	assert_true(res.lines[0].s.e.est < -0.04);
	assert_false(isnan(res.lines[0].s.p_adjusted));

	json_object_put(params);
	ab_result_release(&res);
	ab_result_release(&res2);
	stats_seq_release(&seq);
	release(&r);
}

static void test_no_change(void **state)
{
	struct run r = { 0 };
	struct ab_design d;
	struct ab_result res;
	struct stats_seq seq;

	(void)state;
	rng = 777;
	pairs(&r, 32, 0.0, 0.002);
	design_of(&r, 1, 32, &d, &seq);
	ab_analyze(&d, r.obs, r.n, &res);
	assert_int_equal(res.eff[0].s.v, VERDICT_NO_CHANGE);
	assert_non_null(strstr(res.eff[0].verdict, "no change larger than 2% (equivalence"));
	ab_result_release(&res);
	stats_seq_release(&seq);
	release(&r);
}

/* Two tokens: blocks of four, the main effects and the interaction. */
static void test_factorial(void **state)
{
	static const unsigned order[4] = { 0, 1, 3, 2 };
	struct run r = { 0 };
	struct ab_design d;
	struct ab_result res;
	struct stats_seq seq;
	size_t u, i;

	(void)state;
	for (u = 0; u < 24; u++)
		for (i = 0; i < 4; i++) {
			unsigned arm = order[u % 2 ? 3 - i : i];

			add(&r, arm, false, 1e6 * (arm & 1 ? 0.5 : 1.0) * noise(0.01), 0);
		}
	design_of(&r, 2, 24, &d, &seq);
	ab_analyze(&d, r.obs, r.n, &res);
	assert_int_equal(res.neff, 3);
	assert_string_equal(res.eff[1].what, "NO_PLACE_LAG");
	assert_string_equal(res.eff[2].what, "interaction");
	assert_int_equal(res.eff[0].s.v, VERDICT_REGRESSION);
	assert_int_equal(res.eff[1].s.v, VERDICT_NO_CHANGE);
	assert_true(fabs(res.eff[0].s.e.est + 0.5) < 0.02);
	assert_string_equal(ab_unit_word(&d, 2), "blocks");
	ab_result_release(&res);
	stats_seq_release(&seq);
	release(&r);
}

static void test_bad_params(void **state)
{
	struct ab_design d;
	char why[256];

	(void)state;
	assert_int_equal(ab_design_parse("{\"samples\": 5}", "pipe", &d, why, sizeof(why)), -1);
	assert_string_equal(why, "its parameters name no --feature tokens (1 or 2)");
	assert_int_equal(ab_design_parse("{\"feature\": [\"A\", \"B\", \"C\"]}", "pipe", &d, why,
					 sizeof(why)),
			 -1);
	assert_int_equal(ab_design_parse("not json", "pipe", &d, why, sizeof(why)), -1);
	/* an older store's ab: no design, levels rebuilt from its options and said so */
	assert_int_equal(ab_design_parse("{\"feature\": [\"NO_X\"], \"samples\": 10}", "pipe", &d,
					 why, sizeof(why)),
			 0);
	assert_true(d.rebuilt);
	assert_false(d.until_decided);
	assert_int_equal(d.budget, 64);
	assert_true(d.alpha_two > 0.04 && d.alpha_two <= 0.05);
}

/* 6 pairs, 9 blocks: below, the verdict is insufficient and says how many are needed. */
static void test_minimum(void **state)
{
	struct run r = { 0 };
	struct ab_params ap = { .until_decided = false };
	struct run_params rp = { .samples = 5 };
	const char *two[2] = { "NO_DELAY_DEQUEUE", "NO_PLACE_LAG" };
	struct ab_design d;
	struct ab_result res;
	struct stats_seq seq;
	double a2, a1;
	char why[256];

	(void)state;
	stats_seq_levels(1, 1, &a2, &a1);
	assert_int_equal(ab_min_complete(1, a2, a1, stats_seq_vif(1)), 6);
	stats_seq_levels(2, 1, &a2, &a1);
	assert_int_equal(ab_min_complete(2, a2, a1, stats_seq_vif(2)), 9);
	/* -n and --max-samples: the same minimum; a larger budget's first look comes later */
	assert_int_equal(ab_plan_min_units(1, false, 3), 6);
	assert_int_equal(ab_plan_min_units(1, true, 2), 6);
	assert_int_equal(ab_plan_min_units(2, false, 8), 9);
	assert_int_equal(ab_plan_min_units(2, true, 8), 9);
	assert_true(ab_plan_min_units(1, true, 64) <= 10);
	assert_true(ab_plan_min_units(2, true, 64) <= 16);

	assert_int_equal(ab_check_sizes(&ap, &rp, why, sizeof(why)), EXIT_USAGE);
	assert_string_equal(why,
			    "option '--samples' (-n): value '5' is below the minimum of 6 pairs "
			    "a paired verdict needs");
	rp.samples = 6;
	assert_int_equal(ab_check_sizes(&ap, &rp, why, sizeof(why)), 0);
	ap.features.v = two;
	ap.features.n = 2;
	ap.until_decided = true;
	ap.max_samples = 8;
	assert_int_equal(ab_check_sizes(&ap, &rp, why, sizeof(why)), EXIT_USAGE);
	assert_string_equal(why, "option '--max-samples': value '8' is below the minimum of 9 "
				 "blocks a paired verdict of two features needs");

	pairs(&r, 5, 0.1, 0.01);
	design_of(&r, 1, 5, &d, &seq);
	ab_analyze(&d, r.obs, r.n, &res);
	assert_false(res.eff[0].s.e.valid);
	assert_string_equal(
		res.eff[0].verdict,
		"insufficient samples (5 complete pairs; a paired verdict needs at least 6)");
	ab_result_release(&res);
	stats_seq_release(&seq);
	release(&r);

	pairs(&r, 6, 0.1, 0.01);
	design_of(&r, 1, 6, &d, &seq);
	ab_analyze(&d, r.obs, r.n, &res);
	assert_true(res.eff[0].s.e.valid);
	assert_null(strstr(res.eff[0].verdict, "needs at least"));
	ab_result_release(&res);
	stats_seq_release(&seq);
	release(&r);
}

/* A fixed length (-n) beyond the guide's reach: the verdict does not name --max-samples. */
static void test_fixed_beyond(void **state)
{
	struct run r = { 0 };
	struct ab_design d;
	struct ab_result res;
	struct stats_seq seq;

	(void)state;
	pairs(&r, 6, 0.03, 0.05); /* an estimate near the margin, a wide interval */
	design_of(&r, 1, 6, &d, &seq);
	ab_analyze(&d, r.obs, r.n, &res);
	assert_false(d.until_decided);
	assert_true(res.eff[0].s.beyond_budget);
	assert_string_equal(res.eff[0].verdict, "inconclusive at a 2% margin (more than 64 pairs "
						"would be needed to decide)");
	ab_result_release(&res);
	stats_seq_release(&seq);
	release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),	     cmocka_unit_test(test_reproduces_the_run),
		cmocka_unit_test(test_no_change),    cmocka_unit_test(test_factorial),
		cmocka_unit_test(test_bad_params),   cmocka_unit_test(test_minimum),
		cmocka_unit_test(test_fixed_beyond),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
