/*
 * t-schbench.c: the schbench workload: its descriptor and profile, the
 * task layout, the option ranges and checks, the merge of the per-worker
 * histograms of several instances into percentile metrics (against the
 * nearest-rank truth of the values recorded), and short samples through
 * the runner in which every counted request is in the request histogram.
 * Never asserts speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include <cmocka.h>

#include "harness.h"

#include "core/metrics.h"
#include "runner/runner.h"
#include "core/hist.h"
#include "util/util.h"
#include "workloads/workload.h"

#define MS 1000000ULL

static const struct workload *wl_get(void)
{
	const struct workload *wl = workload_find("schbench");

	assert_non_null(wl);
	return wl;
}

static void *params_copy(const struct workload *wl, const void *from)
{
	void *p = malloc(wl->params_size);

	assert_non_null(p);
	memcpy(p, from, wl->params_size);
	return p;
}

static void set_u64(const struct workload *wl, void *params, const char *name, uint64_t v)
{
	const struct opt *o = opts_find(wl->opts, name);

	assert_non_null(o);
	assert_int_equal(opt_field_size(o->type), sizeof(v));
	memcpy((char *)params + o->offset, &v, sizeof(v));
}

static uint64_t get_u64(const struct workload *wl, const void *params, const char *name)
{
	const struct opt *o = opts_find(wl->opts, name);
	uint64_t v;

	assert_non_null(o);
	memcpy(&v, (const char *)params + o->offset, sizeof(v));
	return v;
}

static const struct metric_def *own_metric(const struct workload *wl, const char *name)
{
	const struct metric_def *d;

	for (d = wl->metrics; d && d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

static void test_descriptor(void **state)
{
	const struct workload *wl = wl_get();
	const struct profile *prof;
	const struct metric_def *d, *e;
	static const char *const want[] = {
		"schbench_wakeup_p50_ns",  "schbench_wakeup_p90_ns",   "schbench_wakeup_p99_ns",
		"schbench_wakeup_p999_ns", "schbench_request_p50_ns",  "schbench_request_p90_ns",
		"schbench_request_p99_ns", "schbench_request_p999_ns", "requests_per_s",
		"schbench_wakeup_count",   "schbench_request_count",
	};
	size_t i;

	(void)state;
	assert_string_equal(wl->default_profile, "schbench-24e32b8");
	prof = workload_profile(wl, "schbench-24e32b8");
	assert_non_null(prof);
	/* the defaults are the profile, and the profile is schbench's defaults */
	assert_memory_equal(wl->defaults, prof->params, wl->params_size);
	assert_int_equal(get_u64(wl, prof->params, "message-threads"), 1);
	assert_int_equal(get_u64(wl, prof->params, "workers"), 0);
	assert_int_equal(get_u64(wl, prof->params, "cache-footprint"), 256 * 1024);
	assert_int_equal(get_u64(wl, prof->params, "operations"), 5);
	assert_int_equal(get_u64(wl, prof->params, "sleep"), 100000);
	assert_int_equal(get_u64(wl, prof->params, "split"), 100);
	assert_int_equal(wl->default_instances, 1);
	assert_false(wl->fixed_work);

	/* its own metrics: the ones asked for, each once, labelled and directed */
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		d = own_metric(wl, want[i]);
		if (!d)
			fail_msg("no metric %s", want[i]);
		assert_true(d->label && *d->label && d->unit && d->help && *d->help);
		assert_string_equal(d->source, "schbench");
		assert_int_equal(d->better, !strcmp(want[i], "requests_per_s") ? BETTER_HIGHER
					    : strstr(want[i], "_count")	       ? BETTER_NEUTRAL
									       : BETTER_LOWER);
		/* a percentile names the metric counting its values, which the workload has */
		if (d->quantile > 0)
			assert_non_null(own_metric(wl, d->count));
		assert_ptr_equal(metric_def(want[i]), d);
		for (e = d + 1; e->name; e++)
			assert_string_not_equal(e->name, d->name);
		/* never the tracer's names */
		assert_null(strstr(d->name, "wakeup_lat_"));
	}
	assert_int_equal(d - wl->metrics + 1, ARRAY_SIZE(want));
	assert_null(wl->metrics[ARRAY_SIZE(want)].name);
	assert_string_equal(wl->primary, "schbench_wakeup_p99_ns");
	d = metric_def(wl->primary);
	assert_non_null(d);
	assert_int_equal(d->better, BETTER_LOWER);
	assert_true(d->flags & METRIC_PRIMARY);
	assert_int_equal(d->agg, AGG_HIST);
}

static void test_layout(void **state)
{
	const struct workload *wl = wl_get();
	void *p = params_copy(wl, wl->defaults);
	unsigned g, r, t, cpus = (unsigned)get_nprocs();

	(void)state;
	assert_string_equal(wl->roles[0], "message");
	assert_string_equal(wl->roles[1], "worker");
	assert_null(wl->roles[2]);

	/* two message threads of three workers: 0 1 2 3 | 4 5 6 7 */
	set_u64(wl, p, "message-threads", 2);
	set_u64(wl, p, "workers", 3);
	assert_int_equal(wl->tasks(p), 8);
	for (t = 0; t < 8; t++) {
		wl->layout(p, t, &g, &r);
		assert_int_equal(g, t / 4);
		assert_int_equal(r, t % 4 ? 1 : 0);
	}
	assert_int_equal(wl->shared_size(p), 6 * 2 * sizeof(struct hist));

	/* 0 workers: schbench's (CPUs + m - 1) / m per message thread */
	set_u64(wl, p, "message-threads", 1);
	set_u64(wl, p, "workers", 0);
	assert_int_equal(wl->tasks(p), 1 + cpus);
	set_u64(wl, p, "message-threads", 3);
	assert_int_equal(wl->tasks(p), 3 * (1 + (cpus + 2) / 3));
	set_u64(wl, p, "message-threads", 1000);
	assert_int_equal(wl->tasks(p), 1000 * 2);
	free(p);
}

/* opts_parse of one option of the workload's table; its return value. */
static int parse_one(const struct workload *wl, const char *name, const char *value)
{
	void *p = params_copy(wl, wl->defaults);
	struct opt_group g = {
		.title = "schbench", .opts = wl->opts, .base = p, .defaults = wl->defaults
	};
	struct opts_result res;
	const char *argv[2] = { name, value };
	int rc;

	memset(&res, 0, sizeof(res));
	rc = opts_parse("run", &g, 1, value ? 2 : 1, argv, 0, &res);
	opts_result_release(&res);
	opts_release(&g, 1);
	free(p);
	return rc;
}

static void test_option_ranges(void **state)
{
	const struct workload *wl = wl_get();

	(void)state;
	assert_int_equal(parse_one(wl, "--message-threads", "1"), 0);
	assert_int_equal(parse_one(wl, "--message-threads", "1024"), 0);
	assert_int_equal(parse_one(wl, "--message-threads", "0"), -1);
	assert_int_equal(parse_one(wl, "--message-threads", "1025"), -1);
	assert_int_equal(parse_one(wl, "--workers", "0"), 0);
	assert_int_equal(parse_one(wl, "--workers", "1025"), -1);
	assert_int_equal(parse_one(wl, "--workers", "-1"), -1);
	assert_int_equal(parse_one(wl, "--cache-footprint", "64M"), 0);
	assert_int_equal(parse_one(wl, "--cache-footprint", "65M"), -1);
	assert_int_equal(parse_one(wl, "--operations", "100001"), -1);
	assert_int_equal(parse_one(wl, "--operations", "0"), 0);
	assert_int_equal(parse_one(wl, "--sleep", "0"), 0);
	assert_int_equal(parse_one(wl, "--sleep", "250us"), 0);
	assert_int_equal(parse_one(wl, "--sleep", "2s"), -1);
	assert_int_equal(parse_one(wl, "--sleep", "fast"), -1);
	assert_int_equal(parse_one(wl, "--split", "100"), 0);
	assert_int_equal(parse_one(wl, "--split", "101"), -1);
	assert_int_equal(parse_one(wl, "--no-locking", NULL), 0);
}

static void test_check(void **state)
{
	const struct workload *wl = wl_get();
	void *p = params_copy(wl, wl->defaults);
	char err[256];

	(void)state;
	set_u64(wl, p, "workers", 2);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);

	set_u64(wl, p, "cache-footprint", 1000);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--cache-footprint'"));
	assert_non_null(strstr(err, "KiB"));
	set_u64(wl, p, "cache-footprint", 0);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);
	set_u64(wl, p, "cache-footprint", 3 * 1024);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);

	/* 1024 x (1 + 1024) threads in one instance is too many */
	set_u64(wl, p, "message-threads", 1024);
	set_u64(wl, p, "workers", 1024);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--workers'"));
	assert_non_null(strstr(err, "1049600"));
	assert_non_null(strstr(err, "at most 2048"));
	set_u64(wl, p, "message-threads", 2);
	set_u64(wl, p, "workers", 1023);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);
	set_u64(wl, p, "workers", 1024);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
	free(p);
}

/* The value of metric name in s; fails when absent or unavailable. */
static double value_of(const struct sample *s, const char *name)
{
	const struct metric *m = sample_get(s, name);

	if (!m)
		fail_msg("no metric %s", name);
	if (!m->available)
		fail_msg("%s unavailable: %s", name, m->why);
	return m->value;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank p-quantile of n sorted values. */
static uint64_t nearest_rank(const uint64_t *v, size_t n, double p)
{
	size_t rank = (size_t)(p * (double)n + 0.999999);

	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

/*
 * Two instances of two message threads with two workers each: eight
 * workers' histograms, filled with different distributions, merged by
 * put_metrics into the percentiles of all values together.
 */
static void test_merge(void **state)
{
	const struct workload *wl = wl_get();
	void *p = params_copy(wl, wl->defaults);
	size_t size, n = 0, nreq = 0, nreq0 = 0, i, k;
	/* the shared area: struct sb_stats { struct hist wakeup, request; }[workers] */
	struct hist *area[2];
	const void *shared[2];
	uint64_t *wake = malloc(20000 * sizeof(*wake));
	struct sample *s = malloc(sizeof(*s));
	static const char *const wnames[] = { "schbench_wakeup_p50_ns", "schbench_wakeup_p90_ns",
					      "schbench_wakeup_p99_ns", "schbench_wakeup_p999_ns" };
	static const double q[] = { 0.5, 0.9, 0.99, 0.999 };
	uint64_t seed = 12345;

	(void)state;
	set_u64(wl, p, "message-threads", 2);
	set_u64(wl, p, "workers", 2);
	size = wl->shared_size(p);
	assert_int_equal(size, 4 * 2 * sizeof(struct hist));
	for (i = 0; i < 2; i++) {
		area[i] = calloc(1, size); /* zeroed, as the runner gives it */
		for (k = 0; k < 8; k++)
			hist_init(&area[i][k]);
		shared[i] = area[i];
	}
	for (i = 0; i < 2; i++)
		for (k = 0; k < 4; k++) {
			/* worker k of instance i: its own range, a tail in one of them */
			size_t j, count = 1000 + 500 * k;

			for (j = 0; j < count; j++) {
				uint64_t v;

				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				v = 2000 + (seed >> 33) % (1000 * (k + 1) + 3000 * i);
				if (i == 1 && k == 3 && j % 10 == 0)
					v *= 40; /* the tail */
				hist_record(&area[i][2 * k], v);
				wake[n++] = v;
				/* requests: one fewer per worker than wakeups */
				if (j) {
					hist_record(&area[i][2 * k + 1], 100000 + v);
					nreq++;
					nreq0 += i == 0;
				}
			}
		}
	qsort(wake, n, sizeof(*wake), cmp_u64);

	sample_init(s);
	s->real_s = 2.0;
	wl->put_metrics(p, shared, 2, s);
	for (i = 0; i < ARRAY_SIZE(q); i++) {
		double truth = (double)nearest_rank(wake, n, q[i]);
		double got = value_of(s, wnames[i]);

		print_message("# %s %.0f, nearest rank %.0f\n", wnames[i], got, truth);
		assert_close(got, truth, truth * HIST_REL_ERROR + 1);
	}
	assert_true(value_of(s, "schbench_wakeup_p99_ns") > 40000); /* the tail is in it */
	assert_true(value_of(s, "schbench_request_p50_ns") > 100000);
	assert_true(value_of(s, "schbench_request_p50_ns") <=
		    value_of(s, "schbench_request_p90_ns"));
	assert_true(value_of(s, "schbench_request_p99_ns") <=
		    value_of(s, "schbench_request_p999_ns"));
	assert_close(value_of(s, "requests_per_s"), (double)nreq / 2.0, 1e-9);

	/* one instance only: a different merge, its own percentiles */
	sample_init(s);
	s->real_s = 1.0;
	wl->put_metrics(p, shared, 1, s);
	assert_true(value_of(s, "schbench_wakeup_p99_ns") < 40000);
	assert_close(value_of(s, "requests_per_s"), (double)nreq0, 1e-9);
	assert_int_equal(nreq0, 999 + 1499 + 1999 + 2499);

	/* nothing recorded: unavailable with the reason, never 0 */
	for (i = 0; i < 2; i++)
		for (k = 0; k < 8; k++)
			hist_init(&area[i][k]);
	sample_init(s);
	s->real_s = 1.0;
	wl->put_metrics(p, shared, 2, s);
	for (i = 0; i < ARRAY_SIZE(wnames); i++) {
		const struct metric *m = sample_get(s, wnames[i]);

		assert_non_null(m);
		assert_false(m->available);
		assert_non_null(strstr(m->why, "no wakeup"));
	}
	assert_close(value_of(s, "requests_per_s"), 0, 0);

	for (i = 0; i < 2; i++)
		free(area[i]);
	free(wake);
	free(s);
	free(p);
}

/*
 * A short sample through the runner: every counted request is in the
 * request histogram, the percentiles are ordered, and the wakeups
 * outnumber nothing. Tiny work so that a loaded machine still completes
 * requests in the window.
 */
static void one_sample(int placement, unsigned mthreads, unsigned workers)
{
	const struct workload *wl = wl_get();
	void *p = params_copy(wl, wl->defaults);
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .wl = wl, .wl_params = p, .rp = &rp };
	struct sample *s = malloc(sizeof(*s));
	char err[256];
	double p50, p90, p99, p999;

	set_u64(wl, p, "message-threads", mthreads);
	set_u64(wl, p, "workers", workers);
	set_u64(wl, p, "cache-footprint", 16 * 1024);
	set_u64(wl, p, "operations", 1);
	rp.instances = 2;
	rp.placement = placement;
	assert_int_equal(wl->check(p, &rp, err, sizeof(err)), 0);
	if (runner_check(&spec, err, sizeof(err)))
		fail_msg("%s", err);
	sample_init(s);
	assert_int_equal(runner_sample(&spec, 200 * MS, s), 0);
	if (s->status != SAMPLE_OK)
		fail_msg("sample %s: %s", sample_status_name(s->status), s->reason);
	assert_true(s->ops > 0);
	/* requests_per_s counts the request histograms, ops the task counters */
	assert_close(value_of(s, "requests_per_s") * s->real_s, (double)s->ops, 1e-6 * s->ops);
	p50 = value_of(s, "schbench_wakeup_p50_ns");
	p90 = value_of(s, "schbench_wakeup_p90_ns");
	p99 = value_of(s, "schbench_wakeup_p99_ns");
	p999 = value_of(s, "schbench_wakeup_p999_ns");
	assert_true(p50 > 0 && p50 <= p90 && p90 <= p99 && p99 <= p999);
	/* a request includes its 100 us sleep */
	assert_true(value_of(s, "schbench_request_p50_ns") >= 100000);
	print_message(
		"# %u x %u workers, placement %d: %llu requests, wakeup p50 %.0f p99 %.0f ns\n",
		mthreads, workers, placement, (unsigned long long)s->ops, p50, p99);
	free(s);
	free(p);
}

static void test_sample_any(void **state)
{
	(void)state;
	one_sample(PLACE_ANY, 1, 2);
}

static void test_sample_same_cpu(void **state)
{
	(void)state;
	one_sample(PLACE_SAME_CPU, 2, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),	cmocka_unit_test(test_layout),
		cmocka_unit_test(test_option_ranges),	cmocka_unit_test(test_check),
		cmocka_unit_test(test_merge),		cmocka_unit_test(test_sample_any),
		cmocka_unit_test(test_sample_same_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
