/*
 * t-pingpong.c: the pingpong workload through the runner with the probes,
 * one pair pinned to one CPU, as processes and as threads: round trips are
 * counted, both context-switch sources see about two switches per round
 * trip, and with --trace the latency percentiles are ordered and wakeups
 * per op positive. Never asserts speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "runner/runner.h"
#include "sys/perf.h"
#include "runner/probes.h"
#include "util/util.h"
#include "workloads/workload.h"

static void one_sample(bool threads, bool trace)
{
	const struct workload *wl = workload_find("pingpong");
	const struct profile *prof;
	const struct opt *o;
	void *params;
	struct run_params rp = runner_defaults;
	struct probe_params pp = probe_defaults;
	struct probe_set ps;
	struct run_spec spec;
	struct sample *s = malloc(sizeof(*s));
	const struct metric *m;
	char err[512];

	assert_non_null(wl);
	prof = workload_profile(wl, "perf-bench-sched-pipe");
	assert_non_null(prof);
	params = malloc(wl->params_size);
	memcpy(params, prof->params, wl->params_size);
	/* --threads, through the workload's own option table */
	o = opts_find(wl->opts, "threads");
	assert_non_null(o);
	assert_int_equal(o->type, OPT_FLAG);
	*(bool *)((char *)params + o->offset) = threads;
	rp.instances = 1;
	rp.placement = PLACE_SAME_CPU;
	pp.trace = trace ? TRACE_ON : TRACE_OFF;
	pp.perf_counters = true;
	if (probes_setup(&ps, &pp, "/sys/kernel/debug", err, sizeof(err))) {
		free(s);
		free(params);
		wb_skip("%s", err);
	}
	memset(&spec, 0, sizeof(spec));
	spec.wl = wl;
	spec.wl_params = params;
	spec.rp = &rp;
	spec.probes = ps.probes;
	spec.nprobes = ps.n;
	sample_init(s);
	assert_int_equal(runner_sample(&spec, 300000000ULL, s), 0);
	if (s->status != SAMPLE_OK)
		fail_msg("sample %s: %s", sample_status_name(s->status), s->reason);
	assert_true(s->ops > 100);
	assert_true(s->ops_per_s > 0);
	m = sample_get(s, "ctxsw_per_op");
	assert_non_null(m);
	if (!m->available || m->value < 1.5 || m->value > 2.5)
		fail_msg("ctxsw_per_op %g (%s)", m->value, m->why);
	m = sample_get(s, "perf_ctxsw_per_op");
	assert_non_null(m);
	if (wb_no_perf_events(err, sizeof(err))) {
		/* Unavailable with the reason, never a zero. */
		print_message("# %s\n", err);
		assert_false(m->available);
		assert_non_null(strstr(m->why, "not supported"));
	} else if (perf_privileged() || perf_paranoid() < 2) {
		if (!m->available || m->value < 1.5 || m->value > 2.5)
			fail_msg("perf_ctxsw_per_op %g (%s)", m->value, m->why);
	} else {
		assert_false(m->available);
	}
	if (trace) {
		const struct metric *p50 = sample_get(s, "wakeup_lat_p50_ns");
		const struct metric *p99 = sample_get(s, "wakeup_lat_p99_ns");
		const struct metric *max = sample_get(s, "wakeup_lat_max_ns");

		assert_true(p50 && p99 && max && p50->available);
		assert_true(p50->value <= p99->value && p99->value <= max->value);
		m = sample_get(s, "wakeups_per_op");
		assert_true(m && m->available && m->value > 0);
		print_message("# %s: %.0f round trips/s traced, p50 %.0f ns, wakeups/op %.2f\n",
			      threads ? "threads" : "processes", s->ops_per_s, p50->value,
			      m->value);
	}
	probes_release(&ps);
	free(params);
	free(s);
}

static void test_processes(void **state)
{
	(void)state;
	one_sample(false, false);
}

static void test_threads(void **state)
{
	(void)state;
	one_sample(true, false);
}

static void test_processes_traced(void **state)
{
	(void)state;
	one_sample(false, true);
}

static void test_threads_traced(void **state)
{
	(void)state;
	one_sample(true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_processes_traced),
		cmocka_unit_test(test_threads_traced),
	};

	wb_kernel_mounts();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
