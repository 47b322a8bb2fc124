/*
 * t-ring.c: the ring workload (lmbench lat_ctx): its descriptor, options,
 * profiles, parameter checks and metric formulas, then real samples
 * through the runner on one CPU for every channel, as processes and as
 * threads: hops are counted and every hop costs one context switch (on
 * one CPU the next holder of the token runs only after a switch to it).
 * Never asserts speed.
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

#include "core/metrics.h"
#include "runner/runner.h"
#include "util/util.h"
#include "workloads/channel.h"
#include "workloads/workload.h"

static const struct workload *ring(void)
{
	const struct workload *wl = workload_find("ring");

	assert_non_null(wl);
	return wl;
}

/* A copy of the defaults with one option set through the option table. */
static void *params_with(const struct workload *wl, const char *opt, uint64_t value)
{
	void *p = xmalloc(wl->params_size);
	const struct opt *o;

	memcpy(p, wl->defaults, wl->params_size);
	if (!opt)
		return p;
	o = opts_find(wl->opts, opt);
	assert_non_null(o);
	switch (o->type) {
	case OPT_UINT:
	case OPT_SIZE:
		*(uint64_t *)((char *)p + o->offset) = value;
		break;
	case OPT_CHOICE:
		*(int *)((char *)p + o->offset) = (int)value;
		break;
	case OPT_FLAG:
		*(bool *)((char *)p + o->offset) = value != 0;
		break;
	default:
		fail_msg("option '%s' of an unexpected type", opt);
	}
	return p;
}

static void test_descriptor(void **state)
{
	const struct workload *wl = ring();
	const struct metric_def *d;
	const struct opt *o;
	void *p;
	unsigned t, group, role;

	(void)state;
	assert_string_equal(wl->primary, "ns_per_hop");
	assert_string_equal(wl->op_name, "hops");
	d = metric_def("ns_per_hop");
	assert_non_null(d);
	assert_int_equal(d->better, BETTER_LOWER);
	assert_true(d->flags & METRIC_PRIMARY);
	assert_string_equal(d->unit, "ns");
	d = metric_def("ctxsw_ns");
	assert_true(d && d->better == BETTER_LOWER);
	assert_non_null(metric_def("hop_overhead_ns"));
	assert_string_equal(metric_primary("ring")->name, "ns_per_hop");

	o = opts_find(wl->opts, "tasks");
	assert_true(o && o->type == OPT_UINT && o->min == 2 && o->max == 4096);
	o = opts_find(wl->opts, "channel");
	assert_true(o && o->type == OPT_CHOICE && o->choices == channel_names);
	assert_non_null(opts_find(wl->opts, "size"));
	assert_non_null(opts_find(wl->opts, "threads"));

	p = params_with(wl, "tasks", 7);
	assert_int_equal(wl->tasks(p), 7);
	for (t = 0; t < 7; t++) {
		group = role = 99;
		wl->layout(p, t, &group, &role);
		assert_int_equal(group, 0);
		assert_int_equal(role, 0);
	}
	assert_string_equal(wl->roles[0], "hop");
	assert_null(wl->roles[1]);
	assert_int_equal(wl->fds(p), 7 * 2);
	free(p);
	p = params_with(wl, "channel", CHANNEL_FUTEX);
	assert_int_equal(wl->fds(p), 0);
	free(p);
	p = params_with(wl, "channel", CHANNEL_EVENTFD);
	assert_int_equal(wl->fds(p), 2);
	free(p);
}

/* Each lat_ctx-Np-Kk profile runs N tasks with K KiB of working set over pipes, as processes. */
static void test_profiles(void **state)
{
	const struct workload *wl = ring();
	const struct profile *pr;
	const struct opt *tasks = opts_find(wl->opts, "tasks");
	const struct opt *size = opts_find(wl->opts, "size");
	const struct opt *channel = opts_find(wl->opts, "channel");
	const struct opt *threads = opts_find(wl->opts, "threads");
	int n = 0;

	(void)state;
	assert_string_equal(wl->default_profile, "lat_ctx-2p-0k");
	assert_ptr_equal(workload_profile(wl, "lat_ctx-2p-0k")->params, wl->defaults);
	for (pr = wl->profiles; pr->name; pr++, n++) {
		unsigned procs, kb;
		const char *base = pr->params;

		assert_int_equal(sscanf(pr->name, "lat_ctx-%up-%uk", &procs, &kb), 2);
		assert_int_equal(*(const uint64_t *)(base + tasks->offset), procs);
		assert_int_equal(*(const uint64_t *)(base + size->offset), (uint64_t)kb << 10);
		assert_int_equal(*(const int *)(base + channel->offset), CHANNEL_PIPE);
		assert_false(*(const bool *)(base + threads->offset));
	}
	assert_int_equal(n, 7);
}

static void test_check(void **state)
{
	const struct workload *wl = ring();
	struct run_params rp = runner_defaults;
	char err[256];
	void *p;

	(void)state;
	rp.instances = 1;
	p = params_with(wl, "size", 64 << 10);
	assert_int_equal(wl->check(p, &rp, err, sizeof(err)), 0);
	free(p);

	p = params_with(wl, "size", 6);
	assert_int_equal(wl->check(p, &rp, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--size'"));
	assert_non_null(strstr(err, "'6'"));
	assert_non_null(strstr(err, "multiples of 4"));
	free(p);

	/* 64M for each of 4096 tasks is more than half of any machine this runs on */
	p = params_with(wl, "size", 64 << 20);
	*(uint64_t *)((char *)p + opts_find(wl->opts, "tasks")->offset) = 4096;
	assert_int_equal(wl->check(p, &rp, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--size'"));
	assert_non_null(strstr(err, "4096 tasks"));
	assert_non_null(strstr(err, "half of the memory"));
	free(p);
}

/* The shared area of one instance, as ring.c lays it out. */
struct fake_shared {
	double overhead_ns;
	uint64_t loop_ns;
};

static const struct metric *get(const struct sample *s, const char *name)
{
	const struct metric *m = sample_get(s, name);

	if (!m)
		fail_msg("no metric '%s'", name);
	return m;
}

static void test_metric_formulas(void **state)
{
	const struct workload *wl = ring();
	struct sample *s = xmalloc(sizeof(*s));
	struct fake_shared sh[2] = { { 200, 1000000 }, { 400, 1000000 } };
	const void *shared[2] = { &sh[0], &sh[1] };
	const struct metric *m;

	(void)state;
	assert_true(wl->shared_size(wl->defaults) >= sizeof(struct fake_shared));

	/* one ring: 1000 hops in a 1 ms loop is 1000 ns per hop; lat_ctx's figure less 200 ns */
	sample_init(s);
	s->ops = 1000;
	s->real_s = 0.001;
	wl->put_metrics(wl->defaults, shared, 1, s);
	assert_close(get(s, "ns_per_hop")->value, 1000, 1e-9);
	assert_close(get(s, "hop_overhead_ns")->value, 200, 1e-9);
	assert_close(get(s, "ctxsw_ns")->value, 800, 1e-9);

	/* two rings sharing 1000 hops, each loop 1 ms long: 2000 ns per hop; the mean overhead */
	sample_init(s);
	s->ops = 1000;
	s->real_s = 0.001;
	wl->put_metrics(wl->defaults, shared, 2, s);
	assert_close(get(s, "ns_per_hop")->value, 2000, 1e-9);
	assert_close(get(s, "hop_overhead_ns")->value, 300, 1e-9);
	assert_close(get(s, "ctxsw_ns")->value, 1700, 1e-9);

	/* an overhead above the hop time: lat_ctx prints nothing; here it is unavailable */
	sh[0].overhead_ns = 5000;
	sample_init(s);
	s->ops = 1000;
	s->real_s = 0.001;
	wl->put_metrics(wl->defaults, shared, 1, s);
	m = get(s, "ctxsw_ns");
	assert_false(m->available);
	assert_non_null(strstr(m->why, "not below the hop time"));
	assert_true(get(s, "ns_per_hop")->available);

	/* an overhead that could not be measured is unavailable, never 0 */
	sh[0].overhead_ns = 0;
	sample_init(s);
	s->ops = 1000;
	s->real_s = 0.001;
	wl->put_metrics(wl->defaults, shared, 2, s);
	assert_false(get(s, "hop_overhead_ns")->available);
	assert_false(get(s, "ctxsw_ns")->available);
	assert_close(get(s, "ns_per_hop")->value, 2000, 1e-9);

	/* the loop, not real_s (which includes the teardown), is the time */
	sh[0].overhead_ns = 200;
	sh[0].loop_ns = 500000;
	sample_init(s);
	s->ops = 1000;
	s->real_s = 0.003;
	wl->put_metrics(wl->defaults, shared, 1, s);
	assert_close(get(s, "ns_per_hop")->value, 500, 1e-9);
	assert_close(get(s, "ctxsw_ns")->value, 300, 1e-9);

	/* no hop at all */
	sample_init(s);
	s->ops = 0;
	s->real_s = 0.001;
	wl->put_metrics(wl->defaults, shared, 1, s);
	assert_false(get(s, "ns_per_hop")->available);
	free(s);
}

/* One real sample: 3 tasks on one CPU, 16 KiB each, over one channel kind. */
static void one_sample(int kind, bool threads)
{
	const struct workload *wl = ring();
	void *params = params_with(wl, "channel", (uint64_t)kind);
	struct run_params rp = runner_defaults;
	struct run_spec spec;
	struct sample *s = xmalloc(sizeof(*s));
	const struct metric *m;

	*(uint64_t *)((char *)params + opts_find(wl->opts, "tasks")->offset) = 3;
	*(uint64_t *)((char *)params + opts_find(wl->opts, "size")->offset) = 16 << 10;
	*(bool *)((char *)params + opts_find(wl->opts, "threads")->offset) = threads;
	rp.instances = 1;
	rp.placement = PLACE_SAME_CPU;
	memset(&spec, 0, sizeof(spec));
	spec.wl = wl;
	spec.wl_params = params;
	spec.rp = &rp;
	sample_init(s);
	assert_int_equal(runner_sample(&spec, 200000000ULL, s), 0);
	if (s->status != SAMPLE_OK)
		fail_msg("%s %s: sample %s: %s", channel_names[kind],
			 threads ? "threads" : "processes", sample_status_name(s->status),
			 s->reason);
	assert_true(s->ops > 100);
	/* the timed loop lies within the instance's real time, teardown excluded */
	m = get(s, "ns_per_hop");
	assert_true(m->available && m->value > 0);
	if (m->value > s->real_s * 1e9 / (double)s->ops * 1.000001)
		fail_msg("ns_per_hop %g against real_s %g and %llu hops", m->value, s->real_s,
			 (unsigned long long)s->ops);
	m = get(s, "hop_overhead_ns");
	assert_true(m->available && m->value > 0);
	/*
	 * One CPU: the next holder of the token can only run after a switch
	 * to it, so there is at least one switch per hop (voluntary when the
	 * sender blocks in its wait, involuntary when the woken task preempts
	 * it), and extra ones only from other load.
	 */
	m = get(s, "ctxsw_per_op");
	if (!m->available || m->value < 0.9 || m->value > 2.0)
		fail_msg("%s %s: ctxsw_per_op %g (%s)", channel_names[kind],
			 threads ? "threads" : "processes", m->value, m->why);
	print_message("# %s %s: %.0f ns/hop, overhead %.0f ns, %.2f switches/hop\n",
		      channel_names[kind], threads ? "threads" : "processes",
		      get(s, "ns_per_hop")->value, get(s, "hop_overhead_ns")->value, m->value);
	free(params);
	free(s);
}

static void test_processes(void **state)
{
	int kind;

	(void)state;
	for (kind = 0; channel_names[kind]; kind++)
		one_sample(kind, false);
}

static void test_threads(void **state)
{
	int kind;

	(void)state;
	for (kind = 0; channel_names[kind]; kind++)
		one_sample(kind, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor), cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_check),	   cmocka_unit_test(test_metric_formulas),
		cmocka_unit_test(test_processes),  cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
