/*
 * instance.h: the runner as a workload sees it, inside an instance.
 *
 * wl->instance() runs in the instance process, which is task 0. It creates
 * tasks 1..instance_ntasks()-1, either as processes (instance_fork(), which
 * numbers them in creation order from 1, whichever task of the instance
 * calls it) or as threads (each calls instance_thread_register() with its
 * own number first); one workload does not mix the two for the same
 * numbers. The runner places every task as it is created (its group and
 * role from wl->layout()), collects its /proc scheduler counters when it
 * ends, and holds it in instance_ready() until every task of every
 * instance is ready, then releases them all at once.
 *
 * The stop: instance_running() turns false at the end of the window (timed
 * workloads), at the -t limit (fixed work) or on a stop signal to
 * wakebench. At that moment the runner also sends SIGALRM to every task,
 * and again every 10 ms until the instance has returned. The handler is
 * installed without SA_RESTART, so a blocked read(), write(), poll() or
 * futex wait returns EINTR, and a task that looked at the flag just before
 * blocking is woken by the next one. A workload needs no stop trick of its
 * own; it may keep a protocol-level end (pipe's "PS!" token). A thread that
 * blocks SIGALRM is not woken this way.
 *
 * Ctrl-C and the other stop signals are ignored in the tasks: the parent
 * takes them. A task that dies fails its sample with the reason naming the
 * task and its role.
 */
#ifndef WAKEBENCH_INSTANCE_H
#define WAKEBENCH_INSTANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

struct instance_ctx;

/*
 * Create the next task of this instance as a process. Returns 0 in the
 * child (now that task, placed), the pid in the caller, -1 after
 * instance_failed() (no more tasks than wl->tasks(), or fork failed). The
 * child dies with its parent (PR_SET_PDEATHSIG).
 */
pid_t instance_fork(struct instance_ctx *ic);
/*
 * Register the calling thread as task `task` (1..tasks-1), so that its
 * counters are collected and it gets the stop signal; applies its
 * placement. Call it from the thread itself before instance_ready().
 */
int instance_thread_register(struct instance_ctx *ic, unsigned task);
/* Collect the calling thread's counters: a registered thread calls it before it exits. */
void instance_thread_collect(struct instance_ctx *ic);

/* The calling task's number: 0 for the instance process, 1.. for the others. */
unsigned instance_task(const struct instance_ctx *ic);
/* Tasks of this instance: wl->tasks(params). */
unsigned instance_ntasks(const struct instance_ctx *ic);

/*
 * Tell the runner the calling task is ready and wait for the common start.
 * Every task calls it once. In task 0 it notes the instance's start time
 * (real_s is measured from there to the return of wl->instance()). 0, or
 * -1 after instance_failed().
 */
int instance_ready(struct instance_ctx *ic);
/*
 * True until the stop (see above). Cheap: one load from shared memory,
 * seen by every task of every instance, processes and threads alike.
 */
bool instance_running(const struct instance_ctx *ic);

/* The instance's op counter, alone in its cache line (one task counts). */
uint64_t *instance_ops(struct instance_ctx *ic);
/*
 * The calling task's own op counter, alone in its cache line (for
 * workloads where every task counts). The instance's ops are
 * *instance_ops() plus the sum of its tasks' counters.
 */
uint64_t *instance_task_ops(struct instance_ctx *ic);
/* Bytes written, for MB/s; optional. */
uint64_t *instance_bytes(struct instance_ctx *ic);
/* Duration of the writer loop alone, for MB/s; optional. */
void instance_set_loop_ns(struct instance_ctx *ic, uint64_t loop_ns);
/*
 * The workload's shared area of this instance: wl->shared_size() bytes,
 * zeroed before the tasks are created, page aligned, MAP_SHARED; read by
 * wl->put_metrics() in the parent after the sample. NULL when the size is 0.
 */
void *instance_shared(struct instance_ctx *ic);

/*
 * Collect a child task's counters from /proc after it exited (waitid
 * WNOWAIT), then reap it. Returns its wait status, or -1.
 */
int instance_reap_child(struct instance_ctx *ic, pid_t pid);
/* Record why this instance failed (the sample fails with this reason; the first one counts). */
void instance_failed(struct instance_ctx *ic, const char *fmt, ...) PRINTF_LIKE(2, 3);

#endif
