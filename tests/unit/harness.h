/*
 * harness.h: what the cmocka test files share beyond cmocka itself.
 *
 * wb_skip(): a skip with its reason. cmocka 1.1 prints a skip as
 * "not ok N # SKIP name", which prove counts as a failure, and carries no
 * reason; the reason goes out as "# SKIP reason: ..." just before, and
 * tests/unit/tap-exec.sh (prove's --exec in make check) turns the pair
 * into the TAP line "ok N # SKIP name: reason".
 *
 * wb_kernel_mounts(): a test that needs the kernel's debugfs or tracefs
 * prepares them itself, as wakebench does, in a private mount namespace
 * (root only; the host's mounts are never touched), so that no test
 * depends on what the host or an earlier run mounted. Call it first in
 * main(), before any thread exists.
 *
 * assert_close(): cmocka 1.1's assert_float_equal compares floats (and casts
 * its unparenthesised arguments): this compares doubles, naming the line.
 */
#ifndef WAKEBENCH_TEST_HARNESS_H
#define WAKEBENCH_TEST_HARNESS_H

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sys/mounts.h"

#define wb_skip(...)                                                                               \
	do {                                                                                       \
		printf("# SKIP reason: ");                                                         \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		skip();                                                                            \
	} while (0)

#define assert_close(a, b, tol) wb_check_close((a), (b), (tol), #a, __FILE__, __LINE__)

static inline void wb_check_close(double got, double want, double tol, const char *expr,
				  const char *file, int line)
{
	if (fabs(got - want) <= tol || (got == want))
		return;
	print_error("%s = %.17g, expected %.17g (tolerance %g)\n", expr, got, want, tol);
	_fail(file, line);
}

/* Why debugfs and tracefs are not there for this test ("" when they are). */
static char wb_mounts_why[512];

static inline void wb_kernel_mounts(void)
{
	unsigned missing = mounts_missing(), done;

	if (!missing)
		return;
	if (geteuid() != 0) {
		snprintf(wb_mounts_why, sizeof(wb_mounts_why),
			 "debugfs/tracefs not mounted, and only root can mount them privately");
		return;
	}
	if (mounts_private(missing, &done, wb_mounts_why, sizeof(wb_mounts_why)))
		return;
	wb_mounts_why[0] = '\0';
}

/*
 * What user-mode emulation (qemu-user running the arm64 build on x86-64,
 * `make check-arm64`) does not provide, so that a test skips with the
 * reason instead of failing. Each returns 1 and fills why when missing.
 */
static inline int wb_no_perf_events(char *why, size_t len)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	if (errno != ENOSYS)
		return 0;
	snprintf(why, len,
		 "perf_event_open is not implemented here (ENOSYS: user-mode "
		 "emulation such as qemu-user, or a kernel without perf events)");
	return 1;
}

/* Does uname() name another machine than the kernel's own /proc/sys/kernel/arch? */
static inline int wb_user_emulation(char *why, size_t len)
{
	struct utsname u;
	char arch[64] = "";
	FILE *f = fopen("/proc/sys/kernel/arch", "r");

	if (!f)
		return 0;
	if (!fgets(arch, sizeof(arch), f))
		arch[0] = '\0';
	fclose(f);
	arch[strcspn(arch, "\n")] = '\0';
	if (uname(&u) || !arch[0] || !strcmp(arch, u.machine))
		return 0;
	snprintf(why, len, "user-mode emulation (%s binary on a %s kernel, qemu-user)", u.machine,
		 arch);
	return 1;
}

static inline int wb_no_subreaper(char *why, size_t len)
{
	int old = 0;

	if (prctl(PR_GET_CHILD_SUBREAPER, &old) == 0)
		return 0;
	snprintf(why, len,
		 "PR_GET/SET_CHILD_SUBREAPER unsupported here (%s: user-mode "
		 "emulation such as qemu-user), so killed workload tasks go to init",
		 strerror(errno));
	return 1;
}

#endif
