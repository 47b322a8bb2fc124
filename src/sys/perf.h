/*
 * perf.h: perf_event_open(2) for wakebench: per-task software counters
 * (context switches, CPU migrations) and the privilege facts that decide
 * whether kernel-side events can be counted at all (perf_event_paranoid,
 * euid, CAP_PERFMON / CAP_SYS_ADMIN). The tracepoint reader (trace.c) opens
 * its events through perf_open() too.
 */
#ifndef WAKEBENCH_PERF_H
#define WAKEBENCH_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

/* perf_event_open(2); returns an fd or -1 with errno set. */
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags);

/*
 * A software counter (PERF_COUNT_SW_*) of task tid, kernel and user side
 * counted (exclude_kernel = 0, so an unprivileged caller under
 * perf_event_paranoid >= 2 gets EACCES instead of a counter that stays 0),
 * inherited by children the task creates later, enabled at once.
 * Returns the fd or -1 with errno set.
 */
int perf_sw_open(uint64_t config, pid_t tid);

/* Read a counting event's value; -1 with errno on failure. */
int perf_count_read(int fd, uint64_t *value);

/* /proc/sys/kernel/perf_event_paranoid, or INT_MIN when unreadable. */
int perf_paranoid(void);

/* Root, or CAP_PERFMON or CAP_SYS_ADMIN in the effective set. */
bool perf_privileged(void);

/*
 * Why an open failed with errno err, for an "unavailable (...)" metric:
 * "perf_event_paranoid=2" for EACCES/EPERM, "perf events not supported"
 * for ENOENT/ENODEV/EOPNOTSUPP/ENOSYS, otherwise strerror.
 */
void perf_denied_reason(int err, char *buf, size_t len);

#endif
