/*
 * t-ceiling.c: the no-wakeup ceiling (runner/ceiling.c): the data path of
 * pipe (its --data-size, packet mode) and pingpong (a 4-byte token, two
 * pairs per round trip), the refusal of another workload, the share's
 * formula, and a real measurement that counts pairs and CPU time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "runner/ceiling.h"
#include "workloads/workload.h"

static void test_shape(void **state)
{
	const struct workload *pipe_wl = workload_find("pipe"), *pp = workload_find("pingpong");
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .rp = &rp };
	struct ceiling_shape cs;
	struct workload other;
	char err[256];

	(void)state;
	assert_non_null(pipe_wl);
	assert_non_null(pp);
	spec.wl = pipe_wl;
	spec.wl_params = pipe_wl->defaults;
	assert_int_equal(ceiling_shape_of(&spec, &cs, err, sizeof(err)), 0);
	assert_int_equal(cs.pairs_per_op, 1);
	assert_int_equal(cs.bytes, 512); /* pipe's default --data-size */
	assert_true(cs.packet);
	spec.wl = pp;
	spec.wl_params = pp->defaults;
	assert_int_equal(ceiling_shape_of(&spec, &cs, err, sizeof(err)), 0);
	assert_int_equal(cs.pairs_per_op, 2);
	assert_int_equal(cs.bytes, 4);
	assert_false(cs.packet);

	other = *pp;
	other.name = "hackbench";
	spec.wl = &other;
	assert_int_equal(ceiling_shape_of(&spec, &cs, err, sizeof(err)), -1);
	assert_string_equal(err, "option '--ceiling': workload 'hackbench' has no pipe data path "
				 "to measure without wakeups, allowed for pipe and pingpong");
}

static void test_share(void **state)
{
	(void)state;
	/* 100k round trips per CPU-second, 2 pairs each, against 800k pairs: 75% */
	assert_close(ceiling_share(2, 100000, 800000), 0.75, 1e-12);
	assert_close(ceiling_share(1, 400000, 400000), 0, 1e-12);
	assert_close(ceiling_share(2, 0, 800000), 0, 0);
	assert_close(ceiling_share(2, 1000, 0), 0, 0);
}

static void test_measure(void **state)
{
	const struct workload *pp = workload_find("pingpong");
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .rp = &rp };
	struct ceiling_shape cs;
	struct ceiling_result r;
	struct sample *s = malloc(sizeof(*s));
	const struct metric *m;
	char err[256];

	(void)state;
	rp.instances = 2;
	rp.placement = PLACE_SAME_CPU;
	spec.wl = pp;
	spec.wl_params = pp->defaults;
	assert_int_equal(ceiling_shape_of(&spec, &cs, err, sizeof(err)), 0);
	assert_int_equal(ceiling_measure(&spec, &cs, 100000000ULL, &r, err, sizeof(err)), 0);
	assert_true(r.pairs >= 2); /* each task makes one pair at least */
	assert_true(r.cpu_s > 0);
	assert_true(r.wall_s >= 0.1);
	/* two tasks in the window: at most two CPU-seconds per second, with slack */
	assert_true(r.cpu_s <= 2 * r.wall_s + 0.05);

	sample_init(s);
	s->ops = 1000;
	s->ops_per_cpu_s = 10000;
	ceiling_sample(&spec, &cs, 50000000ULL, s);
	m = sample_get(s, "ceiling_pairs_per_cpu_s");
	assert_non_null(m);
	if (!m->available)
		fail_msg("ceiling_pairs_per_cpu_s %s", m->why);
	assert_true(m->value > 0);
	m = sample_get(s, "sched_share");
	assert_non_null(m);
	assert_true(m->available);
	assert_close(m->value,
		     ceiling_share(2, 10000, sample_get(s, "ceiling_pairs_per_cpu_s")->value),
		     1e-12);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_measure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
