/*
 * sched-trace.h: what the BPF tracer (sched-trace.bpf.c) and user space
 * (trace-bpf.c) share: the map value layouts and the histogram index. It
 * is plain C with fixed-width types only, so that clang's BPF target (no
 * libc headers) and the host compiler read it alike.
 *
 * The histogram is stats/hist.h's log-linear layout, bucket for bucket
 * (trace-bpf.c checks the constants at compile time and t-trace-bpf checks
 * wb_hist_index() against hist_index()), so user space copies the kernel's
 * buckets into a struct hist and merges them with hist_merge().
 */
#ifndef WAKEBENCH_SCHED_TRACE_H
#define WAKEBENCH_SCHED_TRACE_H

#define WB_HIST_SUB_BITS 7
#define WB_HIST_MAX_BITS 40
#define WB_HIST_GROUPS	 (WB_HIST_MAX_BITS - WB_HIST_SUB_BITS + 1)
#define WB_HIST_BUCKETS	 (WB_HIST_GROUPS << WB_HIST_SUB_BITS)

/*
 * The two histograms of every CPU: the wakeup-to-run latency, and the wait
 * after a preemption. The run-queue wait is both merged (a wakeup's wait is
 * its latency), so each event records into one histogram only.
 */
enum wb_hist_kind { WB_HIST_WAKEUP = 0, WB_HIST_PREEMPT, WB_NHIST };

#define WB_MAX_TASKS 32768 /* entries of the tasks map (slots are 16 bits) */

/* One histogram, written by one CPU only (the one the task was switched in on). */
struct wb_hist {
	unsigned long long count, overflow;
	unsigned long long min, max; /* min: ~0 while empty (user space resets it so) */
	unsigned long long sum;	     /* ns; wraps only after 584 years of waiting */
	unsigned long long buckets[WB_HIST_BUCKETS];
};

/* Counts of one CPU. */
struct wb_counts {
	unsigned long long events; /* tracepoint hits of workload tasks */
	unsigned long long wakings;
	unsigned long long wakeups_run;
	unsigned long long wake_prev_cpu;
	unsigned long long switches_out;
	unsigned long long preempted;
	unsigned long long migrations;
};

/*
 * What one CPU records (entry cpu of the cpus array): written by that CPU
 * only, the counts next to the latency histogram's header, so that one
 * lookup and few cache lines serve an event.
 */
struct wb_cpu {
	struct wb_counts c;
	struct wb_hist hist[WB_NHIST];
};

/*
 * The tracked state of one workload task: entry slots[tid] (1..) of the
 * tasks array. User space zeroes the entries and fills slots before a
 * sample; the programs only look them up, so no program allocates.
 */
struct wb_task {
	unsigned long long wake_ns;	/* sched_waking time of a pending wakeup */
	unsigned long long runnable_ns; /* switched out still runnable (preempted) at */
	int wake_prev_cpu;		/* the CPU it last ran on, at the waking */
	unsigned char on_cpu, wake_pending, runnable;
	unsigned char pad;
};

static inline unsigned wb_msb64(unsigned long long v)
{
	unsigned r = 0;

	/* no clz instruction in BPF: a binary search (v != 0) */
	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* hist_index() of stats/hist.c; the caller keeps v below 2^WB_HIST_MAX_BITS. */
static inline unsigned wb_hist_index(unsigned long long v)
{
	unsigned msb, group;

	if (v < (1u << WB_HIST_SUB_BITS))
		return (unsigned)v;
	msb = wb_msb64(v);
	group = msb - WB_HIST_SUB_BITS + 1;
	return (group << WB_HIST_SUB_BITS) +
	       (unsigned)((v >> (msb - WB_HIST_SUB_BITS)) & ((1u << WB_HIST_SUB_BITS) - 1));
}

#endif
