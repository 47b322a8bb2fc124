/*
 * t-runner-tasks.c: contract v2 through runner_sample() with a made-up
 * workload of many tasks (processes or threads) in groups with two roles:
 * the stop reaches every task, even one blocked in a read that nothing
 * will ever satisfy (every task counts exactly one op, then blocks); /proc
 * counters come from every task; fixed work ends the sample when done,
 * fills the shared area that put_metrics() reads in the parent, and fails
 * at the -t limit; a task that dies names itself and its role.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "cli/experiment.h"
#include "core/instance.h"
#include "runner/runner.h"
#include "util/util.h"
#include "workloads/workload.h"

#define MS 1000000ULL

enum many_mode {
	MANY_BLOCK,	 /* count one op, block in a read until the stop */
	MANY_FIXED,	 /* fixed work: count `work` ops, note them in the shared area */
	MANY_FIXED_HANG, /* fixed work that never ends */
	MANY_DIE,	 /* like MANY_BLOCK, but task `victim` dies of SIGSEGV */
	MANY_FIXED_DIE,	 /* fixed work whose task `victim` dies while the others wait */
};

struct many_params {
	int mode;
	unsigned ntasks;
	bool threads;
	unsigned work;
	unsigned victim;
};

static const char *const many_roles[] = { "sender", "receiver", NULL };

static unsigned many_tasks(const void *params)
{
	return ((const struct many_params *)params)->ntasks;
}

/* Groups of 10, senders and receivers alternating. */
static void many_layout(const void *params, unsigned task, unsigned *group, unsigned *role)
{
	(void)params;
	*group = task / 10;
	*role = task % 2;
}

static size_t many_shared_size(const void *params)
{
	return many_tasks(params) * sizeof(uint64_t);
}

/* What put_metrics() saw in the parent: the sum over instances and tasks. */
static uint64_t seen_sum;
static size_t seen_n;

static void many_put_metrics(const void *params, const void *const *shared, size_t n,
			     struct sample *s)
{
	size_t i, t;

	(void)s;
	seen_n = n;
	seen_sum = 0;
	for (i = 0; i < n; i++)
		for (t = 0; t < many_tasks(params); t++)
			seen_sum += ((const uint64_t *)shared[i])[t];
}

struct many_task {
	const struct many_params *mp;
	struct instance_ctx *ic;
	int block_fd; /* the read end of a pipe nobody writes */
	unsigned task;
};

static void die_now(void)
{
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	signal(SIGSEGV, SIG_DFL); /* not cmocka's handler */
	raise(SIGSEGV);
	_exit(99);
}

/* The body of every task, task 0 included. 0 or -1. */
static int task_body(struct many_task *mt)
{
	const struct many_params *mp = mt->mp;
	struct instance_ctx *ic = mt->ic;
	unsigned me = instance_task(ic);
	char b;

	if (me != mt->task) {
		instance_failed(ic, "instance_task() says %u, expected %u", me, mt->task);
		return -1;
	}
	if (instance_ready(ic))
		return -1;
	if (mp->mode == MANY_FIXED || mp->mode == MANY_FIXED_DIE) {
		uint64_t *shared = instance_shared(ic);
		unsigned k;

		if (mp->mode == MANY_FIXED_DIE && me == mp->victim)
			die_now();
		for (k = 0; k < mp->work; k++)
			(*instance_task_ops(ic))++;
		shared[me] = me + 1;
		if (mp->mode == MANY_FIXED)
			return 0;
	}
	if (mp->mode == MANY_DIE && me == mp->victim)
		die_now();
	while (instance_running(ic) || mp->mode == MANY_FIXED_HANG || mp->mode == MANY_FIXED_DIE) {
		ssize_t n;

		if (mp->mode == MANY_BLOCK || mp->mode == MANY_DIE)
			(*instance_task_ops(ic))++;
		n = read(mt->block_fd, &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		instance_failed(ic, "task %u: the blocking read returned %zd", me, n);
		return -1;
	}
	return 0;
}

static void *thread_main(void *arg)
{
	struct many_task *mt = arg;
	intptr_t rc;

	if (instance_thread_register(mt->ic, mt->task))
		return (void *)(intptr_t)-1;
	rc = task_body(mt);
	instance_thread_collect(mt->ic);
	return (void *)rc;
}

static int many_instance(const void *params, struct instance_ctx *ic)
{
	const struct many_params *mp = params;
	unsigned n = instance_ntasks(ic), t;
	struct many_task *mts = calloc(n, sizeof(*mts));
	pthread_t *th = calloc(n, sizeof(*th));
	pid_t *pids = calloc(n, sizeof(*pids));
	int fds[2], rc = 0;

	if (!mts || !th || !pids || pipe(fds) < 0) {
		instance_failed(ic, "setup failed");
		return -1;
	}
	for (t = 0; t < n; t++)
		mts[t] = (struct many_task){ .mp = mp, .ic = ic, .block_fd = fds[0], .task = t };
	for (t = 1; t < n; t++) {
		if (mp->threads) {
			if (pthread_create(&th[t], NULL, thread_main, &mts[t])) {
				instance_failed(ic, "pthread_create failed");
				return -1;
			}
			continue;
		}
		pids[t] = instance_fork(ic);
		if (pids[t] < 0)
			return -1;
		if (pids[t] == 0)
			_exit(task_body(&mts[t]) ? 1 : 0);
	}
	rc = task_body(&mts[0]);
	for (t = 1; t < n; t++) {
		if (mp->threads) {
			void *ret;

			pthread_join(th[t], &ret);
			if (ret)
				rc = -1;
		} else if (instance_reap_child(ic, pids[t]) != 0) {
			rc = -1;
		}
	}
	return rc;
}

static const struct opt many_opts[] = { OPT_END_ROW };

static struct workload many_workload = {
	.name = "many",
	.summary = "test",
	.op_name = "ops",
	.primary = "ops_per_s",
	.params_size = sizeof(struct many_params),
	.opts = many_opts,
	.tasks = many_tasks,
	.layout = many_layout,
	.roles = many_roles,
	.shared_size = many_shared_size,
	.instance = many_instance,
	.put_metrics = many_put_metrics,
};

/* Children of this process (any state, zombies included). */
static int count_children(void)
{
	char path[64], buf[4096];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", getpid(), getpid());
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
			n++;
	fclose(f);
	return n;
}

static uint64_t run_many(const struct many_params *mp, unsigned instances, uint64_t duration_ns,
			 struct sample *s)
{
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .wl = &many_workload, .wl_params = mp, .rp = &rp };
	char err[256];
	uint64_t t0;

	many_workload.fixed_work =
		mp->mode == MANY_FIXED || mp->mode == MANY_FIXED_HANG || mp->mode == MANY_FIXED_DIE;
	rp.instances = instances;
	if (runner_check(&spec, err, sizeof(err)))
		wb_skip("%s", err);
	memset(s, 0, sizeof(*s));
	seen_sum = 0;
	seen_n = 0;
	t0 = now_ns();
	assert_int_equal(runner_sample(&spec, duration_ns, s), 0);
	print_message("# %s: %s\n", sample_status_name(s->status), s->reason);
	assert_int_equal(count_children(), 0);
	return now_ns() - t0;
}

/* The stop wakes every blocked task: each counted one op, and counters came from all. */
static void check_block(bool threads)
{
	struct many_params mp = { .mode = MANY_BLOCK, .ntasks = 50, .threads = threads };
	struct sample s;
	uint64_t took = run_many(&mp, 3, 200 * MS, &s);

	assert_int_equal(s.status, SAMPLE_OK);
	assert_true(s.ops == 3 * 50);
	/* the stop came at once, not after the 5 s grace */
	assert_true(took < 4000 * MS);
	assert_true(sample_get(&s, "nvcsw")->available);
	/* every one of the 150 tasks blocked at least at the barrier and in its read */
	assert_true(sample_get(&s, "nvcsw")->value >= 2 * 150);
}

static void test_block_processes(void **state)
{
	(void)state;
	check_block(false);
}

static void test_block_threads(void **state)
{
	(void)state;
	check_block(true);
}

/* Fixed work: done long before -t, the shared areas reach put_metrics(). */
static void test_fixed_work(void **state)
{
	struct many_params mp = { .mode = MANY_FIXED, .ntasks = 20, .work = 1000 };
	struct sample s;
	uint64_t took;

	(void)state;
	took = run_many(&mp, 2, 20000 * MS, &s);
	assert_int_equal(s.status, SAMPLE_OK);
	assert_true(s.ops == 2 * 20 * 1000);
	assert_true(took < 10000 * MS); /* not the 20 s limit */
	assert_true(s.real_s > 0 && s.real_s < 10.0);
	assert_int_equal(seen_n, 2);
	assert_true(seen_sum == 2 * (20 * 21 / 2)); /* sum of task + 1 per instance */
}

static void test_fixed_work_limit(void **state)
{
	struct many_params mp = { .mode = MANY_FIXED_HANG, .ntasks = 4, .work = 1 };
	struct sample s;

	(void)state;
	run_many(&mp, 2, 100 * MS, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "did not finish within -t 100ms"));
	assert_int_equal(seen_n, 0); /* no metrics of a failed sample */
}

/* A task that dies fails the sample with its number and role. */
static void test_task_dies(void **state)
{
	struct many_params mp = { .mode = MANY_DIE, .ntasks = 12, .victim = 7 };
	struct sample s;

	(void)state;
	run_many(&mp, 2, 200 * MS, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "task 7 (receiver) killed by SIGSEGV"));
}

/* ... and when the others wait for it forever, the limit names it. */
static void test_fixed_task_dies(void **state)
{
	struct many_params mp = { .mode = MANY_FIXED_DIE, .ntasks = 12, .work = 1, .victim = 4 };
	struct sample s;

	(void)state;
	run_many(&mp, 1, 300 * MS, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "did not finish within -t 300ms: "
					 "task 4 (sender) killed by SIGSEGV"));
}

/* A workload's -j and -t defaults replace the runner's; 0 keeps them. */
static void test_defaults(void **state)
{
	struct workload wl = many_workload;
	struct run_params rp;

	(void)state;
	experiment_runner_defaults(&wl, &rp);
	assert_true(rp.instances == runner_defaults.instances);
	assert_true(rp.duration_ns == runner_defaults.duration_ns);
	wl.default_instances = 3;
	wl.default_duration_ns = 7000 * MS;
	experiment_runner_defaults(&wl, &rp);
	assert_true(rp.instances == 3);
	assert_true(rp.duration_ns == 7000 * MS);
	assert_true(rp.samples == runner_defaults.samples);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),	 cmocka_unit_test(test_block_processes),
		cmocka_unit_test(test_block_threads),	 cmocka_unit_test(test_fixed_work),
		cmocka_unit_test(test_fixed_work_limit), cmocka_unit_test(test_task_dies),
		cmocka_unit_test(test_fixed_task_dies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
