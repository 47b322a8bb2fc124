/*
 * perf.c: the thin perf_event_open(2) layer of perf.h. Counting kernel-side
 * events is what decides permission: with perf_event_paranoid >= 2 an
 * unprivileged user may only count user space, where context switches and
 * migrations never happen, so such a counter would read a misleading 0.
 * perf_sw_open() therefore asks for kernel counting and lets the kernel
 * refuse; the caller reports the refusal as "unavailable", never a zero.
 */
#include "sys/perf.h"
#include "util/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#define CAP_SYS_ADMIN_BIT 21

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -1 : (int)fd;
}

int perf_sw_open(uint64_t config, pid_t tid)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.inherit = 1;
	attr.exclude_kernel = 0;
	attr.exclude_hv = 1;
	return perf_open(&attr, tid, -1, -1, 0);
}

int perf_count_read(int fd, uint64_t *value)
{
	ssize_t n = read_full(fd, value, sizeof(*value));

	if (n != (ssize_t)sizeof(*value)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

int perf_paranoid(void)
{
	char line[32];
	long v;
	char *end;

	if (read_line_file("/proc/sys/kernel/perf_event_paranoid", line, sizeof(line)))
		return INT_MIN;
	v = strtol(line, &end, 10);
	if (end == line)
		return INT_MIN;
	return (int)v;
}

static uint64_t cap_effective(void)
{
	char *buf = NULL, *p;
	uint64_t caps = 0;

	if (read_file("/proc/self/status", &buf, NULL))
		return 0;
	p = strstr(buf, "\nCapEff:");
	if (p)
		caps = strtoull(p + 8, NULL, 16);
	free(buf);
	return caps;
}

bool perf_privileged(void)
{
	uint64_t caps;

	if (geteuid() == 0)
		return true;
	caps = cap_effective();
	return (caps >> CAP_PERFMON & 1) || (caps >> CAP_SYS_ADMIN_BIT & 1);
}

void perf_denied_reason(int err, char *buf, size_t len)
{
	int paranoid;

	switch (err) {
	case EACCES:
	case EPERM:
		paranoid = perf_paranoid();
		if (paranoid == INT_MIN)
			snprintf(buf, len, "perf events not permitted: %s", strerror(err));
		else
			snprintf(buf, len, "perf_event_paranoid=%d", paranoid);
		return;
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case ENOSYS:
		snprintf(buf, len, "perf events not supported: %s", strerror(err));
		return;
	default:
		snprintf(buf, len, "perf_event_open: %s", strerror(err));
		return;
	}
}
