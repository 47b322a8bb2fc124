/*
 * t-messaging.c: the messaging workload (hackbench): its descriptor and
 * profiles, the task count and layout, the fds it declares, its option
 * ranges and checks, and tiny runs through the runner as processes and
 * threads, over socketpairs and pipes: exactly groups * fds * fds * loops
 * messages are counted, and its metrics keep their formulas (messages/s
 * is messages over run time; delivery time <= run time). A run cut
 * by its -t limit fails and leaves no task. Never asserts speed.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "core/metrics.h"
#include "runner/runner.h"
#include "core/sample.h"
#include "util/util.h"
#include "workloads/workload.h"

#define MS 1000000ULL

static const struct workload *messaging(void)
{
	const struct workload *wl = workload_find("messaging");

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

static const struct opt *opt(const struct workload *wl, const char *name)
{
	const struct opt *o = opts_find(wl->opts, name);

	if (!o)
		fail_msg("messaging has no option --%s", name);
	return o;
}

static void set_u64(const struct workload *wl, void *params, const char *name, uint64_t v)
{
	const struct opt *o = opt(wl, name);

	assert_true(o->type == OPT_UINT || o->type == OPT_SIZE);
	memcpy((char *)params + o->offset, &v, sizeof(v));
}

static uint64_t get_u64(const struct workload *wl, const void *params, const char *name)
{
	const struct opt *o = opt(wl, name);
	uint64_t v;

	memcpy(&v, (const char *)params + o->offset, sizeof(v));
	return v;
}

static void set_flag(const struct workload *wl, void *params, const char *name, bool v)
{
	const struct opt *o = opt(wl, name);

	assert_int_equal(o->type, OPT_FLAG);
	memcpy((char *)params + o->offset, &v, sizeof(v));
}

static bool get_flag(const struct workload *wl, const void *params, const char *name)
{
	const struct opt *o = opt(wl, name);
	bool v;

	memcpy(&v, (const char *)params + o->offset, sizeof(v));
	return v;
}

/* Params for a small run: G groups of F senders and F receivers, L loops. */
static void *small(unsigned g, unsigned f, unsigned l, bool pipes, bool threads)
{
	const struct workload *wl = messaging();
	void *p = params_copy(wl, wl->defaults);

	set_u64(wl, p, "groups", g);
	set_u64(wl, p, "fds", f);
	set_u64(wl, p, "loops", l);
	set_flag(wl, p, "pipe", pipes);
	set_flag(wl, p, "threads", threads);
	return p;
}

static void test_descriptor(void **state)
{
	const struct workload *wl = messaging();
	const struct profile *hb, *perf;
	const struct metric_def *d;
	size_t i;

	(void)state;
	assert_string_equal(wl->op_name, "messages");
	assert_true(wl->fixed_work);
	assert_int_equal(wl->default_instances, 1);
	assert_true(wl->default_duration_ns >= 10000 * MS); /* a limit, not a window */
	assert_string_equal(wl->default_profile, "hackbench");
	hb = workload_profile(wl, "hackbench");
	perf = workload_profile(wl, "perf-bench-sched-messaging");
	assert_non_null(hb);
	assert_non_null(perf);
	assert_memory_equal(wl->defaults, hb->params, wl->params_size);
	/* rt-tests 2.4 and perf 6.1: 10 groups of 20 + 20, 100 loops of 100 bytes */
	for (i = 0; i < 2; i++) {
		const void *p = i ? perf->params : hb->params;

		assert_int_equal(get_u64(wl, p, "groups"), 10);
		assert_int_equal(get_u64(wl, p, "fds"), 20);
		assert_int_equal(get_u64(wl, p, "loops"), 100);
		assert_int_equal(get_u64(wl, p, "datasize"), 100);
		assert_false(get_flag(wl, p, "pipe"));
		assert_false(get_flag(wl, p, "threads"));
	}
	/* the primary is lower-is-better, declared by the workload itself */
	assert_string_equal(wl->primary, "messaging_run_s");
	d = metric_def(wl->primary);
	assert_non_null(d);
	assert_int_equal(d->better, BETTER_LOWER);
	assert_true(d->flags & METRIC_PRIMARY);
	assert_string_equal(d->unit, "s");
	d = metric_def("messages_per_s");
	assert_non_null(d);
	assert_int_equal(d->better, BETTER_HIGHER);
	d = metric_def("messaging_delivery_s");
	assert_non_null(d);
	assert_int_equal(d->better, BETTER_LOWER);
	for (d = wl->metrics; d->name; d++) {
		assert_true(d->label && d->label[0] && d->help && d->help[0] && d->unit);
		assert_string_equal(d->source, "messaging");
		assert_ptr_equal(metric_def(d->name), d);
	}
}

static void test_tasks_and_layout(void **state)
{
	const struct workload *wl = messaging();
	void *p = params_copy(wl, wl->defaults);
	unsigned group, role, t, nrecv = 0, nsend = 0;

	(void)state;
	/* hackbench's "10 groups ... (== 400 tasks)", plus task 0, its main */
	assert_int_equal(wl->tasks(p), 401);
	assert_string_equal(wl->roles[0], "main");
	assert_string_equal(wl->roles[1], "receiver");
	assert_string_equal(wl->roles[2], "sender");
	assert_null(wl->roles[3]);
	wl->layout(p, 0, &group, &role);
	assert_int_equal(group, 0);
	assert_string_equal(wl->roles[role], "main");
	/* in creation order: per group 20 receivers, then 20 senders */
	wl->layout(p, 1, &group, &role);
	assert_int_equal(group, 0);
	assert_string_equal(wl->roles[role], "receiver");
	wl->layout(p, 20, &group, &role);
	assert_int_equal(group, 0);
	assert_string_equal(wl->roles[role], "receiver");
	wl->layout(p, 21, &group, &role);
	assert_int_equal(group, 0);
	assert_string_equal(wl->roles[role], "sender");
	wl->layout(p, 41, &group, &role);
	assert_int_equal(group, 1);
	assert_string_equal(wl->roles[role], "receiver");
	wl->layout(p, 400, &group, &role);
	assert_int_equal(group, 9);
	assert_string_equal(wl->roles[role], "sender");
	for (t = 1; t < 401; t++) {
		wl->layout(p, t, &group, &role);
		assert_true(group < 10);
		nrecv += !strcmp(wl->roles[role], "receiver");
		nsend += !strcmp(wl->roles[role], "sender");
	}
	assert_int_equal(nrecv, 200);
	assert_int_equal(nsend, 200);
	free(p);

	p = small(3, 1, 1, false, false);
	assert_int_equal(wl->tasks(p), 7);
	wl->layout(p, 6, &group, &role);
	assert_int_equal(group, 2);
	assert_string_equal(wl->roles[role], "sender");
	free(p);
}

static void test_fds(void **state)
{
	const struct workload *wl = messaging();
	void *p = params_copy(wl, wl->defaults);

	(void)state;
	assert_non_null(wl->fds);
	/* processes: a sender's 20 write ends, the channel being made, the alive pipe */
	assert_int_equal(wl->fds(p), 24);
	/* threads: every channel of every group in one process */
	set_flag(wl, p, "threads", true);
	assert_int_equal(wl->fds(p), 400);
	set_u64(wl, p, "groups", 100);
	assert_int_equal(wl->fds(p), 4000);
	free(p);
}

static void test_check(void **state)
{
	const struct workload *wl = messaging();
	void *p = params_copy(wl, wl->defaults);
	char err[256];

	(void)state;
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);
	set_flag(wl, p, "pipe", true);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);
	set_flag(wl, p, "socket", true);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--pipe'"));
	assert_non_null(strstr(err, "'--socket'"));
	set_flag(wl, p, "pipe", false);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), 0);
	set_flag(wl, p, "threads", true);
	set_flag(wl, p, "processes", true);
	assert_int_equal(wl->check(p, &runner_defaults, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--threads'"));
	assert_non_null(strstr(err, "'--processes'"));
	free(p);
}

/* Parse one workload option into fresh params; the parser's return value. */
static int parse1(const char *name, const char *value)
{
	const struct workload *wl = messaging();
	void *p = params_copy(wl, wl->defaults);
	struct opt_group g = {
		.title = "messaging", .opts = wl->opts, .base = p, .defaults = wl->defaults
	};
	struct opts_result res;
	const char *argv[2] = { name, value };
	int rc;

	memset(&res, 0, sizeof(res));
	rc = opts_parse("run", &g, 1, 2, argv, 0, &res);
	if (rc == 0)
		opts_result_release(&res);
	opts_release(&g, 1);
	free(p);
	return rc;
}

static void test_option_ranges(void **state)
{
	(void)state;
	assert_int_equal(parse1("--groups", "1"), 0);
	assert_int_equal(parse1("--groups", "10000"), 0);
	assert_int_equal(parse1("--groups", "0"), -1);
	assert_int_equal(parse1("--groups", "10001"), -1);
	assert_int_equal(parse1("--fds", "0"), -1);
	assert_int_equal(parse1("--fds", "1001"), -1);
	assert_int_equal(parse1("--loops", "0"), -1);
	assert_int_equal(parse1("--loops", "1000000000"), 0);
	assert_int_equal(parse1("--loops", "1000000001"), -1);
	assert_int_equal(parse1("--datasize", "0"), -1);
	assert_int_equal(parse1("--datasize", "1"), 0);
	assert_int_equal(parse1("--datasize", "1M"), 0);
	assert_int_equal(parse1("--datasize", "2M"), -1);
}

/* Threads of this process now (an emulator such as qemu-user adds its own). */
static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int threads = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		threads += e->d_name[0] != '.';
	closedir(d);
	return threads;
}

/* The threads the test program had before any run: the baseline. */
static int threads_at_start;

/* Tasks of this process left over: children, and threads beyond the baseline. */
static void assert_nothing_left(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(count_threads(), threads_at_start);
}

static void run(void *params, unsigned instances, int placement, uint64_t limit_ns,
		struct sample *s)
{
	const struct workload *wl = messaging();
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .wl = wl, .wl_params = params, .rp = &rp };
	char err[256];

	rp.instances = instances;
	rp.placement = placement;
	assert_int_equal(wl->check(params, &rp, err, sizeof(err)), 0);
	if (runner_check(&spec, err, sizeof(err)))
		fail_msg("runner_check: %s", err);
	sample_init(s);
	assert_int_equal(runner_sample(&spec, limit_ns, s), 0);
	assert_nothing_left();
}

static double metric(const struct sample *s, const char *name)
{
	const struct metric *m = sample_get(s, name);

	if (!m || !m->available)
		fail_msg("%s: %s", name, m ? m->why : "absent");
	return m->value;
}

/* A good sample: every message counted once, the formulas between the metrics. */
static void check_good(const struct sample *s, uint64_t messages)
{
	double run_s, delivery_s;

	if (s->status != SAMPLE_OK)
		fail_msg("sample %s: %s", sample_status_name(s->status), s->reason);
	assert_int_equal(s->ops, messages);
	run_s = metric(s, "messaging_run_s");
	delivery_s = metric(s, "messaging_delivery_s");
	assert_true(run_s > 0);
	assert_true(delivery_s > 0 && delivery_s <= run_s);
	/*
	 * Not compared with real_s: the runner's start is task 0's clock once
	 * it runs after the release, which may be after the first sender ran.
	 */
	assert_close(metric(s, "messages_per_s"), (double)messages / run_s,
		     1e-9 * (double)messages / run_s);
}

static void one(unsigned g, unsigned f, unsigned l, bool pipes, bool threads, int placement)
{
	struct sample *s = malloc(sizeof(*s));
	void *p = small(g, f, l, pipes, threads);

	assert_non_null(s);
	run(p, 1, placement, 30000 * MS, s);
	check_good(s, (uint64_t)g * f * f * l);
	free(p);
	free(s);
}

static void test_processes_sockets(void **state)
{
	(void)state;
	one(2, 3, 7, false, false, PLACE_ANY);
}

static void test_processes_pipes(void **state)
{
	(void)state;
	one(2, 3, 7, true, false, PLACE_SAME_CPU);
}

static void test_threads_sockets(void **state)
{
	(void)state;
	one(2, 3, 7, false, true, PLACE_SPREAD);
}

static void test_threads_pipes(void **state)
{
	(void)state;
	one(2, 3, 7, true, true, PLACE_ANY);
}

/* Messages larger than a pipe's atomic write: short reads and writes are completed. */
static void test_large_messages(void **state)
{
	const struct workload *wl = messaging();
	struct sample *s = malloc(sizeof(*s));
	void *p = small(1, 2, 3, true, false);

	(void)state;
	set_u64(wl, p, "datasize", 200000);
	run(p, 1, PLACE_ANY, 30000 * MS, s);
	check_good(s, 1 * 2 * 2 * 3);
	set_flag(wl, p, "threads", true);
	set_flag(wl, p, "pipe", false);
	run(p, 1, PLACE_ANY, 30000 * MS, s);
	check_good(s, 1 * 2 * 2 * 3);
	free(p);
	free(s);
}

/* Two instances side by side: ops add up, messages/s over the mean run time. */
static void test_two_instances(void **state)
{
	struct sample *s = malloc(sizeof(*s));
	void *p = small(1, 2, 5, false, false);

	(void)state;
	run(p, 2, PLACE_ANY, 30000 * MS, s);
	check_good(s, 2 * 1 * 2 * 2 * 5);
	free(p);
	free(s);
}

/* Far more work than the -t limit allows: the sample fails and no task is left. */
static void limit(bool threads)
{
	struct sample *s = malloc(sizeof(*s));
	void *p = small(2, 4, 1000000000, false, threads);

	run(p, 1, PLACE_ANY, 200 * MS, s);
	assert_int_equal(s->status, SAMPLE_FAILED);
	print_message("# %s: %s\n", threads ? "threads" : "processes", s->reason);
	assert_true(s->reason[0] != '\0');
	free(p);
	free(s);
}

static void test_limit_processes(void **state)
{
	(void)state;
	limit(false);
}

static void test_limit_threads(void **state)
{
	(void)state;
	limit(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_tasks_and_layout),
		cmocka_unit_test(test_fds),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_option_ranges),
		cmocka_unit_test(test_processes_sockets),
		cmocka_unit_test(test_processes_pipes),
		cmocka_unit_test(test_threads_sockets),
		cmocka_unit_test(test_threads_pipes),
		cmocka_unit_test(test_large_messages),
		cmocka_unit_test(test_two_instances),
		cmocka_unit_test(test_limit_processes),
		cmocka_unit_test(test_limit_threads),
	};

	threads_at_start = count_threads();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
