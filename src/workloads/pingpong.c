/*
 * pingpong.c: perf bench sched pipe, reproduced (tools/perf/bench/sched-pipe.c).
 *
 * Two tasks and two pipes per instance, a 4-byte token in flight: task 0
 * reads then writes, task 1 writes then reads, so every op is one round
 * trip and each task blocks once per op unless the other is already
 * waiting. Task 1 is a process (perf's default) or, with --threads, a
 * thread of the instance process (perf's -T). Only task 0 counts ops.
 *
 * Stopping: task 0's timer interrupts its read (EINTR) and it closes its
 * pipe ends; task 1 then reads EOF or gets EPIPE and leaves. In threaded
 * mode task 1 blocks SIGALRM so that the process-directed timer signal
 * always interrupts task 0.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/instance.h"
#include "runner/sample.h"
#include "util/util.h"
#include "workloads/workload.h"

struct pingpong_params {
	bool threads; /* task 1 as a thread of the instance process */
};

static const struct pingpong_params pingpong_defaults = {
	.threads = false,
};

static const struct opt pingpong_opts[] = {
	{ .type = OPT_FLAG, .long_name = "threads",
	  .offset = offsetof(struct pingpong_params, threads),
	  .help = "the two tasks of a pair are threads of one process (perf bench -T)" },
	OPT_END_ROW,
};

static const struct profile pingpong_profiles[] = {
	{ .name = "perf-bench-sched-pipe",
	  .summary = "perf bench sched pipe: two processes, two pipes, a 4-byte token; "
		     "one op = one round trip",
	  .params = &pingpong_defaults },
	{ .name = NULL },
};

/* The two pipes of a pair: `up` carries task 1 -> task 0, `down` task 0 -> task 1. */
struct pair {
	int up[2], down[2];
	struct instance_ctx *ic;
};

static void on_sigpipe(int sig)
{
	(void)sig;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Task 1: write then read until task 0 closes its ends (EOF or EPIPE, the
 * normal end). Returns 0, or -1 after instance_failed().
 */
static int task1_loop(struct pair *p)
{
	int32_t token = 0;

	if (instance_ready(p->ic))
		return -1;
	for (;;) {
		ssize_t n = write(p->up[1], &token, sizeof(token));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE)
			return 0;
		if (n != (ssize_t)sizeof(token)) {
			instance_failed(p->ic, "task 1: write: %s",
					n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		do
			n = read(p->down[0], &token, sizeof(token));
		while (n < 0 && errno == EINTR);
		if (n == 0)
			return 0;
		if (n != (ssize_t)sizeof(token)) {
			instance_failed(p->ic, "task 1: read: %s",
					n < 0 ? strerror(errno) : "short read");
			return -1;
		}
	}
}

/* Task 0: read then write, one op per round trip, until the window ends. */
static int task0_loop(struct pair *p)
{
	uint64_t *ops = instance_ops(p->ic);
	int32_t token;

	while (instance_running(p->ic)) {
		ssize_t n = read(p->up[0], &token, sizeof(token));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(token)) {
			instance_failed(p->ic, "task 0: read: %s",
					n < 0 ? strerror(errno)
					      : n == 0 ? "task 1 is gone" : "short read");
			return -1;
		}
		do
			n = write(p->down[1], &token, sizeof(token));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(token)) {
			instance_failed(p->ic, "task 0: write: %s",
					n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		(*ops)++;
	}
	return 0;
}

static void *task1_thread(void *arg)
{
	struct pair *p = arg;
	sigset_t set;
	intptr_t rc;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (instance_thread_register(p->ic, 1))
		return (void *)(intptr_t)-1;
	rc = task1_loop(p);
	/* task 0 may still wait in a read: our ends closing wakes it */
	close_fd(&p->up[1]);
	close_fd(&p->down[0]);
	instance_thread_collect(p->ic);
	return (void *)rc;
}

static int run_threads(struct pair *p)
{
	pthread_t th;
	void *ret;
	int rc, err;

	err = pthread_create(&th, NULL, task1_thread, p);
	if (err) {
		instance_failed(p->ic, "cannot create task 1's thread: %s", strerror(err));
		return -1;
	}
	rc = instance_ready(p->ic) ? -1 : task0_loop(p);
	close_fd(&p->up[0]);
	close_fd(&p->down[1]);
	pthread_join(th, &ret);
	return rc || (intptr_t)ret ? -1 : 0;
}

static int run_processes(struct pair *p)
{
	pid_t pid = instance_fork(p->ic);
	int rc, status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		close_fd(&p->up[0]);
		close_fd(&p->down[1]);
		rc = task1_loop(p);
		_exit(rc ? 1 : 0);
	}
	close_fd(&p->up[1]);
	close_fd(&p->down[0]);
	rc = instance_ready(p->ic) ? -1 : task0_loop(p);
	close_fd(&p->up[0]);
	close_fd(&p->down[1]);
	if (rc)
		kill(pid, SIGKILL);
	status = instance_reap_child(p->ic, pid);
	if (rc == 0 && (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status))) {
		instance_failed(p->ic, "task 1 ended with status 0x%x", status);
		rc = -1;
	}
	return rc;
}

static int pingpong_instance(const void *params, struct instance_ctx *ic)
{
	const struct pingpong_params *pp = params;
	struct pair p = { .up = { -1, -1 }, .down = { -1, -1 }, .ic = ic };
	struct sigaction sa;
	int rc;

	/* a vanished peer must give EPIPE (a reason or the normal end), not kill */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);

	if (pipe(p.up) || pipe(p.down)) {
		instance_failed(ic, "cannot create a pipe: %s", strerror(errno));
		close_fd(&p.up[0]);
		close_fd(&p.up[1]);
		return -1;
	}
	rc = pp->threads ? run_threads(&p) : run_processes(&p);
	close_fd(&p.up[0]);
	close_fd(&p.up[1]);
	close_fd(&p.down[0]);
	close_fd(&p.down[1]);
	return rc;
}

/* Two tasks, one group: task 0 (ping) and task 1 (pong). */
static unsigned pingpong_tasks(const void *params)
{
	(void)params;
	return 2;
}

static void pingpong_layout(const void *params, unsigned task, unsigned *group, unsigned *role)
{
	(void)params;
	*group = 0;
	*role = task;
}

static const char *const pingpong_roles[] = { "ping", "pong", NULL };

const struct workload workload_pingpong = {
	.name = "pingpong",
	.summary = "perf bench sched pipe: a 4-byte token bounced between two tasks over two pipes",
	.op_name = "round trips",
	.unit = "round trips/s",
	.better = BETTER_HIGHER,
	.primary = "ops_per_s",
	.params_size = sizeof(struct pingpong_params),
	.defaults = &pingpong_defaults,
	.opts = pingpong_opts,
	.profiles = pingpong_profiles,
	.default_profile = "perf-bench-sched-pipe",
	.default_instances = 1,
	.tasks = pingpong_tasks,
	.layout = pingpong_layout,
	.roles = pingpong_roles,
	.instance = pingpong_instance,
};
