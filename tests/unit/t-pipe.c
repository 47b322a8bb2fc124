/*
 * t-pipe.c: the pipe workload's descriptor, profiles and checks, and short
 * samples with its options (custom pipe size, no packet mode), set through
 * the same option table that parses them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner.h"
#include "util/util.h"
#include "workloads/workload.h"

#define MS 1000000ULL

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
	memcpy((char *)params + o->offset, &v, sizeof(v));
}

static void set_flag(const struct workload *wl, void *params, const char *name, bool v)
{
	const struct opt *o = opts_find(wl->opts, name);

	assert_non_null(o);
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

static uint64_t get_variant_tasks(const struct workload *wl, const struct profile *p)
{
	return wl->tasks(p->params);
}

static void test_descriptor(void **state)
{
	const struct workload *wl = workload_find("pipe");
	const struct profile *p15;

	(void)state;
	assert_non_null(wl);
	assert_string_equal(wl->default_profile, "stress-ng-0.15");
	assert_int_equal(wl->tasks(wl->defaults), 2);
	assert_string_equal(wl->primary, "ops_per_s");
	assert_string_equal(wl->roles[0], "writer");
	assert_string_equal(wl->roles[1], "reader");
	assert_string_equal(wl->roles[2], "parent");
	assert_null(wl->roles[3]);
	p15 = workload_profile(wl, "stress-ng-0.15");
	assert_non_null(p15);
	assert_null(workload_profile(wl, "stress-ng-0.21")); /* renamed stress-ng-0.16 */
	assert_null(workload_profile(wl, "stress-ng-0.99"));
	/* The defaults are the default profile. */
	assert_memory_equal(wl->defaults, p15->params, wl->params_size);
	assert_null(opts_find(wl->opts, "profile")); /* resolved by the command */
}

/* Each profile: its name, the releases it covers, its parameters, its tasks. */
static void test_profiles(void **state)
{
	static const struct {
		const char *name, *first, *last;
		uint64_t data_size;
		unsigned tasks;
	} want[] = {
		{ "stress-ng-0.15", "0.15.00", "0.15.06", 512, 2 },
		{ "stress-ng-0.15.07", "0.15.07", "0.15.10", 512, 2 },
		{ "stress-ng-0.16", "0.16.00", "0.21.01", 4096, 2 },
		{ "stress-ng-0.21.02", "0.21.02", "0.22.00", 4096, 3 },
	};
	const struct workload *wl = workload_find("pipe");
	const struct profile *p;
	size_t i, n = 0;

	(void)state;
	for (p = wl->profiles; p->name; p++)
		n++;
	assert_int_equal(n, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		p = &wl->profiles[i];
		assert_string_equal(p->name, want[i].name);
		assert_string_equal(p->tool, "stress-ng");
		assert_string_equal(p->first, want[i].first);
		assert_string_equal(p->last, want[i].last);
		/* `list` shows the range: it opens the summary */
		assert_non_null(strstr(p->summary, want[i].first));
		assert_non_null(strstr(p->summary, want[i].last));
		assert_int_equal(get_u64(wl, p->params, "data-size"), want[i].data_size);
		assert_int_equal(get_u64(wl, p->params, "pipe-size"), 0);
		assert_int_equal(get_variant_tasks(wl, p), want[i].tasks);
		/* every pair of profiles differs in something */
		if (i)
			assert_memory_not_equal(p->params, wl->profiles[i - 1].params,
						wl->params_size);
	}
}

/* 0.21.02's tasks: the idle instance process, the reader forked first, then the writer. */
static void test_layout_0_21_02(void **state)
{
	const struct workload *wl = workload_find("pipe");
	const struct profile *p = workload_profile(wl, "stress-ng-0.21.02");
	const struct profile *p16 = workload_profile(wl, "stress-ng-0.16");
	unsigned g, r;

	(void)state;
	wl->layout(p->params, 0, &g, &r);
	assert_string_equal(wl->roles[r], "parent");
	wl->layout(p->params, 1, &g, &r);
	assert_string_equal(wl->roles[r], "reader");
	wl->layout(p->params, 2, &g, &r);
	assert_string_equal(wl->roles[r], "writer");
	assert_int_equal(g, 0);
	wl->layout(p16->params, 0, &g, &r);
	assert_string_equal(wl->roles[r], "writer");
	wl->layout(p16->params, 1, &g, &r);
	assert_string_equal(wl->roles[r], "reader");
}

/* --profile stress-ng-X.Y.Z names the profile that covers that release. */
static void test_profile_versions(void **state)
{
	static const struct {
		const char *asked, *profile, *release;
	} map[] = {
		{ "stress-ng-0.15", "stress-ng-0.15", NULL },
		{ "stress-ng-0.15.00", "stress-ng-0.15", "0.15.00" },
		{ "stress-ng-0.15.06", "stress-ng-0.15", "0.15.06" },
		{ "stress-ng-0.15.07", "stress-ng-0.15.07", NULL },
		{ "stress-ng-0.15.08", "stress-ng-0.15.07", "0.15.08" },
		{ "stress-ng-0.15.10", "stress-ng-0.15.07", "0.15.10" },
		{ "stress-ng-0.16", "stress-ng-0.16", NULL },
		{ "stress-ng-0.16.00", "stress-ng-0.16", "0.16.00" },
		{ "stress-ng-0.18.12", "stress-ng-0.16", "0.18.12" },
		{ "stress-ng-0.21", "stress-ng-0.16", "0.21" }, /* the old name: 0.21.00 */
		{ "stress-ng-0.21.00", "stress-ng-0.16", "0.21.00" },
		{ "stress-ng-0.21.01", "stress-ng-0.16", "0.21.01" },
		{ "stress-ng-0.21.02", "stress-ng-0.21.02", NULL },
		{ "stress-ng-0.21.04", "stress-ng-0.21.02", "0.21.04" },
		{ "stress-ng-0.22", "stress-ng-0.21.02", "0.22" },
		{ "stress-ng-0.22.00", "stress-ng-0.21.02", "0.22.00" },
	};
	const struct workload *wl = workload_find("pipe");
	const struct profile *p;
	const char *v;
	char range[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		p = workload_profile_resolve(wl, map[i].asked, &v);
		assert_non_null(p);
		assert_string_equal(p->name, map[i].profile);
		if (map[i].release)
			assert_string_equal(v, map[i].release);
		else
			assert_null(v);
		if (map[i].release)
			assert_ptr_equal(workload_profile_for(wl, "stress-ng", map[i].release), p);
	}
	assert_null(workload_profile_resolve(wl, "stress-ng-0.14.06", &v));
	assert_null(workload_profile_resolve(wl, "stress-ng-0.22.01", &v));
	assert_null(workload_profile_resolve(wl, "stress-ng-0.99", &v));
	assert_null(workload_profile_resolve(wl, "stress-ng-", &v));
	assert_null(workload_profile_resolve(wl, "stress-ng-x", &v));
	assert_null(workload_profile_resolve(wl, "perf-0.16", &v));
	assert_null(workload_profile_for(wl, "perf", "6.1"));
	assert_null(workload_profile_for(wl, "stress-ng", NULL));
	workload_tool_range(wl, "stress-ng", range, sizeof(range));
	assert_string_equal(range, "0.15.00..0.22.00");
	workload_tool_range(wl, "perf", range, sizeof(range));
	assert_string_equal(range, "");
	assert_non_null(workload_profile_for(workload_find("pingpong"), "perf", NULL));
	assert_non_null(workload_profile_for(workload_find("pingpong"), "perf", "6.1.38"));
}

static void test_check(void **state)
{
	const struct workload *wl = workload_find("pipe");
	void *p = params_copy(wl, wl->defaults);
	char err[256], line[64];
	uint64_t max = 0;

	(void)state;
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);

	set_u64(wl, p, "data-size", 8192);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--data-size'"));
	assert_non_null(strstr(err, "8k"));
	assert_non_null(strstr(err, "8..4096"));
	set_flag(wl, p, "no-packet", true);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);
	set_flag(wl, p, "no-packet", false);
	set_u64(wl, p, "data-size", 4096);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);

	set_u64(wl, p, "pipe-size", 100);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--pipe-size'"));
	set_u64(wl, p, "pipe-size", 4096);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);

	if (!read_line_file("/proc/sys/fs/pipe-max-size", line, sizeof(line)) &&
	    !parse_u64(line, &max)) {
		set_u64(wl, p, "pipe-size", max + 4096);
		assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "pipe-max-size"));
		assert_non_null(strstr(err, "'--pipe-size'"));
	}
	free(p);
}

static void run_params(const void *params, struct sample *s)
{
	const struct workload *wl = workload_find("pipe");
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .wl = wl, .wl_params = params, .rp = &rp };
	char err[256];

	rp.instances = 1;
	assert_int_equal(wl->check(params, &rp, err, sizeof(err)), 0);
	memset(s, 0, sizeof(*s));
	assert_int_equal(runner_sample(&spec, 100 * MS, s), 0);
	if (s->status != SAMPLE_OK)
		print_message("# %s\n", s->reason);
	assert_int_equal(s->status, SAMPLE_OK);
	assert_true(s->ops > 0);
}

static void test_sample_options(void **state)
{
	const struct workload *wl = workload_find("pipe");
	const struct profile *p21 = workload_profile(wl, "stress-ng-0.16");
	void *p = params_copy(wl, wl->defaults);
	struct sample s;
	const struct metric *m;

	(void)state;
	/* One slot: the writer blocks after every write. */
	set_u64(wl, p, "pipe-size", 4096);
	run_params(p, &s);
	m = sample_get(&s, "ctxsw_vol_per_op");
	assert_non_null(m);
	assert_true(m->available);
	free(p);

	p = params_copy(wl, p21->params);
	set_flag(wl, p, "no-packet", true);
	set_u64(wl, p, "data-size", 65536);
	set_u64(wl, p, "pipe-size", 262144);
	run_params(p, &s);
	/* mb_per_s_geomean follows the data size */
	m = sample_get(&s, "mb_per_s_geomean");
	assert_non_null(m);
	assert_true(m->available && m->value > 0);
	free(p);
}

/* Every profile runs a good sample, and its MB/s follows its data size. */
static void test_sample_each_profile(void **state)
{
	const struct workload *wl = workload_find("pipe");
	const struct profile *p;
	struct sample s;

	(void)state;
	for (p = wl->profiles; p->name; p++) {
		const struct metric *m;

		print_message("# %s\n", p->name);
		run_params(p->params, &s);
		m = sample_get(&s, "mb_per_s_geomean");
		assert_non_null(m);
		assert_true(m->available && m->value > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_layout_0_21_02),
		cmocka_unit_test(test_profile_versions),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_sample_options),
		cmocka_unit_test(test_sample_each_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
