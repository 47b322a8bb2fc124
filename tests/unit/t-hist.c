/*
 * t-hist.c: the log-linear histogram against sorted-array truth: every
 * percentile within HIST_REL_ERROR of the nearest-rank value, exact small
 * values, merging equal to recording into one, overflow counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>

#include <cmocka.h>

#include "core/hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t truth(const uint64_t *v, size_t n, double p)
{
	double r = ceil(p * (double)n);
	size_t rank = r < 1 ? 1 : (size_t)r;

	return v[rank - 1];
}

/* xorshift64*: deterministic, so a failure can be reproduced */
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static double unif(void)
{
	return ((double)(rng() >> 11) + 0.5) / 9007199254740992.0;
}

static void check_against_truth(uint64_t *v, size_t n, struct hist *h)
{
	static const double ps[] = { 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0 };
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t want = truth(v, n, ps[i]), got = hist_percentile(h, ps[i]);
		double err = fabs((double)got - (double)want) / (double)(want ? want : 1);

		if (err > HIST_REL_ERROR)
			fail_msg("p%g: got %llu, truth %llu, error %g > %g", ps[i] * 100,
				 (unsigned long long)got, (unsigned long long)want, err,
				 HIST_REL_ERROR);
	}
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[n - 1]);
}

/* Log-normal latencies around 5 us with a heavy tail up to seconds. */
static void test_lognormal(void **state)
{
	size_t n = 200000, i;
	uint64_t *v = malloc(n * sizeof(*v));
	struct hist *h = malloc(sizeof(*h));

	(void)state;
	hist_init(h);
	for (i = 0; i < n; i++) {
		double z = sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());

		v[i] = (uint64_t)exp(8.5 + 1.5 * z);
		hist_record(h, v[i]);
	}
	assert_int_equal(h->count, n);
	check_against_truth(v, n, h);
	free(v);
	free(h);
}

/* Uniform over many magnitudes, including exact small values. */
static void test_uniform_magnitudes(void **state)
{
	size_t n = 50000, i;
	uint64_t *v = malloc(n * sizeof(*v));
	struct hist *h = malloc(sizeof(*h));

	(void)state;
	hist_init(h);
	for (i = 0; i < n; i++) {
		v[i] = rng() >> (24 + rng() % 40);
		hist_record(h, v[i]);
	}
	check_against_truth(v, n, h);
	free(v);
	free(h);
}

static void test_small_values_exact(void **state)
{
	struct hist h;
	uint64_t i;

	(void)state;
	hist_init(&h);
	for (i = 0; i < 100; i++)
		hist_record(&h, i);
	assert_int_equal(hist_percentile(&h, 0.5), 49);
	assert_int_equal(hist_percentile(&h, 0.99), 98);
	assert_int_equal(hist_percentile(&h, 1.0), 99);
	assert_true(fabs(hist_mean(&h) - 49.5) < 1e-9);
}

static void test_index_ranges(void **state)
{
	unsigned i;
	uint64_t lo, hi, prev_hi = 0;

	(void)state;
	/* buckets tile the range without gaps, each within the error bound */
	for (i = 0; i < HIST_BUCKETS; i++) {
		hist_bucket_range(i, &lo, &hi);
		if (i)
			assert_int_equal(lo, prev_hi + 1);
		assert_int_equal(hist_index(lo), i);
		assert_int_equal(hist_index(hi), i);
		if (lo >= (1u << HIST_SUB_BITS))
			assert_true((double)(hi - lo + 1) / (double)lo <= 2 * HIST_REL_ERROR);
		prev_hi = hi;
	}
	assert_int_equal(prev_hi + 1, 1ULL << HIST_MAX_BITS);
}

static void test_merge_and_overflow(void **state)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *all = malloc(sizeof(*all));
	uint64_t i, v;

	(void)state;
	hist_init(a);
	hist_init(b);
	hist_init(all);
	for (i = 0; i < 10000; i++) {
		v = 1000 + rng() % 100000;
		hist_record(i % 2 ? a : b, v);
		hist_record(all, v);
	}
	hist_record(a, 1ULL << 45);
	hist_record(all, 1ULL << 45);
	hist_merge(a, b);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->overflow, 1);
	assert_int_equal(a->max, 1ULL << 45);
	assert_int_equal(hist_percentile(a, 0.5), hist_percentile(all, 0.5));
	assert_int_equal(hist_percentile(a, 0.999), hist_percentile(all, 0.999));
	/* the overflowed value is the top rank: reported as the exact max */
	assert_int_equal(hist_percentile(a, 1.0), 1ULL << 45);
	free(a);
	free(b);
	free(all);
}

static void test_empty(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	assert_int_equal(hist_percentile(&h, 0.5), 0);
	assert_int_equal(h.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lognormal),
		cmocka_unit_test(test_uniform_magnitudes),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_index_ranges),
		cmocka_unit_test(test_merge_and_overflow),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
