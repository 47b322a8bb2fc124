/*
 * t-engine-compare.c: compare's engine (engine/compare.c) on stores made
 * here with the store API, boots set by their stored boot id:
 *   - a kernel 30% slower over 4 boots against 4: a regression, boots as units;
 *   - the same kernel booted 2 + 2 times under two labels, boots 6% apart and
 *     samples 0.3% apart (an A/A): the change and the evidence counter's
 *     change both keep 0 inside their interval, as boots-as-units must,
 *     where samples as units would exclude it; not decided;
 *   - two labels in the very same boots: experiments as units;
 *   - the two arms of one ab grouped by its feature: its paired result, the
 *     numbers ab_load() gives, seen from the baseline's side;
 *   - posted results (kind "external") beside measured ones: marked, their
 *     runs one unit whatever the number of their experiments, one posted
 *     run without a verdict (the baseline's too), keys the posted side lacks
 *     unknown rather than different, never pooled with measured results of
 *     the same value;
 *   - a --by, --baseline or feature name that names nothing: EXIT_USAGE.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "engine/ab.h"
#include "engine/compare.h"

static char dir[] = "/tmp/t-engine-compare.XXXXXX";
static char db[64];
static int ndb;

static void new_store(void)
{
	snprintf(db, sizeof(db), "%s/%d.db", dir, ndb++);
}

/*
 * One experiment of n samples: ops_per_s = ops times a tiny ripple, and
 * ctxsw_per_op = ctxsw likewise; its boot id is `boot`.
 */
static int64_t experiment(const char *kernel, const char *label, const char *boot, int n,
			  double ops, double ctxsw)
{
	struct experiment_info info = {
		.kind = "run",
		.workload = "pipe",
		.profile = "stress-ng-0.15",
		.params_json = "{}",
		.cmdline = "t-engine-compare",
		.label = label,
		.host = "host",
		.kernel = kernel,
	};
	struct store *st;
	struct sample s;
	int64_t id, cfg;
	sqlite3 *q;
	char sql[256];
	int i;

	assert_int_equal(store_open(db, STORE_CREATE, &st), 0);
	assert_int_equal(store_begin_experiment(st, &info, &id), 0);
	assert_int_equal(store_add_config(st, id, "default", "DELAY_DEQUEUE", &cfg), 0);
	assert_int_equal(
		store_add_env_entry(st, id, "start", "kernel.release", kernel, IMPACT_STRONG), 0);
	for (i = 0; i < n; i++) {
		double ripple = 1 + 0.003 * ((i * 7) % 5 - 2) / 2;

		sample_init(&s);
		s.index = (uint32_t)i;
		s.real_s = 1;
		s.ops_per_s = ops * ripple;
		s.ops = (uint64_t)s.ops_per_s;
		sample_put(&s, "ctxsw_per_op", ctxsw * ripple);
		assert_int_equal(store_add_sample(st, id, cfg, &s), 0);
	}
	assert_int_equal(store_end_experiment(st, id, "complete"), 0);
	store_close(st);
	assert_int_equal(sqlite3_open(db, &q), SQLITE_OK);
	snprintf(sql, sizeof(sql), "UPDATE experiments SET owner_boot_id = '%s' WHERE id = %lld",
		 boot, (long long)id);
	assert_int_equal(sqlite3_exec(q, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(q);
	return id;
}

static int build(struct compare *c, const char *by, const char *baseline)
{
	struct compare_request rq = { .by = by, .baseline = baseline, .debugfs = "/nonexistent" };
	struct store *st;
	int ret;

	memset(c, 0, sizeof(*c));
	assert_int_equal(store_open(db, STORE_READONLY, &st), 0);
	ret = compare_build(c, st, &rq);
	c->st = NULL;
	store_close(st);
	return ret;
}

static const struct group *group(const struct compare *c, const char *value)
{
	size_t i;

	for (i = 0; i < c->ngroups; i++)
		if (!strcmp(c->groups[i].value, value))
			return &c->groups[i];
	fail_msg("no group '%s'", value);
	return NULL;
}

static void test_kernels_boots(void **state)
{
	static const double fast[4] = { 2.00e6, 2.17e6, 1.85e6, 2.08e6 };
	struct compare c;
	const struct group *g;
	char boot[32];
	int i;

	(void)state;
	new_store();
	for (i = 0; i < 4; i++) {
		snprintf(boot, sizeof(boot), "a%d", i);
		experiment("6.1.0", NULL, boot, 8, fast[i], 0.5);
		snprintf(boot, sizeof(boot), "b%d", i);
		experiment("7.0", NULL, boot, 8, fast[i] * 0.7, 0.5);
	}
	assert_int_equal(build(&c, "kernel", NULL), EXIT_OK);
	assert_int_equal(c.ngroups, 2);
	assert_true(c.groups[0].baseline);
	assert_string_equal(c.groups[0].value, "6.1.0");
	g = group(&c, "7.0");
	assert_int_equal(g->unit, UNIT_BOOT);
	assert_int_equal(g->nboots, 4);
	assert_int_equal(g->verdict, VERDICT_REGRESSION);
	assert_true(fabs(g->eff.est + 0.3) < 0.01);
	compare_release(&c);
}

/* The A/A of one kernel booted 2 + 2 times: nothing is claimed, evidence included. */
static void test_aa_boots(void **state)
{
	struct compare c;
	const struct group *g;
	char line[1024];

	(void)state;
	new_store();
	experiment("6.1.0", "A", "boot1", 10, 2.00e6, 0.50);
	experiment("6.1.0", "A", "boot2", 10, 2.12e6, 0.52);
	experiment("6.1.0", "B", "boot3", 10, 2.06e6, 0.53);
	experiment("6.1.0", "B", "boot4", 10, 2.15e6, 0.515);
	assert_int_equal(build(&c, "label", "A"), EXIT_OK);
	g = group(&c, "B");
	assert_int_equal(g->unit, UNIT_BOOT);
	assert_true(g->eff.valid);
	assert_true(g->eff.lo < 0 && g->eff.hi > 0);
	assert_false(stats_verdict_decided(g->verdict));
	assert_int_equal(g->nevc, 1);
	assert_string_equal(g->evc[0].name, "ctxsw_per_op");
	assert_true(g->evc[0].e.valid);
	/* samples as units this would exclude 0 (+2.0%, ripples of 0.3%) */
	assert_true(g->evc[0].e.lo < 0 && g->evc[0].e.hi > 0);
	compare_inference_text(&c, g, line, sizeof(line));
	assert_non_null(strstr(line, "2 boots vs 2"));
	compare_release(&c);
}

static void test_same_boots(void **state)
{
	struct compare c;
	const struct group *g;

	(void)state;
	new_store();
	experiment("6.1.0", "A", "boot1", 8, 2.0e6, 0.5);
	experiment("6.1.0", "B", "boot1", 8, 2.0e6 * 1.2, 0.5);
	experiment("6.1.0", "A", "boot1", 8, 2.02e6, 0.5);
	experiment("6.1.0", "B", "boot1", 8, 2.02e6 * 1.2, 0.5);
	assert_int_equal(build(&c, "label", "A"), EXIT_OK);
	g = group(&c, "B");
	assert_int_equal(g->unit, UNIT_EXPERIMENT);
	assert_int_equal(g->nevc, 1);
	compare_release(&c);
}

/* An ab's two arms, stored as ab stores them, grouped by its feature. */
static void test_ab_arms(void **state)
{
	struct experiment_info info = {
		.kind = "ab",
		.workload = "pipe",
		.params_json = "{\"feature\":[\"NO_DELAY_DEQUEUE\"],\"margin\":0.02,\"samples\":12,"
			       "\"until_decided\":false}",
		.cmdline = "t-engine-compare",
		.host = "host",
		.kernel = "6.18",
	};
	struct store *st;
	struct store_experiment *e;
	struct ab_stored ab;
	struct compare c;
	const struct group *g;
	struct sample s;
	int64_t id, cfg[2];
	size_t n;
	char why[256];
	int u, k;

	(void)state;
	new_store();
	assert_int_equal(store_open(db, STORE_CREATE, &st), 0);
	assert_int_equal(store_begin_experiment(st, &info, &id), 0);
	assert_int_equal(store_add_config(st, id, "DELAY_DEQUEUE=on", "DELAY_DEQUEUE", &cfg[0]), 0);
	assert_int_equal(store_add_config(st, id, "DELAY_DEQUEUE=off", "NO_DELAY_DEQUEUE", &cfg[1]),
			 0);
	for (u = 0; u < 12; u++)
		for (k = 0; k < 2; k++) {
			int arm = (u % 2) ^ k;

			sample_init(&s);
			s.index = (uint32_t)(2 * u + k);
			s.real_s = 1;
			/* B 10% faster; a drift common to both arms of a pair */
			s.ops_per_s = 1e6 * (1 + 0.02 * (u % 3)) * (arm ? 1.1 : 1.0) *
				      (1 + 0.001 * ((u * 5 + k) % 3));
			sample_put(&s, "ctxsw_per_op", arm ? 0.4 : 0.5);
			assert_int_equal(store_add_sample(st, id, cfg[arm], &s), 0);
		}
	assert_int_equal(store_end_experiment(st, id, "complete"), 0);
	assert_int_equal(store_list_experiments(st, &(struct store_filter){ .exp_id = id }, &e, &n),
			 0);
	assert_int_equal(ab_load(st, e, &ab, why, sizeof(why)), 0);
	store_experiments_free(e, n);
	store_close(st);

	assert_int_equal(build(&c, "feature:DELAY_DEQUEUE", NULL), EXIT_OK);
	assert_string_equal(c.groups[0].value, "DELAY_DEQUEUE");
	g = group(&c, "NO_DELAY_DEQUEUE");
	assert_int_equal(g->unit, UNIT_PAIR);
	assert_memory_equal(&g->eff.est, &ab.r.eff[0].s.e.est, sizeof(double));
	assert_memory_equal(&g->eff.lo, &ab.r.eff[0].s.e.lo, sizeof(double));
	assert_memory_equal(&g->eff.p, &ab.r.eff[0].s.e.p, sizeof(double));
	assert_int_equal(g->verdict, VERDICT_IMPROVEMENT);
	compare_release(&c);

	/* from the other side: A vs B, the inverse, a regression */
	assert_int_equal(build(&c, "feature:DELAY_DEQUEUE", "NO_DELAY_DEQUEUE"), EXIT_OK);
	g = group(&c, "DELAY_DEQUEUE");
	assert_int_equal(g->unit, UNIT_PAIR);
	assert_true(fabs((1 + g->eff.est) * (1 + ab.r.eff[0].s.e.est) - 1) < 1e-12);
	assert_true(fabs((1 + g->eff.lo) * (1 + ab.r.eff[0].s.e.hi) - 1) < 1e-12);
	assert_int_equal(g->verdict, VERDICT_REGRESSION);
	compare_release(&c);
	ab_stored_release(&ab);
}

/* A posted result of stress-ng 0.21.00: kind external, n runs, no boot id, its provenance. */
static int64_t posted(const char *kernel, const char *label, int n, double ops)
{
	struct experiment_info info = {
		.kind = "external",
		.workload = "pipe",
		.profile = "stress-ng-0.15",
		.params_json = "{}",
		.cmdline = "stress-ng --pipe 4 --timeout 20s --metrics-brief",
		.label = label,
		.host = "posted",
		.kernel = kernel,
	};
	static const char *const keys[][2] = {
		{ "external.tool", "stress-ng" },
		{ "external.version", "0.21.00" },
		{ "external.format", "stress-ng-metrics-brief" },
		{ "external.source", "paste.txt lines 1-9" },
	};
	struct store *st;
	struct sample s;
	int64_t id, cfg;
	size_t k;
	int i;

	assert_int_equal(store_open(db, STORE_CREATE, &st), 0);
	assert_int_equal(store_begin_experiment(st, &info, &id), 0);
	assert_int_equal(store_add_config(st, id, "default", NULL, &cfg), 0);
	for (k = 0; k < 4; k++)
		assert_int_equal(
			store_add_env_entry(st, id, "start", keys[k][0], keys[k][1], IMPACT_WEAK),
			0);
	assert_int_equal(
		store_add_env_entry(st, id, "start", "kernel.release", kernel, IMPACT_STRONG), 0);
	for (i = 0; i < n; i++) {
		sample_init(&s);
		s.index = (uint32_t)i;
		s.real_s = 20;
		s.ops_per_s = ops * (1 + 0.002 * (i % 3));
		s.ops = (uint64_t)(s.ops_per_s * 20);
		assert_int_equal(store_add_sample(st, id, cfg, &s), 0);
	}
	assert_int_equal(store_end_experiment(st, id, "complete"), 0);
	store_close(st);
	return id;
}

static void add_env(int64_t id, const char *key, const char *value)
{
	struct store *st;

	assert_int_equal(store_open(db, STORE_CREATE, &st), 0);
	assert_int_equal(store_add_env_entry(st, id, "start", key, value, IMPACT_STRONG), 0);
	store_close(st);
}

static void test_posted(void **state)
{
	static const double fast[4] = { 2.00e6, 2.05e6, 1.98e6, 2.02e6 };
	struct compare c;
	const struct group *g;
	char line[1024], boot[32];
	size_t k;
	int i;

	(void)state;
	new_store();
	for (i = 0; i < 4; i++) {
		snprintf(boot, sizeof(boot), "m%d", i);
		add_env(experiment("6.6", "here", boot, 8, fast[i], 0.5), "kernel.preempt", "full");
	}
	posted("6.6", "one", 1, 1.9e6);
	posted("6.12", "many", 3, 1.4e6);
	posted("6.12", "many", 3, 1.4e6);
	assert_int_equal(build(&c, "label", "here"), EXIT_OK);
	g = group(&c, "here");
	assert_false(g->external);
	assert_int_equal(g->nexternal, 0);

	g = group(&c, "many");
	assert_true(g->external);
	assert_int_equal(g->ext.runs, 6);
	assert_int_equal(g->ext.nexps, 2);
	assert_int_equal(g->nboots, 1); /* two experiments without boot ids: one unit */
	assert_int_equal(g->unit, UNIT_BOOT);
	assert_int_equal(g->beff.level, EFFECT_LEVEL_BOOTS);
	assert_int_equal(g->verdict, VERDICT_REGRESSION);
	assert_string_equal(g->ext.note, "stress-ng 0.21.00, 6 runs, not measured here");
	assert_string_equal(g->ext.source, "paste.txt lines 1-9");
	compare_inference_text(&c, g, line, sizeof(line));
	assert_non_null(strstr(line, "count as one boot"));
	/* kernel.preempt: unknown, not different; external.*: provenance, not env */
	assert_int_equal(g->nunknown, 1);
	assert_string_equal(g->unknown[0].key, "kernel.preempt");
	for (k = 0; k < g->nenvd; k++) {
		assert_string_not_equal(g->envd[k].key, "kernel.preempt");
		assert_true(strncmp(g->envd[k].key, "external.", 9) != 0);
	}

	g = group(&c, "one");
	assert_true(g->external);
	assert_int_equal(g->verdict, VERDICT_INSUFFICIENT);
	assert_false(g->eff.valid);
	assert_true(fabs(g->point + 0.05) < 0.01);
	compare_verdict_text(&c, g, line, sizeof(line));
	assert_non_null(strstr(line, "no verdict: this group is one posted run (stress-ng 0.21.00, "
				     "1 run, not measured here)"));
	compare_release(&c);

	/* one posted run as the baseline: nothing against it is decided */
	assert_int_equal(build(&c, "label", "one"), EXIT_OK);
	g = group(&c, "many");
	assert_int_equal(g->verdict, VERDICT_INSUFFICIENT);
	compare_verdict_text(&c, g, line, sizeof(line));
	assert_non_null(strstr(line, "the baseline is one posted run"));
	compare_release(&c);

	/* by kernel: 6.6's measured and posted results are two groups, the measured the baseline */
	assert_int_equal(build(&c, "kernel", NULL), EXIT_OK);
	assert_int_equal(c.ngroups, 3);
	assert_false(c.groups[0].nexternal);
	assert_string_equal(c.groups[0].value, "6.6");
	assert_string_equal(c.groups[0].split, "source=measured");
	compare_release(&c);
}

static void test_bad_request(void **state)
{
	struct compare c;

	(void)state;
	new_store();
	experiment("6.1.0", NULL, "boot1", 6, 2e6, 0.5);
	assert_int_equal(build(&c, "colour", NULL), EXIT_USAGE);
	compare_release(&c);
	assert_int_equal(build(&c, "kernel", "9.9"), EXIT_USAGE);
	compare_release(&c);
	assert_int_equal(build(&c, "feature:NO_SUCH_FEATURE", NULL), EXIT_USAGE);
	compare_release(&c);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *const ext[] = { "", "-wal", "-shm", "-journal" };
	char path[96];
	size_t k;
	int i;

	(void)state;
	for (i = 0; i < ndb; i++)
		for (k = 0; k < sizeof(ext) / sizeof(ext[0]); k++) {
			snprintf(path, sizeof(path), "%s/%d.db%s", dir, i, ext[k]);
			unlink(path);
		}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels_boots), cmocka_unit_test(test_aa_boots),
		cmocka_unit_test(test_same_boots),    cmocka_unit_test(test_ab_arms),
		cmocka_unit_test(test_posted),	      cmocka_unit_test(test_bad_request),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
