/*
 * probes.h: the evidence gathered around each sample beyond the /proc
 * counters the runner always reads (DESIGN section 7): per-task perf
 * software counters (--perf-counters: opt-in, they slow every context
 * switch), sched tracepoints (--trace) and the delayed-entity sampler
 * (always, when sched/debug is readable).
 *
 * Commands that run samples (run, ab) add probe_opts as an option group and
 * call probes_setup() once before the first sample; the resulting probes go
 * into struct run_spec. What a probe cannot collect it reports as
 * unavailable with the reason, never as zero.
 */
#ifndef WAKEBENCH_PROBES_H
#define WAKEBENCH_PROBES_H

#include <stdbool.h>
#include <stddef.h>

#include "runner/runner.h"
#include "util/opts.h"

/*
 * Which tracer: BPF (in-kernel aggregation, trace-bpf.h) or perf (records
 * streamed to user space, trace.h). on and auto prefer BPF and fall back to
 * perf, saying why; they differ when neither can trace.
 */
enum trace_mode {
	TRACE_OFF = 0,
	TRACE_ON,   /* --trace: BPF, else perf; exit 77 when neither can trace */
	TRACE_AUTO, /* --trace=auto: BPF, else perf, else say why and go on untraced */
	TRACE_BPF,  /* --trace=bpf: the BPF tracer or exit 77 */
	TRACE_PERF, /* --trace=perf: the perf tracer or exit 77 */
};

struct probe_params {
	int trace;	    /* enum trace_mode */
	bool perf_counters; /* --perf-counters: per-task perf software counters */
	bool ceiling;	    /* --ceiling: the no-wakeup ceiling after every sample (ceiling.h) */
};

extern const struct opt probe_opts[];
extern const struct probe_params probe_defaults;

struct probe_set {
	struct probe *probes;
	size_t n;
};

/*
 * Prepare the probes the options ask for. debugfs is where debugfs is
 * mounted. Returns 0; or -1 with one line in err when --trace was asked
 * for and is not possible here (the command exits 77).
 */
int probes_setup(struct probe_set *ps, const struct probe_params *pp, const char *debugfs,
		 char *err, size_t errlen);
void probes_release(struct probe_set *ps);

/* Does the set trace (--trace granted)? */
bool probes_tracing(const struct probe_set *ps);
/* The tracer that runs: "bpf", "perf", or NULL when none. */
const char *probes_tracer(const struct probe_set *ps);

/*
 * The same probes without the tracer: a view into ps (do not release it),
 * for an untraced calibration sample that measures the tracing overhead.
 */
struct probe_set probes_untraced(const struct probe_set *ps);

/*
 * The tracing overhead line printed with a traced result, from the medians
 * of the traced samples and the untraced samples of the same config, on
 * ops/s and on ops per CPU-second (steadier where neighbours steal time):
 * "tracing overhead: 6.2% fewer ops/s (traced 181 200, untraced 193 200);
 *  20.1% fewer ops per CPU-second (traced 90210, untraced 112913)".
 * Returns the ops/s overhead as a fraction (positive: tracing slowed it).
 */
double probes_overhead_line(double traced_ops_per_s, double untraced_ops_per_s,
			    double traced_ops_per_cpu_s, double untraced_ops_per_cpu_s, char *buf,
			    size_t len);

#endif
