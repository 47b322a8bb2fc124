/*
 * t-text.c: stored text made safe to print (util/text.h): plain text and
 * valid UTF-8 pass unchanged; C0 controls, DEL, C1 controls (as UTF-8 and
 * as raw bytes), invalid UTF-8 and bidirectional controls become visible
 * escapes, so that an escape sequence prints and does nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/env.h"
#include "util/text.h"
#include "util/util.h"

static void check(const char *in, unsigned flags, const char *want)
{
	char *got = text_printable(in, flags);

	assert_string_equal(got, want);
	assert_int_equal(text_is_printable(in, flags), !strcmp(in ? in : "", want));
	free(got);
}

static void test_unchanged(void **state)
{
	(void)state;
	check("6.1.0-57-amd64", 0, "6.1.0-57-amd64");
	check("", 0, "");
	check(NULL, 0, "");
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", 0,
	      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");
	check("two\nlines\tand a tab", TEXT_MULTILINE, "two\nlines\tand a tab");
}

static void test_controls(void **state)
{
	(void)state;
	check("a\033]0;pwned\007b", 0, "a\\x1b]0;pwned\\x07b");
	check("red \033[31mtext\033[0m", 0, "red \\x1b[31mtext\\x1b[0m");
	check("line\nbreak", 0, "line\\x0abreak");
	check("tab\there", 0, "tab\\x09here");
	check("cr\rover", TEXT_MULTILINE, "cr\\x0dover");
	check("del\x7f", 0, "del\\x7f");
	/* C1 CSI as UTF-8 (U+009B) and as a raw byte */
	check("x\xc2\x9b"
	      "31m",
	      0, "x\\u009b31m");
	check("x\x9b"
	      "31m",
	      0, "x\\x9b31m");
	/* invalid UTF-8: a lone lead byte, an overlong '/', a surrogate */
	check("\xc3(", 0, "\\xc3(");
	check("\xc0\xaf", 0, "\\xc0\\xaf");
	check("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");
	/* bidirectional override and line separator */
	check("abc\xe2\x80\xae"
	      "def",
	      0, "abc\\u202edef");
	check("a\xe2\x80\xa8"
	      "b",
	      0, "a\\u2028b");
}

static void test_fput(void **state)
{
	char buf[64] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	text_fput(f, "ok\033[2Jgone", 0);
	fclose(f);
	assert_string_equal(buf, "ok\\x1b[2Jgone");
}

static void test_fold(void **state)
{
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	/* from column 4, at most 16 wide, continuation lines indented by 4 */
	text_fold(f, "alpha beta gamma delta \033x averyveryverylongword end", 4, 4, 16);
	fclose(f);
	assert_string_equal(
		buf, "alpha beta\n    gamma delta\n    \\x1bx\n    averyveryverylongword\n    end");
}

static void test_vector_change(void **state)
{
	char buf[512];

	(void)state;
	assert_true(env_is_vector("PLACE_LAG NO_HRTICK DELAY_DEQUEUE"));
	assert_false(env_is_vector("1400000"));
	assert_false(env_is_vector("unreadable: kernel lockdown (EPERM)"));
	assert_int_equal(env_vector_state("PLACE_LAG NO_HRTICK", "HRTICK"), 0);
	assert_int_equal(env_vector_state("PLACE_LAG NO_HRTICK", "PLACE_LAG"), 1);
	assert_int_equal(env_vector_state("PLACE_LAG NO_HRTICK", "LAG"), -1);
	assert_int_equal(env_vector_state("NO_PLACE_LAG", "PLACE"), -1);
	assert_true(env_vector_change("A NO_B C D", "NO_A NO_B D E F", buf, sizeof(buf)));
	assert_string_equal(buf, "A on -> off; added E F; removed C");
	assert_true(env_vector_change("A B", "A B", buf, sizeof(buf)));
	assert_string_equal(buf, "");
	assert_true(env_vector_change("unreadable: x", "A B C", buf, sizeof(buf)));
	assert_string_equal(buf, "unreadable: x -> 3 features");
	assert_false(env_vector_change("1400000", "750000", buf, sizeof(buf)));
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged),     cmocka_unit_test(test_controls),
		cmocka_unit_test(test_fput),	      cmocka_unit_test(test_fold),
		cmocka_unit_test(test_vector_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
