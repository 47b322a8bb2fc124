/*
 * runner.h: running one sample of one config.
 *
 * The runner spawns the instances of a workload, applies placement, holds
 * every task at a barrier until all are ready and then releases them
 * together, lets the instance processes time their own window (stress-ng's
 * alarm without SA_RESTART, so a blocked writer leaves its loop promptly),
 * collects every task's scheduler counters before it is reaped, computes
 * stress-ng's metrics and fills a struct sample. The parent sleeps during
 * the window. Probes (perf counters, tracepoints, the sched/debug sampler)
 * are started after all tasks are ready and stopped after the window.
 *
 * Repetition (-n, warm-up) and interleaving of configs are the caller's
 * (cli/cmd-run.c, cli/cmd-ab.c): they call runner_sample() in a loop.
 */
#ifndef WAKEBENCH_RUNNER_H
#define WAKEBENCH_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner/sample.h"
#include "sys/procfs.h"
#include "util/opts.h"
#include "workloads/workload.h"

enum placement {
	PLACE_ANY = 0,   /* no affinity, like stress-ng */
	PLACE_SAME_CPU,  /* both tasks of an instance on one CPU */
	PLACE_CROSS_CPU, /* the two tasks of an instance on two different CPUs */
	PLACE_SPREAD,    /* instances round-robin over the allowed CPUs */
};

/* Options shared by every workload (-j, -t, -n, --warmup, --placement). */
struct run_params {
	uint64_t instances;
	uint64_t duration_ns;
	uint64_t samples;
	uint64_t warmup_ns; /* 0: no warm-up sample */
	int placement;      /* enum placement */
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
 * Check what can only be checked against this machine (e.g. cross-cpu on a
 * single allowed CPU). One line into err naming option, value and what is
 * allowed; -1 on failure.
 */
int runner_check(const struct run_spec *spec, char *err, size_t errlen);

/*
 * Run one sample of duration_ns. Returns 0 when a sample was produced (its
 * status may be SAMPLE_FAILED or SAMPLE_INTERRUPTED with a reason), -1 on a
 * setup error that was already reported. No workload process is left when
 * it returns. out->index and out->warmup are kept; everything else is
 * filled. Call it from the thread that should receive the stop signals
 * (they are blocked except while it sleeps); the calling process is a child
 * subreaper during the call, so that orphaned workload tasks are reaped.
 */
int runner_sample(const struct run_spec *spec, uint64_t duration_ns, struct sample *out);

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
/* "SIGQUIT", "SIGRTMIN+2": the name of a signal number. */
const char *runner_signal_name(int sig);

/* The CPUs this process may run on (sched_getaffinity), ascending. */
int runner_allowed_cpus(int *cpus, int max);

/* Most tasks (processes or threads) one instance may have. */
#define RUNNER_MAX_TASKS 4

/*
 * The CPU that task `role` of instance `index` is pinned to under a
 * placement, or -1 for no affinity (PLACE_ANY). cpus are the allowed CPUs:
 *   same-cpu:  every task of instance i on cpus[i % n]
 *   cross-cpu: task r of instance i on cpus[(i + r) % n] (with n >= 2 the
 *              writer and reader of an instance are on different CPUs, and
 *              every CPU gets one writer and one reader when j == n)
 *   spread:    tasks in creation order round-robin, task r of instance i on
 *              cpus[(i * tasks_per_instance + r) % n]
 */
int runner_placement_cpu(int placement, unsigned index, unsigned role,
			 unsigned tasks_per_instance, const int *cpus, int ncpus);

/* What one instance reported: the input of stress-ng's formulas. */
struct instance_result {
	uint64_t ops;
	uint64_t bytes;     /* 0 when the workload does not count bytes */
	uint64_t start_ns;  /* CLOCK_MONOTONIC, at the common release */
	uint64_t finish_ns; /* after the workload returned (its tasks reaped) */
	uint64_t loop_ns;   /* the writer loop alone, for the MB/s rate; 0: unknown */
	double usr_s;       /* RUSAGE_SELF + RUSAGE_CHILDREN of the instance */
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

/* ---- the instance side: called by workloads in instance processes ---- */

/* Create task 1 of this instance as a process; returns 0 in the child. */
pid_t instance_fork(struct instance_ctx *ic);
/* Index of this instance (0..instances-1). */
unsigned instance_index(const struct instance_ctx *ic);
/* Role of the calling task: 0 for the instance process, 1.. for others. */
unsigned instance_role(const struct instance_ctx *ic);
/*
 * Register a thread of this instance (for thread-based workloads) so that
 * its counters are collected; call from the thread itself before
 * instance_ready(); applies the role's placement.
 */
int instance_thread_register(struct instance_ctx *ic, unsigned role);
/* Collect the calling thread's counters (before it exits). */
void instance_thread_collect(struct instance_ctx *ic);
/*
 * Tell the runner this task is ready and wait for the common start. In
 * task 0 it also notes the start time and arms the stop timer.
 */
int instance_ready(struct instance_ctx *ic);
/* True until the window ends. Cheap: a volatile flag. */
bool instance_running(const struct instance_ctx *ic);
/* The op counter of this instance, in its own cache line. */
uint64_t *instance_ops(struct instance_ctx *ic);
/* Bytes written, for MB/s; optional. */
uint64_t *instance_bytes(struct instance_ctx *ic);
/* Duration of the writer loop alone, for MB/s; optional. */
void instance_set_loop_ns(struct instance_ctx *ic, uint64_t loop_ns);
/*
 * Collect a child's counters from /proc after it exited (waitid WNOWAIT),
 * then reap it. Returns its wait status, or -1.
 */
int instance_reap_child(struct instance_ctx *ic, pid_t pid);
/* Record why this instance failed (the sample fails with this reason). */
void instance_failed(struct instance_ctx *ic, const char *fmt, ...) PRINTF_LIKE(2, 3);

#endif
