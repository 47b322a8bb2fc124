/*
 * sample.h: one timed repetition of one config and everything measured in it.
 *
 * The fixed fields are stress-ng's metrics (DESIGN section 4). Everything
 * else (scheduler counters, perf counters, tracepoint evidence, delayed
 * entities) is a named metric, so that the store, `compare` and `ab` treat
 * every source of evidence alike. A metric that could not be measured is
 * kept with `available = false` and the reason: it is never a zero.
 *
 * Every name, fixed fields included, is defined in the metric registry
 * (runner/metrics.c, and each workload's own table): `wakebench list
 * --metrics` prints it. Names are stored: keep them stable.
 */
#ifndef WAKEBENCH_SAMPLE_H
#define WAKEBENCH_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

enum sample_status {
	SAMPLE_OK = 0,
	SAMPLE_FAILED,	    /* a process died or an error: never enters statistics */
	SAMPLE_INTERRUPTED, /* cut short by a signal: never enters statistics */
};

/* Direction of a metric: whether a larger value is better. */
enum better {
	BETTER_NEUTRAL = 0,
	BETTER_HIGHER = 1,
	BETTER_LOWER = -1,
};

enum {
	METRIC_EVIDENCE = 1 << 0, /* report its effect in compare/ab */
};

#define METRIC_NAME_MAX	   40
#define METRIC_WHY_MAX	   128
#define SAMPLE_MAX_METRICS 96

struct metric {
	char name[METRIC_NAME_MAX];
	double value;
	bool available;
	char why[METRIC_WHY_MAX]; /* reason when unavailable */
	int better;		  /* enum better */
	unsigned flags;
};

struct sample {
	uint32_t index; /* 0-based within its experiment, warm-ups included */
	bool warmup;	/* discarded warm-up sample: stored, never in statistics */
	enum sample_status status;
	char reason[256]; /* why it failed */

	uint64_t start_realtime_ns; /* wall-clock timestamp of the start */
	uint64_t duration_ns;	    /* requested window */
	uint64_t wall_ns;	    /* window as measured by the parent */
	uint32_t instances;

	/* stress-ng's --metrics-brief numbers */
	uint64_t ops;
	double real_s; /* mean per-instance duration */
	double usr_s;  /* self + children, summed over instances */
	double sys_s;
	double ops_per_s;     /* ops / real_s */
	double ops_per_cpu_s; /* ops / (usr_s + sys_s) */

	size_t nmetrics;
	struct metric metrics[SAMPLE_MAX_METRICS];
};

void sample_init(struct sample *s);
/*
 * Set (or overwrite) a measured metric. Its direction and flags come from
 * the metric registry (runner/metrics.h); an unregistered name is a BUG().
 */
void sample_put(struct sample *s, const char *name, double value);
/* Record that a registered metric could not be measured, and why. */
void sample_na(struct sample *s, const char *name, const char *fmt, ...) PRINTF_LIKE(3, 4);
/*
 * The value of a metric by name, including the fixed fields ops_per_s,
 * ops_per_cpu_s, real_s; NULL when the sample has no such metric (or it is
 * unavailable: check m->available).
 */
const struct metric *sample_get(const struct sample *s, const char *name);
/*
 * The value of a metric or fixed field by name into *v: true when the
 * sample has it and it is available. Safe to call any number of times
 * (sample_get()'s fixed-field results are per-thread slots reused in turn).
 */
bool sample_value(const struct sample *s, const char *name, double *v);
/* Mark the sample failed with a reason (keeps the first reason). */
void sample_fail(struct sample *s, enum sample_status st, const char *fmt, ...) PRINTF_LIKE(3, 4);
const char *sample_status_name(enum sample_status st);

#endif
