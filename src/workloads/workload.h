/*
 * workload.h: what a workload is to the rest of wakebench (contract v2).
 *
 * A workload is one file in src/workloads/ ending in its descriptor
 * (`const struct workload workload_<name>`), plus one line in registry.c.
 * It owns its parameters (an options table into its params struct, with
 * defaults in one static const initialiser), its profiles (named parameter
 * sets that reproduce a reference exactly), its own metrics and the loops
 * that run inside an instance (runner/instance.h is its side of the
 * runner). The runner owns processes, placement, the synchronised start,
 * timing, stopping and counters. Workloads never print, parse argv or touch
 * the store.
 *
 * An instance has tasks() tasks (task 0 is the instance process, which
 * creates the others as processes or threads). layout() puts each task in
 * a group and gives it a role; placement works on those (runner.h).
 */
#ifndef WAKEBENCH_WORKLOAD_H
#define WAKEBENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/opts.h"

struct instance_ctx;
struct metric_def;
struct run_params;
struct sample;

struct profile {
	const char *name;    /* "stress-ng-0.15" */
	const char *summary; /* one line for `wakebench list` */
	const void *params;  /* a complete params struct */
	/*
	 * The tool whose results it reproduces ("stress-ng", "perf",
	 * "hackbench", "schbench") and the releases it covers, first..last
	 * inclusive ("0.15.00", "0.15.06"); first and last NULL: every release
	 * of the tool; tool NULL: none named.
	 */
	const char *tool, *first, *last;
};

struct workload {
	const char *name;    /* "pipe" */
	const char *summary; /* one line */
	const char *op_name; /* what one op is: "bogo ops", "round trips", "messages", "hops" */
	const char *primary; /* registry name of the primary metric: "ops_per_s" */
	/* This workload's own metrics (runner/metrics.h), { NULL } terminated; may be NULL. */
	const struct metric_def *metrics;

	size_t params_size;
	const void *defaults;		/* complete params struct */
	const struct opt *opts;		/* into the params struct */
	const struct profile *profiles; /* terminated by { NULL } */
	const char *default_profile;	/* NULL when the workload has none */
	/*
	 * The -j default for this workload, 0 for the runner's (4, the report's
	 * stress-ng --pipe 4). perf bench sched pipe is one pair, so pingpong
	 * says 1.
	 */
	unsigned default_instances;
	uint64_t default_duration_ns; /* the -t default, 0 for the runner's (2s) */

	/*
	 * Fixed work: the instance returns when its work is done (hackbench's
	 * loops), and -t is a time limit: an instance still running when it
	 * ends fails the sample ("did not finish within -t 60s"). real_s is
	 * then the time the work took. false: the timed window (pipe).
	 */
	bool fixed_work;
	/*
	 * Fixed work: the ops one instance does, which is what a sample is
	 * ("400 000 messages" for hackbench's defaults). NULL for a window.
	 */
	uint64_t (*work_ops)(const void *params);

	/* Tasks of one instance for these parameters (>= 1; hundreds are fine). */
	unsigned (*tasks)(const void *params);
	/*
	 * How the default task count follows from the machine, for `list`, when
	 * tasks(defaults) depends on it (schbench: workers per online CPU);
	 * NULL: `list` prints tasks(defaults).
	 */
	const char *tasks_help;
	/*
	 * Where task t (0..tasks-1) sits for placement: its group (same-cpu
	 * puts a whole group on one CPU; groups are numbered 0..) and its role,
	 * an index into roles[]. Pure.
	 */
	void (*layout)(const void *params, unsigned task, unsigned *group, unsigned *role);
	const char *const *roles; /* role names, NULL terminated: { "writer", "reader", NULL } */

	/*
	 * Most file descriptors one process of an instance holds at once (the
	 * runner adds its own and refuses a run over RLIMIT_NOFILE up front,
	 * naming the limit). NULL: a handful.
	 */
	unsigned (*fds)(const void *params);

	/*
	 * Bytes of shared memory each instance gets for its own results
	 * (histograms, per-task counters), zeroed before the start, visible
	 * to every task of the instance (MAP_SHARED, so processes and
	 * threads alike) and to metrics() in the parent. NULL or 0: none.
	 */
	size_t (*shared_size)(const void *params);

	/*
	 * Cross-option and environment checks after parsing (e.g. --data-size
	 * against packet mode, --pipe-size against pipe-max-size). On failure
	 * write one line naming the option, the value and what is allowed into
	 * err and return -1 (the command exits 2). May be NULL.
	 */
	int (*check)(const void *params, const struct run_params *rp, char *err, size_t errlen);

	/*
	 * Runs in the instance process (task 0). Sets up, creates its other
	 * tasks with instance_fork() or as threads that call
	 * instance_thread_register(), every task waits at instance_ready(),
	 * loops while instance_running() (or until its fixed work is done),
	 * counts ops in *instance_ops() or *instance_task_ops(), and task 0
	 * reaps its processes with instance_reap_child() and joins its threads.
	 * Returns 0, or -1 after instance_failed().
	 */
	int (*instance)(const void *params, struct instance_ctx *ic);

	/*
	 * In the parent after a good sample, before probes add theirs: add the
	 * workload's own metrics from the n instances' shared areas (sample_put,
	 * sample_na). s->ops, s->real_s and the fixed fields are set. May be NULL.
	 * (Not called `metrics`: that is the table of definitions above.)
	 */
	void (*put_metrics)(const void *params, const void *const *shared, size_t n,
			    struct sample *s);
};

/* registry.c: the only list of workloads. */
extern const struct workload *const workloads[];
const struct workload *workload_find(const char *name);
const struct profile *workload_profile(const struct workload *wl, const char *name);
/*
 * The profile of wl reproducing release `version` of `tool` ("stress-ng",
 * "0.18.12"; version NULL or "" matches only a profile that covers every
 * release): NULL when none covers it.
 */
const struct profile *workload_profile_for(const struct workload *wl, const char *tool,
					   const char *version);
/*
 * A --profile value: a profile's name, or TOOL-VERSION naming a release
 * ("stress-ng-0.18.12", "stress-ng-0.21" = 0.21.00) that one profile
 * covers. *version receives the release part ("0.18.12") when the name was
 * mapped, NULL when it was a profile's own name. NULL when neither.
 */
const struct profile *workload_profile_resolve(const struct workload *wl, const char *name,
					       const char **version);
/* The releases of `tool` wl's profiles cover: "0.15.00..0.22.00"; "" when none. */
void workload_tool_range(const struct workload *wl, const char *tool, char *buf, size_t len);

#endif
