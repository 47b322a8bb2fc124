/*
 * trace-bpf.h: the BPF tracer (--trace=bpf): the sched tracepoints of the
 * workload's tasks aggregated in the kernel (src/sys/bpf/sched-trace.bpf.c)
 * instead of streamed to user space as the perf tracer (trace.h) does.
 *
 * Per sample: user space puts the workload's tids into a map, attaches
 * three tp_btf programs (sched_waking, sched_switch, sched_migrate_task),
 * and at the end detaches them and reads per-CPU histograms (the buckets of
 * stats/hist.h) and counters into a struct trace_analysis, the perf
 * tracer's result type, so that both tracers set the same metrics from the
 * same code (probes.c). Nothing is streamed and nothing can be lost except
 * program runs the kernel skipped for recursion (counted as lost records).
 *
 * It needs a kernel with BTF (/sys/kernel/btf/vmlinux), root or CAP_BPF
 * with CAP_PERFMON, and a wakebench built with the BPF object (clang's BPF
 * target and bpftool at build time).
 */
#ifndef WAKEBENCH_TRACE_BPF_H
#define WAKEBENCH_TRACE_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sys/trace.h"

struct bpf_tracer;

/*
 * Load the programs and maps (the verifier runs here, so a tracer that is
 * returned can attach). NULL with the exact reason in why: not built in,
 * no BTF, not permitted (and lockdown if it is on), or the load error.
 */
struct bpf_tracer *bpf_tracer_new(char *why, size_t len);
/* Reset the maps, fill the task map with these tids, attach. -1 on error (reported). */
int bpf_tracer_start(struct bpf_tracer *t, const pid_t *tids, size_t n);
/* Detach and read the sample's histograms and counts into *out (valid until the next start). */
void bpf_tracer_stop(struct bpf_tracer *t, const struct trace_analysis **out);
void bpf_tracer_free(struct bpf_tracer *t);

/* Was this wakebench built with the BPF object? */
bool bpf_tracer_built(void);

#endif
