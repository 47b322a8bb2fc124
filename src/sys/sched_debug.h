/*
 * sched_debug.h: delayed entities from <debugfs>/sched/debug (root, readable
 * even under kernel lockdown). A DELAY_DEQUEUE'd task stays queued after it
 * blocks; each CPU's root cfs_rq (`cfs_rq[N]:/`, or `cfs_rq[N]:` without group
 * scheduling) shows how many: 6.14+
 * print `.h_nr_queued` and `.h_nr_runnable` (delayed = queued - runnable),
 * 6.12.7-6.13 print `.h_nr_delayed`. Older kernels print neither, and the
 * count is then unavailable, not zero.
 *
 * The sampler reads the file at a low rate from a thread of the parent
 * while a sample runs and keeps the mean and max of the machine-wide sum.
 */
#ifndef WAKEBENCH_SCHED_DEBUG_H
#define WAKEBENCH_SCHED_DEBUG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_DEBUG_MAX_CPUS 1024

enum sched_debug_source {
	SD_NONE = 0,
	SD_QUEUED_MINUS_RUNNABLE, /* 6.14+ */
	SD_H_NR_DELAYED,	  /* 6.12.7 .. 6.13 */
};

struct sched_debug_delayed {
	enum sched_debug_source source;
	unsigned ncpus;				/* root cfs_rqs found */
	int max_cpu;				/* highest CPU number seen */
	uint64_t total;				/* sum over CPUs */
	uint32_t per_cpu[SCHED_DEBUG_MAX_CPUS]; /* by CPU number; CPUs not seen are 0 */
};

/*
 * Parse the text of sched/debug. Returns 0, or -1 with a reason in why
 * (no root cfs_rq, or neither field present).
 */
int sched_debug_parse(const char *text, struct sched_debug_delayed *out, char *why, size_t len);

const char *sched_debug_source_name(enum sched_debug_source src);

/* Read and parse path once; -1 with the reason (e.g. the open error) in why. */
int sched_debug_read(const char *path, struct sched_debug_delayed *out, char *why, size_t len);

struct sched_debug_sampler {
	char path[4096];
	uint64_t period_ns;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool running, stop;

	/* results, valid after sched_debug_sampler_stop() */
	uint64_t readings;
	double sum;
	uint64_t max;
	char why[160]; /* the first read or parse failure */
};

/* Start reading path every period_ns (first reading after half a period). */
int sched_debug_sampler_start(struct sched_debug_sampler *s, const char *path, uint64_t period_ns);
/* Stop and join the thread; the results are then in s. */
void sched_debug_sampler_stop(struct sched_debug_sampler *s);

#endif
