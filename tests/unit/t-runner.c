/*
 * t-runner.c: the runner's formulas on hand-made inputs, placement, and real
 * short samples of the pipe workload: every profile and placement, a task
 * killed mid-window, a stop signal mid-sample, and no process left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "core/instance.h"
#include "runner/runner.h"
#include "workloads/workload.h"

#define MS 1000000ULL

/* ---- formulas ---- */

static void test_metrics_formulas(void **state)
{
	struct instance_result r[2] = {
		{ .ops = 1000,
		  .bytes = 1000 * 512,
		  .start_ns = 10 * MS,
		  .finish_ns = 1010 * MS,
		  .loop_ns = 1000 * MS,
		  .usr_s = 0.25,
		  .sys_s = 0.5 },
		{ .ops = 3000,
		  .bytes = 3000 * 512,
		  .start_ns = 20 * MS,
		  .finish_ns = 3020 * MS,
		  .loop_ns = 2000 * MS,
		  .usr_s = 0.75,
		  .sys_s = 1.5 },
	};
	struct sample s;
	const struct metric *m;
	double rate0, rate1;

	(void)state;
	sample_init(&s);
	runner_metrics(&s, r, 2);
	assert_int_equal(s.ops, 4000);
	assert_true(fabs(s.real_s - 2.0) < 1e-12); /* mean of 1 s and 3 s */
	assert_true(fabs(s.usr_s - 1.0) < 1e-12);
	assert_true(fabs(s.sys_s - 2.0) < 1e-12);
	assert_true(fabs(s.ops_per_s - 2000.0) < 1e-9); /* 4000 / 2 */
	assert_true(fabs(s.ops_per_cpu_s - 4000.0 / 3.0) < 1e-9);
	m = sample_get(&s, "mb_per_s_geomean");
	assert_non_null(m);
	assert_true(m->available);
	rate0 = 512000.0 / 1.0 / 1048576.0;
	rate1 = 1536000.0 / 2.0 / 1048576.0;
	assert_true(fabs(m->value - sqrt(rate0 * rate1)) < 1e-12);
	m = sample_get(&s, "ns_per_op");
	assert_non_null(m);
	/* two instances of 2 s mean sharing 4000 ops: 1 ms per op in each */
	assert_true(fabs(m->value - 1e6) < 1e-6);
	assert_int_equal(m->better, BETTER_LOWER);
}

static void test_metrics_zero_time(void **state)
{
	struct instance_result r = { .ops = 5 };
	struct sample s;

	(void)state;
	sample_init(&s);
	runner_metrics(&s, &r, 1);
	assert_int_equal(s.ops, 5);
	assert_true(s.ops_per_s == 0);
	assert_true(s.ops_per_cpu_s == 0);
	assert_null(sample_get(&s, "mb_per_s_geomean")); /* no bytes counted */
	assert_null(sample_get(&s, "ns_per_op"));	 /* no time measured: no time per op */
}

static void test_counter_metrics(void **state)
{
	struct procfs_task t[2];
	struct sample s;
	const struct metric *m;

	(void)state;
	memset(t, 0, sizeof(t));
	t[0].nvcsw = 100, t[0].nivcsw = 10, t[0].nr_migrations = 3;
	t[0].run_delay_ns = 5000, t[0].timeslices = 111;
	t[1].nvcsw = 300, t[1].nivcsw = 30, t[1].nr_migrations = 1;
	t[1].run_delay_ns = 15000, t[1].timeslices = 333;
	sample_init(&s);
	s.ops = 2000;
	runner_counter_metrics(&s, t, 2);
	assert_true(sample_get(&s, "nvcsw")->value == 400);
	assert_true(sample_get(&s, "nivcsw")->value == 40);
	assert_true(sample_get(&s, "migrations")->value == 4);
	assert_true(sample_get(&s, "run_delay_ns")->value == 20000);
	assert_true(sample_get(&s, "timeslices")->value == 444);
	assert_true(fabs(sample_get(&s, "ctxsw_vol_per_op")->value - 0.2) < 1e-12);
	assert_true(fabs(sample_get(&s, "ctxsw_invol_per_op")->value - 0.02) < 1e-12);
	assert_true(fabs(sample_get(&s, "ctxsw_per_op")->value - 0.22) < 1e-12);
	assert_true(fabs(sample_get(&s, "migrations_per_kop")->value - 2.0) < 1e-12);
	assert_true(fabs(sample_get(&s, "run_delay_ns_per_op")->value - 10.0) < 1e-12);
	m = sample_get(&s, "ctxsw_per_op");
	assert_int_equal(m->better, BETTER_LOWER);
	assert_true(m->flags & METRIC_EVIDENCE);
	assert_int_equal(sample_get(&s, "nvcsw")->better, BETTER_NEUTRAL);
}

static void test_counter_unavailable(void **state)
{
	struct procfs_task t[2];
	struct sample s;
	const struct metric *m;

	(void)state;
	memset(t, 0, sizeof(t));
	t[1].err[PROCFS_SCHEDSTAT] = ENOENT;
	t[0].err[PROCFS_SCHED] = PROCFS_ENOFIELD;
	sample_init(&s);
	s.ops = 10;
	runner_counter_metrics(&s, t, 2);
	m = sample_get(&s, "run_delay_ns_per_op");
	assert_false(m->available);
	assert_true(m->value == 0);
	assert_non_null(strstr(m->why, "schedstat"));
	m = sample_get(&s, "migrations");
	assert_false(m->available);
	assert_non_null(strstr(m->why, "se.nr_migrations"));
	assert_true(sample_get(&s, "nvcsw")->available);

	/* No ops: per-op metrics are unavailable, not infinite or zero. */
	memset(t, 0, sizeof(t));
	sample_init(&s);
	runner_counter_metrics(&s, t, 2);
	assert_false(sample_get(&s, "ctxsw_per_op")->available);
	assert_true(sample_get(&s, "nvcsw")->available);
}

/* ---- real samples ---- */

/*
 * Without a subreaper (qemu-user, make check-arm64) a killed instance's
 * orphaned task is reparented to init, which in a container may never reap
 * it: such zombies are dead and not counted there; live processes still are.
 */
static int zombies_go_to_init;

/* Processes named wakebench-* in our session other than ourselves. */
static int count_workload_procs(bool show)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t sid = getsid(0);
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[64], buf[512], *p;
		FILE *f;
		int pid = atoi(e->d_name), ppid, pgrp, session;
		char comm[64];

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		p = strrchr(buf, ')');
		if (!p || sscanf(buf, "%*d (%63[^)]", comm) != 1)
			continue;
		if (sscanf(p + 2, "%*c %d %d %d", &ppid, &pgrp, &session) != 3)
			continue;
		if (zombies_go_to_init && p[2] == 'Z' && ppid == 1)
			continue;
		if (session == sid && !strncmp(comm, "wakebench-", 10)) {
			if (show)
				print_message("# left: %s", buf);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* Children of this process (any state, zombies included). */
static int count_children(void)
{
	char path[64], buf[4096];
	FILE *f;
	int n = 0;
	char *tok;

	buf[0] = '\0';

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", getpid(), getpid());
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && buf[0] != '\n')
		print_message("# children: %s\n", buf);
	if (buf[0])
		for (tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
			n++;
	fclose(f);
	return n;
}

/* Workload processes may take a moment to vanish after SIGKILL. */
static void assert_nothing_left(void)
{
	int i, left = 0;

	assert_int_equal(count_children(), 0);
	for (i = 0; i < 100; i++) {
		left = count_workload_procs(i == 99);
		if (!left)
			break;
		usleep(10000);
	}
	assert_int_equal(left, 0);
}

/* The window of run_one()'s samples. */
static uint64_t run_duration_ns = 100 * MS;

static void run_one(const char *profile, int placement, unsigned instances, struct sample *s)
{
	const struct workload *wl = workload_find("pipe");
	const struct profile *pr;
	struct run_params rp = runner_defaults;
	struct run_spec spec;
	char err[256];

	assert_non_null(wl);
	pr = workload_profile(wl, profile);
	assert_non_null(pr);
	rp.instances = instances;
	rp.placement = placement;
	memset(&spec, 0, sizeof(spec));
	spec.wl = wl;
	spec.wl_params = pr->params;
	spec.rp = &rp;
	assert_int_equal(wl->check(pr->params, &rp, err, sizeof(err)), 0);
	if (runner_check(&spec, err, sizeof(err)) < 0) {
		print_message("# skipped %s: %s\n", placement_names[placement], err);
		s->status = SAMPLE_OK;
		s->ops = 1;
		s->nmetrics = 0;
		return;
	}
	assert_int_equal(runner_sample(&spec, run_duration_ns, s), 0);
}

static void check_ok_sample(const struct sample *s, unsigned instances)
{
	static const char *const names[] = {
		"nvcsw",
		"nivcsw",
		"migrations",
		"run_delay_ns",
		"timeslices",
		"ctxsw_vol_per_op",
		"ctxsw_invol_per_op",
		"ctxsw_per_op",
		"migrations_per_kop",
		"run_delay_ns_per_op",
		"mb_per_s_geomean",
	};
	size_t i;

	if (s->status != SAMPLE_OK)
		print_message("# sample %s: %s\n", sample_status_name(s->status), s->reason);
	assert_int_equal(s->status, SAMPLE_OK);
	assert_int_equal(s->instances, instances);
	assert_true(s->ops > 0);
	/*
	 * real_s is each instance's own time from its start: under load (qemu-user,
	 * a parallel lane) an instance may start well after the release, so only
	 * the parent's window (wall_ns) has a lower bound. A busy machine is slow.
	 */
	assert_true(s->real_s > 0 && s->real_s < 10.0);
	assert_true(s->ops_per_s > 0);
	assert_true(s->usr_s + s->sys_s > 0);
	assert_true(s->wall_ns >= 90 * MS);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct metric *m = sample_get(s, names[i]);

		assert_non_null(m);
		/* This kernel (6.18) has every file: each counter must be present. */
		if (!m->available)
			print_message("# %s unavailable: %s\n", names[i], m->why);
		assert_true(m->available);
	}
	/* Every task blocks at least at the barrier: some voluntary switches. */
	assert_true(sample_get(s, "nvcsw")->value >= 2 * instances);
}

static void test_sample_profiles_placements(void **state)
{
	static const char *const profiles[] = { "stress-ng-0.15", "stress-ng-0.15.07",
						"stress-ng-0.16", "stress-ng-0.21.02" };
	struct sample s;
	size_t p;
	int pl;

	(void)state;
	for (p = 0; p < ARRAY_SIZE(profiles); p++) {
		for (pl = PLACE_ANY; pl <= PLACE_SPREAD; pl++) {
			memset(&s, 0, sizeof(s));
			run_one(profiles[p], pl, pl == PLACE_SPREAD ? 2 : 1, &s);
			if (!s.nmetrics && s.ops == 1)
				continue; /* placement not possible here */
			check_ok_sample(&s, pl == PLACE_SPREAD ? 2 : 1);
			assert_nothing_left();
		}
	}
}

static void test_sample_keeps_index(void **state)
{
	struct sample s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.index = 7;
	s.warmup = true;
	run_one("stress-ng-0.15", PLACE_ANY, 2, &s);
	check_ok_sample(&s, 2);
	assert_int_equal(s.index, 7);
	assert_true(s.warmup);
	assert_true(s.duration_ns == 100 * MS);
	assert_nothing_left();
}

/* A helper thread that acts on the sample in progress after a delay. */
struct saboteur {
	int action; /* 0: kill a reader, 1: SIGINT to itself */
	useconds_t delay_us;
	int killed;
	uint64_t acted_ns; /* when it acted */
	uint64_t done_ns;  /* when runner_sample() returned */
};

static pid_t find_reader(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0, me = getpid(), sid = getsid(0);

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char path[64], buf[512], comm[64], *p;
		int pid = atoi(e->d_name), ppid, pgrp, session;
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
		    sscanf(buf, "%*d (%63[^)]", comm) == 1 &&
		    sscanf(p + 2, "%*c %d %d %d", &ppid, &pgrp, &session) == 3 && session == sid &&
		    ppid != me && p[2] != 'Z' && !strcmp(comm, "wakebench-pipe"))
			found = pid; /* a live one: a zombie orphan would die of nothing */
		fclose(f);
	}
	closedir(d);
	return found;
}

static void *saboteur_main(void *arg)
{
	struct saboteur *sb = arg;

	usleep(sb->delay_us);
	/*
	 * Stamped before acting: this thread may be preempted between its act
	 * and a stamp after it while the sample ends, which would put the act
	 * after the end (seen under check-stress's CPU hogs).
	 */
	sb->acted_ns = now_ns();
	if (sb->action == 0) {
		pid_t reader = find_reader();

		if (reader > 0 && kill(reader, SIGKILL) == 0)
			sb->killed = 1;
	} else {
		/*
		 * Taken by this thread, not by the one sleeping in the sample (as
		 * when a probe's thread gets Ctrl-C): the sample must stop anyway.
		 */
		pthread_kill(pthread_self(), SIGINT);
		sb->killed = 1;
	}
	return NULL;
}

static void run_sabotaged(struct saboteur *sb, struct sample *s)
{
	const struct workload *wl = workload_find("pipe");
	struct run_params rp = runner_defaults;
	struct run_spec spec;
	pthread_t th;

	rp.instances = 2;
	memset(&spec, 0, sizeof(spec));
	spec.wl = wl;
	spec.wl_params = wl->defaults;
	spec.rp = &rp;
	memset(s, 0, sizeof(*s));
	assert_int_equal(pthread_create(&th, NULL, saboteur_main, sb), 0);
	assert_int_equal(runner_sample(&spec, 5000 * MS, s), 0);
	sb->done_ns = now_ns();
	pthread_join(th, NULL);
}

static void test_sample_task_killed(void **state)
{
	struct saboteur sb = { .action = 0, .delay_us = 300000 };
	struct sample s;

	(void)state;
	if (wb_user_emulation(s.reason, sizeof(s.reason)))
		wb_skip("%s: the orphaned tasks of a killed instance are not ours to reap there "
			"(no subreaper), and the sample's prompt end is not measurable",
			s.reason);
	run_sabotaged(&sb, &s);
	assert_true(sb.killed);
	print_message("# reason: %s\n", s.reason);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_true(s.reason[0] != '\0');
	assert_non_null(strstr(s.reason, "instance"));
	/* The failure ends the sample early, not after its 5 s. */
	assert_true(sb.done_ns - sb.acted_ns < 2000 * MS);
	assert_nothing_left();
}

static void test_sample_interrupted(void **state)
{
	struct saboteur sb = { .action = 1, .delay_us = 300000 };
	struct sample s;

	(void)state;
	if (wb_user_emulation(s.reason, sizeof(s.reason)))
		wb_skip("%s: qemu-user may lose a signal sent to a thread that exits right "
			"after, and the sample then runs its whole window",
			s.reason);
	runner_signals_install();
	run_sabotaged(&sb, &s);
	assert_int_equal(runner_stop_signal(), SIGINT);
	assert_int_equal(s.status, SAMPLE_INTERRUPTED);
	assert_non_null(strstr(s.reason, "SIGINT"));
	print_message("# stopped %llu ms after the signal\n",
		      (unsigned long long)((sb.done_ns - sb.acted_ns) / MS));
	/*
	 * Killed at once (usually 0-2 ms here); the bound leaves room for a
	 * shared VM that stalls now and then, and is far below the 5 s window.
	 */
	assert_true(sb.done_ns - sb.acted_ns < 2000 * MS);
	assert_nothing_left();

	/* Once a stop signal was seen no further sample starts. */
	memset(&s, 0, sizeof(s));
	run_one("stress-ng-0.15", PLACE_ANY, 1, &s);
	assert_int_equal(s.status, SAMPLE_INTERRUPTED);
	assert_true(s.ops == 0);
	assert_nothing_left();
}

/*
 * wakebench SIGKILLed mid-sample: PR_SET_PDEATHSIG must take every workload
 * process with it. This process becomes a child subreaper so that the
 * orphans come to it and it can see them go.
 */
static void test_parent_killed(void **state)
{
	uint64_t t0, deadline;
	pid_t runner;
	int status, alive = 1;

	(void)state;
	{
		char why[256];

		if (wb_no_subreaper(why, sizeof(why)))
			wb_skip("%s", why);
	}
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	fflush(NULL);
	runner = fork();
	assert_true(runner >= 0);
	if (runner == 0) {
		struct sample s;

		memset(&s, 0, sizeof(s));
		run_duration_ns = 5000 * MS;
		run_one("stress-ng-0.15", PLACE_ANY, 2, &s);
		_exit(0); /* only reached if the kill below came too late */
	}
	usleep(400000);
	/* The sample is running: the runner and its 2 x 2 workload processes. */
	assert_int_equal(waitpid(runner, &status, WNOHANG), 0);
	assert_int_equal(count_workload_procs(false), 4);
	assert_int_equal(kill(runner, SIGKILL), 0);
	t0 = now_ns();
	deadline = t0 + 3000 * MS; /* the sample would run until 5 s */
	while (now_ns() < deadline) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p < 0 && errno == ECHILD) {
			alive = 0;
			break;
		}
		if (p == 0)
			usleep(5000);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	/* Everything (runner, instances, readers) is gone long before 5 s. */
	assert_int_equal(alive, 0);
	assert_nothing_left();
}

/* ---- made-up workloads for the failure paths ---- */

enum fake_mode {
	FAKE_FAIL_BEFORE_READY, /* setup fails */
	FAKE_FAIL_REASON,	/* reports a reason mid-window */
	FAKE_IGNORE_STOP,	/* never leaves its loop */
	FAKE_CHILD_DIES,	/* task 1 exits before it is ready */
	FAKE_CHILD_KILLED,	/* task 1 is killed (SIGKILL) before it is ready */
	FAKE_STOP_REAP,		/* task 1 and the instance wait for the stop; it reaps task 1 */
};

struct fake_params {
	int mode;
	int marker_fd;	/* FAKE_STOP_REAP: a byte per instance that reaped its task 1 */
	int started_fd; /* when > 0: a byte per instance released at the start */
};

/* The start, told to the test through started_fd. */
static int fake_started(const struct fake_params *fp)
{
	return fp->started_fd > 0 && write(fp->started_fd, "s", 1) != 1 ? -1 : 0;
}

static int fake_instance(const void *params, struct instance_ctx *ic)
{
	const struct fake_params *fp = params;

	if (fp->mode == FAKE_FAIL_BEFORE_READY) {
		instance_failed(ic, "no such resource");
		return -1;
	}
	if (fp->mode == FAKE_CHILD_DIES || fp->mode == FAKE_CHILD_KILLED) {
		pid_t pid = instance_fork(ic);

		if (pid == 0 && fp->mode == FAKE_CHILD_KILLED)
			raise(SIGKILL);
		if (pid == 0)
			_exit(3);
		if (pid < 0 || instance_ready(ic) == 0)
			return -1; /* the start must not come */
		instance_reap_child(ic, pid);
		return -1;
	}
	if (fp->mode == FAKE_STOP_REAP) {
		pid_t pid = instance_fork(ic);

		if (pid == 0) {
			if (instance_ready(ic))
				_exit(1);
			while (instance_running(ic))
				pause(); /* the stop's SIGALRM ends it */
			_exit(0);
		}
		if (pid < 0 || instance_ready(ic) || fake_started(fp))
			return -1;
		while (instance_running(ic))
			pause();
		if (instance_reap_child(ic, pid) == 0 && write(fp->marker_fd, "r", 1) != 1)
			return -1;
		return 0;
	}
	if (instance_ready(ic) || fake_started(fp))
		return -1;
	if (fp->mode == FAKE_FAIL_REASON) {
		usleep(20000);
		instance_failed(ic, "checksum mismatch in packet %d", 42);
		return -1;
	}
	for (;;)
		pause();
}

static const struct opt fake_opts[] = { OPT_END_ROW };

static unsigned fake_two_tasks(const void *params)
{
	(void)params;
	return 2;
}

static const struct workload fake_workload = {
	.name = "fake",
	.summary = "test",
	.op_name = "ops",
	.primary = "ops_per_s",
	.params_size = sizeof(struct fake_params),
	.opts = fake_opts,
	.instance = fake_instance,
};

static const struct workload fake_workload2 = {
	.name = "fake2",
	.summary = "test",
	.op_name = "ops",
	.primary = "ops_per_s",
	.params_size = sizeof(struct fake_params),
	.opts = fake_opts,
	.tasks = fake_two_tasks,
	.instance = fake_instance,
};

/* The made-up workload of a mode: two tasks where the mode forks one. */
static const struct workload *fake_wl(int mode)
{
	return mode == FAKE_CHILD_DIES || mode == FAKE_CHILD_KILLED || mode == FAKE_STOP_REAP
		       ? &fake_workload2
		       : &fake_workload;
}

static void run_fake(int mode, unsigned instances, struct sample *s)
{
	struct fake_params fp = { .mode = mode };
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .wl = fake_wl(mode), .wl_params = &fp, .rp = &rp };

	rp.instances = instances;
	memset(s, 0, sizeof(*s));
	assert_int_equal(runner_sample(&spec, 100 * MS, s), 0);
	print_message("# %s: %s\n", sample_status_name(s->status), s->reason);
}

static void test_fail_before_ready(void **state)
{
	struct sample s;

	(void)state;
	run_fake(FAKE_FAIL_BEFORE_READY, 2, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "no such resource"));
	assert_non_null(strstr(s.reason, "before the start"));
	assert_nothing_left();
}

static void test_fail_reason(void **state)
{
	struct sample s;

	(void)state;
	run_fake(FAKE_FAIL_REASON, 1, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "checksum mismatch in packet 42"));
	assert_nothing_left();
}

/* A task that dies before the start fails the sample at once, with why. */
static void test_child_dies_before_start(void **state)
{
	struct sample s;
	uint64_t t0 = now_ns();

	(void)state;
	run_fake(FAKE_CHILD_DIES, 2, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "before the start: task 1 exited with status 3"));
	assert_true(now_ns() - t0 < 5000 * MS); /* not the 30 s setup timeout */
	assert_nothing_left();
}

/* Killed before the start: named by its signal, as a task killed while it runs is. */
static void test_child_killed_before_start(void **state)
{
	struct sample s;

	(void)state;
	run_fake(FAKE_CHILD_KILLED, 1, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "before the start: task 1 killed by SIGKILL"));
	assert_nothing_left();
}

/* A workload that ignores the end of the window is killed after the grace. */
static void test_stop_deadline(void **state)
{
	struct sample s;
	uint64_t t0 = now_ns();

	(void)state;
	run_fake(FAKE_IGNORE_STOP, 2, &s);
	assert_int_equal(s.status, SAMPLE_FAILED);
	assert_non_null(strstr(s.reason, "did not stop"));
	assert_true(now_ns() - t0 < 9000 * MS);
	assert_nothing_left();
}

/*
 * Ctrl-C mid-window, in a child process (a stop signal stays for the rest
 * of a process): what the sample says, how many instances reaped their own
 * task (FAKE_STOP_REAP's markers) and how long after the signal it ended.
 */
struct interrupted {
	int status;
	char reason[sizeof(((struct sample *)0)->reason)];
	int reaped;
	uint64_t after_ns;
};

/* SIGINT to the thread in the sample once every instance started (when is noted before). */
struct sigint_at {
	pthread_t sampler;
	int started_fd;
	unsigned instances;
	uint64_t at_ns;
};

static void *sigint_later(void *arg)
{
	struct sigint_at *sa = arg;
	unsigned got = 0;
	char b;

	while (got < sa->instances && read(sa->started_fd, &b, 1) == 1)
		got++;
	if (got < sa->instances)
		return NULL; /* the sample ended before (the write end closed): no signal */
	sa->at_ns = now_ns();
	pthread_kill(sa->sampler, SIGINT);
	return NULL;
}

static void run_interrupted(int mode, unsigned instances, struct interrupted *r)
{
	int marker[2], result[2], status;
	pid_t child;

	assert_int_equal(pipe(marker), 0);
	assert_int_equal(pipe(result), 0);
	fflush(NULL);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct fake_params fp = { .mode = mode, .marker_fd = marker[1] };
		int started[2];
		struct run_params rp = runner_defaults;
		struct run_spec spec = { .wl = fake_wl(mode), .wl_params = &fp, .rp = &rp };
		struct interrupted out = { 0 };
		struct sample s;
		struct sigint_at sa = { .sampler = pthread_self(), .instances = instances };
		pthread_t th;

		close(marker[0]);
		close(result[0]);
		if (pipe(started))
			_exit(1);
		fp.started_fd = started[1];
		sa.started_fd = started[0];
		rp.instances = instances;
		runner_signals_install();
		memset(&s, 0, sizeof(s));
		if (pthread_create(&th, NULL, sigint_later, &sa) ||
		    runner_sample(&spec, 5000 * MS, &s))
			_exit(1);
		out.after_ns = now_ns();
		close(started[1]);
		pthread_join(th, NULL);
		out.after_ns = sa.at_ns ? out.after_ns - sa.at_ns : 0;
		out.status = (int)s.status;
		memcpy(out.reason, s.reason, sizeof(out.reason));
		close(marker[1]);
		if (write(result[1], &out, sizeof(out)) != (ssize_t)sizeof(out))
			_exit(1);
		_exit(0);
	}
	close(marker[1]);
	close(result[1]);
	memset(r, 0, sizeof(*r));
	assert_int_equal(read(result[0], r, sizeof(*r)), (ssize_t)sizeof(*r));
	{
		char buf[64];
		ssize_t n;

		/* every instance is gone once the sample is over: nothing more comes */
		fcntl(marker[0], F_SETFL, O_NONBLOCK);
		while ((n = read(marker[0], buf, sizeof(buf))) > 0)
			r->reaped += (int)n;
	}
	close(marker[0]);
	close(result[0]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	print_message("# %s: %s; %d reaped by their instance; ended %llu ms after the signal\n",
		      sample_status_name((enum sample_status)r->status), r->reason, r->reaped,
		      (unsigned long long)(r->after_ns / MS));
}

/*
 * Ctrl-C stops the tasks as the window's end does: every instance returns
 * and reaps its own tasks (nothing is left to init where no subreaper can
 * be set, as under qemu-user); the sample is interrupted.
 */
static void test_interrupt_stops_tasks(void **state)
{
	struct interrupted r;

	(void)state;
	run_interrupted(FAKE_STOP_REAP, 3, &r);
	assert_int_equal(r.status, SAMPLE_INTERRUPTED);
	assert_non_null(strstr(r.reason, "SIGINT"));
	assert_int_equal(r.reaped, 3);
	assert_nothing_left();
}

/* Instances that do not return after Ctrl-C are killed a second later, not at the 5 s grace. */
static void test_interrupt_grace(void **state)
{
	struct interrupted r;

	(void)state;
	run_interrupted(FAKE_IGNORE_STOP, 2, &r);
	assert_int_equal(r.status, SAMPLE_INTERRUPTED);
	assert_true(r.after_ns >= 1000 * MS); /* they had their second */
	assert_true(r.after_ns < 4500 * MS);
	assert_nothing_left();
}

/* A probe sees every task alive at the barrier, and the ops at its stop. */
struct probe_log {
	size_t ntids;
	int alive;
	int started, stopped;
	uint64_t ops_at_stop;
};

static int log_start(void *state, const pid_t *tids, size_t ntids)
{
	struct probe_log *pl = state;
	size_t i;

	pl->started++;
	pl->ntids = ntids;
	for (i = 0; i < ntids; i++)
		if (tids[i] > 0 && kill(tids[i], 0) == 0)
			pl->alive++;
	return 0;
}

static void log_stop(void *state, struct sample *s)
{
	struct probe_log *pl = state;

	pl->stopped++;
	pl->ops_at_stop = s->ops;
	sample_put(s, "delayed_max", 1.0); /* only the delayed-entities probe puts it */
}

static const struct probe_ops log_ops = { .name = "log", .start = log_start, .stop = log_stop };

static void test_probe_calls(void **state)
{
	const struct workload *wl = workload_find("pipe");
	struct probe_log pl = { 0 };
	struct probe pr = { .ops = &log_ops, .state = &pl };
	struct run_params rp = runner_defaults;
	struct run_spec spec = {
		.wl = wl, .wl_params = wl->defaults, .rp = &rp, .probes = &pr, .nprobes = 1
	};
	struct sample s;

	(void)state;
	rp.instances = 3;
	memset(&s, 0, sizeof(s));
	assert_int_equal(runner_sample(&spec, 100 * MS, &s), 0);
	check_ok_sample(&s, 3);
	assert_int_equal(pl.started, 1);
	assert_int_equal(pl.stopped, 1);
	assert_int_equal(pl.ntids, 6);
	assert_int_equal(pl.alive, 6);
	assert_true(pl.ops_at_stop == s.ops);
	assert_non_null(sample_get(&s, "delayed_max"));
	assert_nothing_left();
}

static void test_check_cross_cpu(void **state)
{
	const struct workload *wl = workload_find("pipe");
	struct run_params rp = runner_defaults;
	struct run_spec spec = { .wl = wl, .wl_params = wl->defaults, .rp = &rp };
	cpu_set_t one, old;
	char err[256];

	(void)state;
	rp.placement = PLACE_CROSS_CPU;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(runner_check(&spec, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--placement"));
	assert_non_null(strstr(err, "cross-cpu"));
	rp.placement = PLACE_SAME_CPU;
	assert_int_equal(runner_check(&spec, err, sizeof(err)), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

int main(void)
{
	char why[256];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_formulas),
		cmocka_unit_test(test_metrics_zero_time),
		cmocka_unit_test(test_counter_metrics),
		cmocka_unit_test(test_counter_unavailable),
		cmocka_unit_test(test_check_cross_cpu),
		cmocka_unit_test(test_sample_profiles_placements),
		cmocka_unit_test(test_sample_keeps_index),
		cmocka_unit_test(test_sample_task_killed),
		cmocka_unit_test(test_parent_killed),
		cmocka_unit_test(test_fail_before_ready),
		cmocka_unit_test(test_fail_reason),
		cmocka_unit_test(test_child_dies_before_start),
		cmocka_unit_test(test_child_killed_before_start),
		cmocka_unit_test(test_stop_deadline),
		cmocka_unit_test(test_interrupt_stops_tasks),
		cmocka_unit_test(test_interrupt_grace),
		cmocka_unit_test(test_probe_calls),
		cmocka_unit_test(test_sample_interrupted), /* last: the stop signal stays */
	};

	/*
	 * A session of its own: the checks count the wakebench-* processes of
	 * this session, and those of the tests beside it in make check's
	 * parallel lane (or of anything else started from the same shell) are
	 * not its own.
	 */
	if (getsid(0) != getpid() && setsid() < 0)
		printf("# setsid: %s: wakebench-* processes of this session that are not this "
		       "test's count as left\n",
		       strerror(errno));
	zombies_go_to_init = wb_no_subreaper(why, sizeof(why));
	if (zombies_go_to_init)
		printf("# %s: dead tasks reparented to init are not counted as left\n", why);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
