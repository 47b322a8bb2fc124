/*
 * t-results.c: the printers of render/results.c and the parameter handling of
 * cli/experiment.c on hand-made samples: stress-ng's --metrics-brief table
 * byte for byte against tests/golden/, the per-sample line, the summary
 * (usable samples only, outliers, unavailable counters, "n too small"),
 * JSON that parses back, and the profile resolution ("custom (based on
 * ...)" only when an explicit option changes a profile's value).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/experiment.h"
#include "engine/summary.h"
#include "render/results.h"

/* Render with a printer into a malloc'd string. */
static char *render_begin(FILE **f, char **buf, size_t *len)
{
	*f = open_memstream(buf, len);
	assert_non_null(*f);
	return NULL;
}

static char *render_end(FILE *f, char *buf)
{
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *read_golden(const char *name)
{
	const char *src = getenv("WAKEBENCH_SRC");
	char *path = xasprintf("%s/tests/golden/%s", src && *src ? src : ".", name), *data;
	size_t len;

	if (read_file(path, &data, &len))
		fail_msg("cannot read golden file '%s'", path);
	free(path);
	return data;
}

/*
 * Compare with tests/golden/NAME byte for byte; WAKEBENCH_UPDATE_GOLDEN=1
 * rewrites the file instead, so that a format change is a reviewed diff.
 */
static void check_golden(const char *name, const char *got)
{
	const char *src = getenv("WAKEBENCH_SRC"), *update = getenv("WAKEBENCH_UPDATE_GOLDEN");
	char *want;

	if (update && *update == '1') {
		char *path = xasprintf("%s/tests/golden/%s", src && *src ? src : ".", name);
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(got, f);
		assert_int_equal(fclose(f), 0);
		free(path);
		return;
	}
	want = read_golden(name);
	assert_string_equal(got, want);
	free(want);
}

static void make_sample(struct sample *s, double ops_per_s)
{
	sample_init(s);
	s->instances = 4;
	s->ops = (uint64_t)(ops_per_s * 5);
	s->real_s = 5.0;
	s->usr_s = 1.5;
	s->sys_s = 8.5;
	s->ops_per_s = ops_per_s;
	s->ops_per_cpu_s = (double)s->ops / 10.0;
	sample_put(s, "ctxsw_per_op", 0.5);
	sample_put(s, "nvcsw", 1000);
	sample_na(s, "perf_ctxsw_per_op", "perf_event_paranoid=2");
}

static void test_metrics_brief_golden_015(void **state)
{
	struct sample s;
	char *buf = NULL, *want;
	size_t len = 0;
	FILE *f;

	(void)state;
	sample_init(&s);
	s.instances = 4;
	s.ops = 57731375;
	s.real_s = 20.0;
	s.usr_s = 6.69;
	s.sys_s = 73.24;
	s.ops_per_s = 2886616.84;
	s.ops_per_cpu_s = 722246.62;
	sample_put(&s, "mb_per_s_geomean", 52.15);
	render_begin(&f, &buf, &len);
	report_metrics_brief(f, 4242, "pipe", &s, true);
	render_end(f, buf);
	want = read_golden("metrics-brief-0.15.txt");
	assert_string_equal(buf, want);
	free(want);
	free(buf);
}

static void test_metrics_brief_golden_021(void **state)
{
	struct sample s;
	char *buf = NULL, *want;
	size_t len = 0;
	FILE *f;

	(void)state;
	sample_init(&s);
	s.instances = 4;
	s.ops = 12345678901ULL; /* wider than the column: the row widens, as in stress-ng */
	s.real_s = 5.0;
	s.usr_s = 3.25;
	s.sys_s = 120.5;
	s.ops_per_s = 2469135780.2;
	s.ops_per_cpu_s = 99714368.13;
	/* no MB/s line for 0.21 even when the metric exists */
	sample_put(&s, "mb_per_s_geomean", 52.15);
	render_begin(&f, &buf, &len);
	report_metrics_brief(f, 4242, "pipe", &s, false);
	render_end(f, buf);
	want = read_golden("metrics-brief-0.21.txt");
	assert_string_equal(buf, want);
	free(want);
	free(buf);
}

static void test_sample_lines(void **state)
{
	struct sample s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	make_sample(&s, 316203.55);
	render_begin(&f, &buf, &len);
	report_sample_text(f, NULL, &s, 2, 5, "pipe");
	s.warmup = true;
	report_sample_text(f, "DELAY_DEQUEUE=off", &s, 0, 5, "pipe");
	s.warmup = false;
	sample_fail(&s, SAMPLE_FAILED, "reader of instance 1 died (signal 9)");
	report_sample_text(f, NULL, &s, 3, 5, "pipe");
	make_sample(&s, 1);
	sample_fail(&s, SAMPLE_INTERRUPTED, "interrupted by SIGINT");
	report_sample_text(f, NULL, &s, 4, 5, "pipe");
	render_end(f, buf);
	assert_non_null(
		strstr(buf, "sample 4/5: interrupted by SIGINT (excluded from statistics)"));
	/* the summary's name for the rate, four significant digits, counts exact, times in units */
	assert_non_null(strstr(buf, "sample 2/5: bogo ops/s (real time) 316 200  ops 1 581 017  "
				    "real 5 s  usr 1.5 s  sys 8.5 s"));
	assert_non_null(strstr(buf, "ctxsw/op 0.5"));
	assert_non_null(strstr(buf, "[DELAY_DEQUEUE=off] warm-up: bogo ops/s (real time) 316 200"));
	assert_non_null(strstr(buf, "(discarded)"));
	assert_non_null(strstr(buf, "sample 3/5: failed: reader of instance 1 died (signal 9) "
				    "(excluded from statistics)"));
	free(buf);
}

/* 1 warm-up, 7 measured of which one failed and one is a far outlier. */
static struct sample *make_run(size_t *n)
{
	static const double v[] = { 100, 101, 99, 102, 98, 100.5, 400 };
	struct sample *s = xcalloc(9, sizeof(*s));
	size_t i, k = 0;

	make_sample(&s[k], 50);
	s[k].warmup = true;
	s[k].index = (uint32_t)k;
	k++;
	for (i = 0; i < ARRAY_SIZE(v); i++, k++) {
		make_sample(&s[k], v[i]);
		s[k].index = (uint32_t)k;
		if (i == 2)
			sample_fail(&s[k], SAMPLE_FAILED, "instance 0 died");
	}
	*n = k;
	return s;
}

static void test_summary(void **state)
{
	const struct metric_summary *m;
	struct report_summary rs;
	struct sample *s;
	char *buf = NULL;
	size_t n, len = 0;
	FILE *f;

	(void)state;
	s = make_run(&n);
	assert_int_equal(report_summarize(s, n, NULL, &rs), 0);
	assert_int_equal(rs.nsamples, 6);
	assert_int_equal(rs.nwarmup, 1);
	assert_int_equal(rs.nfailed, 1);
	m = report_summary_get(&rs, "ops_per_s");
	assert_non_null(m);
	assert_true(m->available);
	assert_int_equal(m->sum.n, 6);
	/* warm-up (50) and the failed sample (99) are out: median of 98..102 and 400 */
	assert_true(m->sum.min == 98);
	assert_true(m->sum.max == 400);
	assert_true(m->sum.median == 100.75);
	/* 400 is flagged, as measured sample #7 (the warm-up is not numbered) */
	assert_int_equal(m->noutliers, 1);
	assert_int_equal(m->outliers[0], 7);
	assert_true(report_noisy(&rs));
	m = report_summary_get(&rs, "perf_ctxsw_per_op");
	assert_non_null(m);
	assert_false(m->available);
	assert_string_equal(m->why, "perf_event_paranoid=2");

	render_begin(&f, &buf, &len);
	report_summary_text(f, "A", &rs, "pingpong");
	render_end(f, buf);
	assert_non_null(
		strstr(buf, "[A] summary: 6 samples, 1 warm-up excluded, 1 failed excluded"));
	/* named as pingpong's sample lines name it */
	assert_non_null(strstr(buf, "round trips/s (real time)"));
	assert_non_null(strstr(buf, "round trips/s (usr+sys time)"));
	assert_non_null(strstr(buf, "#7"));
	assert_non_null(strstr(buf, "perf ctxsw/op"));
	assert_non_null(strstr(buf, "perf_event_paranoid=2"));
	assert_non_null(strstr(buf, "warning: noisy"));
	/* raw sums are not in the table */
	assert_null(strstr(buf, "voluntary ctxsw "));
	free(buf);
	report_summary_release(&rs);

	/* three usable samples: the CI of the median cannot be given */
	assert_int_equal(report_summarize(s, 4, NULL, &rs), 0);
	assert_int_equal(rs.nsamples, 2);
	render_begin(&f, &buf, &len);
	report_summary_text(f, NULL, &rs, "pipe");
	render_end(f, buf);
	assert_non_null(strstr(buf, "n too small"));
	free(buf);
	report_summary_release(&rs);
	free(s);
}

static void test_json(void **state)
{
	struct report_summary rs;
	struct sample *s;
	json_object *o, *back, *m, *e, *v;
	size_t n;

	(void)state;
	s = make_run(&n);
	s[1].real_s = 0.0 / 0.0; /* not finite: must become null, not NaN */
	o = report_sample_json(&s[1]);
	back = json_tokener_parse(json_object_to_json_string(o));
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "real_s", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(back, "metrics", &m));
	assert_true(json_object_object_get_ex(m, "perf_ctxsw_per_op", &e));
	assert_true(json_object_object_get_ex(e, "available", &v));
	assert_false(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(e, "why", &v));
	assert_string_equal(json_object_get_string(v), "perf_event_paranoid=2");
	json_object_put(back);
	json_object_put(o);

	s[1].real_s = 5.0;
	assert_int_equal(report_summarize(s, n, NULL, &rs), 0);
	o = report_summary_json(&rs);
	back = json_tokener_parse(json_object_to_json_string(o));
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "metrics", &m));
	assert_true(json_object_object_get_ex(m, "ops_per_s", &e));
	assert_true(json_object_object_get_ex(e, "n", &v));
	assert_int_equal(json_object_get_int(v), 6);
	assert_true(json_object_object_get_ex(e, "median_ci", &v));
	assert_non_null(v);
	json_object_put(back);
	json_object_put(o);
	report_summary_release(&rs);
	free(s);
}

/* The summary and a sample as people and tools see them, pinned by golden files. */
static void test_golden_summary(void **state)
{
	struct report_summary rs;
	struct sample *s;
	json_object *o;
	char *buf = NULL;
	size_t n, len = 0;
	FILE *f;

	(void)state;
	s = make_run(&n);
	for (size_t i = 0; i < n; i++) {
		s[i].start_realtime_ns = 1767225600000000000ULL + i * 1000000000ULL;
		s[i].duration_ns = 5000000000ULL;
		s[i].wall_ns = 5000123456ULL;
	}
	assert_int_equal(report_summarize(s, n, NULL, &rs), 0);
	render_begin(&f, &buf, &len);
	for (size_t i = 0, k = 0; i < n; i++)
		report_sample_text(f, NULL, &s[i], s[i].warmup ? 0 : (unsigned)++k, 7, "pipe");
	report_summary_text(f, NULL, &rs, "pipe");
	render_end(f, buf);
	check_golden("summary.txt", buf);
	free(buf);

	buf = NULL;
	render_begin(&f, &buf, &len);
	o = report_summary_json(&rs);
	json_print(f, o);
	json_object_put(o);
	o = report_sample_json(&s[3]);
	json_print(f, o);
	json_object_put(o);
	render_end(f, buf);
	check_golden("summary.json", buf);
	free(buf);
	report_summary_release(&rs);
	free(s);
}

/*
 * schbench's percentiles from 16-20 requests: p99 and p99.9 are each the
 * sample's largest value. The summary says so (text and JSON) instead of
 * printing p99 == p99.9 silently, and prints the latencies in ms.
 */
static void test_too_few_values(void **state)
{
	static const double count[] = { 20, 16, 18 };
	const struct metric_summary *m;
	struct report_summary rs;
	struct sample s[3];
	json_object *o, *e, *v;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	for (i = 0; i < 3; i++) {
		make_sample(&s[i], 200);
		s[i].index = (uint32_t)i;
		sample_put(&s[i], "schbench_wakeup_p50_ns", 4559);
		sample_put(&s[i], "schbench_wakeup_p90_ns", 3940351);
		sample_put(&s[i], "schbench_wakeup_p99_ns", 38043673 + 1000 * (double)i);
		sample_put(&s[i], "schbench_wakeup_p999_ns", 38043673 + 1000 * (double)i);
		sample_put(&s[i], "schbench_wakeup_count", count[i]);
	}
	assert_int_equal(report_summarize(s, 3, "schbench_wakeup_p99_ns", &rs), 0);
	m = report_summary_get(&rs, "schbench_wakeup_p99_ns");
	assert_true(m->too_few_values);
	assert_int_equal(m->fewest_values, 16);
	assert_int_equal(m->values_needed, 100);
	m = report_summary_get(&rs, "schbench_wakeup_p999_ns");
	assert_true(m->too_few_values);
	assert_int_equal(m->values_needed, 1000);
	m = report_summary_get(&rs, "schbench_wakeup_p90_ns"); /* 10 needed: 16 are enough */
	assert_false(m->too_few_values);
	assert_int_equal(m->values_needed, 10);
	m = report_summary_get(&rs, "ops_per_s"); /* not a percentile */
	assert_int_equal(m->values_needed, 0);
	assert_false(m->too_few_values);

	render_begin(&f, &buf, &len);
	report_sample_text(f, NULL, &s[0], 1, 3, "schbench");
	report_summary_text(f, NULL, &rs, "schbench");
	render_end(f, buf);
	assert_non_null(strstr(buf,
			       "sample 1/3: worker wakeup p99 38.04 ms  requests/s (real time) "
			       "200  ops 1 000"));
	assert_non_null(strstr(buf, "warning: worker wakeup p99 (needs 100 values), worker wakeup "
				    "p99.9 (needs 1000 values) rest on as few as 16 values in a "
				    "sample (worker wakeups measured)"));
	assert_null(strstr(buf, "p90 (needs"));
	assert_null(strstr(buf, " ns ")); /* ns values are shown in a unit that fits them */
	assert_non_null(strstr(buf, "4.559 us"));
	free(buf);

	o = report_summary_json(&rs);
	assert_true(json_object_object_get_ex(o, "metrics", &e));
	assert_true(json_object_object_get_ex(e, "schbench_wakeup_p99_ns", &e));
	assert_true(json_object_object_get_ex(e, "too_few_values", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(e, "fewest_values", &v));
	assert_int_equal(json_object_get_int(v), 16);
	assert_true(json_object_object_get_ex(e, "values_needed", &v));
	assert_int_equal(json_object_get_int(v), 100);
	json_object_put(o);
	report_summary_release(&rs);

	/* 150 values: p99 is a percentile now, p99.9 still is not */
	for (i = 0; i < 3; i++)
		sample_put(&s[i], "schbench_wakeup_count", 150 + (double)i);
	assert_int_equal(report_summarize(s, 3, "schbench_wakeup_p99_ns", &rs), 0);
	assert_false(report_summary_get(&rs, "schbench_wakeup_p99_ns")->too_few_values);
	assert_true(report_summary_get(&rs, "schbench_wakeup_p999_ns")->too_few_values);
	buf = NULL;
	render_begin(&f, &buf, &len);
	report_summary_text(f, NULL, &rs, "schbench");
	render_end(f, buf);
	assert_non_null(strstr(buf, "warning: worker wakeup p99.9 (needs 1000 values) rests on as "
				    "few as 150 values"));
	free(buf);
	report_summary_release(&rs);

	/* a store from before the counts: nothing known, nothing claimed */
	for (i = 0; i < 3; i++) {
		make_sample(&s[i], 200);
		sample_put(&s[i], "schbench_wakeup_p99_ns", 38043673);
	}
	assert_int_equal(report_summarize(s, 3, "schbench_wakeup_p99_ns", &rs), 0);
	m = report_summary_get(&rs, "schbench_wakeup_p99_ns");
	assert_false(m->too_few_values);
	assert_int_equal(m->fewest_values, 0);
	report_summary_release(&rs);
}

/* A small workload description to exercise profile resolution. */
struct tparams {
	uint64_t size;
	uint64_t window_ns;
	bool packet;
	int mode;
};

static const char *const tmodes[] = { "a", "b", NULL };
static const struct opt topts[] = {
	{ .type = OPT_SIZE,
	  .long_name = "data-size",
	  .offset = offsetof(struct tparams, size),
	  .min = 8,
	  .max = 4096 },
	{ .type = OPT_DURATION,
	  .long_name = "window",
	  .offset = offsetof(struct tparams, window_ns) },
	{ .type = OPT_FLAG, .long_name = "packet", .offset = offsetof(struct tparams, packet) },
	{ .type = OPT_CHOICE,
	  .long_name = "mode",
	  .offset = offsetof(struct tparams, mode),
	  .choices = tmodes },
	OPT_END_ROW,
};
static const struct tparams tdefaults = { .size = 4096, .window_ns = 1000000000ULL };
static const struct tparams tprof1 = { .size = 512, .window_ns = 1000000000ULL };
static const struct tparams tprof2 = { .size = 4096, .window_ns = 1000000000ULL, .mode = 1 };
static const struct profile tprofiles[] = {
	{ .name = "ref-1", .summary = "the first reference", .params = &tprof1 },
	{ .name = "ref-2", .summary = "the second reference", .params = &tprof2 },
	{ .name = NULL },
};
static const struct workload twl = {
	.name = "twl",
	.params_size = sizeof(struct tparams),
	.defaults = &tdefaults,
	.opts = topts,
	.profiles = tprofiles,
	.default_profile = "ref-1",
};

static void resolve(const char **args, int nargs, struct tparams *out, char *label, size_t len,
		    const char **base)
{
	struct tparams parsed = tdefaults;
	struct experiment_opts eo;
	struct opt_group g[2];
	struct opts_result res;

	g[0] = (struct opt_group){ .title = "t", .opts = topts, .base = &parsed };
	g[1] = experiment_opts_group(&eo, &twl);
	assert_int_equal(opts_parse("test", g, 2, nargs, args, 0, &res), 0);
	experiment_resolve(&twl, &eo, &g[0], out, label, len, base);
	opts_result_release(&res);
}

static void test_resolve(void **state)
{
	static const char *none[] = { NULL };
	static const char *same[] = { "--data-size", "512" };
	static const char *custom[] = { "--data-size", "1k" };
	static const char *prof2[] = { "--profile", "ref-2", "--window", "2s" };
	struct tparams p;
	const char *base;
	char label[128];

	(void)state;
	resolve(none, 0, &p, label, sizeof(label), &base);
	assert_string_equal(label, "ref-1");
	assert_string_equal(base, "ref-1");
	assert_int_equal(p.size, 512);

	/* an explicit value equal to the profile's leaves the profile intact */
	resolve(same, 2, &p, label, sizeof(label), &base);
	assert_string_equal(label, "ref-1");

	resolve(custom, 2, &p, label, sizeof(label), &base);
	assert_string_equal(label, "custom (based on ref-1)");
	assert_int_equal(p.size, 1024);

	resolve(prof2, 4, &p, label, sizeof(label), &base);
	assert_string_equal(label, "custom (based on ref-2)");
	assert_int_equal(p.mode, 1);
	assert_int_equal(p.window_ns, 2000000000ULL);
}

static void test_params_json(void **state)
{
	struct tparams p = tprof2;
	struct opt_group g = { .title = "t", .opts = topts, .base = &p };
	json_object *o, *v;

	(void)state;
	o = experiment_params_json(&g, 1);
	assert_true(json_object_object_get_ex(o, "data_size_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 4096);
	assert_true(json_object_object_get_ex(o, "window_ns", &v));
	assert_int_equal(json_object_get_int64(v), 1000000000LL);
	assert_true(json_object_object_get_ex(o, "mode", &v));
	assert_string_equal(json_object_get_string(v), "b");
	assert_true(json_object_object_get_ex(o, "packet", &v));
	assert_false(json_object_get_boolean(v));
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_brief_golden_015),
		cmocka_unit_test(test_metrics_brief_golden_021),
		cmocka_unit_test(test_sample_lines),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_golden_summary),
		cmocka_unit_test(test_too_few_values),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_params_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
