/*
 * t-metrics.c: the metric registry (runner/metrics.c) and what reads it:
 * every definition complete and its name unique, every name that src/
 * puts into a sample registered, sample_put()/sample_na() taking their
 * direction from the registry (and refusing an unregistered name),
 * sample_get() and sample_value() on the fixed fields, and the direction
 * logic of ab's engine, compare's boot verdict and the summary driven by a
 * lower-is-better metric's definition: B 10% lower is an improvement, and
 * samples-to-decide and equivalence mirror the higher-is-better case; a
 * store of every older schema version reads unchanged, its primary ops/s.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "engine/summary.h"
#include "render/results.h"
#include "core/metrics.h"
#include "core/sample.h"
#include "stats/stats.h"
#include "store/store.h"
#include "store-legacy.h"
#include "workloads/workload.h"

/* The registry's lower-is-better per-op time and its higher-is-better rate. */
static const struct metric_def *lower_def(void)
{
	const struct metric_def *d = metric_def("ns_per_op");

	assert_non_null(d);
	assert_int_equal(d->better, BETTER_LOWER);
	return d;
}

static const struct metric_def *higher_def(void)
{
	const struct metric_def *d = metric_def("ops_per_s");

	assert_non_null(d);
	assert_int_equal(d->better, BETTER_HIGHER);
	return d;
}

static void test_definitions_complete_and_unique(void **state)
{
	const struct metric_def *d, *e;
	size_t i, j, n = 0;

	(void)state;
	for (i = 0; (d = metric_def_at(i)); i++, n++) {
		assert_non_null(d->name);
		assert_true(d->name[0]);
		assert_true(strlen(d->name) < METRIC_NAME_MAX);
		for (const char *c = d->name; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
				    *c == '_');
		assert_non_null(d->label);
		assert_true(d->label[0]);
		assert_non_null(d->unit); /* may be "" */
		assert_true(d->better == BETTER_HIGHER || d->better == BETTER_LOWER ||
			    d->better == BETTER_NEUTRAL);
		assert_true(d->agg >= AGG_SUM && d->agg <= AGG_FLAG);
		assert_non_null(d->source);
		assert_true(d->source[0]);
		assert_non_null(d->help);
		assert_true(d->help[0]);
		assert_int_equal(d->flags & ~(unsigned)(METRIC_EVIDENCE | METRIC_PER_OP |
							METRIC_RAW | METRIC_PRIMARY),
				 0);
		for (j = 0; j < i; j++) {
			e = metric_def_at(j);
			if (!strcmp(e->name, d->name))
				fail_msg("metric '%s' is defined twice (%zu and %zu)", d->name, j,
					 i);
		}
		/* the look-ups agree with the order */
		assert_ptr_equal(metric_def(d->name), d);
		assert_int_equal(metric_order(d->name), i);
	}
	assert_true(n >= 30); /* the common table alone has more */
	assert_null(metric_def_at(n));
	assert_null(metric_def("no_such_metric"));
	assert_int_equal(metric_order("no_such_metric"), n);
	{
		char t[64];

		assert_string_equal(metric_title_of("no_such_metric", NULL, t, sizeof(t)),
				    "no_such_metric");
		assert_string_equal(metric_title_of("ctxsw_per_op", NULL, t, sizeof(t)),
				    "ctxsw/op");
	}
}

/* Every workload names a registered primary metric (or none: ops_per_s). */
static void test_workload_primaries(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; workloads[i]; i++) {
		const struct workload *wl = workloads[i];
		const struct metric_def *p = metric_primary(wl->name), *d;

		assert_non_null(p);
		if (wl->primary)
			assert_string_equal(p->name, wl->primary);
		else
			assert_string_equal(p->name, "ops_per_s");
		assert_true(p->flags & METRIC_PRIMARY);
		/* a workload's own metrics are found by name */
		for (d = wl->metrics; d && d->name; d++)
			assert_ptr_equal(metric_def(d->name), d);
	}
	assert_string_equal(metric_primary("pipe")->name, "ops_per_s");
	assert_string_equal(metric_primary("pingpong")->name, "ops_per_s");
	/* a workload of a newer wakebench (an imported store): ops_per_s, which every sample has */
	assert_string_equal(metric_primary("no-such-workload")->name, "ops_per_s");
	assert_string_equal(metric_primary(NULL)->name, "ops_per_s");
}

static void test_units(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(metric_unit(higher_def(), "pipe", buf, sizeof(buf)), "ops/s");
	assert_string_equal(metric_unit(higher_def(), "pingpong", buf, sizeof(buf)),
			    "round trips/s");
	assert_string_equal(metric_unit(higher_def(), "unknown", buf, sizeof(buf)), "ops/s");
	assert_string_equal(metric_unit(lower_def(), "pingpong", buf, sizeof(buf)), "ns");
	/* one name per metric in every text: the label, a rate of ops naming the op */
	assert_string_equal(metric_title(higher_def(), "pingpong", buf, sizeof(buf)),
			    "round trips/s (real time)");
	assert_string_equal(metric_title(higher_def(), "pipe", buf, sizeof(buf)),
			    "bogo ops/s (real time)");
	assert_string_equal(
		metric_title(metric_def("ops_per_cpu_s"), "messaging", buf, sizeof(buf)),
		"messages/s (usr+sys time)");
	assert_string_equal(metric_title(higher_def(), "unknown", buf, sizeof(buf)),
			    "ops/s (real time)");
	/* a time's label has no unit: its values carry one */
	assert_string_equal(metric_title(lower_def(), "pipe", buf, sizeof(buf)), "time/op");
	assert_string_equal(metric_title_of("no_such_metric", "pipe", buf, sizeof(buf)),
			    "no_such_metric");
	/* messaging's two rates have two names: one name, one quantity */
	assert_string_not_equal(metric_title(higher_def(), "messaging", buf, sizeof(buf)),
				metric_def("messages_per_s")->label);
	/* what a percentile needs to be more than the largest value */
	assert_int_equal(metric_values_needed(metric_def("wakeup_lat_p99_ns")), 100);
	assert_int_equal(metric_values_needed(metric_def("wakeup_lat_p999_ns")), 1000);
	assert_int_equal(metric_values_needed(metric_def("schbench_request_p90_ns")), 10);
	assert_int_equal(metric_values_needed(metric_def("wakeup_lat_p50_ns")), 2);
	assert_int_equal(metric_values_needed(metric_def("wakeup_lat_max_ns")), 0);
	assert_int_equal(metric_values_needed(higher_def()), 0);
	assert_int_equal(metric_values_needed(NULL), 0);
	assert_string_equal(metric_better_name(BETTER_LOWER), "lower");
	assert_string_equal(metric_better_name(BETTER_HIGHER), "higher");
	assert_string_equal(metric_better_name(BETTER_NEUTRAL), "neutral");
}

static void test_put_takes_the_registry(void **state)
{
	struct sample s;
	const struct metric *m;
	double v;

	(void)state;
	sample_init(&s);
	sample_put(&s, "ctxsw_per_op", 2.5);
	m = sample_get(&s, "ctxsw_per_op");
	assert_non_null(m);
	assert_true(m->available);
	assert_close(m->value, 2.5, 0);
	assert_int_equal(m->better, BETTER_LOWER);
	assert_int_equal(m->flags, METRIC_EVIDENCE);
	/* registry-only kinds are not stored with the sample */
	sample_put(&s, "nvcsw", 7);
	m = sample_get(&s, "nvcsw");
	assert_int_equal(m->better, BETTER_NEUTRAL);
	assert_int_equal(m->flags, 0);
	sample_na(&s, "wakeup_lat_p99_ns", "unavailable (%s)", "no trace");
	m = sample_get(&s, "wakeup_lat_p99_ns");
	assert_false(m->available);
	assert_string_equal(m->why, "unavailable (no trace)");
	assert_int_equal(m->better, BETTER_LOWER);
	assert_int_equal(m->flags, METRIC_EVIDENCE);
	assert_false(sample_value(&s, "wakeup_lat_p99_ns", &v));
	/* overwrite in place */
	sample_put(&s, "wakeup_lat_p99_ns", 1234);
	assert_int_equal(s.nmetrics, 3);
	assert_true(sample_value(&s, "wakeup_lat_p99_ns", &v));
	assert_close(v, 1234, 0);
}

static void test_fixed_fields_by_name(void **state)
{
	struct sample s;
	const struct metric *a, *b;
	double v;

	(void)state;
	sample_init(&s);
	s.ops = 1000;
	s.real_s = 0.5;
	s.ops_per_s = 2000;
	s.ops_per_cpu_s = 4000;
	a = sample_get(&s, "ops_per_s");
	b = sample_get(&s, "real_s");
	/* two look-ups in one expression do not overwrite each other */
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a->available);
	assert_close(a->value, 2000, 0);
	assert_int_equal(a->better, BETTER_HIGHER);
	assert_close(b->value, 0.5, 0);
	assert_true(sample_value(&s, "ops", &v));
	assert_close(v, 1000, 0);
	assert_true(sample_value(&s, "ops_per_cpu_s", &v));
	assert_close(v, 4000, 0);
	assert_null(sample_get(&s, "ns_per_op"));
	assert_false(sample_value(&s, "ns_per_op", &v));
	/* fixed fields are written by name too, and are no named metric */
	sample_put(&s, "real_s", 2.0);
	assert_close(s.real_s, 2.0, 0);
	assert_int_equal(s.nmetrics, 0);
}

/* sample_put() of a name the registry does not know is a BUG(): the process aborts. */
static void test_unregistered_name_is_a_bug(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct sample s;

		/* the BUG line is expected: keep the test output clean */
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		sample_init(&s);
		sample_put(&s, "not_a_registered_metric", 1.0);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

/* ---- every literal name that src/ puts into a sample is registered ---- */

static size_t check_file(const char *path)
{
	static const char *const calls[] = { "sample_put(", "sample_na(" };
	FILE *f = fopen(path, "r");
	char *text, *p;
	size_t n = 0, len, k;
	struct stat st;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	text = calloc(1, (size_t)st.st_size + 1);
	assert_non_null(text);
	len = fread(text, 1, (size_t)st.st_size, f);
	text[len] = '\0';
	fclose(f);
	for (k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
		for (p = strstr(text, calls[k]); p; p = strstr(p + 1, calls[k])) {
			char name[METRIC_NAME_MAX + 1];
			const char *q = strchr(p, ','), *end;

			if (!q || q - p > 80)
				continue; /* a declaration or definition */
			q++;
			while (*q == ' ' || *q == '\t' || *q == '\n')
				q++;
			if (*q != '"')
				continue; /* a name from a table or a variable: the e2e covers it */
			end = strchr(q + 1, '"');
			assert_non_null(end);
			assert_true(end - q - 1 < (long)sizeof(name));
			memcpy(name, q + 1, (size_t)(end - q - 1));
			name[end - q - 1] = '\0';
			if (!metric_def(name))
				fail_msg("%s: %s\"%s\" ...): not in the metric registry", path,
					 calls[k], name);
			n++;
		}
	}
	free(text);
	return n;
}

static size_t check_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_int_equal(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode))
			n += check_dir(path);
		else if (len > 2 && !strcmp(de->d_name + len - 2, ".c"))
			n += check_file(path);
	}
	closedir(d);
	return n;
}

static void test_every_put_name_registered(void **state)
{
	const char *src = getenv("WAKEBENCH_SRC");
	char dir[4096];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/src", src && *src ? src : ".");
	if (access(dir, R_OK)) {
		skip(); /* run from make check, which sets WAKEBENCH_SRC */
		return;
	}
	/* probes.c and runner.c alone put more than ten names */
	assert_true(check_dir(dir) > 10);
}

/* ---- direction: consumers judge by the definition's `better` ---- */

/*
 * n ab pairs: A around 1000, B = A * ratio * noise, with a deterministic
 * noise of pair_noise so that the intervals are narrow but not empty.
 */
static double pair_noise = 0.003;

static void pairs(double *y, size_t n, double ratio)
{
	size_t u;

	for (u = 0; u < n; u++) {
		double a = 1000.0 * (1.0 + 0.004 * sin((double)u * 1.7));
		double r = ratio * (1.0 + pair_noise * cos((double)u * 2.3));

		y[2 * u] = a;
		y[2 * u + 1] = a * r;
	}
}

static void seq_effect(double ratio, int better, struct stats_seq_effect *x)
{
	double y[2 * 24], at, ao;

	stats_seq_levels(1, 1, &at, &ao);
	pairs(y, 24, ratio);
	assert_int_equal(
		stats_seq_effects(y, 24, 1, at, ao, stats_seq_vif(1), 0.02, better, 1000, x), 1);
	assert_true(x->e.valid);
}

static void test_ab_direction_lower_is_better(void **state)
{
	struct stats_seq_effect lo, hi;

	(void)state;
	/* B 10% lower on ns per op: an improvement; on ops/s a regression */
	seq_effect(0.9, lower_def()->better, &lo);
	seq_effect(0.9, higher_def()->better, &hi);
	assert_true(lo.e.est < -0.05);
	assert_int_equal(lo.v, VERDICT_IMPROVEMENT);
	assert_int_equal(hi.v, VERDICT_REGRESSION);
	/* B 10% higher on ns per op: a regression */
	seq_effect(1.0 / 0.9, lower_def()->better, &lo);
	assert_int_equal(lo.v, VERDICT_REGRESSION);
	/* within the margin: no change either way (equivalence does not depend on direction) */
	seq_effect(1.001, lower_def()->better, &lo);
	seq_effect(1.001, higher_def()->better, &hi);
	assert_int_equal(lo.v, VERDICT_NO_CHANGE);
	assert_int_equal(hi.v, VERDICT_NO_CHANGE);
	assert_true(lo.eq.valid);
	assert_close(lo.eq.lo, hi.eq.lo, 0);
	assert_close(lo.eq.hi, hi.eq.hi, 0);
}

/*
 * The same measurements judged as lower-is-better and as higher-is-better:
 * a decided verdict swaps (improvement <-> regression), no change and
 * inconclusive stay, and the intervals, the equivalence interval and the
 * samples-to-decide estimate are the same, whatever the direction.
 */
static enum verdict swapped(enum verdict v)
{
	return v == VERDICT_IMPROVEMENT	 ? VERDICT_REGRESSION
	       : v == VERDICT_REGRESSION ? VERDICT_IMPROVEMENT
					 : v;
}

static void test_ab_direction_mirror(void **state)
{
	static const double ratios[] = { 0.9, 0.97, 0.985, 0.999, 1.015, 1.02, 1.03, 1.1 };
	static const double noises[] = { 0.003, 0.04 };
	size_t i, k, undecided = 0, decided = 0, same = 0;

	(void)state;
	for (k = 0; k < sizeof(noises) / sizeof(noises[0]); k++) {
		pair_noise = noises[k];
		for (i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
			struct stats_seq_effect lo, hi;

			seq_effect(ratios[i], lower_def()->better, &lo);
			seq_effect(ratios[i], higher_def()->better, &hi);
			assert_int_equal(lo.v, swapped(hi.v));
			assert_int_equal(lo.to_decide, hi.to_decide);
			assert_int_equal(lo.beyond_budget, hi.beyond_budget);
			assert_close(lo.e.lo, hi.e.lo, 0);
			assert_close(lo.e.hi, hi.e.hi, 0);
			assert_int_equal(lo.eq.valid, hi.eq.valid);
			assert_close(lo.eq.lo, hi.eq.lo, 0);
			assert_close(lo.eq.hi, hi.eq.hi, 0);
			/* B lower is the improvement on ns per op, B higher on ops/s */
			if (lo.v == VERDICT_IMPROVEMENT)
				assert_true(lo.e.hi < 0);
			if (hi.v == VERDICT_IMPROVEMENT)
				assert_true(hi.e.lo > 0);
			undecided += lo.v == VERDICT_INCONCLUSIVE && lo.to_decide > 0;
			decided += lo.v == VERDICT_IMPROVEMENT || lo.v == VERDICT_REGRESSION;
			same += lo.v == VERDICT_NO_CHANGE;
		}
	}
	pair_noise = 0.003;
	/* the cases cover every kind: decided, no change, an estimate of units to decide */
	assert_true(undecided >= 1);
	assert_true(decided >= 2);
	assert_true(same >= 1);
}

/* The engine ab runs, fed unit by unit, stops decided in the right direction. */
static void test_ab_engine_lower_is_better(void **state)
{
	struct stats_seq_params p = { .nfeat = 1,
				      .margin = 0.02,
				      .better = lower_def()->better,
				      .until_decided = true,
				      .max_units = 64 };
	struct stats_seq s;
	double y[2 * 64];
	size_t u = 0;

	(void)state;
	pairs(y, 64, 0.9);
	stats_seq_init(&s, &p);
	while (stats_seq_wants_unit(&s)) {
		assert_true(u < 64);
		stats_seq_add_unit(&s, &y[2 * u++], 1000);
	}
	stats_seq_end(&s);
	assert_int_equal(s.stop, STATS_SEQ_DECIDED);
	assert_int_equal(s.eff[0].v, VERDICT_IMPROVEMENT);
	stats_seq_release(&s);
}

/* compare's verdict: boots as units, direction from the primary's definition. */
static void test_compare_direction_lower_is_better(void **state)
{
	double a[16], b[16];
	size_t ta[16], tb[16], i;
	struct boot_effect be;

	(void)state;
	for (i = 0; i < 16; i++) {
		double boot = 1.0 + 0.01 * (double)(i / 4) - 0.015;

		ta[i] = tb[i] = i / 4; /* four boots of four samples each */
		a[i] = 250.0 * boot * (1.0 + 0.002 * (double)(i % 4));
		b[i] = 0.9 * 250.0 * boot * (1.0 + 0.002 * (double)((i + 1) % 4));
	}
	assert_int_equal(stats_effect_boots(a, ta, 16, b, tb, 16, 0.95, &be), 0);
	assert_true(be.e.valid);
	assert_true(be.e.hi < -0.02);
	assert_int_equal(stats_boot_verdict(&be, 0.02, lower_def()->better), VERDICT_IMPROVEMENT);
	assert_int_equal(stats_boot_verdict(&be, 0.02, higher_def()->better), VERDICT_REGRESSION);
}

/* The summary puts the primary first and judges noise on it. */
static void test_summary_follows_the_primary(void **state)
{
	struct sample s[4];
	struct report_summary rs;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		sample_init(&s[i]);
		s[i].index = (uint32_t)i;
		s[i].ops = 1000;
		s[i].real_s = 1;
		s[i].ops_per_s = 1000; /* steady */
		s[i].ops_per_cpu_s = 2000;
		sample_put(&s[i], "ns_per_op", i % 2 ? 100 : 200); /* noisy */
	}
	assert_int_equal(report_summarize(s, 4, "ns_per_op", &rs), 0);
	assert_string_equal(rs.m[0].name, "ns_per_op");
	assert_int_equal(rs.m[0].better, BETTER_LOWER);
	assert_string_equal(rs.m[1].name, "ops_per_s");
	assert_true(report_noisy(&rs));
	report_summary_release(&rs);
	assert_int_equal(report_summarize(s, 4, NULL, &rs), 0);
	assert_string_equal(rs.m[0].name, "ops_per_s");
	assert_false(report_noisy(&rs));
	report_summary_release(&rs);
}

/* ---- stores of every older version: the primary of pipe is ops/s, read unchanged ---- */

struct legacy_walk {
	size_t ok, rows;
};

static int legacy_row(void *arg, const struct store_row *row)
{
	struct legacy_walk *w = arg;
	const struct metric_def *p = metric_primary(row->exp->workload);
	const struct metric *m;
	double v;

	w->rows++;
	assert_string_equal(row->exp->workload, "pipe");
	assert_string_equal(p->name, "ops_per_s");
	if (row->s->status != SAMPLE_OK)
		return 0;
	assert_true(sample_value(row->s, p->name, &v));
	assert_close(v, 200000.0, 0);
	/* the stored direction of a named metric is the registry's */
	m = sample_get(row->s, "ctxsw_per_op");
	assert_non_null(m);
	assert_int_equal(m->better, metric_def("ctxsw_per_op")->better);
	w->ok++;
	return 0;
}

static void test_legacy_stores_read_unchanged(void **state)
{
	char dir[] = "/tmp/t-metrics.XXXXXX";
	int v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (v = 1; v <= store_schema_version(); v++) {
		char *path = xasprintf("%s/legacy-v%d.db", dir, v);
		struct legacy_walk w = { 0 };
		struct store *st;

		assert_int_equal(store_create_legacy(path, v), 0);
		assert_int_equal(store_open(path, STORE_READONLY, &st), 0);
		assert_int_equal(store_foreach_sample(st, NULL, 0, legacy_row, &w), 0);
		assert_int_equal(w.rows, 2);
		assert_int_equal(w.ok, 1);
		store_close(st);
		unlink(path);
		free(path);
	}
	rmdir(dir);
}

/* Why a metric is missing reads one way, however the probe worded it. */
static void test_why_text(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(metric_why_text("perf_event_paranoid=2", buf, sizeof(buf)),
			    "unavailable (perf_event_paranoid=2)");
	assert_string_equal(metric_why_text("unavailable (no task was counted)", buf, sizeof(buf)),
			    "unavailable (no task was counted)");
	assert_string_equal(metric_why_text("unavailable (a) and (b", buf, sizeof(buf)),
			    "unavailable (unavailable (a) and (b)");
	assert_string_equal(metric_why_text("", buf, sizeof(buf)), "unavailable");
	assert_string_equal(metric_why_text(NULL, buf, sizeof(buf)), "unavailable");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_definitions_complete_and_unique),
		cmocka_unit_test(test_workload_primaries),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_put_takes_the_registry),
		cmocka_unit_test(test_fixed_fields_by_name),
		cmocka_unit_test(test_unregistered_name_is_a_bug),
		cmocka_unit_test(test_every_put_name_registered),
		cmocka_unit_test(test_ab_direction_lower_is_better),
		cmocka_unit_test(test_ab_direction_mirror),
		cmocka_unit_test(test_ab_engine_lower_is_better),
		cmocka_unit_test(test_compare_direction_lower_is_better),
		cmocka_unit_test(test_summary_follows_the_primary),
		cmocka_unit_test(test_legacy_stores_read_unchanged),
		cmocka_unit_test(test_why_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
