/*
 * t-procfs.c: the /proc counter parsers on fixture files read from a Linux
 * 6.18 machine (tests/fixtures/proc/), the reasons given for missing
 * counters, and a live read of this process.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/procfs.h"
#include "util/util.h"

static char *fixture(const char *name)
{
	const char *src = getenv("WAKEBENCH_SRC");
	char path[4096];
	char *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/fixtures/proc/%s", src ? src : ".", name);
	if (read_file(path, &text, &len) < 0)
		fail_msg("cannot read fixture '%s'", path);
	return text;
}

static void test_status(void **state)
{
	char *t = fixture("status-6.18.txt");
	uint64_t v = 99, nv = 99;

	(void)state;
	assert_int_equal(procfs_parse_status(t, &v, &nv), 0);
	assert_int_equal(v, 1);
	assert_int_equal(nv, 0);
	free(t);
	/* nonvoluntary_ must not be taken for voluntary_, whatever the order */
	assert_int_equal(procfs_parse_status("nonvoluntary_ctxt_switches:\t7\n"
					     "voluntary_ctxt_switches:\t12\n",
					     &v, &nv),
			 0);
	assert_int_equal(v, 12);
	assert_int_equal(nv, 7);
	assert_int_equal(procfs_parse_status("Name:\tx\nvoluntary_ctxt_switches:\t1\n", &v, &nv),
			 -1);
}

static void test_sched(void **state)
{
	char *t = fixture("sched-6.18.txt");
	char *u = fixture("sched-no-migrations.txt");
	uint64_t m = 99;

	(void)state;
	assert_int_equal(procfs_parse_sched(t, &m), 0);
	assert_int_equal(m, 0);
	assert_int_equal(procfs_parse_sched(u, &m), -1);
	assert_int_equal(procfs_parse_sched("se.nr_migrations_x : 3\n", &m), -1);
	assert_int_equal(procfs_parse_sched("se.nr_migrations                             :"
					    "                 4242\n",
					    &m),
			 0);
	assert_int_equal(m, 4242);
	free(t);
	free(u);
}

static void test_schedstat(void **state)
{
	char *t = fixture("schedstat-6.18.txt");
	uint64_t e, d, s;

	(void)state;
	assert_int_equal(procfs_parse_schedstat(t, &e, &d, &s), 0);
	assert_int_equal(e, 1099956);
	assert_int_equal(d, 4260882);
	assert_int_equal(s, 1);
	assert_int_equal(procfs_parse_schedstat("12 34\n", &e, &d, &s), -1);
	free(t);
}

static void test_why(void **state)
{
	char buf[128];

	(void)state;
	procfs_why(PROCFS_SCHEDSTAT, ENOENT, buf, sizeof(buf));
	assert_non_null(strstr(buf, "CONFIG_SCHED_INFO"));
	procfs_why(PROCFS_SCHED, ENOENT, buf, sizeof(buf));
	assert_non_null(strstr(buf, "CONFIG_SCHED_DEBUG"));
	procfs_why(PROCFS_SCHED, PROCFS_ENOFIELD, buf, sizeof(buf));
	assert_non_null(strstr(buf, "se.nr_migrations"));
	procfs_why(PROCFS_STATUS, EACCES, buf, sizeof(buf));
	assert_non_null(strstr(buf, "Permission denied"));
	procfs_why(PROCFS_STATUS, PROCFS_ENOTREAD, buf, sizeof(buf));
	assert_non_null(strstr(buf, "not read"));
	procfs_why(PROCFS_SCHEDSTAT, PROCFS_EZERO, buf, sizeof(buf));
	assert_non_null(strstr(buf, "0 0 0"));
}

static void test_live(void **state)
{
	struct procfs_task t;

	(void)state;
	procfs_task_init(&t);
	assert_int_equal(t.err[PROCFS_STATUS], PROCFS_ENOTREAD);
	usleep(1000); /* at least one voluntary switch */
	procfs_read_task(getpid(), 0, &t);
	assert_int_equal(t.err[PROCFS_STATUS], 0);
	assert_true(t.nvcsw >= 1);
	assert_int_equal(t.err[PROCFS_SCHEDSTAT], 0);
	assert_true(t.exec_ns > 0);
	procfs_read_task(getpid(), gettid(), &t);
	assert_int_equal(t.err[PROCFS_STATUS], 0);
	/* A task that does not exist: every file fails with ENOENT (or ESRCH). */
	procfs_read_task(0x7ffffff0, 0, &t);
	assert_true(t.err[PROCFS_STATUS] == ENOENT || t.err[PROCFS_STATUS] == ESRCH);
	assert_true(t.err[PROCFS_SCHED] != 0);
	assert_true(t.err[PROCFS_SCHEDSTAT] != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),	  cmocka_unit_test(test_sched),
		cmocka_unit_test(test_schedstat), cmocka_unit_test(test_why),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
