/*
 * workload.h: what a workload is to the rest of wakebench.
 *
 * A workload is one file in src/workloads/ ending in its descriptor
 * (`const struct workload workload_<name>`), plus one line in registry.c.
 * It owns its parameters (an options table into its params struct, with
 * defaults in one static const initialiser), its profiles (named parameter
 * sets that reproduce a reference exactly) and the loops that run inside an
 * instance. The runner owns processes, placement, the synchronised start,
 * timing, stopping and counters. Workloads never print, parse argv or touch
 * the store.
 */
#ifndef WAKEBENCH_WORKLOAD_H
#define WAKEBENCH_WORKLOAD_H

#include <stddef.h>

#include "util/opts.h"

struct instance_ctx;
struct metric_def;
struct run_params;

struct profile {
	const char *name;    /* "stress-ng-0.15" */
	const char *summary; /* one line for `wakebench list` */
	const void *params;  /* a complete params struct */
};

struct workload {
	const char *name;    /* "pipe" */
	const char *summary; /* one line */
	const char *op_name; /* what one op is in tables: "bogo ops", "round trips" */
	const char *primary; /* registry name of the primary metric: "ops_per_s" */
	/* This workload's own metrics (runner/metrics.h), { NULL } terminated; may be NULL. */
	const struct metric_def *metrics;
	const char *unit;    /* primary metric unit: "ops/s" */
	int better;          /* enum better of the primary metric (ops_per_s) */

	size_t params_size;
	const void *defaults;        /* complete params struct */
	const struct opt *opts;      /* into the params struct */
	const struct profile *profiles; /* terminated by { NULL } */
	const char *default_profile;    /* NULL when the workload has none */
	unsigned tasks_per_instance;
	/*
	 * The -j default for this workload, 0 for the runner's (4, the report's
	 * stress-ng --pipe 4). perf bench sched pipe is one pair, so pingpong
	 * says 1.
	 */
	unsigned default_instances;

	/*
	 * Cross-option and environment checks after parsing (e.g. --data-size
	 * against packet mode, --pipe-size against pipe-max-size). On failure
	 * write one line naming the option, the value and what is allowed into
	 * err and return -1 (the command exits 2).
	 */
	int (*check)(const void *params, const struct run_params *rp, char *err, size_t errlen);

	/*
	 * Runs in the instance process (task 0). Sets up, creates its other
	 * task(s) with instance_fork() or instance_thread(), waits at
	 * instance_ready(), loops while instance_running(), counts ops in
	 * *instance_ops(), stops its tasks and reaps them with
	 * instance_reap_child(). Returns 0, or -1 after instance_failed().
	 */
	int (*instance)(const void *params, struct instance_ctx *ic);
};

/* registry.c: the only list of workloads. */
extern const struct workload *const workloads[];
const struct workload *workload_find(const char *name);
const struct profile *workload_profile(const struct workload *wl, const char *name);

#endif
