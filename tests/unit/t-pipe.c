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

static void test_descriptor(void **state)
{
	const struct workload *wl = workload_find("pipe");
	const struct profile *p15, *p21;

	(void)state;
	assert_non_null(wl);
	assert_string_equal(wl->default_profile, "stress-ng-0.15");
	assert_int_equal(wl->tasks(wl->defaults), 2);
	assert_string_equal(wl->primary, "ops_per_s");
	assert_string_equal(wl->roles[0], "writer");
	assert_string_equal(wl->roles[1], "reader");
	assert_null(wl->roles[2]);
	p15 = workload_profile(wl, "stress-ng-0.15");
	p21 = workload_profile(wl, "stress-ng-0.21");
	assert_non_null(p15);
	assert_non_null(p21);
	assert_null(workload_profile(wl, "stress-ng-0.99"));
	/* The defaults are the default profile. */
	assert_memory_equal(wl->defaults, p15->params, wl->params_size);
	assert_int_equal(get_u64(wl, p15->params, "data-size"), 512);
	assert_int_equal(get_u64(wl, p21->params, "data-size"), 4096);
	assert_int_equal(get_u64(wl, p15->params, "pipe-size"), 0);
	assert_null(opts_find(wl->opts, "profile")); /* resolved by the command */
}

/* --profile stress-ng-X.Y.Z names the profile that covers that release. */
static void test_profile_versions(void **state)
{
	const struct workload *wl = workload_find("pipe");
	const struct profile *p;
	const char *v;
	char range[64];

	(void)state;
	p = workload_profile_resolve(wl, "stress-ng-0.15", &v);
	assert_non_null(p);
	assert_string_equal(p->name, "stress-ng-0.15");
	assert_null(v);
	p = workload_profile_resolve(wl, "stress-ng-0.15.06", &v);
	assert_non_null(p);
	assert_string_equal(p->name, "stress-ng-0.15");
	assert_string_equal(v, "0.15.06");
	p = workload_profile_resolve(wl, "stress-ng-0.18.12", &v);
	assert_non_null(p);
	assert_string_equal(p->params == workload_profile_for(wl, "stress-ng", "0.16.00")->params
				    ? "same"
				    : "other",
			    "same");
	assert_null(workload_profile_resolve(wl, "stress-ng-0.14.06", &v));
	assert_null(workload_profile_resolve(wl, "stress-ng-0.99", &v));
	assert_null(workload_profile_resolve(wl, "stress-ng-", &v));
	assert_null(workload_profile_resolve(wl, "stress-ng-x", &v));
	assert_null(workload_profile_resolve(wl, "perf-0.16", &v));
	assert_null(workload_profile_for(wl, "perf", "6.1"));
	assert_null(workload_profile_for(wl, "stress-ng", NULL));
	workload_tool_range(wl, "stress-ng", range, sizeof(range));
	assert_string_equal(range, "0.15.00..0.21.01");
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
	const struct profile *p21 = workload_profile(wl, "stress-ng-0.21");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_profile_versions),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_sample_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
