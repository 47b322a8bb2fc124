/*
 * pingpong.c: perf bench sched pipe, reproduced (tools/perf/bench/sched-pipe.c),
 * and the same round trip over the other wakeup channels (channel.h).
 *
 * Two tasks and two channels per instance, one token in flight: task 0
 * waits on `up` then sends on `down`, task 1 sends on `up` then waits on
 * `down`, so every op is one round trip and each task blocks once per op
 * unless the other is already waiting. Task 1 is a process (perf's
 * default) or, with --threads, a thread of the instance process (perf's
 * -T). Only task 0 counts ops. With --channel pipe (the default, perf's
 * program) the loops make exactly perf's system calls: read(2) and
 * write(2) of a 4-byte token on two pipes; the other channels are ring's
 * (eventfd, futex, unix socketpair), so that ring at N = 2 and pingpong
 * compare on equal terms.
 *
 * Stopping, pipe and unix: task 0 leaves its loop at the stop (the
 * runner's SIGALRM interrupts its wait) and closes its ends; task 1 then
 * reads end of file or gets EPIPE and leaves. In threaded mode task 1
 * blocks SIGALRM, as before the runner signalled every task. eventfd and
 * futex have no end to close: task 1 leaves at the stop too, when the
 * runner's SIGALRM interrupts its wait.
 *
 * Tasks and roles: one group, task 0 "ping" (the instance process, the
 * only one that counts) and task 1 "pong".
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

#include "core/instance.h"
#include "core/sample.h"
#include "util/util.h"
#include "workloads/channel.h"
#include "workloads/workload.h"

struct pingpong_params {
	bool threads; /* task 1 as a thread of the instance process */
	int channel;  /* enum channel_kind */
};

static const struct pingpong_params pingpong_defaults = {
	.threads = false,
	.channel = CHANNEL_PIPE,
};

static const struct opt pingpong_opts[] = {
	{ .type = OPT_FLAG,
	  .long_name = "threads",
	  .offset = offsetof(struct pingpong_params, threads),
	  .help = "the two tasks of a pair are threads of one process (perf bench -T)" },
	{ .type = OPT_CHOICE,
	  .long_name = "channel",
	  .offset = offsetof(struct pingpong_params, channel),
	  .argh = "KIND",
	  .help = "how the token is passed and the other task woken (pipe: perf bench's)",
	  .choices = channel_names },
	OPT_END_ROW,
};

static const struct profile pingpong_profiles[] = {
	{ .name = "perf-bench-sched-pipe",
	  .summary = "perf bench sched pipe: two processes, two pipes, a 4-byte token; "
		     "one op = one round trip",
	  .params = &pingpong_defaults,
	  .tool = "perf" },
	{ .name = NULL },
};

/* The two channels of a pair: `up` carries task 1 -> task 0, `down` task 0 -> task 1. */
struct pair {
	struct channel_set cs;
	struct channel *up, *down;
	bool ends_close; /* closing an end gives the peer EOF or EPIPE: pipe, unix */
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

/* What a failed call was, for the reason: the system call of the fd-based channels. */
static const char *call_name(const struct pair *p, bool send)
{
	if (p->up->kind == CHANNEL_FUTEX)
		return send ? "futex wake" : "futex wait";
	return send ? "write" : "read";
}

static int pair_failed(struct pair *p, unsigned task, bool send)
{
	const char *why = errno == EPROTO ? (send ? "short write" : "short read")
			  : errno == EPIPE && !send && task == 0 ? "task 1 is gone"
								 : strerror(errno);

	instance_failed(p->ic, "task %u: %s: %s", task, call_name(p, send), why);
	return -1;
}

/*
 * A signal interrupted task 1. With pipes and sockets it goes on until
 * task 0 closes its ends; with eventfd and futex there is no such end, so
 * it leaves at the stop.
 */
static bool task1_stops(const struct pair *p)
{
	return !p->ends_close && !instance_running(p->ic);
}

/*
 * Task 1: send then wait until task 0 closes its ends (EOF or EPIPE, the
 * normal end) or, without ends to close, until the stop. Returns 0, or -1
 * after instance_failed().
 */
static int task1_loop(struct pair *p)
{
	if (instance_ready(p->ic))
		return -1;
	for (;;) {
		while (channel_send(p->up)) {
			if (errno == EINTR && !task1_stops(p))
				continue;
			if (errno == EINTR || errno == EPIPE)
				return 0;
			return pair_failed(p, 1, true);
		}
		while (channel_wait(p->down)) {
			if (errno == EINTR && !task1_stops(p))
				continue;
			if (errno == EINTR || errno == EPIPE)
				return 0;
			return pair_failed(p, 1, false);
		}
	}
}

/* Task 0: wait then send, one op per round trip, until the window ends. */
static int task0_loop(struct pair *p)
{
	uint64_t *ops = instance_ops(p->ic);

	while (instance_running(p->ic)) {
		if (channel_wait(p->up)) {
			if (errno == EINTR)
				continue;
			return pair_failed(p, 0, false);
		}
		while (channel_send(p->down))
			if (errno != EINTR)
				return pair_failed(p, 0, true);
		(*ops)++;
	}
	return 0;
}

/* Task 0's ends: closing them ends task 1 when ends_close. */
static void close_task0_ends(struct pair *p)
{
	if (!p->ends_close)
		return;
	close_fd(&p->up->rfd);
	close_fd(&p->down->wfd);
}

static void close_task1_ends(struct pair *p)
{
	if (!p->ends_close)
		return;
	close_fd(&p->up->wfd);
	close_fd(&p->down->rfd);
}

static void *task1_thread(void *arg)
{
	struct pair *p = arg;
	sigset_t set;
	intptr_t rc;

	if (p->ends_close) {
		sigemptyset(&set);
		sigaddset(&set, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	if (instance_thread_register(p->ic, 1))
		return (void *)(intptr_t)-1;
	rc = task1_loop(p);
	/* task 0 may still wait in a read: our ends closing wakes it */
	close_task1_ends(p);
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
	close_task0_ends(p);
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
		close_task0_ends(p);
		rc = task1_loop(p);
		_exit(rc ? 1 : 0);
	}
	close_task1_ends(p);
	rc = instance_ready(p->ic) ? -1 : task0_loop(p);
	close_task0_ends(p);
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
	struct pair p = { .ic = ic };
	struct sigaction sa;
	char err[256];
	int rc;

	/* a vanished peer must give EPIPE (a reason or the normal end), not kill */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);

	if (channel_set_open(&p.cs, pp->channel, 2, !pp->threads, err, sizeof(err))) {
		instance_failed(ic, "%s", err);
		return -1;
	}
	p.up = &p.cs.ch[0];
	p.down = &p.cs.ch[1];
	p.ends_close = pp->channel == CHANNEL_PIPE || pp->channel == CHANNEL_UNIX;
	rc = pp->threads ? run_threads(&p) : run_processes(&p);
	channel_set_close(&p.cs);
	return rc;
}

/* Both channels are created in the instance process before task 1. */
static unsigned pingpong_fds(const void *params)
{
	const struct pingpong_params *pp = params;

	return 2 * channel_fds(pp->channel);
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
	.fds = pingpong_fds,
	.instance = pingpong_instance,
};
