/*
 * runner.h: running one sample of one config.
 *
 * The runner spawns the instances of a workload (wl->tasks() tasks each,
 * processes or threads), applies placement, holds every task at a barrier
 * until all are ready and then releases them together, ends the window
 * (or the fixed work's time limit) with a stop flag in shared memory and
 * SIGALRM to every task (without SA_RESTART, so a blocked task leaves its
 * loop promptly), collects every task's scheduler counters before it is
 * reaped, computes stress-ng's metrics, lets the workload add its own and
 * fills a struct sample. The parent sleeps during the window. Probes (perf
 * counters, tracepoints, the sched/debug sampler) are started after all
 * tasks are ready and stopped after the window. The workload's side of it
 * is runner/instance.h.
 *
 * Repetition (-n, warm-up) and interleaving of configs are the caller's
 * (cli/cmd-run.c, engine/abrun.c): they call runner_sample() in a loop.
 */
#ifndef WAKEBENCH_RUNNER_H
#define WAKEBENCH_RUNNER_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/sample.h"
#include "sys/procfs.h"
#include "util/opts.h"
#include "workloads/workload.h"

enum placement {
	PLACE_ANY = 0,	 /* no affinity, like stress-ng (or the --cpus list as a whole) */
	PLACE_SAME_CPU,	 /* every task of a group on one CPU */
	PLACE_CROSS_CPU, /* consecutive roles of a group on different CPUs */
	PLACE_SPREAD,	 /* tasks round-robin over the CPUs in creation order */
};

/* Options shared by every workload (-j, -t, -n, --warmup, --placement, --cpus). */
struct run_params {
	uint64_t instances;
	uint64_t duration_ns; /* the window, or the limit of a fixed-work workload */
	uint64_t samples;
	uint64_t warmup_ns;  /* 0: no warm-up sample */
	int placement;	     /* enum placement */
	struct strlist cpus; /* --cpus [ROLE=]LIST, repeatable */
};

extern const struct opt runner_opts[];
extern const struct run_params runner_defaults;
extern const char *const placement_names[];

/* A probe gathers evidence around the window of a sample. */
struct probe_ops {
	const char *name;
	/*
	 * Called when every task exists and waits at the barrier. tids are the
	 * workload's tasks (processes or threads). Return -1 to fail the sample.
	 */
	int (*start)(void *state, const pid_t *tids, size_t ntids);
	/*
	 * Called after the window ends (tasks may have exited but are not yet
	 * reaped). Adds its metrics to s; ops is the sample's op count.
	 */
	void (*stop)(void *state, struct sample *s);
};

struct probe {
	const struct probe_ops *ops;
	void *state;
};

struct run_spec {
	const struct workload *wl;
	const void *wl_params;
	const struct run_params *rp;
	struct probe *probes;
	size_t nprobes;
};

/*
 * Check what can only be checked against this machine: --cpus against the
 * allowed CPUs and the workload's roles, cross-cpu on a single CPU, the
 * tasks of all instances against RLIMIT_NPROC (unless root) and one
 * process's file descriptors against RLIMIT_NOFILE. One line into err
 * naming the option or the limit, the value and what is allowed; -1 on
 * failure.
 */
int runner_check(const struct run_spec *spec, char *err, size_t errlen);

/*
 * Run one sample of duration_ns (the window; the time limit of a
 * fixed-work workload, whose sample fails when an instance is still
 * running at its end). Returns 0 when a sample was produced (its
 * status may be SAMPLE_FAILED or SAMPLE_INTERRUPTED with a reason), -1 on a
 * setup error that was already reported. No workload process is left when
 * it returns. out->index and out->warmup are kept; everything else is
 * filled. Call it from the thread that should receive the stop signals
 * (they are blocked except while it sleeps); the calling process is a child
 * subreaper during the call, so that orphaned workload tasks are reaped.
 */
int runner_sample(const struct run_spec *spec, uint64_t duration_ns, struct sample *out);

/*
 * What one sample of spec is, for a header: the window ("2s"), or a fixed
 * work's ops and its time limit ("400 000 messages (time limit 1m)"; "per
 * instance" with several).
 */
void runner_sample_what(const struct run_spec *spec, char *buf, size_t len);
/*
 * The duration to give runner_sample() for a warm-up: --warmup, or for a
 * fixed work (warmup_ns not 0) one run of the work under the -t time limit,
 * since a window's length would cut it short and fail it. The warm-up as a
 * header says it into buf ("1s", "one run", "none"; buf may be NULL when
 * len is 0).
 */
uint64_t runner_warmup_ns(const struct run_spec *spec, uint64_t warmup_ns, char *buf, size_t len);

/*
 * The stop signals: every catchable signal whose default action ends the
 * process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
 * SIGPIPE, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS,
 * SIGABRT, SIGSTKFLT, the real-time signals), except the faults (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGTRAP). runner_signals_install() makes each of
 * them set a flag (the handler does nothing else), so that whatever was
 * changed (the scheduler features) is put back on the way out. A SIGHUP
 * ignored on entry (nohup) stays ignored: it cannot end the process.
 * runner_stop_signal() returns the first one received, or 0. A sample in
 * progress is stopped within a second and marked interrupted; workload
 * tasks ignore them (the parent stops them).
 */
void runner_stop_sigset(sigset_t *set);
void runner_signals_install(void);
int runner_stop_signal(void);

/* The CPUs this process may run on (sched_getaffinity), ascending. */
int runner_allowed_cpus(int *cpus, int max);

/*
 * Placement, resolved for one workload, its parameters and the run
 * options. Tasks come from wl->tasks(), their group and role from
 * wl->layout(); `n` is the number of CPUs of the placement (--cpus LIST,
 * else the allowed CPUs), cpus[] those in ascending order. Task t of
 * instance i, in group g with role r, runs on
 *   any:       no affinity; with --cpus LIST, anywhere in the list
 *   same-cpu:  cpus[(i * groups + g) % n]: a whole group on one CPU
 *   cross-cpu: cpus[(i * groups + g + k) % n] where k is r when the
 *              workload has two roles or more, else t's position in its
 *              group: the roles of a group (the writer and reader of a
 *              pair) on different CPUs, or consecutive tasks of a
 *              one-role ring; needs n >= 2
 *   spread:    cpus[(i * tasks + t) % n]: round-robin in creation order
 * and with --cpus ROLE=LIST the tasks of that role, whatever the
 * placement, round-robin over that list: the k-th task of the role in
 * instance i on list[(i * tasks_of_role + k) % len].
 * pipe and pingpong (one group, roles = tasks 0 and 1) place as before:
 * same-cpu cpus[i % n], cross-cpu cpus[(i + t) % n], spread
 * cpus[(i * 2 + t) % n].
 */
struct task_placement {
	int mode;  /* enum placement */
	int *cpus; /* the CPUs of the placement, ascending */
	unsigned ncpus;
	bool cpus_given; /* --cpus LIST: `any` pins to the whole list */
	unsigned ntasks, ngroups, nroles;
	unsigned *group, *role; /* of each task of an instance */
	unsigned *pos_in_group; /* index of the task among its group's */
	unsigned *rank_in_role; /* index of the task among its role's */
	unsigned *role_tasks;	/* tasks of each role in an instance */
	int **role_cpus;	/* --cpus ROLE=LIST per role; NULL: none */
	unsigned *role_ncpus;
};

/*
 * Resolve the placement of wl with params under rp, with `allowed` the
 * CPUs this process may use. On bad --cpus input (not a list, a CPU that
 * is not allowed, an unknown role, given twice) or cross-cpu with one CPU:
 * one line naming the option, the value and what is allowed into err, -1.
 */
int placement_init(struct task_placement *pl, const struct workload *wl, const void *params,
		   const struct run_params *rp, const int *allowed, unsigned nallowed, char *err,
		   size_t errlen);
void placement_release(struct task_placement *pl);
/*
 * Where task `task` of instance `index` runs: the number of CPUs put in
 * *set (1 for a pinned task), 0 when it has no affinity.
 */
int placement_cpus(const struct task_placement *pl, unsigned index, unsigned task, cpu_set_t *set);
/* The one CPU of a pinned task, -1 when it has none or a whole list. */
int placement_cpu(const struct task_placement *pl, unsigned index, unsigned task);
/* "task 17 (receiver)": a task and its role, for messages. */
void placement_task_name(const struct task_placement *pl, const struct workload *wl, unsigned task,
			 char *buf, size_t len);

/* What one instance reported: the input of stress-ng's formulas. */
struct instance_result {
	uint64_t ops;
	uint64_t bytes;	    /* 0 when the workload does not count bytes */
	uint64_t start_ns;  /* CLOCK_MONOTONIC, at the common release */
	uint64_t finish_ns; /* after the workload returned (its tasks reaped) */
	uint64_t loop_ns;   /* the writer loop alone, for the MB/s rate; 0: unknown */
	double usr_s;	    /* RUSAGE_SELF + RUSAGE_CHILDREN of the instance */
	double sys_s;
};

/*
 * stress-ng's --metrics-brief numbers from n instances (pure): ops = sum,
 * real_s = mean of (finish - start), usr_s/sys_s summed, ops_per_s =
 * ops / real_s, ops_per_cpu_s = ops / (usr_s + sys_s) (0 when a divisor is
 * 0), and mb_per_s_geomean (0.15's "MB per sec pipe write rate": geometric
 * mean over instances of bytes / loop seconds / 2^20) when bytes are counted.
 */
void runner_metrics(struct sample *s, const struct instance_result *r, size_t n);

/*
 * The scheduler-counter metrics from every task's /proc counters (pure):
 * nvcsw, nivcsw, migrations, run_delay_ns, timeslices (sums) and per op
 * ctxsw_vol_per_op, ctxsw_invol_per_op, ctxsw_per_op, migrations_per_kop,
 * run_delay_ns_per_op. s->ops must be set. A counter missing in any task
 * makes the metric unavailable with that task's reason.
 */
void runner_counter_metrics(struct sample *s, const struct procfs_task *tasks, size_t ntasks);

#endif
