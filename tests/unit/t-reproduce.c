/*
 * t-reproduce.c: the verdict of `wakebench reproduce` (engine/reproduce.h)
 * on constructed samples: a posted value inside this run's t interval is
 * reproduced, outside it is not (and how far), the posted spread widens
 * the interval, too few samples here decide nothing; the environment keys
 * split into differences (strongest first) and keys unknown on the posted
 * side; and the run's words carry the stored parameters but not the
 * posted sample count.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "engine/reproduce.h"
#include "util/util.h"

static char kind[] = "external", workload[] = "pipe", profile[] = "stress-ng-0.15",
	    params[] = "{\"instances\":3,\"duration_ns\":20000000000,\"samples\":1,"
		       "\"warmup_ns\":0,\"placement\":\"same-cpu\",\"cpus\":[\"0-1\"],"
		       "\"data_size_bytes\":512,\"no_packet\":false,\"trace\":\"off\"}";
static struct store_experiment exp_external = {
	.id = 1,
	.uuid = "5ea1ed00-0000-4000-8000-000000000015",
	.kind = kind,
	.workload = workload,
	.profile = profile,
	.params_json = params,
};

static void source(struct reproduce_source *src, double *posted, size_t n)
{
	memset(src, 0, sizeof(*src));
	src->e = &exp_external;
	src->wl = workload_find("pipe");
	assert_non_null(src->wl);
	src->profile = workload_profile(src->wl, "stress-ng-0.15");
	src->metric = "ops_per_s";
	src->tool = "stress-ng";
	src->tool_version = "0.15.06";
	src->values = posted;
	src->nvalues = n;
	env_set(&src->env, "external.tool", IMPACT_IDENTITY, "stress-ng");
	env_set(&src->env, "kernel.release", IMPACT_STRONG, "6.6.51+rpt-rpi-2712");
	env_set(&src->env, "mem.page_size", IMPACT_WEAK, "16 KiB");
	env_set(&src->env, "host.name", IMPACT_IDENTITY, "reporter");
	env_set(&src->env, "cpu.model", IMPACT_IDENTITY, "Cortex-A76");
}

static void here_env(struct env *env)
{
	memset(env, 0, sizeof(*env));
	env_set(env, "kernel.release", IMPACT_STRONG, "6.18.44");
	env_set(env, "cpu.governor", IMPACT_STRONG, "performance");
	env_set(env, "mem.page_size", IMPACT_WEAK, "4 KiB");
	env_set(env, "host.name", IMPACT_IDENTITY, "here");
	env_set(env, "cpu.model", IMPACT_IDENTITY, "Cortex-A76");
	env_set(env, "workload.profile", IMPACT_STRONG, "stress-ng-0.15");
}

/* Samples of ops_per_s; a warm-up first, which never counts. */
static size_t samples(struct sample *s, const double *v, size_t n)
{
	size_t i;

	sample_init(&s[0]);
	s[0].warmup = true;
	s[0].ops_per_s = 1e9;
	for (i = 0; i < n; i++) {
		sample_init(&s[i + 1]);
		s[i + 1].ops_per_s = v[i];
	}
	return n + 1;
}

/*
 * The verdict's differences point into the posted fingerprint: it lives in
 * posted_src until the next judge() (and is released at the end).
 */
static struct reproduce_source posted_src;

static enum reproduce_outcome judge(double *posted, size_t np, const double *run, size_t nr,
				    struct reproduce_verdict *rv)
{
	struct reproduce_source *src = &posted_src;
	struct sample s[16];
	struct env here;
	size_t n = samples(s, run, nr);

	env_release(&src->env);
	source(src, posted, np);
	here_env(&here);
	reproduce_judge(src, s, n, &here, "stress-ng-0.15", rv);
	env_release(&here); /* the verdict holds its own copy */
	return rv->outcome;
}

static const double run5[] = { 100, 102, 98, 100, 101 };

static void test_verdict(void **state)
{
	struct reproduce_verdict rv;
	static double one_in[] = { 101 }, one_out[] = { 110 }, three[] = { 100, 110, 120 };
	(void)state;
	assert_int_equal(judge(one_in, 1, run5, 5, &rv), REPRODUCE_REPRODUCED);
	assert_int_equal(rv.run_n, 5);
	/* run's summary: the median, and with 5 samples [min, max] as its CI */
	assert_close(rv.run_median, 100, 1e-12);
	assert_close(rv.ci_lo, 98, 1e-12);
	assert_close(rv.ci_hi, 102, 1e-12);
	assert_true(isnan(rv.posted_spread)); /* one posted run: no spread */
	assert_close(rv.accept_lo, rv.ci_lo, 1e-12);
	reproduce_verdict_release(&rv);

	assert_int_equal(judge(one_out, 1, run5, 5, &rv), REPRODUCE_NOT_REPRODUCED);
	assert_close(rv.rel, 100.0 / 110.0 - 1, 1e-12);
	reproduce_verdict_release(&rv);

	/* three posted runs, mean 110, sd 10: the interval widened by 10 holds it */
	assert_int_equal(judge(three, 3, run5, 5, &rv), REPRODUCE_REPRODUCED);
	assert_close(rv.posted_mean, 110, 1e-12);
	assert_close(rv.posted_spread, 10, 1e-12);
	assert_close(rv.accept_hi, 102 + 10, 1e-9);
	reproduce_verdict_release(&rv);
}

static void test_undecided(void **state)
{
	struct reproduce_source src;
	struct reproduce_verdict rv;
	static double posted[] = { 100 };
	static const double run[] = { 100, 101 };
	struct sample s[4];
	struct env here;
	size_t n = samples(s, run, 2);

	(void)state;
	sample_fail(&s[2], SAMPLE_FAILED, "a process died");
	source(&src, posted, 1);
	here_env(&here);
	reproduce_judge(&src, s, n, &here, NULL, &rv);
	assert_int_equal(rv.outcome, REPRODUCE_UNDECIDED);
	assert_int_equal(rv.run_n, 1);
	assert_int_equal(rv.run_failed, 1);
	assert_non_null(strstr(rv.why, "1 usable sample here"));
	reproduce_verdict_release(&rv);
	env_release(&here);
	env_release(&src.env);
}

static void test_environment(void **state)
{
	struct reproduce_verdict rv;
	static double posted[] = { 100 };

	(void)state;
	judge(posted, 1, run5, 5, &rv);
	/* kernel.release (strong) before mem.page_size (weak); the same CPU model is no difference
	 */
	assert_int_equal(rv.ndiff, 2);
	assert_string_equal(rv.diff[0].key, "kernel.release");
	assert_string_equal(rv.diff[0].posted, "6.6.51+rpt-rpi-2712");
	assert_string_equal(rv.diff[0].here, "6.18.44");
	assert_string_equal(rv.diff[1].key, "mem.page_size");
	/* not recorded on the posted side: unknown, not a difference; the
	 * posted tool, the host's name and the workload's own keys neither */
	assert_int_equal(rv.nunknown, 1);
	assert_string_equal(rv.unknown[0].key, "cpu.governor");
	assert_null(rv.unknown[0].posted);
	assert_string_equal(rv.posted_by, "stress-ng 0.15.06, profile stress-ng-0.15");
	reproduce_verdict_release(&rv);
}

static bool has(char **w, const char *want)
{
	for (; *w; w++)
		if (!strcmp(*w, want))
			return true;
	return false;
}

static void test_words(void **state)
{
	struct reproduce_source src;
	static double posted[] = { 100 };
	char **w;
	size_t n;

	(void)state;
	source(&src, posted, 1);
	w = reproduce_words(&src, &n);
	assert_string_equal(w[0], "pipe");
	assert_true(has(w, "--profile=stress-ng-0.15"));
	assert_true(has(w, "--instances=3"));
	assert_true(has(w, "--duration=20000000000ns"));
	assert_true(has(w, "--placement=same-cpu"));
	assert_true(has(w, "--cpus=0-1"));
	assert_true(has(w, "--data-size=512"));
	/* a reproduction takes enough samples for an interval: not the posted count */
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(w[i], "--samples"));
		assert_null(strstr(w[i], "--warmup"));
		assert_null(strstr(w[i], "--no-packet")); /* false: nothing to set */
		assert_null(strstr(w[i], "--trace"));	  /* not a runner or workload option */
	}
	reproduce_words_free(w);
	env_release(&src.env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_undecided),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_words),
	};

	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	env_release(&posted_src.env);
	return ret;
}
