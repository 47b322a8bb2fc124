/*
 * skip-only.c: a cmocka file whose tests only skip (or, with
 * WB_SKIP_ONLY_FAIL=1, one fails; with WB_SKIP_ONLY_FAIL=exit, one ends the
 * binary as a sanitizer report does), run by tests/e2e/t0003-tap-skips.sh
 * through prove and tests/unit/tap-exec.sh: a file that only skips must
 * leave make check green, a failure must still fail it, and what the failing
 * assertion said must reach prove's output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>
#include <string.h>

#include "harness.h"

static void test_skips_with_a_reason(void **state)
{
	(void)state;
	wb_skip("the reason this test cannot run here");
}

static void test_skips_or_fails(void **state)
{
	const char *fail = getenv("WB_SKIP_ONLY_FAIL");

	(void)state;
	if (fail && !strcmp(fail, "exit")) {
		printf("# about to exit\n");
		fflush(stdout);
		_exit(3);
	}
	if (fail && *fail == '1')
		assert_close(0.25, 0.5, 0.01);
	wb_skip("a second reason");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skips_with_a_reason),
		cmocka_unit_test(test_skips_or_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
