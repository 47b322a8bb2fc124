/*
 * ceiling.h: the no-wakeup ceiling of a pipe workload (--ceiling,
 * doc/evidence.md): the same data path with no wakeup at all. One task
 * writes a message into its own pipe and reads it back, so every write and
 * read completes without blocking, waking or switching; its write+read
 * pairs per CPU-second are what the pipe code alone costs on this kernel.
 *
 * With the workload's ops per CPU-second from the sample just before,
 * the share of the workload's CPU time per op that the data path does not
 * explain (scheduling, wakeups, context switches and their cache effects):
 *
 *   sched_share = 1 - pairs_per_op * ops_per_cpu_s / ceiling_pairs_per_cpu_s
 *
 * pairs_per_op: pingpong's round trip is two writes and two reads (2),
 * pipe's op is one write read by the reader (1).
 */
#ifndef WAKEBENCH_CEILING_H
#define WAKEBENCH_CEILING_H

#include <stddef.h>
#include <stdint.h>

#include "runner/runner.h"

struct ceiling_shape {
	unsigned pairs_per_op; /* write+read pairs of the data path in one op */
	uint64_t bytes;	       /* per write: the workload's --data-size, else 4 (a token) */
	bool packet;	       /* pipe2(O_DIRECT) as the pipe workload's packet mode */
};

/*
 * The data path of spec's workload. -1 with one line in err (option, value,
 * what is allowed) when it has none: --ceiling is for pipe and pingpong.
 */
int ceiling_shape_of(const struct run_spec *spec, struct ceiling_shape *cs, char *err,
		     size_t errlen);

struct ceiling_result {
	uint64_t pairs; /* summed over the tasks */
	double cpu_s;	/* usr + sys of the tasks, in their loops */
	double wall_s;	/* the window */
};

/*
 * Run one ceiling task per instance of spec (pinned to the allowed CPUs in
 * turn unless the placement is any) for duration_ns. Returns 0, or -1 with
 * the reason in err (a stop signal arrived, a task failed).
 */
int ceiling_measure(const struct run_spec *spec, const struct ceiling_shape *cs,
		    uint64_t duration_ns, struct ceiling_result *out, char *err, size_t errlen);

/* 1 - pairs_per_op * ops_per_cpu_s / ceiling_pairs_per_cpu_s (0 when a rate is not positive). */
double ceiling_share(unsigned pairs_per_op, double ops_per_cpu_s, double ceiling_pairs_per_cpu_s);

/*
 * Measure the ceiling after sample s (status ok) and put
 * ceiling_pairs_per_cpu_s and sched_share into it, or mark both
 * unavailable with the reason.
 */
void ceiling_sample(const struct run_spec *spec, const struct ceiling_shape *cs,
		    uint64_t duration_ns, struct sample *s);

/*
 * "scheduler and wakeup share of the cost: 41.2% [39.8%, 43.0%] (median of 10
 * samples, 95% CI)" from the summary of sched_share; NULL sum: unavailable.
 */
struct summary;
void ceiling_summary_line(const struct summary *sum, const char *why, char *buf, size_t len);

#endif
