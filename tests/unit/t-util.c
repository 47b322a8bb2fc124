/*
 * t-util.c: the parsers people type into (durations, sizes, numbers, CPU
 * lists) and the option-table parser: every option type, range checks, the
 * one-line error naming option, value and allowed range, and "seen" bits;
 * output files that appear complete or not at all (struct outfile).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/digest.h"
#include "util/identity.h"
#include "util/json.h"
#include "util/number.h"
#include "util/opts.h"
#include "util/util.h"

static void test_parse_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_u64("18446744073709551616", &v), -1);
	assert_int_equal(errno, ERANGE); /* too large, not malformed */
	assert_int_equal(parse_u64("0x10", &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(parse_u64("010", &v), 0); /* decimal, leading zero and all */
	assert_int_equal(v, 10);
	assert_int_equal(parse_u64("-1", &v), -1);
	assert_int_equal(parse_u64("4x", &v), -1);
	assert_int_equal(parse_u64("4.5", &v), -1);
	assert_int_equal(parse_u64("", &v), -1);
	assert_int_equal(parse_u64(" 4", &v), -1);
}

static void test_version_cmp(void **state)
{
	int c = 9;

	(void)state;
	assert_int_equal(version_cmp("0.15.06", "0.15.07", &c), 0);
	assert_int_equal(c, -1);
	assert_int_equal(version_cmp("0.21", "0.21.00", &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(version_cmp("0.22.00", "0.21.04", &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(version_cmp("0.16.10", "0.16.9", &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(version_cmp("6.1.0.5", "6.1", &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(version_cmp("", "0.1", &c), -1);
	assert_int_equal(version_cmp("0..1", "0.1", &c), -1);
	assert_int_equal(version_cmp("0.1.", "0.1", &c), -1);
	assert_int_equal(version_cmp("V0.15.06", "0.1", &c), -1);
	assert_int_equal(version_cmp("0.15.06-g1", "0.1", &c), -1);
	assert_int_equal(version_cmp("1.2.3.4.5", "0.1", &c), -1);
	assert_int_equal(version_cmp("1234567890", "0.1", &c), -1);
}

static void test_parse_duration(void **state)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} good[] = {
		{ "20s", 20000000000ULL },
		{ "500ms", 500000000ULL },
		{ "0.5s", 500000000ULL },
		{ "2m", 120000000000ULL },
		{ "5", 5000000000ULL },
		{ "100us", 100000ULL },
		{ "7ns", 7 },
		{ "1h", 3600000000000ULL },
		{ ".25s", 250000000ULL },
		{ "1.5ms", 1500000ULL },
		{ "0", 0 },
	};
	/* only plain decimals: strtod's hexadecimal, exponents and "inf" are not durations */
	static const char *const bad[] = { "5x",   "",	     "s",      "-1s",  "1.2.3s", "5 s",
					   "ms",   "1e400s", "0x10ms", "0x10", "1e3ms",	 "1e3",
					   "infs", ".s",     "+5s",    " 5s",  "5s " };
	static const char *const too_large[] = { "99999999999999h", "1000000001s",
						 "99999999999999999999999999999999999999" };
	uint64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		assert_int_equal(parse_duration_ns(good[i].in, &ns), 0);
		assert_true(ns == good[i].ns);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		if (parse_duration_ns(bad[i], &ns) != -1 || errno != EINVAL)
			fail_msg("'%s': not rejected as malformed (errno %d)", bad[i], errno);
	}
	for (i = 0; i < ARRAY_SIZE(too_large); i++) {
		errno = 0;
		if (parse_duration_ns(too_large[i], &ns) != -1 || errno != ERANGE)
			fail_msg("'%s': not rejected as too large (errno %d)", too_large[i], errno);
	}
}

static void test_parse_size(void **state)
{
	uint64_t b;

	(void)state;
	assert_int_equal(parse_size("512", &b), 0);
	assert_int_equal(b, 512);
	assert_int_equal(parse_size("4k", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(parse_size("4K", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(parse_size("64KiB", &b), 0);
	assert_int_equal(b, 65536);
	assert_int_equal(parse_size("1M", &b), 0);
	assert_int_equal(b, 1048576);
	assert_int_equal(parse_size("1.5k", &b), 0);
	assert_int_equal(b, 1536);
	assert_int_equal(parse_size("0.3", &b), -1); /* not a whole number of bytes */
	assert_int_equal(parse_size("4q", &b), -1);
	assert_int_equal(parse_size("-4k", &b), -1);
	assert_int_equal(parse_size("0x10", &b), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(parse_size("0x10k", &b), -1);
	assert_int_equal(parse_size("1e3", &b), -1);
	assert_int_equal(parse_size("99999999999999999999G", &b), -1);
	assert_int_equal(errno, ERANGE);
}

static void test_parse_cpulist(void **state)
{
	uint8_t bm[16];

	(void)state;
	assert_int_equal(parse_cpulist("0-3,5,7-8", bm, 128), 7);
	assert_int_equal(bm[0], 0xaf);
	assert_int_equal(bm[1], 0x01);
	assert_int_equal(parse_cpulist("0\n", bm, 128), 1);
	assert_int_equal(parse_cpulist("3-1", bm, 128), -1);
	assert_int_equal(parse_cpulist("0-200", bm, 128), -1);
	assert_int_equal(parse_cpulist("a", bm, 128), -1);
	assert_int_equal(parse_cpulist("1,,2", bm, 128), -1);
	assert_int_equal(parse_cpulist("", bm, 128), -1);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	format_duration(5000000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "5s");
	format_duration(120000000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "2m");
	format_duration(86400000000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "24h");
	format_duration(90000000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "90s");
	format_duration(0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	format_duration(500000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "500ms");
	/* plain decimals, never an exponent, and exact: what is printed parses back */
	format_duration(1000001000000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "1000001s");
	format_duration(1500000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "1.5s");
	format_duration(1234567ULL, buf, sizeof(buf));
	assert_string_equal(buf, "1.234567ms");
	format_duration(2500ULL, buf, sizeof(buf));
	assert_string_equal(buf, "2.5us");
	{
		static const uint64_t v[] = { 1000001000000000ULL, 1234567891ULL, 999999999ULL,
					      1001ULL, 61000000000ULL };
		uint64_t back;
		size_t i;

		for (i = 0; i < ARRAY_SIZE(v); i++) {
			format_duration(v[i], buf, sizeof(buf));
			assert_int_equal(parse_duration_ns(buf, &back), 0);
			assert_int_equal(back, v[i]);
		}
	}
	format_size(1048576, buf, sizeof(buf));
	assert_string_equal(buf, "1M");
	format_size(512, buf, sizeof(buf));
	assert_string_equal(buf, "512");
}

/* ---- option tables ---- */

struct params {
	bool flag;
	uint64_t count;
	double ratio;
	double margin;
	uint64_t duration_ns;
	uint64_t bytes;
	int mode;
	const char *name;
	struct strlist list;
	int trace;
};

static const char *const modes[] = { "any", "same-cpu", "cross-cpu", NULL };
static const char *const traces[] = { "off", "on", "auto", NULL };

static const struct opt table[] = {
	{ .type = OPT_FLAG,
	  .long_name = "flag",
	  .short_name = 'f',
	  .offset = offsetof(struct params, flag),
	  .help = "a flag" },
	{ .type = OPT_UINT,
	  .long_name = "count",
	  .short_name = 'j',
	  .offset = offsetof(struct params, count),
	  .argh = "N",
	  .help = "a count",
	  .min = 1,
	  .max = 4096 },
	{ .type = OPT_DOUBLE,
	  .long_name = "ratio",
	  .offset = offsetof(struct params, ratio),
	  .argh = "X",
	  .help = "a ratio",
	  .min = 0,
	  .max = 1 },
	{ .type = OPT_PERCENT,
	  .long_name = "margin",
	  .offset = offsetof(struct params, margin),
	  .argh = "PCT",
	  .help = "a margin",
	  .min = 0.0001,
	  .max = 0.5 },
	{ .type = OPT_DURATION,
	  .long_name = "duration",
	  .short_name = 't',
	  .offset = offsetof(struct params, duration_ns),
	  .argh = "DURATION",
	  .help = "a time",
	  .min = 1e6,
	  .max = 86400e9 },
	{ .type = OPT_SIZE,
	  .long_name = "size",
	  .offset = offsetof(struct params, bytes),
	  .argh = "SIZE",
	  .help = "a size",
	  .min = 8,
	  .max = 4096 },
	{ .type = OPT_CHOICE,
	  .long_name = "mode",
	  .offset = offsetof(struct params, mode),
	  .argh = "MODE",
	  .help = "a mode",
	  .choices = modes },
	{ .type = OPT_STRING,
	  .long_name = "name",
	  .offset = offsetof(struct params, name),
	  .argh = "TEXT",
	  .help = "a name" },
	{ .type = OPT_STRLIST,
	  .long_name = "item",
	  .offset = offsetof(struct params, list),
	  .argh = "NAME",
	  .help = "repeatable" },
	{ .type = OPT_CHOICE,
	  .long_name = "trace",
	  .offset = offsetof(struct params, trace),
	  .argh = "auto",
	  .help = "optional value",
	  .choices = traces,
	  .implied = "on",
	  .flags = OPT_OPTIONAL_ARG },
	OPT_END_ROW,
};

static const struct params defaults = {
	.count = 4, .ratio = 0.5, .margin = 0.02, .duration_ns = 5000000000ULL, .bytes = 512
};

/* Parse argv into p; capture stderr into err. Returns opts_parse's status. */
static int parse(struct params *p, struct opt_group *g, struct opts_result *res, char *err,
		 size_t errlen, int argc, const char **argv)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), rc;
	size_t n;

	assert_non_null(tmp);
	*p = defaults;
	memset(g, 0, sizeof(*g));
	g->title = "test options";
	g->opts = table;
	g->base = p;
	g->defaults = &defaults;
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	rc = opts_parse("test", g, 1, argc, argv, 0, res);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, errlen - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return rc;
}

static void test_opts_every_type(void **state)
{
	const char *argv[] = { "-f",	    "-j",      "8",	  "--ratio=0.25", "--margin",
			       "5%",	    "-t500ms", "--size",  "4k",		  "--mode",
			       "cross-cpu", "--name",  "hello",	  "--item",	  "A",
			       "--item=B",  "pos1",    "--trace", "--",		  "-j" };
	struct params p;
	struct opt_group g;
	struct opts_result res;
	char err[512];

	(void)state;
	assert_int_equal(parse(&p, &g, &res, err, sizeof(err), (int)ARRAY_SIZE(argv), argv), 0);
	assert_string_equal(err, "");
	assert_true(p.flag);
	assert_int_equal(p.count, 8);
	assert_true(p.ratio == 0.25);
	assert_true(p.margin > 0.0499 && p.margin < 0.0501);
	assert_true(p.duration_ns == 500000000ULL);
	assert_int_equal(p.bytes, 4096);
	assert_int_equal(p.mode, 2);
	assert_string_equal(p.name, "hello");
	assert_int_equal(p.list.n, 2);
	assert_string_equal(p.list.v[0], "A");
	assert_string_equal(p.list.v[1], "B");
	assert_int_equal(p.trace, 1);
	assert_int_equal(res.npos, 2);
	assert_string_equal(res.pos[0], "pos1");
	assert_string_equal(res.pos[1], "-j");
	assert_int_equal(res.dashdash, 1);
	/* every option but --ratio's neighbours was seen; bit i = table row i */
	assert_true(g.seen == 0x3ff);
	opts_release(&g, 1);
	opts_result_release(&res);
}

static void test_opts_defaults_and_seen(void **state)
{
	const char *argv[] = { "--trace=auto" };
	struct params p;
	struct opt_group g;
	struct opts_result res;
	char err[512];

	(void)state;
	assert_int_equal(parse(&p, &g, &res, err, sizeof(err), 1, argv), 0);
	assert_int_equal(p.count, 4);
	assert_int_equal(p.trace, 2);
	assert_true(g.seen == (1ULL << 9));
	opts_result_release(&res);
}

/* Each bad input fails with one line naming the option, the value and what is allowed. */
static void test_opts_errors(void **state)
{
	static struct {
		const char *argv[2];
		int argc;
		const char *expect[3];
	} cases[] = {
		{ { "-j", "0" }, 2, { "'--count' (-j)", "'0'", "1..4096" } },
		{ { "-j", "5000" }, 2, { "--count", "'5000'", "1..4096" } },
		{ { "-j", "4.5" }, 2, { "--count", "'4.5'", "not a whole number" } },
		{ { "-t", "5x" }, 2, { "--duration", "'5x'", "1ms..24h" } },
		{ { "-t", "0" }, 2, { "--duration", "'0'", "1ms.." } },
		{ { "--size", "3" }, 2, { "--size", "'3'", "8..4k" } },
		{ { "--mode", "foo" }, 2, { "--mode", "'foo'", "any|same-cpu|cross-cpu" } },
		{ { "--margin", "90%" }, 2, { "--margin", "'90%'", "0.01%..50%" } },
		{ { "--ratio", "x" }, 2, { "--ratio", "'x'", "0..1" } },
		/* parses, but too large to hold: out of range, not "not a duration" */
		{ { "-t", "99999999999999h" },
		  2,
		  { "--duration", "out of range: '99999999999999h'", "1ms..24h" } },
		{ { "-j", "99999999999999999999999" },
		  2,
		  { "--count", "out of range: '9999", "1..4096" } },
		{ { "--size", "99999999999999999999G" }, 2, { "--size", "out of range", "8..4k" } },
		{ { "--ratio", "1e999" }, 2, { "--ratio", "out of range: '1e999'", "0..1" } },
		{ { "-t", "0x10ms" }, 2, { "--duration", "not a duration", "'0x10ms'" } },
		{ { "--size", "0x10" }, 2, { "--size", "not a size", "'0x10'" } },
		{ { "--nope" }, 1, { "unknown option '--nope'", "", "" } },
		{ { "-z" }, 1, { "unknown option '-z'", "", "" } },
		{ { "-j" }, 1, { "'--count' (-j) needs a value", "1..4096", "" } },
		{ { "--flag=1" }, 1, { "takes no value", "", "" } },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct params p;
		struct opt_group g;
		struct opts_result res;
		char err[512];

		assert_int_equal(
			parse(&p, &g, &res, err, sizeof(err), cases[i].argc, cases[i].argv), -1);
		/* exactly one line */
		assert_non_null(strchr(err, '\n'));
		assert_ptr_equal(strchr(err, '\n') + 1, err + strlen(err));
		for (k = 0; k < 3; k++) {
			if (!cases[i].expect[k][0])
				continue;
			if (!strstr(err, cases[i].expect[k]))
				fail_msg("case %zu: '%s' not in '%s'", i, cases[i].expect[k], err);
		}
		opts_release(&g, 1);
		opts_result_release(&res);
	}
}

/* An argument names its option in every form; whether the next argument is its value. */
static void test_opts_find_arg(void **state)
{
	(void)state;
	assert_ptr_equal(opts_find_arg(table, "--count"), &table[1]);
	assert_ptr_equal(opts_find_arg(table, "--count=8"), &table[1]);
	assert_ptr_equal(opts_find_arg(table, "-j"), &table[1]);
	assert_ptr_equal(opts_find_arg(table, "-j8"), &table[1]);
	assert_ptr_equal(opts_find_arg(table, "--flag"), &table[0]);
	assert_null(opts_find_arg(table, "--coun"));
	assert_null(opts_find_arg(table, "--counts"));
	assert_null(opts_find_arg(table, "-z"));
	assert_null(opts_find_arg(table, "-"));
	assert_null(opts_find_arg(table, "count"));
	assert_true(opts_arg_takes_next(&table[1], "--count"));
	assert_true(opts_arg_takes_next(&table[1], "-j"));
	assert_false(opts_arg_takes_next(&table[1], "--count=8"));
	assert_false(opts_arg_takes_next(&table[1], "-j8"));
	assert_false(opts_arg_takes_next(&table[0], "--flag"));
	assert_false(opts_arg_takes_next(NULL, "--nothing"));
	assert_false(opts_takes_value(&table[0]));
	assert_true(opts_takes_value(&table[1]));
}

static void test_opts_help(void **state)
{
	struct params p = defaults;
	struct opt_group g = {
		.title = "test options", .opts = table, .base = &p, .defaults = &defaults
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	opts_print_help(f, &g, 1);
	fclose(f);
	assert_non_null(strstr(buf, "-j, --count N"));
	assert_non_null(strstr(buf, "(default 4; 1..4096)"));
	assert_non_null(strstr(buf, "(default 5s; 1ms..24h)"));
	assert_non_null(strstr(buf, "--trace[=auto]"));
	assert_non_null(strstr(buf, "any|same-cpu|cross-cpu"));
	free(buf);
}

/* Base64: RFC 4648's test vectors both ways, and what strict decoding refuses. */
static void test_base64(void **state)
{
	static const char *const vec[][2] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	static const char *const bad[] = {
		"Zg=", "Z===", "Zg==Zg==", "Zm9v!A==", "Zm=v", "Zg\x80="
	};
	uint8_t bytes[16];
	char text[16];
	size_t i, n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		n = base64_encode((const uint8_t *)vec[i][0], strlen(vec[i][0]), text);
		assert_string_equal(text, vec[i][1]);
		assert_int_equal(n, strlen(vec[i][1]));
		n = 0;
		assert_int_equal(base64_decode(vec[i][1], strlen(vec[i][1]), bytes, &n), 0);
		assert_int_equal(n, strlen(vec[i][0]));
		assert_memory_equal(bytes, vec[i][0], n);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		n = 0;
		if (base64_decode(bad[i], strlen(bad[i]), bytes, &n) != -1)
			fail_msg("'%s' decoded, want malformed", bad[i]);
	}
	assert_int_equal(base64_value('A'), 0);
	assert_int_equal(base64_value('/'), 63);
	assert_int_equal(base64_value('='), -1);
	assert_int_equal(base64_value(0), -1);
	assert_int_equal(base64_value(0xc3), -1);
}

/* RFC 3339 times for JSON, with either UTC suffix; 0 is no time. */
static void test_json_time(void **state)
{
	json_object *o;

	(void)state;
	assert_null(json_time_utc(0, "Z"));
	o = json_time_utc(1775044800ull * 1000000000ull + 999999999ull, "Z");
	assert_string_equal(json_object_get_string(o), "2026-04-01T12:00:00Z");
	json_object_put(o);
	o = json_time_utc(1775044800ull * 1000000000ull, "+00:00");
	assert_string_equal(json_object_get_string(o), "2026-04-01T12:00:00+00:00");
	json_object_put(o);
	assert_null(json_str_or_null(NULL));
	o = json_str_or_null("");
	assert_string_equal(json_object_get_string(o), "");
	json_object_put(o);
}

/* A process's identity: its start time and boot; a zombie or a reaped child is gone. */
static void test_identity(void **state)
{
	char boot[64];
	uint64_t ticks, zticks;
	pid_t child;
	int st;

	(void)state;
	assert_int_equal(proc_boot_id(boot, sizeof(boot)), 0);
	assert_int_equal(strlen(boot), 36);
	assert_int_equal(proc_start_ticks(getpid(), &ticks), 0);
	assert_true(proc_identity_alive(getpid(), ticks, boot));
	assert_true(proc_identity_alive(getpid(), ticks, ""));
	assert_false(proc_identity_alive(getpid(), ticks + 1, boot));
	assert_false(proc_identity_alive(getpid(), ticks, "00000000-0000-4000-8000-000000000000"));
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	/* a zombie until reaped: dead already (waitid with WNOWAIT leaves it so) */
	{
		siginfo_t si;

		assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	}
	assert_int_equal(proc_start_ticks(child, &zticks), -1);
	assert_false(proc_identity_alive(child, ticks, boot));
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_int_equal(proc_start_ticks(child, &zticks), -1);
}

/*
 * The one number formatter, with the numbers issue 24 found printed four
 * ways: four significant digits, the whole part grouped by threes with a
 * space, never an exponent; times in the unit that keeps them short.
 */
static void test_numbers(void **state)
{
	static const struct {
		double v;
		const char *want;
	} num[] = {
		{ 423672.77, "423 700" },	/* run printed 423672.77 */
		{ 328605, "328 600" },		/* compare: 328 605 */
		{ 351577, "351 600" },		/* Markdown 351 577, email 351.6k */
		{ 1.12721e+08, "112 700 000" }, /* show: 1.12721e+08 */
		{ 1.92e-05, "0.0000192" },	/* run's stddev: 1.92e-05 */
		{ 3124.92, "3 125" },
		{ 576.56, "576.6" },
		{ 2.0, "2" },
		{ 0.130651, "0.1307" },
		{ 0.1, "0.1" },
		{ 999.96, "1 000" }, /* rounding carries into a fifth digit */
		{ 9999.5, "10 000" },
		{ 1000, "1 000" },
		{ 12.5, "12.5" },
		{ -45000, "-45 000" },
		{ -0.0042, "-0.0042" },
		{ 0, "0" },
		{ -0.0, "0" },
		{ 2487746.3, "2 488 000" },
		{ 1e15, "1 000 000 000 000 000" },
	};
	/* a 2% margin apart never prints alike, wherever the values sit */
	static const double margin_pairs[] = { 100, 1000, 1234.5, 99999, 0.001 };
	char buf[64], a[64], b[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(num); i++) {
		fmt_num(num[i].v, buf, sizeof(buf));
		assert_string_equal(buf, num[i].want);
		assert_null(strchr(buf, 'e'));
	}
	for (i = 0; i < ARRAY_SIZE(margin_pairs); i++) {
		fmt_num(margin_pairs[i], a, sizeof(a));
		fmt_num(margin_pairs[i] * 1.02, b, sizeof(b));
		assert_string_not_equal(a, b);
		/* and 0.1% apart still does, at the coarsest place (a leading 9) */
		fmt_num(margin_pairs[i] * 1.001, b, sizeof(b));
		assert_string_not_equal(a, b);
	}
	fmt_num(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	fmt_num(INFINITY, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	fmt_num(1234567, buf, 6); /* truncated, terminated */
	assert_true(strlen(buf) < 6);

	fmt_count(2109375, buf, sizeof(buf));
	assert_string_equal(buf, "2 109 375");
	fmt_count(0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	fmt_count(999, buf, sizeof(buf));
	assert_string_equal(buf, "999");
	fmt_count(UINT64_MAX, buf, sizeof(buf));
	assert_string_equal(buf, "18 446 744 073 709 551 615");

	/* schbench's sample line: 38043673.00 ns */
	fmt_time(38043673e-9, buf, sizeof(buf));
	assert_string_equal(buf, "38.04 ms");
	fmt_time(4559e-9, buf, sizeof(buf));
	assert_string_equal(buf, "4.559 us");
	fmt_time(0.508, buf, sizeof(buf));
	assert_string_equal(buf, "508 ms");
	fmt_time(75, buf, sizeof(buf));
	assert_string_equal(buf, "75 s");
	fmt_time(3600, buf, sizeof(buf));
	assert_string_equal(buf, "3 600 s");
	fmt_time(812e-9, buf, sizeof(buf));
	assert_string_equal(buf, "812 ns");
	fmt_time(999.96e-6, buf, sizeof(buf)); /* rounds to 1 ms, not "1 000 us" */
	assert_string_equal(buf, "1 ms");
	fmt_time(0, buf, sizeof(buf));
	assert_string_equal(buf, "0 s");
	fmt_time(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "-");

	fmt_quantity(10911743, "ns", buf, sizeof(buf));
	assert_string_equal(buf, "10.91 ms");
	fmt_quantity(0.0196, "s", buf, sizeof(buf));
	assert_string_equal(buf, "19.6 ms");
	fmt_quantity(1252027.75, "ops/s", buf, sizeof(buf));
	assert_string_equal(buf, "1 252 000 ops/s");
	fmt_quantity(0.128, "", buf, sizeof(buf));
	assert_string_equal(buf, "0.128");
	fmt_quantity(NAN, "ops/s", buf, sizeof(buf));
	assert_string_equal(buf, "-");
	assert_true(num_unit_is_time("ns"));
	assert_true(num_unit_is_time("s"));
	assert_false(num_unit_is_time("ops/s"));
	assert_false(num_unit_is_time(""));

	fmt_pct(0.0781, buf, sizeof(buf));
	assert_string_equal(buf, "+7.8%");
	fmt_pct(-0.205, buf, sizeof(buf));
	assert_string_equal(buf, "-20.5%");
	fmt_p(0.00153, buf, sizeof(buf));
	assert_string_equal(buf, "0.0015");
	fmt_p(1.2e-05, buf, sizeof(buf));
	assert_string_equal(buf, "<0.0001");
}

/* ---- output files ---- */

static int temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp-") != NULL;
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	char *buf;

	if (read_file(path, &buf, NULL))
		return xstrdup("(none)");
	return buf;
}

static void assert_content(const char *path, const char *want)
{
	char *got = slurp(path);

	assert_string_equal(got, want);
	free(got);
}

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen++;
}

static void test_outfile(void **state)
{
	char dir[] = "/tmp/t-util.XXXXXX", *a, *link_path, *p, *cmd;
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	struct outfile of;
	struct stat sb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	a = xasprintf("%s/a", dir);
	link_path = xasprintf("%s/l", dir);
	p = xasprintf("%s/p", dir);

	/* a new file: fopen()'s mode, no temporary left */
	umask(022);
	assert_int_equal(write_file_atomic(a, "one", 3), 0);
	assert_content(a, "one");
	assert_int_equal(stat(a, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	/* replaced whole, keeping its mode */
	assert_int_equal(chmod(a, 0640), 0);
	assert_int_equal(write_file_atomic(a, "two", 3), 0);
	assert_content(a, "two");
	assert_int_equal(stat(a, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0640);
	/* through a symbolic link: the file is replaced, the link kept */
	assert_int_equal(symlink("a", link_path), 0);
	assert_int_equal(write_file_atomic(link_path, "three", 5), 0);
	assert_content(a, "three");
	assert_int_equal(lstat(link_path, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	/* abandoned half-written: the file as it was, no temporary */
	assert_int_equal(outfile_open(&of, a, 0), 0);
	assert_int_equal(write_full(of.fd, "partial", 7), 7);
	outfile_abort(&of);
	assert_content(a, "three");
	assert_int_equal(temporaries(dir), 0);
	/* a directory that does not exist: nothing made */
	cmd = xasprintf("%s/no/such", dir);
	assert_int_equal(write_file_atomic(cmd, "x", 1), -1);
	assert_int_equal(errno, ENOENT);
	free(cmd);
	/* not a regular file: written in place */
	assert_int_equal(write_file_atomic("/dev/null", "x", 1), 0);
	assert_int_equal(stat("/dev/null", &sb), 0);
	assert_true(S_ISCHR(sb.st_mode));
	/* an open descriptor's file (report -o /dev/stdout >FILE): written, not replaced */
	{
		int fd = open(a, O_WRONLY | O_CLOEXEC);
		struct stat before;
		char *fdpath = xasprintf("/dev/fd/%d", fd);

		assert_true(fd >= 0);
		assert_int_equal(fstat(fd, &before), 0);
		assert_int_equal(write_file_atomic(fdpath, "via fd", 6), 0);
		assert_content(a, "via fd");
		assert_int_equal(stat(a, &sb), 0);
		assert_true(sb.st_ino == before.st_ino);
		free(fdpath);
		close(fd);
	}

	/* a signal sent meanwhile arrives once the file is in place */
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	usr1_seen = 0;
	assert_int_equal(outfile_open(&of, a, 0), 0);
	raise(SIGUSR1);
	assert_int_equal(usr1_seen, 0);
	assert_int_equal(write_full(of.fd, "four", 4), 4);
	assert_int_equal(outfile_commit(&of), 0);
	assert_int_equal(usr1_seen, 1);
	assert_content(a, "four");
	sigaction(SIGUSR1, &old, NULL);

	/* published only where nothing is: the first one stays */
	assert_int_equal(outfile_open_new(&of, p, 0600), 0);
	assert_int_equal(write_full(of.fd, "first", 5), 5);
	assert_int_equal(outfile_publish(&of), 0);
	assert_int_equal(outfile_open_new(&of, p, 0600), 0);
	assert_int_equal(write_full(of.fd, "second", 6), 6);
	assert_int_equal(outfile_publish(&of), 1);
	assert_content(p, "first");
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(temporaries(dir), 0);

	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(a);
	free(link_path);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_version_cmp),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_cpulist),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_opts_every_type),
		cmocka_unit_test(test_opts_defaults_and_seen),
		cmocka_unit_test(test_opts_errors),
		cmocka_unit_test(test_opts_find_arg),
		cmocka_unit_test(test_opts_help),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_json_time),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_outfile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
