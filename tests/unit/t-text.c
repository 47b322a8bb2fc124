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
	check("line\nbreak", 0, "line\\nbreak");
	check("tab\there", 0, "tab\\there");
	check("cr\rover", TEXT_MULTILINE, "cr\\rover");
	check("bs\b vt\v", 0, "bs\\x08 vt\\x0b");
	/* an escape is left as it is by a second one */
	check("a\\x1b[2Jb\\n", 0, "a\\x1b[2Jb\\n");
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

static void test_buf(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(text_printable_buf("ok\033x", 0, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "ok\\x1bx");
	/* cut short, never inside a UTF-8 sequence */
	assert_int_equal(text_printable_buf("abcdef\xc3\xa9", 0, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "abcdef");
	assert_int_equal(text_printable_buf("a\033[31mlong", 0, buf, 4), 3);
	assert_string_equal(buf, "a\\x");
}

static void check_sh(const char *const *words, size_t n, const char *want)
{
	char *got = sh_command(words, n);

	assert_string_equal(got, want);
	free(got);
}

static void test_sh_command(void **state)
{
	const char *plain[] = { "wakebench", "run", "pipe", "-t", "20s", "--cpus=0-3,5" };
	const char *quoted[] = { "a b", "it's", "", "$(id)`id`\"x\"<&>;|*?~\\" };
	const char *ctl[] = { "--label", "L\033]0;x\007\nforged pass!" };
	const char *fmt[] = { "50%\\n\t'", "-x\001", "caf\xc3\xa9" };
	const char *tail[] = { "run", "a\n", "b", "c\n\n" };

	(void)state;
	check_sh(plain, ARRAY_SIZE(plain), "wakebench run pipe -t 20s --cpus=0-3,5");
	check_sh(quoted, ARRAY_SIZE(quoted), "'a b' 'it'\\''s' '' '$(id)`id`\"x\"<&>;|*?~\\'");
	/* '!' too: an interactive bash would expand it inside the double quotes */
	check_sh(ctl, ARRAY_SIZE(ctl),
		 "--label \"$(printf 'L\\033]0;x\\007\\012forged pass\\041')\"");
	/* printf's own specials doubled, a leading '-' not an option, non-ASCII bytes octal */
	check_sh(fmt, ARRAY_SIZE(fmt),
		 "\"$(printf '50%%\\\\n\\011'\\''')\" \"$(printf '\\055x\\001')\" "
		 "\"$(printf 'caf\\303\\251')\"");
	/* a trailing newline, which $(...) drops, through a variable */
	check_sh(tail, ARRAY_SIZE(tail),
		 "wb_arg1=$(printf 'a\\012_'); wb_arg2=$(printf 'c\\012\\012_'); "
		 "run \"${wb_arg1%_}\" b \"${wb_arg2%_}\"");
	check_sh(NULL, 0, "");
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
		cmocka_unit_test(test_vector_change), cmocka_unit_test(test_buf),
		cmocka_unit_test(test_sh_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
