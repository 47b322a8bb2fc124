/*
 * runner.c: one sample of one config (DESIGN section 4).
 *
 * The parent maps one shared slot per instance (the op counter alone in its
 * first cache line, the rest of what the instance reports after it), forks
 * the instance processes and waits until every task of every instance has
 * written one byte into a "ready" pipe. Each task then blocks reading a
 * "start" pipe; the parent starts the probes and closes the start pipe's
 * write end, which releases every task at once (not staggered by fork).
 * Task 0 of each instance notes its start on CLOCK_MONOTONIC and arms its
 * own timer; the SIGALRM handler (installed without SA_RESTART, as
 * stress-ng's) clears the run flag and re-arms one second, so a writer
 * blocked on a full pipe gets EINTR and leaves. The parent sleeps in
 * ppoll() for the whole window, woken only by SIGCHLD (an early death) or a
 * stop signal; after the window it waits for every instance to exit
 * (waitid WNOWAIT), stops the probes, reads each instance's /proc counters,
 * then reaps it. Instances do the same for their own children
 * (instance_reap_child()) and report rusage (self + children) in their slot
 * before _exit, which is where stress-ng takes it.
 *
 * Every path (failure, stop signal, timeout) SIGKILLs what is left and reaps
 * it before runner_sample() returns; workload tasks also have
 * PR_SET_PDEATHSIG(SIGKILL), so a SIGKILLed wakebench leaves nothing.
 */
#include "runner/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

/* ---- options ---- */

const char *const placement_names[] = { "any", "same-cpu", "cross-cpu", "spread", NULL };

const struct run_params runner_defaults = {
	.instances = 4,
	.duration_ns = 2000000000ULL,
	.samples = 10,
	.warmup_ns = 1000000000ULL,
	.placement = PLACE_ANY,
};

const struct opt runner_opts[] = {
	{ .type = OPT_UINT, .long_name = "instances", .short_name = 'j',
	  .offset = offsetof(struct run_params, instances), .argh = "N",
	  .help = "instances of the workload run side by side (stress-ng --pipe N)",
	  .min = 1, .max = 4096 },
	{ .type = OPT_DURATION, .long_name = "duration", .short_name = 't',
	  .offset = offsetof(struct run_params, duration_ns), .argh = "DURATION",
	  .help = "length of each sample (20s, 500ms, 0.5s, 2m)",
	  .min = 1e6, .max = 86400e9 },
	{ .type = OPT_UINT, .long_name = "samples", .short_name = 'n',
	  .offset = offsetof(struct run_params, samples), .argh = "N",
	  .help = "measured samples", .min = 1, .max = 100000 },
	{ .type = OPT_DURATION, .long_name = "warmup",
	  .offset = offsetof(struct run_params, warmup_ns), .argh = "DURATION",
	  .help = "length of one discarded warm-up sample before the first (0: none)",
	  .min = 0, .max = 3600e9 },
	{ .type = OPT_CHOICE, .long_name = "placement",
	  .offset = offsetof(struct run_params, placement), .argh = "WHERE",
	  .help = "CPU affinity: any (none, like stress-ng), same-cpu (both tasks of an "
		  "instance on one CPU), cross-cpu (on two CPUs), spread (tasks round-robin)",
	  .choices = placement_names },
	OPT_END_ROW,
};

/* ---- shared memory ---- */

/* The part of a slot that only the instance's task 0 writes during the window. */
struct slot_hot {
	uint64_t ops;
	uint64_t bytes;
};

/* The rest, written at setup and after the window; one cache line further. */
struct slot_cold {
	pid_t pids[RUNNER_MAX_TASKS]; /* process of each task */
	pid_t tids[RUNNER_MAX_TASKS]; /* the task itself (== pid for processes) */
	int done[RUNNER_MAX_TASKS];   /* 1 once reaped by its instance (threads: collected) */
	unsigned ntasks;
	uint64_t start_ns;
	uint64_t finish_ns;
	uint64_t loop_ns;
	double usr_s, sys_s;
	int failed; /* claimed atomically by the first task that reports */
	char reason[200];
	struct procfs_task counters[RUNNER_MAX_TASKS];
};

struct instance_ctx {
	const struct run_spec *spec;
	unsigned index;
	unsigned tasks;  /* tasks_per_instance */
	unsigned nforked;
	pid_t instance_pid;
	int ready_wr, start_rd;
	uint64_t duration_ns;
	const int *cpus;
	int ncpus;
	struct slot_hot *hot;
	struct slot_cold *cold;
};

/* The calling task's role (per thread, so that thread workloads work). */
static __thread unsigned task_role;

/* Cleared by SIGALRM in task 0 at the end of the window. */
static volatile sig_atomic_t instance_run_flag = 1;

/* First stop signal received by the parent (runner_signals_install). */
static volatile sig_atomic_t stop_signal;

static size_t cache_line_size(void)
{
	long l = -1;

#ifdef _SC_LEVEL1_DCACHE_LINESIZE
	l = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
#endif
	if (l < 32 || l > 4096 || (l & (l - 1)))
		return 128;
	return (size_t)l;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* ---- signals ---- */

/*
 * Written by the stop-signal handler: the parent polls it while it sleeps,
 * so a stop signal taken by another thread (one a probe started, say) still
 * wakes the sample at once.
 */
static int stop_pipe[2] = { -1, -1 };

static void on_stop_signal(int sig)
{
	int saved = errno;

	if (!stop_signal)
		stop_signal = sig;
	if (stop_pipe[1] >= 0) {
		char b = 's';
		ssize_t n = write(stop_pipe[1], &b, 1);

		(void)n; /* full pipe: it is readable anyway */
	}
	errno = saved;
}

/*
 * Every signal whose default action ends the process and that a handler can
 * take without harm. Left out: SIGKILL and SIGSTOP (cannot be caught), and
 * the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP): returning from
 * their handler re-runs the faulting instruction. SIGABRT is taken too: an
 * abort() still ends the process after the handler returns, a `kill -ABRT`
 * restores first. SIGALRM is the instances' stop timer, but in the parent
 * (which never arms one) a stray one is a stop like any other; SIGPIPE is
 * `wakebench ... | head`: nobody reads the results any more.
 */
static const int stop_sigs[] = {
	SIGHUP,	 SIGINT,  SIGQUIT,   SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSYS,	 SIGABRT,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

void runner_stop_sigset(sigset_t *set)
{
	size_t i;
	int s;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(set, stop_sigs[i]);
	/* real-time signals end the process by default too (glibc keeps its own below SIGRTMIN) */
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
}

void runner_signals_install(void)
{
	struct sigaction sa;
	sigset_t set;
	int s;

	if (stop_pipe[0] < 0 && pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		stop_pipe[0] = stop_pipe[1] = -1;

	runner_stop_sigset(&set);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	/* one handler at a time: the first signal is the one that counts */
	sa.sa_mask = set;
	sa.sa_flags = 0; /* no SA_RESTART: a blocking call returns EINTR */
	for (s = 1; s < NSIG; s++) {
		struct sigaction old;

		if (sigismember(&set, s) != 1)
			continue;
		/* `nohup wakebench ab ...` must outlive the terminal: a hangup it ignores */
		if (s == SIGHUP && !sigaction(s, NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(s, &sa, NULL);
	}
}

int runner_stop_signal(void)
{
	return stop_signal;
}

const char *runner_signal_name(int sig)
{
	static char names[NSIG][24];
	const char *abbrev;

	if (sig <= 0 || sig >= NSIG)
		return "a signal";
	if (names[sig][0])
		return names[sig];
	abbrev = sigabbrev_np(sig);
	if (sig == SIGRTMIN)
		snprintf(names[sig], sizeof(names[sig]), "SIGRTMIN");
	else if (sig == SIGRTMAX)
		snprintf(names[sig], sizeof(names[sig]), "SIGRTMAX");
	else if (sig > SIGRTMIN && sig < SIGRTMAX)
		snprintf(names[sig], sizeof(names[sig]), "SIGRTMIN+%d", sig - SIGRTMIN);
	else if (abbrev)
		snprintf(names[sig], sizeof(names[sig]), "SIG%s", abbrev);
	else
		snprintf(names[sig], sizeof(names[sig]), "signal %d", sig);
	return names[sig];
}

static void on_alarm(int sig)
{
	(void)sig;
	instance_run_flag = 0;
	alarm(1);
}

/* Set when a child exited: the parent then looks at its instances. */
static volatile sig_atomic_t chld_flag;

static void on_sigchld(int sig)
{
	(void)sig;
	chld_flag = 1;
}

/* ---- placement ---- */

int runner_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int cpu, n = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return error_errno("cannot read the CPU affinity of this process");
	for (cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

int runner_placement_cpu(int placement, unsigned index, unsigned role,
			 unsigned tasks_per_instance, const int *cpus, int ncpus)
{
	if (ncpus <= 0)
		return -1;
	switch (placement) {
	case PLACE_SAME_CPU:
		return cpus[index % (unsigned)ncpus];
	case PLACE_CROSS_CPU:
		return cpus[(index + role) % (unsigned)ncpus];
	case PLACE_SPREAD:
		return cpus[(index * tasks_per_instance + role) % (unsigned)ncpus];
	default:
		return -1;
	}
}

static int place_task(struct instance_ctx *ic, unsigned role)
{
	int cpu = runner_placement_cpu(ic->spec->rp->placement, ic->index, role, ic->tasks,
				       ic->cpus, ic->ncpus);
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		instance_failed(ic, "cannot pin task %u of instance %u to CPU %d: %s", role,
				ic->index, cpu, strerror(errno));
		return -1;
	}
	return 0;
}

int runner_check(const struct run_spec *spec, char *err, size_t errlen)
{
	int cpus[CPU_SETSIZE], n;
	unsigned tasks = spec->wl->tasks_per_instance ? spec->wl->tasks_per_instance : 1;
	struct rlimit rl;

	if (tasks > RUNNER_MAX_TASKS)
		BUG("workload '%s' has %u tasks per instance, at most %d", spec->wl->name, tasks,
		    RUNNER_MAX_TASKS);
	n = runner_allowed_cpus(cpus, CPU_SETSIZE);
	if (n < 0) {
		snprintf(err, errlen, "cannot read the CPU affinity of this process");
		return -1;
	}
	if (spec->rp->placement == PLACE_CROSS_CPU && n < 2) {
		snprintf(err, errlen,
			 "option '--placement': 'cross-cpu' needs two allowed CPUs, this process "
			 "may only run on CPU %d; allowed here: any|same-cpu|spread",
			 n ? cpus[0] : -1);
		return -1;
	}
	if (geteuid() != 0 && !getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    spec->rp->instances * tasks >= rl.rlim_cur) {
		snprintf(err, errlen,
			 "option '--instances' (-j): '%llu' needs %llu processes, above the "
			 "process limit (ulimit -u %llu)",
			 (unsigned long long)spec->rp->instances,
			 (unsigned long long)(spec->rp->instances * tasks),
			 (unsigned long long)rl.rlim_cur);
		return -1;
	}
	return 0;
}

/* ---- the instance side ---- */

static void describe_exit(const siginfo_t *si, char *buf, size_t len);
static int role_of_pid(const struct instance_ctx *ic, pid_t pid);

unsigned instance_index(const struct instance_ctx *ic)
{
	return ic->index;
}

unsigned instance_role(const struct instance_ctx *ic)
{
	(void)ic;
	return task_role;
}

bool instance_running(const struct instance_ctx *ic)
{
	(void)ic;
	return instance_run_flag;
}

uint64_t *instance_ops(struct instance_ctx *ic)
{
	return &ic->hot->ops;
}

uint64_t *instance_bytes(struct instance_ctx *ic)
{
	return &ic->hot->bytes;
}

void instance_set_loop_ns(struct instance_ctx *ic, uint64_t loop_ns)
{
	ic->cold->loop_ns = loop_ns;
}

void instance_failed(struct instance_ctx *ic, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&ic->cold->failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(ic->cold->reason, sizeof(ic->cold->reason), fmt, ap);
	va_end(ap);
}

/* Make the calling task die with its parent, closing the race with getppid(). */
static int die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return -1;
	return getppid() == parent ? 0 : -1;
}

pid_t instance_fork(struct instance_ctx *ic)
{
	unsigned role = ic->nforked + 1;
	pid_t parent = getpid();
	pid_t pid;

	if (role >= ic->tasks) {
		instance_failed(ic, "workload forked more than its %u tasks", ic->tasks);
		errno = EINVAL;
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		instance_failed(ic, "cannot fork task %u of instance %u: %s", role, ic->index,
				strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (die_with_parent(parent))
			_exit(1);
		task_role = role;
		ic->nforked = role;
		ic->cold->pids[role] = getpid();
		ic->cold->tids[role] = getpid();
		if (place_task(ic, role))
			_exit(1);
		return 0;
	}
	ic->nforked = role;
	ic->cold->pids[role] = pid;
	ic->cold->tids[role] = pid;
	if (ic->cold->ntasks < role + 1)
		ic->cold->ntasks = role + 1;
	return pid;
}

int instance_thread_register(struct instance_ctx *ic, unsigned role)
{
	if (role == 0 || role >= ic->tasks) {
		instance_failed(ic, "thread role %u out of range 1..%u", role, ic->tasks - 1);
		return -1;
	}
	task_role = role;
	ic->cold->pids[role] = getpid();
	ic->cold->tids[role] = gettid();
	__atomic_fetch_add(&ic->nforked, 1, __ATOMIC_RELAXED);
	if (ic->cold->ntasks < role + 1)
		ic->cold->ntasks = role + 1;
	return place_task(ic, role);
}

void instance_thread_collect(struct instance_ctx *ic)
{
	unsigned role = task_role;

	procfs_read_task(getpid(), gettid(), &ic->cold->counters[role]);
	ic->cold->done[role] = 1;
}

/* A child of this instance that exited before the start: fail with why. */
static bool child_died_early(struct instance_ctx *ic)
{
	siginfo_t si;
	char how[96];

	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid)
		return false;
	describe_exit(&si, how, sizeof(how));
	instance_failed(ic, "task %d %s", role_of_pid(ic, si.si_pid), how);
	return true;
}

/*
 * Task 0 waits for the release (EOF on the start pipe) in ppoll() with
 * SIGCHLD open only there, so that a task of this instance that dies before
 * the start fails the sample now rather than at the setup timeout, without
 * a window between looking at the children and sleeping.
 */
static int wait_release_watching_children(struct instance_ctx *ic)
{
	struct pollfd pfd = { .fd = ic->start_rd, .events = POLLIN };
	struct sigaction sa;
	sigset_t block, old, open_mask;
	int rc = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	open_mask = old;
	sigdelset(&open_mask, SIGCHLD);
	for (;;) {
		int n;

		if (child_died_early(ic)) {
			rc = -1;
			break;
		}
		n = ppoll(&pfd, 1, NULL, &open_mask);
		if (n > 0)
			break; /* nothing is ever written: readable means EOF */
		if (n < 0 && errno != EINTR) {
			instance_failed(ic, "cannot wait for the start: %s", strerror(errno));
			rc = -1;
			break;
		}
	}
	/* From here on SIGCHLD is stress-ng's: default, ignored. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int instance_ready(struct instance_ctx *ic)
{
	char b = 'r';
	ssize_t n;

	do
		n = write(ic->ready_wr, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1) {
		instance_failed(ic, "cannot signal readiness: %s", strerror(errno));
		return -1;
	}
	if (task_role == 0) {
		if (wait_release_watching_children(ic))
			return -1;
	} else {
		/* Only the close of the write end by the parent ends this read. */
		do
			n = read(ic->start_rd, &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 0) {
			instance_failed(ic, "bad release of the start barrier");
			return -1;
		}
	}
	if (task_role == 0) {
		struct itimerval it;

		memset(&it, 0, sizeof(it));
		it.it_value.tv_sec = (time_t)(ic->duration_ns / 1000000000ULL);
		it.it_value.tv_usec = (suseconds_t)(ic->duration_ns % 1000000000ULL / 1000);
		if (!it.it_value.tv_sec && !it.it_value.tv_usec)
			it.it_value.tv_usec = 1;
		ic->cold->start_ns = now_ns();
		if (setitimer(ITIMER_REAL, &it, NULL) < 0) {
			instance_failed(ic, "cannot arm the stop timer: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int role_of_pid(const struct instance_ctx *ic, pid_t pid)
{
	unsigned r;

	for (r = 1; r < RUNNER_MAX_TASKS; r++)
		if (ic->cold->pids[r] == pid && ic->cold->tids[r] == pid)
			return (int)r;
	return -1;
}

int instance_reap_child(struct instance_ctx *ic, pid_t pid)
{
	int role = role_of_pid(ic, pid);
	siginfo_t si;
	int status, rc;

	do
		rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	while (rc < 0 && errno == EINTR);
	if (rc == 0 && role > 0)
		procfs_read_task(pid, 0, &ic->cold->counters[role]);
	do
		rc = waitpid(pid, &status, 0);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -1;
	if (role > 0)
		ic->cold->done[role] = 1;
	return status;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void instance_main(struct instance_ctx *ic, pid_t parent, const sigset_t *orig_mask,
			  int ready_rd, int start_wr)
{
	struct sigaction sa;
	struct rusage self, children;
	sigset_t mask, stops;
	char name[16];
	int rc, s;

	if (die_with_parent(parent))
		_exit(1);
	close(ready_rd);
	close(start_wr);

	/*
	 * The parent kills the tasks; Ctrl-C, Ctrl-\ and the other stop signals
	 * are for the parent alone (they arrive blocked, inherited from it, so
	 * none reaches the parent's handler here). SIGPIPE gets its default
	 * back for the workload to set as it needs.
	 */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	runner_stop_sigset(&stops);
	for (s = 1; s < NSIG; s++) {
		if (sigismember(&stops, s) != 1 || s == SIGALRM)
			continue;
		sa.sa_handler = s == SIGPIPE ? SIG_DFL : SIG_IGN;
		sigaction(s, &sa, NULL);
	}
	sa.sa_handler = on_sigchld; /* until the start: see instance_ready() */
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_alarm;
	sa.sa_flags = 0; /* no SA_RESTART, as stress-ng */
	sigaction(SIGALRM, &sa, NULL);
	/* The caller's mask, but the stop timer must get through. */
	mask = *orig_mask;
	sigdelset(&mask, SIGALRM);
	sigprocmask(SIG_SETMASK, &mask, NULL);

	snprintf(name, sizeof(name), "wakebench-%s", ic->spec->wl->name);
	prctl(PR_SET_NAME, name);

	task_role = 0;
	instance_run_flag = 1;
	ic->instance_pid = getpid();
	if (place_task(ic, 0))
		_exit(1);

	rc = ic->spec->wl->instance(ic->spec->wl_params, ic);
	ic->cold->finish_ns = now_ns();
	alarm(0);

	if (!getrusage(RUSAGE_SELF, &self) && !getrusage(RUSAGE_CHILDREN, &children)) {
		ic->cold->usr_s = tv_s(&self.ru_utime) + tv_s(&children.ru_utime);
		ic->cold->sys_s = tv_s(&self.ru_stime) + tv_s(&children.ru_stime);
	}
	if (rc)
		instance_failed(ic, "the workload failed");
	_exit(rc ? 1 : 0);
}

/* ---- metrics (pure) ---- */

void runner_metrics(struct sample *s, const struct instance_result *r, size_t n)
{
	double real_sum = 0, log_sum = 0;
	size_t i, nrates = 0;

	s->ops = 0;
	s->usr_s = 0;
	s->sys_s = 0;
	for (i = 0; i < n; i++) {
		s->ops += r[i].ops;
		s->usr_s += r[i].usr_s;
		s->sys_s += r[i].sys_s;
		if (r[i].finish_ns > r[i].start_ns)
			real_sum += (double)(r[i].finish_ns - r[i].start_ns) / 1e9;
		if (r[i].bytes && r[i].loop_ns) {
			double rate = (double)r[i].bytes / ((double)r[i].loop_ns / 1e9) /
				      (1024.0 * 1024.0);

			log_sum += log(rate);
			nrates++;
		}
	}
	s->real_s = n ? real_sum / (double)n : 0;
	s->ops_per_s = s->real_s > 0 ? (double)s->ops / s->real_s : 0;
	s->ops_per_cpu_s = s->usr_s + s->sys_s > 0 ? (double)s->ops / (s->usr_s + s->sys_s) : 0;
	if (nrates)
		sample_put(s, "mb_per_s_geomean", exp(log_sum / (double)nrates));
	/*
	 * The time one op takes within one instance (perf bench's usecs/op for
	 * a single pair): every instance runs for real_s and they share ops.
	 */
	if (s->ops && s->real_s > 0)
		sample_put(s, "ns_per_op", 1e9 * s->real_s * (double)n / (double)s->ops);
}

/* Sum one kind of counter over tasks; the reason of the first missing one. */
static bool sum_kind(const struct procfs_task *t, size_t n, enum procfs_kind k, char *why,
		     size_t whylen)
{
	size_t i;

	if (!n) {
		snprintf(why, whylen, "no task counters were collected");
		return false;
	}
	for (i = 0; i < n; i++) {
		if (t[i].err[k]) {
			procfs_why(k, t[i].err[k], why, whylen);
			return false;
		}
	}
	return true;
}

static void set_raw(struct sample *s, const char *name, bool ok, uint64_t v, const char *why)
{
	if (ok)
		sample_put(s, name, (double)v);
	else
		sample_na(s, name, "%s", why);
}

static void set_per_op(struct sample *s, const char *name, bool ok, double v, double scale,
		       const char *why)
{
	if (!ok)
		sample_na(s, name, "%s", why);
	else if (!s->ops)
		sample_na(s, name, "no ops were completed in the sample");
	else
		sample_put(s, name, v * scale / (double)s->ops);
}

void runner_counter_metrics(struct sample *s, const struct procfs_task *t, size_t n)
{
	char why_st[METRIC_WHY_MAX], why_sc[METRIC_WHY_MAX], why_ss[METRIC_WHY_MAX];
	bool st = sum_kind(t, n, PROCFS_STATUS, why_st, sizeof(why_st));
	bool sc = sum_kind(t, n, PROCFS_SCHED, why_sc, sizeof(why_sc));
	bool ss = sum_kind(t, n, PROCFS_SCHEDSTAT, why_ss, sizeof(why_ss));
	uint64_t nvcsw = 0, nivcsw = 0, migrations = 0, run_delay_ns = 0, timeslices = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		nvcsw += t[i].nvcsw;
		nivcsw += t[i].nivcsw;
		migrations += t[i].nr_migrations;
		run_delay_ns += t[i].run_delay_ns;
		timeslices += t[i].timeslices;
	}
	set_raw(s, "nvcsw", st, nvcsw, why_st);
	set_raw(s, "nivcsw", st, nivcsw, why_st);
	set_raw(s, "migrations", sc, migrations, why_sc);
	set_raw(s, "run_delay_ns", ss, run_delay_ns, why_ss);
	set_raw(s, "timeslices", ss, timeslices, why_ss);
	set_per_op(s, "ctxsw_vol_per_op", st, (double)nvcsw, 1, why_st);
	set_per_op(s, "ctxsw_invol_per_op", st, (double)nivcsw, 1, why_st);
	set_per_op(s, "ctxsw_per_op", st, (double)(nvcsw + nivcsw), 1, why_st);
	set_per_op(s, "migrations_per_kop", sc, (double)migrations, 1000, why_sc);
	set_per_op(s, "run_delay_ns_per_op", ss, (double)run_delay_ns, 1, why_ss);
}

/* ---- the parent side ---- */

struct run_state {
	const struct run_spec *spec;
	struct sample *out;
	unsigned n, tasks;
	size_t stride;
	char *map;
	size_t map_len;
	pid_t *pids;   /* instance processes; 0 once reaped */
	bool *exited;  /* exited (not yet reaped) */
	unsigned nexited;
	sigset_t wait_mask; /* the mask while sleeping: stop signals and SIGCHLD open */
};

static struct slot_hot *slot_hot(const struct run_state *st, unsigned i)
{
	return (struct slot_hot *)(void *)(st->map + (size_t)i * st->stride);
}

static struct slot_cold *slot_cold(const struct run_state *st, unsigned i)
{
	return (struct slot_cold *)(void *)(st->map + (size_t)i * st->stride +
					    cache_line_size());
}

/* Sleep until an fd is readable, a signal arrives, or deadline_ns passes. */
/*
 * Sleep until fd (if >= 0) is readable, a signal or a stop signal arrives,
 * or deadline_ns passes. Returns 1 when fd is readable, else 0.
 */
static int sleep_until(const struct run_state *st, int fd, uint64_t deadline_ns)
{
	struct pollfd pfd[2];
	uint64_t now = now_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
	struct timespec ts = { .tv_sec = (time_t)(left / 1000000000ULL),
			       .tv_nsec = (long)(left % 1000000000ULL) };
	nfds_t n = 0;
	int fd_slot = -1;

	if (fd >= 0) {
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		fd_slot = (int)n++;
	}
	if (stop_pipe[0] >= 0) {
		pfd[n].fd = stop_pipe[0];
		pfd[n].events = POLLIN;
		n++;
	}
	if (ppoll(n ? pfd : NULL, n, &ts, &st->wait_mask) <= 0)
		return 0;
	return fd_slot >= 0 && (pfd[fd_slot].revents & (POLLIN | POLLHUP));
}

static void describe_exit(const siginfo_t *si, char *buf, size_t len)
{
	if (si->si_code == CLD_EXITED)
		snprintf(buf, len, "exited with status %d", si->si_status);
	else
		snprintf(buf, len, "killed by signal %d (%s)", si->si_status,
			 strsignal(si->si_status));
}

/*
 * Note instances that exited since the last look, starting at `from`; with
 * `all` false stop at the first one still running (instances end in about
 * the order they started, so this is linear overall). A failed instance
 * fails the sample; returns -1 then.
 */
static int check_instances(struct run_state *st, bool all, const char *when)
{
	unsigned i;

	for (i = 0; i < st->n; i++) {
		siginfo_t si;

		if (st->exited[i] || !st->pids[i])
			continue;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)st->pids[i], &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				return 0;
			sample_fail(st->out, SAMPLE_FAILED, "cannot wait for instance %u: %s", i,
				    strerror(errno));
			return -1;
		}
		if (si.si_pid != st->pids[i]) {
			if (!all)
				return 0;
			continue;
		}
		st->exited[i] = true;
		st->nexited++;
		if (si.si_code != CLD_EXITED || si.si_status != 0) {
			struct slot_cold *c = slot_cold(st, i);
			char how[96];

			describe_exit(&si, how, sizeof(how));
			if (__atomic_load_n(&c->failed, __ATOMIC_ACQUIRE) && c->reason[0])
				sample_fail(st->out, SAMPLE_FAILED, "instance %u %s %s: %s", i, how,
					    when, c->reason);
			else
				sample_fail(st->out, SAMPLE_FAILED, "instance %u %s %s", i, how,
					    when);
			return -1;
		}
	}
	return 0;
}

/* SIGKILL every task still alive and reap every instance. */
static void kill_all(struct run_state *st)
{
	unsigned i, r;

	for (i = 0; i < st->n; i++) {
		struct slot_cold *c = slot_cold(st, i);

		if (!st->pids[i])
			continue;
		/* Other tasks first, while their instance keeps them from being reaped. */
		if (!st->exited[i])
			for (r = 1; r < RUNNER_MAX_TASKS; r++)
				if (c->pids[r] > 0 && c->pids[r] == c->tids[r] && !c->done[r])
					kill(c->pids[r], SIGKILL);
		kill(st->pids[i], SIGKILL);
	}
	for (i = 0; i < st->n; i++) {
		int status;

		if (!st->pids[i])
			continue;
		while (waitpid(st->pids[i], &status, 0) < 0 && errno == EINTR)
			;
		st->pids[i] = 0;
	}
	/*
	 * Tasks whose instance died before reaping them were reparented to us
	 * (we are a child subreaper during the sample): reap them too. ECHILD
	 * means their instance got to it first.
	 */
	for (i = 0; i < st->n; i++) {
		struct slot_cold *c = slot_cold(st, i);

		for (r = 1; r < RUNNER_MAX_TASKS; r++) {
			int status;

			if (c->pids[r] <= 0 || c->pids[r] != c->tids[r] || c->done[r])
				continue;
			while (waitpid(c->pids[r], &status, 0) < 0 && errno == EINTR)
				;
			c->done[r] = 1;
		}
	}
}

static void fail_interrupted(struct sample *s)
{
	int sig = runner_stop_signal();

	if (sig)
		sample_fail(s, SAMPLE_INTERRUPTED, "interrupted by %s", runner_signal_name(sig));
	else
		sample_fail(s, SAMPLE_INTERRUPTED, "interrupted by a signal");
}

/* Grace after the window for instances to stop before they are killed. */
#define STOP_GRACE_NS (5 * 1000000000ULL)
/* Time allowed for every task to be created and reach the barrier. */
#define SETUP_TIMEOUT_NS (30 * 1000000000ULL)

/* Wait for every task at the barrier. 0 when all are ready. */
static int wait_ready(struct run_state *st, int ready_rd)
{
	size_t want = (size_t)st->n * st->tasks, got = 0;
	uint64_t deadline = now_ns() + SETUP_TIMEOUT_NS;
	char buf[512];

	uint64_t eof_deadline = 0; /* set once every task closed the pipe */

	while (got < want) {
		int rc;

		if (runner_stop_signal()) {
			fail_interrupted(st->out);
			return -1;
		}
		if (chld_flag) {
			chld_flag = 0;
			if (check_instances(st, true, "before the start"))
				return -1;
		}
		if (eof_deadline && now_ns() >= eof_deadline) {
			sample_fail(st->out, SAMPLE_FAILED,
				    "a task ended before it was ready (%zu of %zu ready)", got,
				    want);
			return -1;
		}
		if (now_ns() >= deadline) {
			sample_fail(st->out, SAMPLE_FAILED,
				    "only %zu of %zu tasks were ready after %llus", got, want,
				    (unsigned long long)(SETUP_TIMEOUT_NS / 1000000000ULL));
			return -1;
		}
		/* After EOF, wait a moment for the SIGCHLD that says who and why. */
		rc = sleep_until(st, eof_deadline ? -1 : ready_rd,
				 eof_deadline ? eof_deadline : deadline);
		if (rc > 0 && !eof_deadline) {
			ssize_t n = read(ready_rd, buf, sizeof(buf));

			if (n > 0)
				got += (size_t)n;
			else if (n == 0)
				eof_deadline = now_ns() + 1000000000ULL;
		}
	}
	return 0;
}

static void probes_stop(const struct run_spec *spec, struct sample *s)
{
	size_t p;

	for (p = 0; p < spec->nprobes; p++)
		if (spec->probes[p].ops && spec->probes[p].ops->stop)
			spec->probes[p].ops->stop(spec->probes[p].state, s);
}

static int probes_start(struct run_state *st, size_t *started)
{
	const struct run_spec *spec = st->spec;
	pid_t *tids = xcalloc((size_t)st->n * RUNNER_MAX_TASKS, sizeof(*tids));
	size_t ntids = 0, p;
	unsigned i, r;
	int rc = 0;

	for (i = 0; i < st->n; i++) {
		struct slot_cold *c = slot_cold(st, i);

		tids[ntids++] = st->pids[i];
		for (r = 1; r < c->ntasks && r < RUNNER_MAX_TASKS; r++)
			if (c->tids[r] > 0)
				tids[ntids++] = c->tids[r];
	}
	*started = 0;
	for (p = 0; p < spec->nprobes; p++) {
		const struct probe *pr = &spec->probes[p];

		if (pr->ops && pr->ops->start && pr->ops->start(pr->state, tids, ntids) < 0) {
			sample_fail(st->out, SAMPLE_FAILED, "probe '%s' could not start",
				    pr->ops->name);
			rc = -1;
			break;
		}
		*started = p + 1;
	}
	free(tids);
	return rc;
}

/* After a normal end: counters of every instance process, reap, metrics. */
static void collect(struct run_state *st)
{
	struct instance_result *res = xcalloc(st->n, sizeof(*res));
	struct procfs_task *tasks = xcalloc((size_t)st->n * RUNNER_MAX_TASKS, sizeof(*tasks));
	size_t ntasks = 0;
	unsigned i, r;

	for (i = 0; i < st->n; i++) {
		struct slot_cold *c = slot_cold(st, i);
		int status;

		procfs_read_task(st->pids[i], 0, &c->counters[0]);
		while (waitpid(st->pids[i], &status, 0) < 0 && errno == EINTR)
			;
		st->pids[i] = 0;
		/* A workload that left a task unreaped: it came to us; end it. */
		for (r = 1; r < RUNNER_MAX_TASKS; r++) {
			if (c->pids[r] <= 0 || c->pids[r] != c->tids[r] || c->done[r])
				continue;
			kill(c->pids[r], SIGKILL);
			while (waitpid(c->pids[r], &status, 0) < 0 && errno == EINTR)
				;
			c->done[r] = 1;
		}

		res[i].ops = slot_hot(st, i)->ops;
		res[i].bytes = slot_hot(st, i)->bytes;
		res[i].start_ns = c->start_ns;
		res[i].finish_ns = c->finish_ns;
		res[i].loop_ns = c->loop_ns;
		res[i].usr_s = c->usr_s;
		res[i].sys_s = c->sys_s;
		for (r = 0; r < c->ntasks && r < RUNNER_MAX_TASKS; r++)
			tasks[ntasks++] = c->counters[r];
	}
	runner_metrics(st->out, res, st->n);
	runner_counter_metrics(st->out, tasks, ntasks);
	free(res);
	free(tasks);
}

int runner_sample(const struct run_spec *spec, uint64_t duration_ns, struct sample *out)
{
	const struct workload *wl = spec->wl;
	struct run_state st;
	struct sigaction sa, old_chld;
	sigset_t block, orig_mask;
	int cpus[CPU_SETSIZE], ncpus;
	int ready[2] = { -1, -1 }, start[2] = { -1, -1 };
	uint32_t index = out->index;
	bool warmup = out->warmup;
	size_t nstarted = 0;
	uint64_t release_ns = 0;
	int old_subreaper = 0;
	unsigned i;
	int ret = 0;

	sample_init(out);
	out->index = index;
	out->warmup = warmup;
	out->duration_ns = duration_ns;
	out->instances = (uint32_t)spec->rp->instances;
	out->start_realtime_ns = realtime_ns();

	memset(&st, 0, sizeof(st));
	st.spec = spec;
	st.out = out;
	st.n = (unsigned)spec->rp->instances;
	st.tasks = wl->tasks_per_instance ? wl->tasks_per_instance : 1;
	if (st.tasks > RUNNER_MAX_TASKS)
		BUG("workload '%s' has %u tasks per instance", wl->name, st.tasks);

	if (runner_stop_signal()) {
		fail_interrupted(out);
		return 0;
	}
	ncpus = runner_allowed_cpus(cpus, CPU_SETSIZE);
	if (ncpus < 0)
		return -1;

	st.stride = cache_line_size() + round_up(sizeof(struct slot_cold), cache_line_size());
	st.map_len = round_up(st.stride * st.n, (size_t)sysconf(_SC_PAGESIZE));
	st.map = mmap(NULL, st.map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st.map == MAP_FAILED)
		return error_errno("cannot map %zu bytes of shared memory", st.map_len);
	for (i = 0; i < st.n; i++)
		for (unsigned r = 0; r < RUNNER_MAX_TASKS; r++)
			procfs_task_init(&slot_cold(&st, i)->counters[r]);
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(start, O_CLOEXEC) < 0) {
		ret = error_errno("cannot create the start barrier");
		goto out_unmap;
	}
	/* Orphaned workload tasks come to us, so that we reap them (no zombies). */
	if (prctl(PR_GET_CHILD_SUBREAPER, &old_subreaper) < 0)
		old_subreaper = 0;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	st.pids = xcalloc(st.n, sizeof(*st.pids));
	st.exited = xcalloc(st.n, sizeof(*st.exited));

	/* Stop signals and SIGCHLD are only taken while sleeping in ppoll(). */
	runner_stop_sigset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &orig_mask);
	st.wait_mask = orig_mask;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&block, s) == 1)
			sigdelset(&st.wait_mask, s);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_chld);
	chld_flag = 0;

	fflush(NULL); /* nothing buffered may be written twice by a child */
	for (i = 0; i < st.n; i++) {
		struct instance_ctx ic = {
			.spec = spec,
			.index = i,
			.tasks = st.tasks,
			.ready_wr = ready[1],
			.start_rd = start[0],
			.duration_ns = duration_ns,
			.cpus = cpus,
			.ncpus = ncpus,
			.hot = slot_hot(&st, i),
			.cold = slot_cold(&st, i),
		};
		pid_t parent = getpid();
		pid_t pid;

		ic.cold->ntasks = 1;
		pid = fork();
		if (pid < 0) {
			sample_fail(out, SAMPLE_FAILED, "cannot fork instance %u: %s", i,
				    strerror(errno));
			break;
		}
		if (pid == 0)
			instance_main(&ic, parent, &orig_mask, ready[0], start[1]);
		st.pids[i] = pid;
		ic.cold->pids[0] = pid;
		ic.cold->tids[0] = pid;
	}
	close(ready[1]);
	close(start[0]);
	ready[1] = start[0] = -1;

	if (out->status != SAMPLE_OK || wait_ready(&st, ready[0]) ||
	    probes_start(&st, &nstarted)) {
		kill_all(&st);
		goto out_probes;
	}

	/* The release: every task's read of the start pipe returns 0 now. */
	release_ns = now_ns();
	out->start_realtime_ns = realtime_ns();
	close(start[1]);
	start[1] = -1;

	for (;;) {
		uint64_t now, end = release_ns + duration_ns;

		if (runner_stop_signal()) {
			fail_interrupted(out);
			break;
		}
		now = now_ns();
		/* In the window only an early death wakes us: look at all of them. */
		if (chld_flag) {
			chld_flag = 0;
			if (check_instances(&st, now < end, "during the sample"))
				break;
		}
		if (st.nexited == st.n)
			break;
		if (now >= end + STOP_GRACE_NS) {
			sample_fail(out, SAMPLE_FAILED,
				    "%u of %u instances did not stop within %llus of the window's "
				    "end",
				    st.n - st.nexited, st.n,
				    (unsigned long long)(STOP_GRACE_NS / 1000000000ULL));
			break;
		}
		sleep_until(&st, -1, now < end ? end : end + STOP_GRACE_NS);
	}
	out->wall_ns = now_ns() - release_ns;

	if (out->status == SAMPLE_OK) {
		for (i = 0; i < st.n; i++)
			out->ops += slot_hot(&st, i)->ops;
		probes_stop(spec, out);
		nstarted = 0;
		collect(&st);
	} else {
		kill_all(&st);
	}

out_probes:
	if (nstarted) {
		/* Stopped so that they release their resources; the sample is void. */
		struct sample scratch;

		sample_init(&scratch);
		for (size_t p = 0; p < nstarted; p++)
			if (spec->probes[p].ops->stop)
				spec->probes[p].ops->stop(spec->probes[p].state, &scratch);
	}
	sigaction(SIGCHLD, &old_chld, NULL);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, old_subreaper);
	free(st.pids);
	free(st.exited);
out_unmap:
	for (i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (start[i] >= 0)
			close(start[i]);
	}
	munmap(st.map, st.map_len);
	return ret;
}
