/*
 * t-suggest.c: "did you mean": the distance (case ignored, separators half
 * an edit, neighbours swapped one edit), the threshold that grows with the
 * length of what was typed, ties, and the hint's wording, on the mistakes
 * people make with wakebench's names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "util/suggest.h"
#include "util/util.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("run", "run"), 0);
	assert_int_equal(suggest_distance("delay_dequeue", "DELAY_DEQUEUE"), 0);
	assert_int_equal(suggest_distance("rnu", "run"), 2);	    /* swapped: one edit */
	assert_int_equal(suggest_distance("piep", "pipe"), 2);	    /* swapped at the end */
	assert_int_equal(suggest_distance("kernal", "kernel"), 2);  /* replaced */
	assert_int_equal(suggest_distance("sample", "samples"), 2); /* left out */
	assert_int_equal(suggest_distance("samecpu", "same-cpu"), 1);
	assert_int_equal(suggest_distance("stress-ng-015", "stress-ng-0.15"), 1);
	assert_int_equal(suggest_distance("same_cpu", "same-cpu"), 1);
	assert_int_equal(suggest_distance("", "ab"), 4);
	assert_int_equal(suggest_distance("ab", ""), 4);
	assert_int_equal(suggest_distance("abc", "xyz"), 6);
	/* symmetric */
	assert_int_equal(suggest_distance("stress-ng-0.15", "stress-ng-015"), 1);
	assert_int_equal(suggest_distance("run", "rnu"), 2);
}

static const char *hint(const char *typed, const char *const *names, const char *q)
{
	static char buf[256];

	return suggest_hint_list(typed, names, q, buf, sizeof(buf));
}

static void test_examples(void **state)
{
	static const char *const commands[] = { "run",	"ab",	  "compare", "env",    "features",
						"list", "show",	  "export",  "import", "report",
						"vm",	"bisect", NULL };
	static const char *const workloads[] = { "pipe", "pingpong", "messaging",
						 "ring", "schbench", NULL };
	static const char *const by[] = {
		"kernel", "label", "profile", "host", "feature:NAME", NULL
	};
	static const char *const profiles[] = { "stress-ng-0.15", "stress-ng-0.21", NULL };
	static const char *const placement[] = { "any", "same-cpu", "cross-cpu", "spread", NULL };
	static const char *const features[] = {
		"DELAY_DEQUEUE", "NO_DELAY_DEQUEUE", "DELAY_ZERO", "NO_DELAY_ZERO",
		"RUN_TO_PARITY", "NO_RUN_TO_PARITY", NULL
	};
	static const char *const options[] = { "instances",   "duration", "samples", "warmup",
					       "max-samples", "max-time", NULL };

	(void)state;
	assert_string_equal(hint("rnu", commands, ""), "; did you mean 'run'?");
	assert_string_equal(hint("piep", workloads, ""), "; did you mean 'pipe'?");
	assert_string_equal(hint("kernal", by, ""), "; did you mean 'kernel'?");
	assert_string_equal(hint("stress-ng-015", profiles, ""),
			    "; did you mean 'stress-ng-0.15'?");
	assert_string_equal(hint("samecpu", placement, ""), "; did you mean 'same-cpu'?");
	assert_string_equal(hint("delay_dequeue", features, ""), "; did you mean 'DELAY_DEQUEUE'?");
	assert_string_equal(hint("no_delay_dequeue", features, ""),
			    "; did you mean 'NO_DELAY_DEQUEUE'?");
	assert_string_equal(hint("sample", options, "--"), "; did you mean '--samples'?");
	/* the beginning of a name is one edit; two as close are both offered */
	assert_string_equal(hint("warm", options, "--"), "; did you mean '--warmup'?");
	assert_string_equal(hint("max", options, "--"),
			    "; did you mean '--max-samples' or '--max-time'?");
	/* case alone */
	assert_string_equal(hint("RUN", commands, ""), "; did you mean 'run'?");
}

static void test_too_far(void **state)
{
	static const char *const commands[] = { "run",	"ab",	"compare", "env",
						"list", "show", "vm",	   NULL };
	static const char *const three[] = { "abc", "abd", "abe", NULL };
	static const char *const none[] = { NULL };
	char buf[64];
	struct suggest s;

	(void)state;
	/* nothing close: no hint at all */
	assert_string_equal(hint("frobnicate", commands, ""), "");
	assert_string_equal(hint("x", commands, ""), "");
	/* two edits in a short name are too many */
	assert_string_equal(hint("rxx", commands, ""), "");
	assert_string_equal(hint("kurnal", (const char *const[]){ "kernel", NULL }, ""), "");
	/* ... and allowed in a long one */
	assert_string_equal(
		hint("stress-ng-0.2x", (const char *const[]){ "stress-ng-0.21", NULL }, ""),
		"; did you mean 'stress-ng-0.21'?");
	/* more than two as close: nothing to choose between */
	assert_string_equal(hint("abx", three, ""), "");
	assert_string_equal(hint("abx", none, ""), "");
	/* a name offered twice counts once */
	suggest_init(&s, "rnu");
	suggest_add(&s, "run");
	suggest_add(&s, "run");
	assert_string_equal(suggest_hint(&s, "", buf, sizeof(buf)), "; did you mean 'run'?");
	/* names too long to be a name are not compared */
	{
		char longname[SUGGEST_NAME_MAX + 8];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		suggest_init(&s, longname);
		suggest_add(&s, longname);
		assert_string_equal(suggest_hint(&s, "", buf, sizeof(buf)), "");
	}
	/* a hint that does not fit is cut, never overrun */
	suggest_init(&s, "rnu");
	suggest_add(&s, "run");
	assert_int_equal(strlen(suggest_hint(&s, "", buf, 8)), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_too_far),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
