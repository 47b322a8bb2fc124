/*
 * t-sched-debug.c: the sched/debug parser on a real 6.18 dump (h_nr_queued
 * and h_nr_runnable), a synthesised 6.13-style dump (h_nr_delayed), edited
 * texts with delayed entities in root and group run queues (only the root
 * counts), and a kernel that prints neither field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sys/sched_debug.h"
#include "util/util.h"

static char *fixture(const char *name)
{
	const char *src = getenv("WAKEBENCH_SRC");
	char path[4096];
	char *text = NULL;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".", name);
	if (read_file(path, &text, NULL))
		fail_msg("cannot read fixture '%s'", path);
	return text;
}

/* Replace the first occurrence of `from` after `anchor` by `to` (same length or not). */
static char *edit_after(const char *text, const char *anchor, const char *from, const char *to)
{
	const char *a = strstr(text, anchor), *f;
	size_t n = strlen(text) + strlen(to) + 1;
	char *out = malloc(n);

	assert_non_null(a);
	f = strstr(a, from);
	assert_non_null(f);
	snprintf(out, n, "%.*s%s%s", (int)(f - text), text, to, f + strlen(from));
	return out;
}

static void test_618_fixture(void **state)
{
	char *text = fixture("sched-debug-6.18.txt");
	struct sched_debug_delayed *d = malloc(sizeof(*d));
	char why[160];

	(void)state;
	assert_int_equal(sched_debug_parse(text, d, why, sizeof(why)), 0);
	assert_int_equal(d->source, SD_QUEUED_MINUS_RUNNABLE);
	assert_int_equal(d->ncpus, 2);
	assert_int_equal(d->max_cpu, 1);
	/* cfs_rq[1]:/ has h_nr_queued 1 and h_nr_runnable 1: nothing delayed */
	assert_int_equal(d->total, 0);
	free(d);
	free(text);
}

static void test_618_edited_delayed(void **state)
{
	char *text = fixture("sched-debug-6.18.txt");
	char *t1, *t2, *t3;
	struct sched_debug_delayed *d = malloc(sizeof(*d));
	char why[160];

	(void)state;
	/* root of CPU 0: 3 queued, 1 runnable -> 2 delayed */
	t1 = edit_after(text, "cfs_rq[0]:/\n", ".h_nr_queued                   : 0",
			".h_nr_queued                   : 3");
	t2 = edit_after(t1, "cfs_rq[0]:/\n", ".h_nr_runnable                 : 0",
			".h_nr_runnable                 : 1");
	/* a group run queue with delayed entities must not be added again */
	t3 = edit_after(t2, "cfs_rq[1]:/autogroup-4", ".h_nr_queued                   : 1",
			".h_nr_queued                   : 7");
	assert_int_equal(sched_debug_parse(t3, d, why, sizeof(why)), 0);
	assert_int_equal(d->per_cpu[0], 2);
	assert_int_equal(d->per_cpu[1], 0);
	assert_int_equal(d->total, 2);
	free(t1);
	free(t2);
	free(t3);
	free(text);
	free(d);
}

static void test_613_synthesised(void **state)
{
	char *text = fixture("sched-debug-6.13-synth.txt");
	struct sched_debug_delayed *d = malloc(sizeof(*d));
	char why[160];

	(void)state;
	assert_int_equal(sched_debug_parse(text, d, why, sizeof(why)), 0);
	assert_int_equal(d->source, SD_H_NR_DELAYED);
	assert_int_equal(d->ncpus, 2);
	assert_int_equal(d->per_cpu[0], 2);
	assert_int_equal(d->per_cpu[1], 1);
	assert_int_equal(d->total, 3); /* the autogroup sections' 1s are not counted */
	free(text);
	free(d);
}

static void test_neither_field(void **state)
{
	static const char old[] = "Sched Debug Version: v0.11, 6.6.0 #1\n"
				  "cfs_rq[0]:/\n"
				  "  .nr_running                    : 2\n"
				  "  .h_nr_running                  : 2\n"
				  "  .h_nr_runnable_extra           : 9\n"
				  "\n"
				  "cfs_rq[1]:/\n"
				  "  .h_nr_running                  : 0\n";
	struct sched_debug_delayed *d = malloc(sizeof(*d));
	char why[160];

	(void)state;
	assert_int_equal(sched_debug_parse(old, d, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "neither h_nr_runnable nor h_nr_delayed"));
	assert_int_equal(sched_debug_parse("", d, why, sizeof(why)), -1);
	free(d);
}

/*
 * Without CONFIG_FAIR_GROUP_SCHED the kernel prints each CPU's only (root)
 * cfs_rq as "cfs_rq[N]:" with no task-group path.
 */
static void test_no_group_sched(void **state)
{
	static const char flat[] = "Sched Debug Version: v0.11, 6.18.0 #1\n"
				   "cfs_rq[0]:\n"
				   "  .h_nr_runnable                 : 1\n"
				   "  .h_nr_queued                   : 3\n"
				   "\n"
				   "rt_rq[0]:\n"
				   "  .rt_nr_running                 : 4\n"
				   "\n"
				   "cfs_rq[1]:\n"
				   "  .h_nr_runnable                 : 0\n"
				   "  .h_nr_queued                   : 1\n"
				   "\n";
	struct sched_debug_delayed *d = malloc(sizeof(*d));
	char why[160] = "";

	(void)state;
	if (sched_debug_parse(flat, d, why, sizeof(why)))
		fail_msg("flat sched/debug refused: %s", why);
	assert_int_equal(d->source, SD_QUEUED_MINUS_RUNNABLE);
	assert_int_equal(d->ncpus, 2);
	assert_int_equal(d->per_cpu[0], 2);
	assert_int_equal(d->per_cpu[1], 1);
	assert_int_equal(d->total, 3);
	free(d);
}

static void test_read_missing(void **state)
{
	struct sched_debug_delayed *d = malloc(sizeof(*d));
	char why[160];

	(void)state;
	assert_int_equal(sched_debug_read("/nonexistent/sched/debug", d, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot read '/nonexistent/sched/debug'"));
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_618_fixture),	cmocka_unit_test(test_618_edited_delayed),
		cmocka_unit_test(test_613_synthesised), cmocka_unit_test(test_neither_field),
		cmocka_unit_test(test_no_group_sched),	cmocka_unit_test(test_read_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
