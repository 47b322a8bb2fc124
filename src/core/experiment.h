/*
 * experiment.h: a stored experiment and its configs as the store hands
 * them out, shared by the store that reads them, the engines that analyse
 * them and the renderers that name them (a report's "to reproduce" list).
 */
#ifndef WAKEBENCH_CORE_EXPERIMENT_H
#define WAKEBENCH_CORE_EXPERIMENT_H

#include <stdint.h>

struct store_experiment {
	int64_t id;
	char uuid[37];
	char *kind, *workload, *profile, *params_json, *cmdline, *version;
	char *label; /* NULL when none */
	char *host, *kernel;
	/*
	 * /proc/sys/kernel/random/boot_id of the boot that ran it (a guest's
	 * for `vm`); NULL when unknown (older stores, JSON imports).
	 */
	char *boot_id;
	uint64_t started_ns, ended_ns; /* CLOCK_REALTIME; ended_ns 0 while running */
	/*
	 * "running", "complete", "interrupted", "failed". A stored "running"
	 * whose owner process is gone (or whose boot is over) reads as
	 * "interrupted".
	 */
	char status[16];
	int64_t nsamples; /* every stored sample, warm-ups and failures included */
};

struct store_config {
	int64_t id, exp_id;
	char *name;	/* "default", "DELAY_DEQUEUE=off" */
	char *features; /* "NO_DELAY_DEQUEUE PREEMPT_SHORT ..." or NULL when unknown */
};

#endif
