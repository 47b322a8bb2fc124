/*
 * runner.c: one sample of one config (DESIGN section 4; doc/runner.md).
 *
 * The parent maps shared memory: one control line (the stop flag every
 * task reads), then one slot per instance (its op counter alone in the
 * first cache line, one cache line per task for the tasks' own counters,
 * what the instance reports, one record per task: pid, tid, /proc
 * counters), then the workload's shared area of each instance. It forks
 * the instance processes and waits until every task of every instance
 * (wl->tasks() each) has written one byte into a "ready" pipe. Each task
 * then blocks reading a "start" pipe; the parent starts the probes and
 * closes the start pipe's write end, which releases every task at once
 * (not staggered by fork). Task 0 of each instance notes its start on
 * CLOCK_MONOTONIC. The parent sleeps in ppoll() for the window, woken only
 * by SIGCHLD (an early death, or a fixed-work instance that is done) or a
 * stop signal. At the end of the window (or the time limit of fixed work)
 * it sets the stop flag and sends SIGALRM to every task, again every 10 ms
 * until each instance has returned: the handler is installed without
 * SA_RESTART (as stress-ng's), so a task blocked in a read or a write gets
 * EINTR and sees the flag. Then it waits for every instance to exit
 * (waitid WNOWAIT), stops the probes, reads each instance's /proc
 * counters, then reaps it. Instances do the same for their own children
 * (instance_reap_child()) and report rusage (self + children) in their
 * slot before _exit, which is where stress-ng takes it.
 *
 * Every path (failure, stop signal, timeout) SIGKILLs what is left and reaps
 * it before runner_sample() returns; workload tasks also have
 * PR_SET_PDEATHSIG(SIGKILL), so a SIGKILLed wakebench leaves nothing.
 */
#include "runner/runner.h"

#include <dirent.h>
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
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/instance.h"
#include "sys/env.h"
#include "util/number.h"
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
	{ .type = OPT_UINT,
	  .long_name = "instances",
	  .short_name = 'j',
	  .offset = offsetof(struct run_params, instances),
	  .argh = "N",
	  .help = "instances of the workload run side by side (stress-ng --pipe N)",
	  .min = 1,
	  .max = 4096 },
	{ .type = OPT_DURATION,
	  .long_name = "duration",
	  .short_name = 't',
	  .offset = offsetof(struct run_params, duration_ns),
	  .argh = "DURATION",
	  .help = "length of each sample (20s, 500ms, 0.5s, 2m); the time limit of a "
		  "fixed-work workload",
	  .min = 1e6,
	  .max = 86400e9 },
	{ .type = OPT_UINT,
	  .long_name = "samples",
	  .short_name = 'n',
	  .offset = offsetof(struct run_params, samples),
	  .argh = "N",
	  .help = "measured samples",
	  .min = 1,
	  .max = 100000 },
	{ .type = OPT_DURATION,
	  .long_name = "warmup",
	  .offset = offsetof(struct run_params, warmup_ns),
	  .argh = "DURATION",
	  .help = "length of one discarded warm-up sample before the first (0: none); a "
		  "fixed-work workload's warm-up is one run of its work",
	  .min = 0,
	  .max = 3600e9 },
	{ .type = OPT_CHOICE,
	  .long_name = "placement",
	  .offset = offsetof(struct run_params, placement),
	  .argh = "WHERE",
	  .help = "CPU affinity: any (none, like stress-ng), same-cpu (the tasks of a group, "
		  "both of a pair, on one CPU), cross-cpu (a group's roles on different CPUs), "
		  "spread (tasks round-robin)",
	  .choices = placement_names },
	{ .type = OPT_STRLIST,
	  .long_name = "cpus",
	  .offset = offsetof(struct run_params, cpus),
	  .argh = "[ROLE=]LIST",
	  .help = "CPUs the placement uses (LIST: 0-3,6), or where the tasks of one role go "
		  "round-robin (ROLE=LIST, e.g. reader=1); repeatable" },
	OPT_END_ROW,
};

void runner_sample_what(const struct run_spec *spec, char *buf, size_t len)
{
	char limit[32], ops[32];

	format_duration(spec->rp->duration_ns, limit, sizeof(limit));
	if (!spec->wl->fixed_work || !spec->wl->work_ops) {
		snprintf(buf, len, "%s", limit);
		return;
	}
	fmt_count(spec->wl->work_ops(spec->wl_params), ops, sizeof(ops));
	snprintf(buf, len, "%s %s%s (time limit %s)", ops, spec->wl->op_name,
		 spec->rp->instances > 1 ? " per instance" : "", limit);
}

uint64_t runner_warmup_ns(const struct run_spec *spec, uint64_t warmup_ns, char *buf, size_t len)
{
	if (!warmup_ns) {
		snprintf(buf, len, "none");
		return 0;
	}
	if (spec->wl->fixed_work) {
		snprintf(buf, len, "one run");
		return spec->rp->duration_ns;
	}
	format_duration(warmup_ns, buf, len);
	return warmup_ns;
}

/* ---- shared memory ---- */

/* The first cache line of the map: read by every task of every instance. */
struct run_ctl {
	uint32_t stop; /* set once, by the parent, at the stop */
};

/* The part of a slot that only the instance's counting task writes during the window. */
struct slot_hot {
	uint64_t ops;
	uint64_t bytes;
};

/* What the instance reports, written at setup and after the window. */
struct slot_cold {
	unsigned next_task; /* instance_fork()'s next task number */
	int returned;	    /* wl->instance() returned: no more stop signals */
	uint64_t start_ns;
	uint64_t finish_ns;
	uint64_t loop_ns;
	double usr_s, sys_s;
	int failed; /* claimed atomically by the first task that reports */
	char reason[200];
};

/* One task of an instance. */
struct task_slot {
	pid_t pid; /* its process */
	pid_t tid; /* the task itself (== pid for processes) */
	int done;  /* 1 once reaped by its instance (threads: collected) */
	struct procfs_task counters;
};

struct instance_ctx {
	const struct run_spec *spec;
	const struct task_placement *pl;
	unsigned index;
	unsigned ntasks; /* wl->tasks() */
	int ready_wr, start_rd;
	struct run_ctl *ctl;
	struct slot_hot *hot;
	char *task_ops; /* ntasks cache lines, a uint64_t counter at the start of each */
	size_t line;
	struct slot_cold *cold;
	struct task_slot *tasks;
	void *shared;
};

/* The calling task's number (per thread, so that thread workloads work). */
static __thread unsigned task_num;

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
	SIGHUP,	   SIGINT,  SIGQUIT,   SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
	SIGXCPU,   SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,	 SIGPWR,  SIGSYS,  SIGABRT,
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

/*
 * The stop signal of the tasks. It only has to interrupt a blocking call
 * (installed without SA_RESTART): the stop itself is the flag the parent
 * set before sending it.
 */
static void on_alarm(int sig)
{
	(void)sig;
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

static void format_cpus(const int *cpus, unsigned n, char *buf, size_t len)
{
	uint8_t bitmap[CPU_SETSIZE / 8];
	unsigned i;

	memset(bitmap, 0, sizeof(bitmap));
	for (i = 0; i < n; i++)
		bitmap[cpus[i] / 8] |= (uint8_t)(1u << (cpus[i] % 8));
	env_format_cpulist(bitmap, CPU_SETSIZE, buf, len);
}

static unsigned count_roles(const struct workload *wl)
{
	unsigned n = 0;

	while (wl->roles && wl->roles[n])
		n++;
	return n;
}

static unsigned workload_tasks(const struct workload *wl, const void *params)
{
	unsigned n = wl->tasks ? wl->tasks(params) : 1;

	if (n < 1)
		BUG("workload '%s' has %u tasks per instance", wl->name, n);
	return n;
}

/*
 * Parse one --cpus value against the allowed CPUs into a malloc'd list.
 * Returns its length, or -1 with err filled.
 */
static int parse_cpus_value(const char *value, const char *list, const int *allowed,
			    unsigned nallowed, int **out, char *err, size_t errlen)
{
	uint8_t bitmap[CPU_SETSIZE / 8], ok[CPU_SETSIZE / 8];
	char allowed_s[256];
	int n, c, k = 0;
	unsigned i;

	format_cpus(allowed, nallowed, allowed_s, sizeof(allowed_s));
	n = parse_cpulist(list, bitmap, CPU_SETSIZE);
	if (n <= 0) {
		snprintf(err, errlen,
			 "option '--cpus': '%s' is not a CPU list, allowed: [ROLE=]LIST with LIST "
			 "like 0-2,5 out of the allowed CPUs %s",
			 value, allowed_s);
		return -1;
	}
	memset(ok, 0, sizeof(ok));
	for (i = 0; i < nallowed; i++)
		ok[allowed[i] / 8] |= (uint8_t)(1u << (allowed[i] % 8));
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!(bitmap[c / 8] & (1u << (c % 8))) || (ok[c / 8] & (1u << (c % 8))))
			continue;
		snprintf(err, errlen,
			 "option '--cpus': '%s' names CPU %d, which this process may not run on; "
			 "allowed: %s",
			 value, c, allowed_s);
		return -1;
	}
	*out = xcalloc((size_t)n, sizeof(**out));
	for (c = 0; c < CPU_SETSIZE; c++)
		if (bitmap[c / 8] & (1u << (c % 8)))
			(*out)[k++] = c;
	return n;
}

static void format_roles(const struct workload *wl, char *buf, size_t len)
{
	size_t used = 0;
	unsigned r;

	buf[0] = '\0';
	for (r = 0; wl->roles && wl->roles[r] && used < len; r++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", r ? "|" : "",
					 wl->roles[r]);
}

/* Apply the --cpus values; -1 with err filled on bad input. */
static int placement_parse_cpus(struct task_placement *pl, const struct workload *wl,
				const struct strlist *sl, const int *allowed, unsigned nallowed,
				char *err, size_t errlen)
{
	size_t v;

	for (v = 0; v < sl->n; v++) {
		const char *value = sl->v[v], *eq = strchr(value, '=');
		int *list = NULL, n;

		if (!eq) {
			if (pl->cpus_given) {
				snprintf(err, errlen,
					 "option '--cpus': '%s' is a second LIST without a role, "
					 "allowed: one LIST and any number of ROLE=LIST",
					 value);
				return -1;
			}
			n = parse_cpus_value(value, value, allowed, nallowed, &list, err, errlen);
			if (n < 0)
				return -1;
			free(pl->cpus);
			pl->cpus = list;
			pl->ncpus = (unsigned)n;
			pl->cpus_given = true;
		} else {
			char roles[256];
			size_t rlen = (size_t)(eq - value);
			unsigned r;

			format_roles(wl, roles, sizeof(roles));
			for (r = 0; wl->roles && wl->roles[r]; r++)
				if (strlen(wl->roles[r]) == rlen &&
				    !strncmp(wl->roles[r], value, rlen))
					break;
			if (!wl->roles || !wl->roles[r]) {
				snprintf(
					err, errlen,
					"option '--cpus': '%s': %s has no role '%.*s', allowed: %s",
					value, wl->name, (int)rlen, value,
					roles[0] ? roles : "a LIST without a role");
				return -1;
			}
			if (pl->role_cpus[r]) {
				snprintf(err, errlen,
					 "option '--cpus': '%s': the role '%s' is given twice, "
					 "allowed: one ROLE=LIST per role (%s)",
					 value, wl->roles[r], roles);
				return -1;
			}
			n = parse_cpus_value(value, eq + 1, allowed, nallowed, &list, err, errlen);
			if (n < 0)
				return -1;
			pl->role_cpus[r] = list;
			pl->role_ncpus[r] = (unsigned)n;
		}
	}
	return 0;
}

int placement_init(struct task_placement *pl, const struct workload *wl, const void *params,
		   const struct run_params *rp, const int *allowed, unsigned nallowed, char *err,
		   size_t errlen)
{
	unsigned nt = workload_tasks(wl, params), nr = count_roles(wl), t, g;
	unsigned *group_size;

	memset(pl, 0, sizeof(*pl));
	pl->mode = rp->placement;
	pl->ntasks = nt;
	pl->nroles = nr ? nr : 1;
	pl->cpus = xcalloc(nallowed ? nallowed : 1, sizeof(*pl->cpus));
	memcpy(pl->cpus, allowed, nallowed * sizeof(*pl->cpus));
	pl->ncpus = nallowed;
	pl->group = xcalloc(nt, sizeof(*pl->group));
	pl->role = xcalloc(nt, sizeof(*pl->role));
	pl->pos_in_group = xcalloc(nt, sizeof(*pl->pos_in_group));
	pl->rank_in_role = xcalloc(nt, sizeof(*pl->rank_in_role));
	pl->role_tasks = xcalloc(pl->nroles, sizeof(*pl->role_tasks));
	pl->role_cpus = xcalloc(pl->nroles, sizeof(*pl->role_cpus));
	pl->role_ncpus = xcalloc(pl->nroles, sizeof(*pl->role_ncpus));
	for (t = 0; t < nt; t++) {
		unsigned gr = 0, ro = 0;

		if (wl->layout)
			wl->layout(params, t, &gr, &ro);
		if (ro >= pl->nroles)
			BUG("workload '%s': task %u has role %u, it declares %u", wl->name, t, ro,
			    pl->nroles);
		if (gr >= nt)
			BUG("workload '%s': task %u is in group %u of at most %u", wl->name, t, gr,
			    nt);
		pl->group[t] = gr;
		pl->role[t] = ro;
		pl->rank_in_role[t] = pl->role_tasks[ro]++;
		if (gr + 1 > pl->ngroups)
			pl->ngroups = gr + 1;
	}
	group_size = xcalloc(pl->ngroups, sizeof(*group_size));
	for (t = 0; t < nt; t++) {
		g = pl->group[t];
		pl->pos_in_group[t] = group_size[g]++;
	}
	free(group_size);

	if (placement_parse_cpus(pl, wl, &rp->cpus, allowed, nallowed, err, errlen))
		goto fail;
	if (pl->mode == PLACE_CROSS_CPU && pl->ncpus < 2) {
		if (pl->cpus_given)
			snprintf(err, errlen,
				 "option '--placement': 'cross-cpu' needs two CPUs, --cpus gives "
				 "only CPU %d; allowed here: any|same-cpu|spread",
				 pl->cpus[0]);
		else
			snprintf(
				err, errlen,
				"option '--placement': 'cross-cpu' needs two allowed CPUs, this "
				"process may only run on CPU %d; allowed here: any|same-cpu|spread",
				pl->ncpus ? pl->cpus[0] : -1);
		goto fail;
	}
	return 0;

fail:
	placement_release(pl);
	return -1;
}

void placement_release(struct task_placement *pl)
{
	unsigned r;

	for (r = 0; pl->role_cpus && r < pl->nroles; r++)
		free(pl->role_cpus[r]);
	free(pl->role_cpus);
	free(pl->role_ncpus);
	free(pl->role_tasks);
	free(pl->rank_in_role);
	free(pl->pos_in_group);
	free(pl->role);
	free(pl->group);
	free(pl->cpus);
	memset(pl, 0, sizeof(*pl));
}

int placement_cpu(const struct task_placement *pl, unsigned index, unsigned task)
{
	unsigned n = pl->ncpus, g, r, k;

	if (task >= pl->ntasks)
		return -1;
	r = pl->role[task];
	if (pl->role_cpus[r]) {
		unsigned len = pl->role_ncpus[r];

		return pl->role_cpus[r][(index * pl->role_tasks[r] + pl->rank_in_role[task]) % len];
	}
	if (!n)
		return -1;
	g = pl->group[task];
	switch (pl->mode) {
	case PLACE_SAME_CPU:
		return pl->cpus[(index * pl->ngroups + g) % n];
	case PLACE_CROSS_CPU:
		k = pl->nroles > 1 ? r : pl->pos_in_group[task];
		return pl->cpus[(index * pl->ngroups + g + k) % n];
	case PLACE_SPREAD:
		return pl->cpus[(index * pl->ntasks + task) % n];
	default:
		return -1;
	}
}

int placement_cpus(const struct task_placement *pl, unsigned index, unsigned task, cpu_set_t *set)
{
	int cpu = placement_cpu(pl, index, task);
	unsigned i;

	CPU_ZERO(set);
	if (cpu >= 0) {
		CPU_SET(cpu, set);
		return 1;
	}
	if (pl->mode != PLACE_ANY || !pl->cpus_given || task >= pl->ntasks)
		return 0;
	for (i = 0; i < pl->ncpus; i++)
		CPU_SET(pl->cpus[i], set);
	return (int)pl->ncpus;
}

void placement_task_name(const struct task_placement *pl, const struct workload *wl, unsigned task,
			 char *buf, size_t len)
{
	if (task < pl->ntasks && wl->roles && pl->role[task] < count_roles(wl))
		snprintf(buf, len, "task %u (%s)", task, wl->roles[pl->role[task]]);
	else
		snprintf(buf, len, "task %u", task);
}

static int place_task(struct instance_ctx *ic, unsigned task)
{
	cpu_set_t set;
	char name[64];

	if (placement_cpus(ic->pl, ic->index, task, &set) <= 0)
		return 0;
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		placement_task_name(ic->pl, ic->spec->wl, task, name, sizeof(name));
		instance_failed(ic, "cannot pin %s of instance %u to CPU %d: %s", name, ic->index,
				placement_cpu(ic->pl, ic->index, task), strerror(errno));
		return -1;
	}
	return 0;
}

/* File descriptors this process has open now (an instance inherits them). */
static unsigned open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 3;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n ? n - 1 : 0; /* not the directory's own */
}

/*
 * Tasks (threads) of real user `uid` now: what RLIMIT_NPROC counts besides
 * the ones a sample would create.
 */
static uint64_t user_tasks(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint64_t n = 0;

	if (!d)
		return 1;
	while ((e = readdir(d))) {
		char path[64], *text = NULL, *p;
		unsigned long real = 0, threads = 0;
		size_t len;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/status", atoi(e->d_name));
		if (read_file(path, &text, &len) < 0)
			continue;
		p = strstr(text, "\nUid:");
		if (p && sscanf(p + 5, "%lu", &real) == 1 && real == (unsigned long)uid &&
		    (p = strstr(text, "\nThreads:")) && sscanf(p + 9, "%lu", &threads) == 1)
			n += threads;
		free(text);
	}
	closedir(d);
	return n ? n : 1;
}

/* Descriptors of the barrier an instance holds, and a margin for the workload's own. */
#define RUNNER_TASK_FDS	   2
#define RUNNER_DEFAULT_FDS 8

int runner_check(const struct run_spec *spec, char *err, size_t errlen)
{
	const struct workload *wl = spec->wl;
	int cpus[CPU_SETSIZE], n;
	unsigned tasks = workload_tasks(wl, spec->wl_params);
	uint64_t total = spec->rp->instances * tasks;
	struct task_placement pl;
	struct rlimit rl;

	n = runner_allowed_cpus(cpus, CPU_SETSIZE);
	if (n < 0) {
		snprintf(err, errlen, "cannot read the CPU affinity of this process");
		return -1;
	}
	if (placement_init(&pl, wl, spec->wl_params, spec->rp, cpus, (unsigned)n, err, errlen))
		return -1;
	placement_release(&pl);
	/* root is not held to RLIMIT_NPROC (CAP_SYS_RESOURCE) */
	if (geteuid() != 0 && !getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		uint64_t running = user_tasks(getuid());

		if (total + running > rl.rlim_cur) {
			snprintf(err, errlen,
				 "option '--instances' (-j): '%llu' needs %llu tasks (%u per "
				 "instance), with the %llu this user runs above the process limit "
				 "RLIMIT_NPROC (ulimit -u %llu)",
				 (unsigned long long)spec->rp->instances, (unsigned long long)total,
				 tasks, (unsigned long long)running,
				 (unsigned long long)rl.rlim_cur);
			return -1;
		}
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		unsigned own = wl->fds ? wl->fds(spec->wl_params) : RUNNER_DEFAULT_FDS;
		uint64_t need = (uint64_t)open_fds() + RUNNER_TASK_FDS + own;

		if (need > rl.rlim_cur) {
			snprintf(err, errlen,
				 "workload '%s' needs %llu file descriptors in one process (%u of "
				 "its own with these options), above the open-file limit "
				 "RLIMIT_NOFILE (ulimit -n %llu)",
				 wl->name, (unsigned long long)need, own,
				 (unsigned long long)rl.rlim_cur);
			return -1;
		}
	}
	return 0;
}

/* ---- the instance side ---- */

static void describe_exit(const siginfo_t *si, char *buf, size_t len);
static int task_of_pid(const struct instance_ctx *ic, pid_t pid);

unsigned instance_task(const struct instance_ctx *ic)
{
	(void)ic;
	return task_num;
}

unsigned instance_ntasks(const struct instance_ctx *ic)
{
	return ic->ntasks;
}

bool instance_running(const struct instance_ctx *ic)
{
	return !__atomic_load_n(&ic->ctl->stop, __ATOMIC_RELAXED);
}

uint64_t *instance_ops(struct instance_ctx *ic)
{
	return &ic->hot->ops;
}

uint64_t *instance_task_ops(struct instance_ctx *ic)
{
	return (uint64_t *)(void *)(ic->task_ops + (size_t)task_num * ic->line);
}

uint64_t *instance_bytes(struct instance_ctx *ic)
{
	return &ic->hot->bytes;
}

void instance_set_loop_ns(struct instance_ctx *ic, uint64_t loop_ns)
{
	ic->cold->loop_ns = loop_ns;
}

void *instance_shared(struct instance_ctx *ic)
{
	return ic->shared;
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

static void task_name(const struct instance_ctx *ic, unsigned task, char *buf, size_t len)
{
	placement_task_name(ic->pl, ic->spec->wl, task, buf, len);
}

pid_t instance_fork(struct instance_ctx *ic)
{
	unsigned task = __atomic_fetch_add(&ic->cold->next_task, 1, __ATOMIC_RELAXED);
	pid_t parent = getpid();
	char name[64];
	pid_t pid;

	if (task >= ic->ntasks) {
		instance_failed(ic, "the workload created more than its %u tasks", ic->ntasks);
		errno = EINVAL;
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		task_name(ic, task, name, sizeof(name));
		instance_failed(ic, "cannot fork %s of instance %u: %s", name, ic->index,
				strerror(errno));
		return -1;
	}
	if (pid == 0) {
		task_num = task;
		ic->tasks[task].pid = getpid();
		ic->tasks[task].tid = getpid();
		if (die_with_parent(parent))
			_exit(1);
		if (place_task(ic, task))
			_exit(1);
		return 0;
	}
	ic->tasks[task].pid = pid;
	ic->tasks[task].tid = pid;
	return pid;
}

int instance_thread_register(struct instance_ctx *ic, unsigned task)
{
	if (task == 0 || task >= ic->ntasks) {
		instance_failed(ic, "thread task %u out of range 1..%u", task, ic->ntasks - 1);
		return -1;
	}
	task_num = task;
	ic->tasks[task].pid = getpid();
	__atomic_store_n(&ic->tasks[task].tid, (pid_t)gettid(), __ATOMIC_RELEASE);
	return place_task(ic, task);
}

void instance_thread_collect(struct instance_ctx *ic)
{
	unsigned task = task_num;

	procfs_read_task(getpid(), gettid(), &ic->tasks[task].counters);
	__atomic_store_n(&ic->tasks[task].done, 1, __ATOMIC_RELEASE);
}

/* A child of this instance that exited before the start: fail with why. */
static bool child_died_early(struct instance_ctx *ic)
{
	struct pollfd released = { .fd = ic->start_rd, .events = POLLIN };
	siginfo_t si;
	char how[96], name[64];
	int task;

	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid)
		return false;
	/*
	 * Released since the caller looked: the child may have run its work
	 * after the start and ended (a fixed work's task, while this one was
	 * not scheduled); the sample's end judges how it ended.
	 */
	if (poll(&released, 1, 0) > 0)
		return false;
	describe_exit(&si, how, sizeof(how));
	task = task_of_pid(ic, si.si_pid);
	if (task > 0) {
		task_name(ic, (unsigned)task, name, sizeof(name));
		instance_failed(ic, "%s %s", name, how);
	} else {
		instance_failed(ic, "a child (pid %d) %s", (int)si.si_pid, how);
	}
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
		struct pollfd now = pfd;
		int n;

		/* Released already: a child that is done by now is no early death. */
		if (poll(&now, 1, 0) > 0)
			break;
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

/*
 * The instance's start: task 0 leaving the release. A fixed work starts
 * with whichever task leaves first: of hundreds of tasks woken at once the
 * instance process may run last, after much of the work is done (hackbench
 * reads its clock before it writes the start byte), so real_s is the time
 * the work took. A timed window keeps stress-ng's start, the instance
 * process's own.
 */
static void note_start(struct instance_ctx *ic)
{
	uint64_t now = now_ns(), seen;

	if (!ic->spec->wl->fixed_work) {
		if (task_num == 0)
			ic->cold->start_ns = now;
		return;
	}
	seen = __atomic_load_n(&ic->cold->start_ns, __ATOMIC_RELAXED);
	while ((seen == 0 || now < seen) &&
	       !__atomic_compare_exchange_n(&ic->cold->start_ns, &seen, now, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
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
	if (task_num == 0) {
		if (wait_release_watching_children(ic))
			return -1;
		note_start(ic);
		return 0;
	}
	/* Only the close of the write end by the parent ends this read. */
	do
		n = read(ic->start_rd, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n != 0) {
		instance_failed(ic, "bad release of the start barrier");
		return -1;
	}
	note_start(ic);
	return 0;
}

static int task_of_pid(const struct instance_ctx *ic, pid_t pid)
{
	unsigned t;

	for (t = 1; t < ic->ntasks; t++)
		if (ic->tasks[t].pid == pid && ic->tasks[t].tid == pid)
			return (int)t;
	return -1;
}

/* A task that ended badly on its own: a fault or other signal, or a nonzero exit. */
static void note_task_end(struct instance_ctx *ic, unsigned task, const siginfo_t *si)
{
	char name[64];

	task_name(ic, task, name, sizeof(name));
	if ((si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED) && si->si_status != SIGKILL)
		instance_failed(ic, "%s killed by %s", name, signal_name(si->si_status));
	else if (si->si_code == CLD_EXITED && si->si_status != 0)
		instance_failed(ic, "%s exited with status %d", name, si->si_status);
}

int instance_reap_child(struct instance_ctx *ic, pid_t pid)
{
	int task = task_of_pid(ic, pid);
	siginfo_t si;
	int status, rc;

	memset(&si, 0, sizeof(si));
	do
		rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	while (rc < 0 && errno == EINTR);
	if (rc == 0 && task > 0) {
		procfs_read_task(pid, 0, &ic->tasks[task].counters);
		note_task_end(ic, (unsigned)task, &si);
		/* a zombie until the waitpid below: the parent no longer signals it */
		__atomic_store_n(&ic->tasks[task].done, 1, __ATOMIC_RELEASE);
	}
	do
		rc = waitpid(pid, &status, 0);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -1;
	if (task > 0)
		__atomic_store_n(&ic->tasks[task].done, 1, __ATOMIC_RELEASE);
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
	/* The caller's mask, but the stop signal must get through. */
	mask = *orig_mask;
	sigdelset(&mask, SIGALRM);
	sigprocmask(SIG_SETMASK, &mask, NULL);

	snprintf(name, sizeof(name), "wakebench-%s", ic->spec->wl->name);
	prctl(PR_SET_NAME, name);

	task_num = 0;
	if (place_task(ic, 0))
		_exit(1);

	rc = ic->spec->wl->instance(ic->spec->wl_params, ic);
	ic->cold->finish_ns = now_ns();
	__atomic_store_n(&ic->cold->returned, 1, __ATOMIC_RELEASE);

	if (!getrusage(RUSAGE_SELF, &self) && !getrusage(RUSAGE_CHILDREN, &children)) {
		ic->cold->usr_s = tv_s(&self.ru_utime) + tv_s(&children.ru_utime);
		ic->cold->sys_s = tv_s(&self.ru_stime) + tv_s(&children.ru_stime);
	}
	if (rc)
		instance_failed(ic, "the workload failed");
	/* a task that died on its own fails the instance even when the workload did not notice */
	_exit(rc || __atomic_load_n(&ic->cold->failed, __ATOMIC_ACQUIRE) ? 1 : 0);
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
	struct task_placement pl;
	unsigned n, tasks;
	size_t line;	   /* cache line */
	size_t stride;	   /* bytes per instance slot */
	size_t shared_off; /* offset of the first shared area; 0: none */
	size_t shared_len; /* bytes per shared area (page multiple) */
	char *map;
	size_t map_len;
	struct run_ctl *ctl;
	pid_t *pids;  /* instance processes; 0 once reaped */
	bool *exited; /* exited (not yet reaped) */
	unsigned nexited;
	sigset_t wait_mask; /* the mask while sleeping: stop signals and SIGCHLD open */
};

/* The parts of slot i: hot line, task lines, cold, task records. */
static char *slot_base(const struct run_state *st, unsigned i)
{
	return st->map + st->line + (size_t)i * st->stride;
}

static struct slot_hot *slot_hot(const struct run_state *st, unsigned i)
{
	return (struct slot_hot *)(void *)slot_base(st, i);
}

static char *slot_task_ops(const struct run_state *st, unsigned i)
{
	return slot_base(st, i) + st->line;
}

static struct slot_cold *slot_cold(const struct run_state *st, unsigned i)
{
	return (struct slot_cold *)(void *)(slot_base(st, i) + st->line * (1 + st->tasks));
}

static struct task_slot *slot_tasks(const struct run_state *st, unsigned i)
{
	return (struct task_slot *)(void *)((char *)slot_cold(st, i) +
					    round_up(sizeof(struct slot_cold), st->line));
}

static void *slot_shared(const struct run_state *st, unsigned i)
{
	return st->shared_len ? st->map + st->shared_off + (size_t)i * st->shared_len : NULL;
}

/* Ops of instance i: its counter and every task's. */
static uint64_t slot_ops(const struct run_state *st, unsigned i)
{
	const char *lines = slot_task_ops(st, i);
	uint64_t ops = slot_hot(st, i)->ops;
	unsigned t;

	for (t = 0; t < st->tasks; t++)
		ops += *(const uint64_t *)(const void *)(lines + (size_t)t * st->line);
	return ops;
}

/* Lay out and map the shared memory; -1 after an error message. */
static int map_slots(struct run_state *st, size_t shared_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t cold = round_up(sizeof(struct slot_cold), st->line);
	size_t recs = round_up((size_t)st->tasks * sizeof(struct task_slot), st->line);
	size_t slots;

	st->stride = st->line * (1 + (size_t)st->tasks) + cold + recs;
	slots = st->line + st->stride * st->n;
	st->shared_len = shared_size ? round_up(shared_size, page) : 0;
	st->shared_off = shared_size ? round_up(slots, page) : 0;
	st->map_len = round_up(shared_size ? st->shared_off + st->shared_len * st->n : slots, page);
	st->map =
		mmap(NULL, st->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->map == MAP_FAILED) {
		st->map = NULL;
		return error_errno("cannot map %zu bytes of shared memory", st->map_len);
	}
	st->ctl = (struct run_ctl *)(void *)st->map;
	for (unsigned i = 0; i < st->n; i++) {
		struct task_slot *ts = slot_tasks(st, i);

		slot_cold(st, i)->next_task = 1;
		for (unsigned t = 0; t < st->tasks; t++)
			procfs_task_init(&ts[t].counters);
	}
	return 0;
}

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
	int fd_slot = -1, stop_slot = -1;

	if (fd >= 0) {
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		fd_slot = (int)n++;
	}
	if (stop_pipe[0] >= 0) {
		pfd[n].fd = stop_pipe[0];
		pfd[n].events = POLLIN;
		stop_slot = (int)n++;
	}
	if (ppoll(n ? pfd : NULL, n, &ts, &st->wait_mask) <= 0)
		return 0;
	/* Emptied once seen (the flag stays): the wait after a stop signal sleeps again. */
	if (stop_slot >= 0 && (pfd[stop_slot].revents & POLLIN)) {
		char buf[64];

		while (read(stop_pipe[0], buf, sizeof(buf)) > 0)
			;
	}
	return fd_slot >= 0 && (pfd[fd_slot].revents & (POLLIN | POLLHUP));
}

static void describe_exit(const siginfo_t *si, char *buf, size_t len)
{
	if (si->si_code == CLD_EXITED)
		snprintf(buf, len, "exited with status %d", si->si_status);
	else
		snprintf(buf, len, "killed by %s", signal_name(si->si_status));
}

/*
 * Note instances that exited since the last look; with `all` false stop at
 * the first one still running (instances end in about the order they
 * started, so this is linear overall). A failed instance fails the sample;
 * returns -1 then.
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

/* A process task that is not done and may be signalled or reaped by us. */
static bool task_is_process(const struct task_slot *ts)
{
	return ts->pid > 0 && ts->pid == ts->tid && !__atomic_load_n(&ts->done, __ATOMIC_ACQUIRE);
}

/*
 * The stop: set the flag every task reads, then SIGALRM to every task of
 * every instance that has not returned yet (threads by tgkill). Repeated
 * every STOP_RESEND_NS until they have: a task that looked at the flag
 * just before it blocked is woken by the next one.
 */
static void stop_tasks(struct run_state *st)
{
	unsigned i, t;

	__atomic_store_n(&st->ctl->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < st->n; i++) {
		struct task_slot *ts = slot_tasks(st, i);

		if (!st->pids[i] || st->exited[i] ||
		    __atomic_load_n(&slot_cold(st, i)->returned, __ATOMIC_ACQUIRE))
			continue;
		for (t = 0; t < st->tasks; t++) {
			pid_t pid = ts[t].pid, tid = __atomic_load_n(&ts[t].tid, __ATOMIC_ACQUIRE);

			if (pid > 0 && tid > 0 && !__atomic_load_n(&ts[t].done, __ATOMIC_ACQUIRE))
				syscall(SYS_tgkill, pid, tid, SIGALRM);
		}
	}
}

/*
 * Why instance i is stuck, if one of its process tasks died: a zombie that
 * its instance did not reap, with the exit code from /proc/<pid>/stat.
 */
static bool dead_task(const struct run_state *st, unsigned i, char *buf, size_t len)
{
	struct task_slot *ts = slot_tasks(st, i);
	unsigned t;

	for (t = 1; t < st->tasks; t++) {
		char path[64], *text = NULL, *p, name[64];
		int code = 0, field;
		size_t tl;

		if (!task_is_process(&ts[t]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)ts[t].pid);
		if (read_file(path, &text, &tl) < 0)
			continue;
		p = strrchr(text, ')');
		if (!p || (p[2] != 'Z' && p[2] != 'X')) {
			free(text);
			continue;
		}
		/* exit_code is the last field (52nd) */
		for (field = 2, p++; *p && field < 52; p++)
			if (*p == ' ')
				field++;
		code = field == 52 ? atoi(p) : 0;
		free(text);
		placement_task_name(&st->pl, st->spec->wl, t, name, sizeof(name));
		if (WIFSIGNALED(code))
			snprintf(buf, len, "%s killed by %s", name, signal_name(WTERMSIG(code)));
		else
			snprintf(buf, len, "%s exited with status %d", name, WEXITSTATUS(code));
		return true;
	}
	return false;
}

/*
 * End one process task (task_is_process: not reaped by its instance) of an
 * instance that is gone, and reap it. It is our child when its instance
 * died first (we are a child subreaper during the sample). Where the
 * subreaper cannot be set (qemu-user refuses PR_SET_CHILD_SUBREAPER) it went
 * to init instead: then we wait on a pidfd until it has exited, so that no
 * task outlives wakebench either way.
 */
static void end_task(struct task_slot *ts)
{
	int status, rc;

	kill(ts->pid, SIGKILL);
	while ((rc = (int)waitpid(ts->pid, &status, 0)) < 0 && errno == EINTR)
		;
#ifdef SYS_pidfd_open
	if (rc < 0 && errno == ECHILD) {
		int fd = (int)syscall(SYS_pidfd_open, ts->pid, 0);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (fd >= 0) {
			while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
				;
			close(fd);
		}
	}
#endif
	ts->done = 1;
}

/* SIGKILL every task still alive and reap every instance. */
static void kill_all(struct run_state *st)
{
	unsigned i, t;

	if (st->ctl)
		__atomic_store_n(&st->ctl->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < st->n; i++) {
		struct task_slot *ts = slot_tasks(st, i);

		if (!st->pids[i])
			continue;
		/* Other tasks first, while their instance keeps them from being reaped. */
		if (!st->exited[i])
			for (t = 1; t < st->tasks; t++)
				if (task_is_process(&ts[t]))
					kill(ts[t].pid, SIGKILL);
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
	 * Tasks whose instance died before reaping them: end_task().
	 */
	for (i = 0; i < st->n; i++) {
		struct task_slot *ts = slot_tasks(st, i);

		for (t = 1; t < st->tasks; t++)
			if (task_is_process(&ts[t]))
				end_task(&ts[t]);
	}
}

static void fail_interrupted(struct sample *s)
{
	int sig = runner_stop_signal();

	if (sig)
		sample_fail(s, SAMPLE_INTERRUPTED, "interrupted by %s", signal_name(sig));
	else
		sample_fail(s, SAMPLE_INTERRUPTED, "interrupted by a signal");
}

/* Grace after the stop for instances to return before they are killed. */
#define STOP_GRACE_NS (5 * 1000000000ULL)
/* The stop signal is repeated this often until every instance returned. */
#define STOP_RESEND_NS (10 * 1000000ULL)
/* Grace after a stop signal (Ctrl-C) for instances to return before they are killed. */
#define STOP_SIGNAL_GRACE_NS (1000000000ULL)
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
	pid_t *tids = xcalloc((size_t)st->n * st->tasks, sizeof(*tids));
	size_t ntids = 0, p;
	unsigned i, t;
	int rc = 0;

	for (i = 0; i < st->n; i++) {
		struct task_slot *ts = slot_tasks(st, i);

		tids[ntids++] = st->pids[i];
		for (t = 1; t < st->tasks; t++)
			if (ts[t].tid > 0)
				tids[ntids++] = ts[t].tid;
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
	const struct workload *wl = st->spec->wl;
	struct instance_result *res = xcalloc(st->n, sizeof(*res));
	struct procfs_task *tasks = xcalloc((size_t)st->n * st->tasks, sizeof(*tasks));
	size_t ntasks = 0;
	unsigned i, t;

	for (i = 0; i < st->n; i++) {
		struct slot_cold *c = slot_cold(st, i);
		struct task_slot *ts = slot_tasks(st, i);
		int status;

		procfs_read_task(st->pids[i], 0, &ts[0].counters);
		while (waitpid(st->pids[i], &status, 0) < 0 && errno == EINTR)
			;
		st->pids[i] = 0;
		/* A workload that left a task unreaped: it came to us; end it. */
		for (t = 1; t < st->tasks; t++)
			if (task_is_process(&ts[t]))
				end_task(&ts[t]);

		res[i].ops = slot_ops(st, i);
		res[i].bytes = slot_hot(st, i)->bytes;
		res[i].start_ns = c->start_ns;
		res[i].finish_ns = c->finish_ns;
		res[i].loop_ns = c->loop_ns;
		res[i].usr_s = c->usr_s;
		res[i].sys_s = c->sys_s;
		for (t = 0; t < st->tasks; t++)
			tasks[ntasks++] = ts[t].counters;
	}
	runner_metrics(st->out, res, st->n);
	runner_counter_metrics(st->out, tasks, ntasks);
	if (wl->put_metrics) {
		const void **shared = xcalloc(st->n, sizeof(*shared));

		for (i = 0; i < st->n; i++)
			shared[i] = slot_shared(st, i);
		wl->put_metrics(st->spec->wl_params, shared, st->n, st->out);
		free(shared);
	}
	free(res);
	free(tasks);
}

/*
 * The window (or the fixed work) from the release to the return of every
 * instance: stop at the end, wait, fail the sample on an early death, an
 * unfinished fixed work or an instance that does not stop. A stop signal
 * makes the sample interrupted and stops the tasks as the window's end
 * does, so that each instance reaps its own (with no subreaper, as under
 * qemu-user, a killed instance's tasks would go to init); what has not
 * returned STOP_SIGNAL_GRACE_NS later is killed by the caller.
 */
static void run_window(struct run_state *st, uint64_t release_ns, uint64_t duration_ns)
{
	const bool fixed = st->spec->wl->fixed_work;
	uint64_t end = release_ns + duration_ns, stop_ns = 0, resend_ns = 0, grace_end = 0;
	bool signalled = false;
	struct sample *out = st->out;
	char limit[32];

	format_duration(duration_ns, limit, sizeof(limit));
	for (;;) {
		uint64_t now = now_ns();

		if (runner_stop_signal() && !signalled) {
			fail_interrupted(out);
			signalled = true;
			if (!stop_ns)
				stop_ns = now;
			if (!grace_end || now + STOP_SIGNAL_GRACE_NS < grace_end)
				grace_end = now + STOP_SIGNAL_GRACE_NS;
		}
		if (signalled && now >= grace_end)
			break;
		/*
		 * In the window only an early death (or a fixed work that is done)
		 * wakes us: look at all of them. After the stop, in order.
		 */
		if (chld_flag) {
			chld_flag = 0;
			if (check_instances(st, !stop_ns,
					    stop_ns ? "after the stop"
					    : fixed ? "during the work"
						    : "during the sample"))
				break;
		}
		if (st->nexited == st->n)
			break;
		if (!stop_ns && now >= end) {
			if (fixed) {
				unsigned i, first = st->n;
				char why[160] = "";

				for (i = 0; i < st->n && first == st->n; i++)
					if (!st->exited[i])
						first = i;
				if (first < st->n && dead_task(st, first, why, sizeof(why)))
					sample_fail(out, SAMPLE_FAILED,
						    "instance %u did not finish within -t %s: %s",
						    first, limit, why);
				else
					sample_fail(
						out, SAMPLE_FAILED,
						"%u of %u instances did not finish within -t %s",
						st->n - st->nexited, st->n, limit);
				break;
			}
			stop_ns = now;
		}
		if (stop_ns && now >= resend_ns) {
			stop_tasks(st);
			resend_ns = now + STOP_RESEND_NS;
		}
		if (!grace_end && stop_ns)
			grace_end = stop_ns + STOP_GRACE_NS;
		if (grace_end && now >= grace_end) {
			unsigned i, first = st->n;
			char why[160] = "";

			for (i = 0; i < st->n && first == st->n; i++)
				if (!st->exited[i])
					first = i;
			if (first < st->n && dead_task(st, first, why, sizeof(why)))
				sample_fail(out, SAMPLE_FAILED,
					    "instance %u did not stop within %llus of the window's "
					    "end: %s",
					    first,
					    (unsigned long long)(STOP_GRACE_NS / 1000000000ULL),
					    why);
			else
				sample_fail(out, SAMPLE_FAILED,
					    "%u of %u instances did not stop within %llus of the "
					    "window's end",
					    st->n - st->nexited, st->n,
					    (unsigned long long)(STOP_GRACE_NS / 1000000000ULL));
			break;
		}
		if (!stop_ns)
			sleep_until(st, -1, end);
		else
			sleep_until(st, -1, resend_ns < grace_end ? resend_ns : grace_end);
	}
	out->wall_ns = now_ns() - release_ns;
}

/* A stop signal among the pending ones. */
static bool pending_stop(const sigset_t *pending)
{
	sigset_t stops;

	runner_stop_sigset(&stops);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&stops, s) == 1 && sigismember(pending, s) == 1)
			return true;
	return false;
}

/* A new sample in out, keeping its index and warm-up flag. */
static void sample_begin(struct sample *out, const struct run_spec *spec, uint64_t duration_ns)
{
	uint32_t index = out->index;
	bool warmup = out->warmup;

	sample_init(out);
	out->index = index;
	out->warmup = warmup;
	out->duration_ns = duration_ns;
	out->instances = (uint32_t)spec->rp->instances;
	out->start_realtime_ns = realtime_ns();
}

/*
 * Stop signals and SIGCHLD are only taken while sleeping in ppoll(): block
 * them, keep the mask to restore in *orig and the one to wait with in st.
 */
static void signals_take(struct run_state *st, sigset_t *orig, struct sigaction *old_chld)
{
	struct sigaction sa;
	sigset_t block;

	runner_stop_sigset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, orig);
	st->wait_mask = *orig;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&block, s) == 1)
			sigdelset(&st->wait_mask, s);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, old_chld);
	chld_flag = 0;
}

/* Fork every instance; a failure or a stop signal marks the sample and ends the forks. */
static void fork_instances(struct run_state *st, const int *ready, const int *start,
			   const sigset_t *orig_mask)
{
	const struct run_spec *spec = st->spec;
	pid_t parent = getpid();
	unsigned i;

	fflush(NULL); /* nothing buffered may be written twice by a child */
	for (i = 0; i < st->n; i++) {
		struct instance_ctx ic = {
			.spec = spec,
			.pl = &st->pl,
			.index = i,
			.ntasks = st->tasks,
			.ready_wr = ready[1],
			.start_rd = start[0],
			.ctl = st->ctl,
			.hot = slot_hot(st, i),
			.task_ops = slot_task_ops(st, i),
			.line = st->line,
			.cold = slot_cold(st, i),
			.tasks = slot_tasks(st, i),
			.shared = slot_shared(st, i),
		};
		sigset_t pending;
		pid_t pid;

		/* Hundreds of forks take a while: a stop signal (blocked here) ends them. */
		if ((i & 15) == 15 && !sigpending(&pending) && pending_stop(&pending)) {
			sample_fail(st->out, SAMPLE_INTERRUPTED,
				    "interrupted while its tasks were created");
			return;
		}
		pid = fork();
		if (pid < 0) {
			sample_fail(st->out, SAMPLE_FAILED, "cannot fork instance %u: %s", i,
				    strerror(errno));
			return;
		}
		if (pid == 0)
			instance_main(&ic, parent, orig_mask, ready[0], start[1]);
		st->pids[i] = pid;
		ic.tasks[0].pid = pid;
		ic.tasks[0].tid = pid;
	}
}

/* Probes started for a sample that is void: stopped so that they release what they hold. */
static void probes_discard(const struct run_spec *spec, size_t nstarted)
{
	struct sample scratch;

	sample_init(&scratch);
	for (size_t p = 0; p < nstarted; p++)
		if (spec->probes[p].ops->stop)
			spec->probes[p].ops->stop(spec->probes[p].state, &scratch);
}

/* The barrier, the release, the window, and the sample's numbers; or every task killed. */
static void measure(struct run_state *st, int *ready, int *start, uint64_t duration_ns)
{
	struct sample *out = st->out;
	size_t nstarted = 0;
	uint64_t release_ns;
	unsigned i;

	if (out->status != SAMPLE_OK || wait_ready(st, ready[0]) || probes_start(st, &nstarted)) {
		kill_all(st);
		probes_discard(st->spec, nstarted);
		return;
	}
	/* The release: every task's read of the start pipe returns 0 now. */
	release_ns = now_ns();
	out->start_realtime_ns = realtime_ns();
	close(start[1]);
	start[1] = -1;
	run_window(st, release_ns, duration_ns);
	if (out->status != SAMPLE_OK) {
		kill_all(st);
		probes_discard(st->spec, nstarted);
		return;
	}
	for (i = 0; i < st->n; i++)
		out->ops += slot_ops(st, i);
	probes_stop(st->spec, out);
	collect(st);
}

int runner_sample(const struct run_spec *spec, uint64_t duration_ns, struct sample *out)
{
	const struct workload *wl = spec->wl;
	struct run_state st;
	struct sigaction old_chld;
	sigset_t orig_mask;
	int cpus[CPU_SETSIZE], ncpus;
	int ready[2] = { -1, -1 }, start[2] = { -1, -1 };
	int old_subreaper = 0;
	char err[256];
	unsigned i;
	int ret = 0;

	sample_begin(out, spec, duration_ns);
	memset(&st, 0, sizeof(st));
	st.spec = spec;
	st.out = out;
	st.n = (unsigned)spec->rp->instances;
	st.tasks = workload_tasks(wl, spec->wl_params);
	st.line = cache_line_size();

	if (runner_stop_signal()) {
		fail_interrupted(out);
		return 0;
	}
	ncpus = runner_allowed_cpus(cpus, CPU_SETSIZE);
	if (ncpus < 0)
		return -1;
	if (placement_init(&st.pl, wl, spec->wl_params, spec->rp, cpus, (unsigned)ncpus, err,
			   sizeof(err)))
		return error("%s", err);
	if (map_slots(&st, wl->shared_size ? wl->shared_size(spec->wl_params) : 0)) {
		placement_release(&st.pl);
		return -1;
	}
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
	signals_take(&st, &orig_mask, &old_chld);
	fork_instances(&st, ready, start, &orig_mask);
	close(ready[1]);
	close(start[0]);
	ready[1] = start[0] = -1;
	measure(&st, ready, start, duration_ns);
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
	placement_release(&st.pl);
	return ret;
}
