/*
 * trace.h: scheduler tracepoints through perf_event_open(2) (--trace).
 *
 * Layouts are never hard-coded: each event's fields and offsets come from
 * its tracefs `format` file (tp_format_parse), including `__data_loc`
 * strings whose position is stored in the record (sched_migrate_task's comm
 * on recent kernels). Only perf_event_open is used: nothing is written to
 * tracefs, so no tracing state of the machine changes.
 *
 * The tracer opens sched_waking, sched_switch and sched_migrate_task on
 * every online CPU, system-wide, with raw samples in one mmap ring buffer
 * per CPU, because sched_switch fires in the context of the task being
 * switched OUT: a per-task event would miss the switch-in of a workload
 * task that follows idle or another task, which is exactly where the
 * wakeup-to-run latency ends. Records are narrowed to the workload's tasks
 * by a kernel-side filter (a perf ioctl, not tracefs) where the kernel
 * accepts it and always in user space. A reader thread drains the buffers,
 * merges the CPUs' streams in time order and analyses them on the fly, so
 * memory stays bounded for long samples; lost records are counted.
 */
#ifndef WAKEBENCH_TRACE_H
#define WAKEBENCH_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/hist.h"

/* ---- tracefs format files ---- */

#define TP_FIELDS_MAX 32

struct tp_field {
	char name[48];
	char type[64]; /* as declared: "pid_t", "char[16]", "__data_loc char[]" */
	unsigned offset, size;
	bool is_signed;
	bool data_loc; /* a u32: offset of the data in the low 16 bits, length in the high */
};

struct tp_format {
	char name[64];
	unsigned id;
	size_t nfields;
	struct tp_field fields[TP_FIELDS_MAX];
	/* OR of the values listed by __print_flags() in the print fmt (0 if none) */
	uint64_t print_flags_mask;
};

/* Parse a format file's text. -1 with a reason in why. */
int tp_format_parse(const char *text, struct tp_format *f, char *why, size_t len);
const struct tp_field *tp_field_find(const struct tp_format *f, const char *name);
/* An integer field (1, 2, 4 or 8 bytes, sign-extended when signed). -1 if out of the record. */
int tp_field_int(const struct tp_field *fd, const void *raw, size_t rawlen, int64_t *out);
/* A string field, fixed char[N] or __data_loc. -1 if out of the record. */
int tp_field_str(const struct tp_field *fd, const void *raw, size_t rawlen, char *buf, size_t len);

/*
 * The tracefs directory: /sys/kernel/tracing, else <debugfs>/tracing.
 * -1 with what is missing in why (not mounted: the mount command; not
 * permitted: root or CAP_PERFMON).
 */
int trace_find_tracefs(const char *debugfs, char *dir, size_t len, char *why, size_t wlen);
/* <tracefs>/events/<sys>/<ev>/format and its id file (which must agree). */
int trace_event_load(const char *tracefs, const char *sys, const char *ev, struct tp_format *f,
		     char *why, size_t len);

/* ---- decoding and analysis ---- */

/* TEV_LOST: the kernel lost records of that CPU around time_ns (arg: how many) */
enum tev_kind { TEV_WAKING, TEV_SWITCH, TEV_MIGRATE, TEV_LOST };

/* One decoded record: the fields the analysis needs. */
struct tev {
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	int32_t cpu;	  /* where the record was written */
	int32_t kind;	  /* enum tev_kind */
	int32_t pid;	  /* waking/migrate: the task; switch: prev_pid */
	int32_t pid2;	  /* switch: next_pid; migrate: dest_cpu */
	int64_t arg;	  /* waking: target_cpu (the task's previous CPU); switch: prev_state */
};

/* Field offsets of the three events, from their formats. */
struct trace_decoder {
	struct tp_format fmt[3]; /* by enum tev_kind */
	const struct tp_field *waking_pid, *waking_cpu;
	const struct tp_field *switch_prev_pid, *switch_next_pid, *switch_prev_state;
	const struct tp_field *migrate_pid, *migrate_dest;
	uint64_t blocking_mask; /* prev_state bits that mean "blocked" (S, D, ...) */
};

extern const char *const trace_event_names[3];

int trace_decoder_init(struct trace_decoder *d, const char *tracefs, char *why, size_t len);
/* Decode a raw tracepoint record; -1 when it is none of the three or truncated. */
int trace_decode(const struct trace_decoder *d, const void *raw, size_t rawlen, struct tev *ev);

struct trace_task {
	pid_t tid;
	bool on_cpu;
	bool wake_pending;
	bool runnable; /* switched out still runnable: waiting on a run queue */
	int32_t wake_prev_cpu;
	uint64_t wake_ns;
	uint64_t runnable_ns;
};

#define TRACE_MAX_CPUS 1024

/* What the analysis accumulates over a sample. */
struct trace_analysis {
	struct trace_task *tasks; /* sorted by tid */
	size_t ntasks;
	struct hist *lat[TRACE_MAX_CPUS]; /* wakeup-to-run latency by the CPU it ran on */
	/* run-queue wait (from a wakeup or a preemption to the switch-in), by CPU */
	struct hist *runq[TRACE_MAX_CPUS];
	uint64_t wakings, wakeups_run, wake_prev_cpu;
	uint64_t switches_out, preempted, migrations;
	uint64_t records, lost; /* read from the buffers / reported lost by the kernel */
	uint64_t blocking_mask;
};

void trace_analysis_init(struct trace_analysis *a, const pid_t *tids, size_t n,
			 uint64_t blocking_mask);
/* Feed events in time order (across CPUs). */
void trace_analysis_event(struct trace_analysis *a, const struct tev *ev);
/* Merge the per-CPU latency histograms into out. */
void trace_analysis_latency(const struct trace_analysis *a, struct hist *out);
/* The same for the run-queue wait. */
void trace_analysis_runq(const struct trace_analysis *a, struct hist *out);
void trace_analysis_release(struct trace_analysis *a);

/* ---- the tracer ---- */

struct tracer;

/*
 * Check that tracing can work here (tracefs found, formats parsed, a
 * system-wide sched_switch event can be opened) and prepare a tracer.
 * NULL with what is missing in why.
 */
struct tracer *tracer_new(const char *debugfs, char *why, size_t len);
/* Open the events for these tasks, map the buffers, start the reader. */
int tracer_start(struct tracer *t, const pid_t *tids, size_t n);
/*
 * Stop and join the reader, drain what is left, close every fd and unmap.
 * The analysis is then in *out (valid until the next start or free).
 */
void tracer_stop(struct tracer *t, const struct trace_analysis **out);
void tracer_free(struct tracer *t);

#endif
