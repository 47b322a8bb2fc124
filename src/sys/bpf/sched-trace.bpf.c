// SPDX-License-Identifier: GPL-2.0
/*
 * sched-trace.bpf.c: the in-kernel half of --trace=bpf (sys/trace-bpf.c).
 *
 * Three BTF tracepoint programs (tp_btf: the tracepoint's arguments are the
 * kernel's own typed pointers, read directly at CO-RE-relocated offsets, no
 * helper call) follow the workload's tasks only, those user space put in the
 * slots map, and aggregate in the kernel:
 * per CPU, a log-linear histogram of the wakeup-to-run latency and one of
 * the wait after a preemption (the run-queue wait is both together), and
 * the counts of wakings, timed wakeups, wakeups run
 * on the previous CPU, switches out, preemptions and migrations. Nothing is
 * streamed: user space reads and resets the maps between samples.
 *
 * The per-task logic is the perf tracer's (trace_analysis_event() in
 * sys/trace.c) so that the two agree:
 *   sched_waking of a task not on a CPU and with no pending wakeup starts
 *     a wakeup; its target CPU (task_cpu: where it last ran) is noted;
 *   sched_switch out of a task: a switch out; preempted when the kernel
 *     says so or the task is still TASK_RUNNING (no blocking state), and
 *     then it waits on the run queue from now;
 *   sched_switch into a task ends its pending wakeup (latency, previous
 *     CPU or not) or its wait after a preemption (run-queue wait).
 * The run-queue wait is the time from becoming runnable (a wakeup, or a
 * switch out while still runnable) to the next switch-in.
 */
#include "core.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sched-trace.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The filter: slots[tid] is the task's index into tasks (0: not followed).
 * Both are arrays, whose lookups the verifier inlines, so a context switch
 * of any task of the machine costs two bounds checks and two loads here, no
 * hash and no helper call. User space sizes slots to pid_max + 1.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u16);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WB_MAX_TASKS + 1);
	__type(key, __u32);
	__type(value, struct wb_task);
} tasks SEC(".maps");

static __always_inline struct wb_task *task_of(__u32 tid)
{
	__u16 *slot = bpf_map_lookup_elem(&slots, &tid);
	__u32 k;

	if (!slot || !*slot)
		return 0;
	k = *slot;
	return bpf_map_lookup_elem(&tasks, &k);
}

/* one entry per possible CPU: user space sets max_entries before loading */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wb_cpu);
} cpus SEC(".maps");

static __always_inline struct wb_cpu *this_cpu(__u32 cpu)
{
	return bpf_map_lookup_elem(&cpus, &cpu);
}

static __always_inline void hist_add(struct wb_hist *h, __u64 v)
{
	__u32 idx;

	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (v >> WB_HIST_MAX_BITS) {
		h->overflow++;
		return;
	}
	idx = wb_hist_index(v);
	if (idx < WB_HIST_BUCKETS)
		h->buckets[idx]++;
}

static __always_inline int task_cpu_of(struct task_struct *p)
{
	if (bpf_core_field_exists(p->cpu))
		return (int)p->cpu;
	return (int)p->thread_info.cpu;
}

/* A switched-out task with no blocking state bit is still runnable. */
static __always_inline bool still_running(struct task_struct *p)
{
	struct task_struct___pre514 *old = (void *)p;

	if (bpf_core_field_exists(p->__state))
		return p->__state == 0;
	return old->state == 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(wb_waking, struct task_struct *p)
{
	struct wb_task *t = task_of((__u32)p->pid);
	struct wb_cpu *c;

	if (!t)
		return 0;
	c = this_cpu(bpf_get_smp_processor_id());
	if (c) {
		c->c.events++;
		c->c.wakings++;
	}
	/* a wakeup of a task still on its CPU ends no wait: nothing to time */
	if (t->on_cpu || t->wake_pending)
		return 0;
	t->wake_pending = 1;
	t->wake_ns = bpf_ktime_get_ns();
	t->wake_prev_cpu = task_cpu_of(p);
	t->runnable = 0; /* the wakeup's wait is timed from the waking */
	return 0;
}

/*
 * The clock is read only where a time is kept: a preempted task starts
 * waiting, a task with a pending wakeup or wait ends it. A task that blocks,
 * and a switch to or from a task not followed (idle, mostly), read none: the
 * clock is most of what an event costs (doc/evidence.md).
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(wb_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct wb_task *t = task_of((__u32)prev->pid), *n;
	__u32 cpu = bpf_get_smp_processor_id();
	struct wb_cpu *c = 0;
	bool timed = false;
	__u64 now = 0;

	/* neither task followed is the common case: two array loads and out */
	if (t) {
		c = this_cpu(cpu);
		if (!c)
			return 0;
		c->c.events++;
		c->c.switches_out++;
		t->on_cpu = 0;
		t->wake_pending = 0;
		t->runnable = 0;
		if (preempt || still_running(prev)) {
			now = bpf_ktime_get_ns();
			timed = true;
			c->c.preempted++;
			t->runnable = 1;
			t->runnable_ns = now;
		}
	}
	n = task_of((__u32)next->pid);
	if (!n)
		return 0;
	if (!c) {
		c = this_cpu(cpu);
		if (!c)
			return 0;
		c->c.events++;
	}
	n->on_cpu = 1;
	/* a pending wakeup or wait ends here: the clock, unless read above */
	if ((n->wake_pending || n->runnable) && !timed)
		now = bpf_ktime_get_ns();
	if (n->wake_pending) {
		hist_add(&c->hist[WB_HIST_WAKEUP], now >= n->wake_ns ? now - n->wake_ns : 0);
		c->c.wakeups_run++;
		if ((int)cpu == n->wake_prev_cpu)
			c->c.wake_prev_cpu++;
	} else if (n->runnable) {
		hist_add(&c->hist[WB_HIST_PREEMPT],
			 now >= n->runnable_ns ? now - n->runnable_ns : 0);
	}
	n->wake_pending = 0;
	n->runnable = 0;
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(wb_migrate, struct task_struct *p, int dest_cpu)
{
	struct wb_cpu *c;

	if (!task_of((__u32)p->pid))
		return 0;
	c = this_cpu(bpf_get_smp_processor_id());
	if (c) {
		c->c.events++;
		c->c.migrations++;
	}
	return 0;
}
