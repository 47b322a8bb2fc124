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
 */
#ifndef WAKEBENCH_TEST_HARNESS_H
#define WAKEBENCH_TEST_HARNESS_H

#include <stdio.h>
#include <unistd.h>

#include "sys/mounts.h"

#define wb_skip(...)                                 \
	do {                                         \
		printf("# SKIP reason: ");           \
		printf(__VA_ARGS__);                 \
		printf("\n");                        \
		skip();                              \
	} while (0)

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

#endif
