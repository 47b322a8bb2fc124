/*
 * t-posted.c: other tools' posted output (engine/posted.c) read into
 * export documents: every real fixture (tests/fixtures/posted) of every
 * format gives the text's figures, version, parameters and env keys; the
 * normalisations of a paste (CR, "> " quoting at any depth, stress-ng's
 * log prefix, shell lines, text around) change nothing; detection by
 * structure (not a LAVA log, not an export); and each broken case is
 * refused with the line number and what was expected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/posted.h"
#include "util/util.h"

static char *slurp(const char *name, size_t *len)
{
	const char *src = getenv("WAKEBENCH_SRC");
	char *path = xasprintf("%s/tests/fixtures/posted/%s", src ? src : ".", name), *buf;

	if (read_file(path, &buf, len))
		fail_msg("cannot read fixture '%s'", path);
	free(path);
	return buf;
}

/* stderr of posted_parse, into err[] */
static char err[4096];

/* Parse text as file "NAME"; the document (NULL on refusal, err[] says why). */
static json_object *parse_text(const char *text, size_t len, const struct posted_opts *o)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	json_object *doc = NULL;
	char *out = NULL;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	if (!posted_parse("NAME", text, len, o, &out))
		doc = json_tokener_parse(out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, sizeof(err) - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	free(out);
	return doc;
}

static json_object *parse_fixture(const char *name, const struct posted_opts *o)
{
	size_t len;
	char *text = slurp(name, &len);
	json_object *doc = parse_text(text, len, o);

	free(text);
	return doc;
}

/* A member by path "experiments.0.samples.1.ops" (numbers index arrays). */
static json_object *at(json_object *o, const char *path)
{
	char *copy = xstrdup(path), *save = NULL, *k;

	for (k = strtok_r(copy, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	}
	free(copy);
	return o;
}

static const char *str(json_object *doc, const char *path)
{
	json_object *v = at(doc, path);

	return v ? json_object_get_string(v) : "(absent)";
}

static double dbl(json_object *doc, const char *path)
{
	json_object *v = at(doc, path);

	if (!v)
		fail_msg("'%s' is absent", path);
	return json_object_get_double(v);
}

/* The value of env key in experiment k's start phase. */
static const char *env(json_object *doc, int k, const char *key)
{
	char path[64];
	json_object *arr;
	size_t i;

	snprintf(path, sizeof(path), "experiments.%d.env.start", k);
	arr = at(doc, path);
	for (i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		if (!strcmp(str(e, "key"), key))
			return str(e, "value");
	}
	return "(absent)";
}

static size_t count(json_object *doc, const char *path)
{
	json_object *v = at(doc, path);

	return v ? json_object_array_length(v) : 0;
}

static void test_yaml(void **state)
{
	static const char *const versions[] = { "0.15.06", "0.15.10", "0.16.00",
						"0.18.12", "0.21.00", "0.22.00" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(versions); i++) {
		char *name = xasprintf("stress-ng-%s.yaml", versions[i]);
		json_object *doc = parse_fixture(name, NULL);

		assert_non_null(doc);
		assert_string_equal(str(doc, "experiments.0.kind"), "external");
		assert_string_equal(str(doc, "experiments.0.workload"), "pipe");
		assert_string_equal(env(doc, 0, "external.version"), versions[i]);
		assert_string_equal(env(doc, 0, "external.format"), "stress-ng-yaml");
		assert_string_equal(env(doc, 0, "kernel.arch"), "x86_64");
		assert_string_equal(env(doc, 0, "mem.page_size"), "4 KiB");
		assert_int_equal((int)dbl(doc, "experiments.0.params.instances"), 2);
		assert_int_equal(count(doc, "experiments.0.samples"), 1);
		free(name);
		json_object_put(doc);
	}
	/* the figures are the text's, to the last digit */
	{
		json_object *doc = parse_fixture("stress-ng-0.15.06.yaml", NULL);

		assert_string_equal(str(doc, "experiments.0.profile"), "stress-ng-0.15");
		assert_int_equal(json_object_get_int64(at(doc, "experiments.0.samples.0.ops")),
				 1210863);
		assert_true(dbl(doc, "experiments.0.samples.0.ops_per_s") == 1210280.266608);
		assert_true(dbl(doc, "experiments.0.samples.0.usr_s") == 0.355389);
		assert_true(dbl(doc, "experiments.0.samples.0.metrics.mb_per_s_mean") ==
			    295.720164);
		assert_string_equal(str(doc, "experiments.0.host"), "vm");
		json_object_put(doc);
	}
	/* pasted without its "...", text after it: the YAML ends where its lines do */
	{
		size_t len;
		char *y = slurp("stress-ng-0.21.00.yaml", &len), *end = strstr(y, "\n...\n");
		char *text;
		json_object *doc;

		assert_non_null(end);
		end[1] = '\0';
		text = xasprintf("$ cat out.yaml\n%sThanks,\nBob: here it ends\n", y);
		doc = parse_text(text, strlen(text), NULL);
		if (!doc)
			fail_msg("refused: %s", err);
		assert_int_equal(json_object_get_int64(at(doc, "experiments.0.samples.0.ops")),
				 1865959);
		json_object_put(doc);
		free(text);
		free(y);
	}
}

static void test_brief(void **state)
{
	struct posted_opts o = { .tool_version = "0.15.06", .host = "pi", .label = "L" };
	json_object *doc;

	(void)state;
	/* no version anywhere: refused, naming --tool-version */
	assert_null(parse_fixture("stress-ng-0.15.06-brief.txt", NULL));
	assert_non_null(strstr(err, "'NAME' line 3: stress-ng's version is not in the text"));
	assert_non_null(strstr(err, "--tool-version"));
	doc = parse_fixture("stress-ng-0.15.06-brief.txt", &o);
	assert_non_null(doc);
	assert_string_equal(str(doc, "experiments.0.profile"), "stress-ng-0.15");
	assert_string_equal(str(doc, "experiments.0.host"), "pi");
	assert_string_equal(str(doc, "experiments.0.label"), "L");
	assert_int_equal((int)dbl(doc, "experiments.0.params.instances"), 4);
	assert_true(dbl(doc, "experiments.0.params.duration_ns") == 2e9);
	assert_true(dbl(doc, "experiments.0.samples.0.ops_per_cpu_s") == 931578.68);
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.mb_per_s_geomean") == 211.28);
	assert_string_equal(str(doc, "experiments.0.cmdline"), "(absent)");
	json_object_put(doc);
	/* --pipe 0 is one per CPU: the instances are the dispatched hogs */
	{
		static const char t[] =
			"$ stress-ng --pipe 0 -t 5 --metrics-brief\n"
			"stress-ng, version 0.15.06\n"
			"stress-ng: info:  [9] dispatching hogs: 2 pipe\n"
			"stressor bogo ops real time usr time sys time bogo ops/s bogo ops/s\n"
			"  (secs) (secs) (secs) (real time) (usr+sys time)\n"
			"pipe 100 5.00 1.00 2.00 20.00 33.33\n";

		doc = parse_text(t, strlen(t), NULL);
		if (!doc)
			fail_msg("refused: %s", err);
		assert_int_equal((int)dbl(doc, "experiments.0.params.instances"), 2);
		assert_true(dbl(doc, "experiments.0.params.duration_ns") == 5e9);
		json_object_put(doc);
	}
}

/* The same run pasted every way gives the same sample. */
static void test_normalised(void **state)
{
	static const char table[] = "stressor       bogo ops real time  usr time  sys time   bogo "
				    "ops/s     bogo ops/s\n"
				    "                          (secs)    (secs)    (secs)   (real "
				    "time) (usr+sys time)\n"
				    "pipe            3648118      2.00      0.80      3.12   "
				    "1823259.81      931578.68\n";
	char *variants[4];
	size_t i;

	(void)state;
	variants[0] = xasprintf("stress-ng, version 0.15.06\n%s", table);
	variants[1] =
		xasprintf("Hi,\r\n> $ stress-ng --version\r\n> stress-ng, version 0.15.06 "
			  "(gcc)\r\n> $ stress-ng --pipe 4 -t 2s --metrics-brief\r\n"
			  "> stress-ng: metrc: [1] stressor       bogo ops real time  usr time  "
			  "sys time   bogo ops/s     bogo ops/s\r\n"
			  "> stress-ng: metrc: [1]                           (secs)    (secs)  "
			  "  (secs)   (real time) (usr+sys time)\r\n"
			  "> stress-ng: metrc: [1] pipe            3648118      2.00      0.80 "
			  "     3.12   1823259.81      931578.68\r\nbye\r\n");
	variants[2] =
		xasprintf(">> > stress-ng, version 0.15.06\n"
			  ">>> stressor       bogo ops real time  usr time  sys time   bogo ops/s "
			  "    bogo ops/s\n"
			  "> >                           (secs)    (secs)    (secs)   (real time) "
			  "(usr+sys time)\n"
			  ">>pipe            3648118      2.00      0.80      3.12   1823259.81 "
			  "     931578.68\n");
	variants[3] = xasprintf("user@pi:~$ sudo /usr/bin/stress-ng --pipe 4 --timeout 2\n"
				"stress-ng, version 0.15.06\n%s$ echo done\n",
				table);
	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		json_object *doc = parse_text(variants[i], strlen(variants[i]), NULL);

		if (!doc)
			fail_msg("variant %zu refused: %s", i, err);
		assert_int_equal(count(doc, "experiments"), 1);
		assert_int_equal(json_object_get_int64(at(doc, "experiments.0.samples.0.ops")),
				 3648118);
		assert_true(dbl(doc, "experiments.0.samples.0.ops_per_s") == 1823259.81);
		assert_string_equal(env(doc, 0, "external.version"), "0.15.06");
		if (i == 1) {
			assert_string_equal(str(doc, "experiments.0.cmdline"),
					    "stress-ng --pipe 4 -t 2s --metrics-brief");
			assert_true(dbl(doc, "experiments.0.params.duration_ns") == 2e9);
		}
		if (i == 3) {
			assert_string_equal(str(doc, "experiments.0.cmdline"),
					    "/usr/bin/stress-ng --pipe 4 --timeout 2");
			assert_string_equal(env(doc, 0, "external.args"), "--pipe 4 --timeout 2");
			assert_int_equal((int)dbl(doc, "experiments.0.params.instances"), 4);
		}
		json_object_put(doc);
		free(variants[i]);
	}
}

static void test_runs(void **state)
{
	struct posted_opts o = { .tool_version = "0.15.06" };
	json_object *doc, *again;

	(void)state;
	doc = parse_fixture("pasted-three-runs.txt", &o);
	assert_non_null(doc);
	assert_int_equal(count(doc, "experiments"), 2);
	assert_int_equal(count(doc, "experiments.0.samples"), 2);
	assert_int_equal(count(doc, "experiments.1.samples"), 1);
	assert_int_equal((int)dbl(doc, "experiments.0.params.samples"), 2);
	assert_int_equal((int)dbl(doc, "experiments.1.params.instances"), 1);
	/* the same text, the same UUIDs (a second import adds nothing) */
	again = parse_fixture("pasted-three-runs.txt", &o);
	assert_string_equal(str(doc, "experiments.0.uuid"), str(again, "experiments.0.uuid"));
	assert_string_not_equal(str(doc, "experiments.0.uuid"), str(doc, "experiments.1.uuid"));
	json_object_put(doc);
	json_object_put(again);
}

static void test_others(void **state)
{
	json_object *doc;

	(void)state;
	doc = parse_fixture("perf-sched-pipe.txt", NULL);
	assert_string_equal(str(doc, "experiments.0.workload"), "pingpong");
	assert_string_equal(str(doc, "experiments.0.profile"), "perf-bench-sched-pipe");
	assert_true(dbl(doc, "experiments.0.samples.0.ops_per_s") == 318040);
	assert_true(dbl(doc, "experiments.0.samples.0.real_s") == 0.062);
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.ns_per_op") == 3144.25);
	assert_false(json_object_get_boolean(at(doc, "experiments.0.params.threads")));
	json_object_put(doc);

	doc = parse_fixture("perf-sched-messaging.txt", NULL);
	assert_string_equal(str(doc, "experiments.0.profile"), "perf-bench-sched-messaging");
	assert_int_equal((int)dbl(doc, "experiments.0.params.groups"), 2);
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.messaging_run_s") == 0.075);
	json_object_put(doc);

	doc = parse_fixture("hackbench-process-512.txt", NULL);
	assert_string_equal(str(doc, "experiments.0.profile"), "hackbench");
	assert_int_equal((int)dbl(doc, "experiments.0.params.datasize_bytes"), 512);
	assert_int_equal((int)dbl(doc, "experiments.0.params.fds"), 20);
	assert_true(dbl(doc, "experiments.0.samples.0.real_s") == 0.059);
	json_object_put(doc);

	doc = parse_fixture("schbench.txt", NULL);
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.schbench_wakeup_p50_ns") == 29000);
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.schbench_request_p999_ns") ==
		    23200000);
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.schbench_wakeup_count") == 530);
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.requests_per_s") == 265.5);
	json_object_put(doc);

	doc = parse_fixture("schbench.json", NULL);
	assert_string_equal(env(doc, 0, "external.format"), "schbench-json");
	assert_true(dbl(doc, "experiments.0.samples.0.metrics.schbench_wakeup_p99_ns") == 6392000);
	assert_int_equal((int)dbl(doc, "experiments.0.params.message_threads"), 1);
	json_object_put(doc);
}

static void test_broken(void **state)
{
	static const struct {
		const char *file, *want;
	} cases[] = {
		{ "broken-truncated-table.txt", "line 5: the table ends after its header" },
		{ "broken-two-tools.txt", "line 10: perf-bench-sched-pipe output here, but "
					  "stress-ng-metrics-brief output at line 4" },
		{ "broken-not-a-number.txt", "line 6: '3648x18' in column 'bogo ops' is not a "
					     "number" },
		{ "broken-yaml-number.yaml", "line 37: 'bogo-ops-per-second-real-time' is "
					     "'x1865323.039434', expected a number" },
		{ "broken-hackbench-no-time.txt", "line 1: hackbench's output ends before" },
		{ "broken-schbench-truncated.txt", "line 12: expected schbench's 'average rps:'" },
	};
	static const char *const inline_cases[][2] = {
		{ "stress-ng, version 0.15.06\nstressor bogo ops real time\n (secs)\n"
		  "pipe 1 2 3\n",
		  "line 4: expected a row of 7 columns" },
		{ "stress-ng, version 0.15.06\nstressor bogo ops real time\n (secs)\n"
		  "cpu 1 2.0 3 4 5 6\n",
		  "line 4: stressor 'cpu': wakebench reproduces stress-ng's pipe stressor only" },
		{ "# Running 'sched/pipe' benchmark:\n# Executed 10 pipe operations between two "
		  "processes\n\n     Total time: x [sec]\n",
		  "line 4: expected 'Total time: SECONDS [sec]'" },
		{ "{\"normal\": {}, \"int\": 3}", "line 1: expected schbench --json's object" },
		{ "{\"normal\": {}, \"int\": {}} x", "text after the object" },
		{ "{\"normal\": {}, \"int\": {\"rps_min\": 1}}",
		  "line 1: expected \"wakeup_latency_pct99.0\"" },
		{ "Wakeup Latencies percentiles (usec)\n\t  50.0th: x\n",
		  "line 2: expected a percentile line" },
	};
	struct posted_opts o = { .tool_version = "0.15.06" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_null(parse_fixture(cases[i].file, &o));
		if (!strstr(err, cases[i].want))
			fail_msg("%s: '%s' does not say '%s'", cases[i].file, err, cases[i].want);
		assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
	}
	for (i = 0; i < ARRAY_SIZE(inline_cases); i++) {
		assert_null(parse_text(inline_cases[i][0], strlen(inline_cases[i][0]), &o));
		if (!strstr(err, inline_cases[i][1]))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, inline_cases[i][1]);
	}
	/* a NUL, and more than the limit */
	assert_null(parse_text("stressor \0", 10, &o));
	assert_non_null(strstr(err, "NUL"));
}

static void test_version(void **state)
{
	json_object *doc;

	(void)state;
	/* a release no profile covers: imported, profile null, said once */
	doc = parse_fixture("old-version-0.14.00.txt", NULL);
	assert_non_null(doc);
	assert_null(at(doc, "experiments.0.profile"));
	assert_string_equal(env(doc, 0, "external.version"), "0.14.00");
	assert_non_null(strstr(err, "stress-ng 0.14.00: no pipe profile covers it"));
	/* without a profile, the parameters are the workload's defaults with the posted ones */
	assert_int_equal((int)dbl(doc, "experiments.0.params.instances"), 4);
	json_object_put(doc);
}

static void test_detect(void **state)
{
	static const char *const yes[] = {
		"> stress-ng: metrc: [1] stressor       bogo ops real time  usr time\n",
		"blah\n# Running 'sched/pipe' benchmark:\n",
		"Running in threaded mode with 1 groups using 40 file descriptors each\n",
		"x\nWakeup Latencies percentiles (usec) runtime 2 (s) (530 total samples)\n",
		"  {\"normal\": {\"version\": \"6.1\"}, \"int\": {}}",
		"---\nsystem-info:\n      stress-ng-version: 0.15.06\n",
	};
	static const char *const no[] = {
		"- {\"dt\": \"2025\", \"lvl\": \"target\", \"msg\": \"stressor bogo ops real "
		"time\"}\nstressor bogo ops real time\n",
		"{\"format\": \"wakebench-export\"}",
		"console text, nothing posted\n",
		"",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(yes); i++)
		if (!posted_detect(yes[i], strlen(yes[i])))
			fail_msg("not detected: %s", yes[i]);
	for (i = 0; i < ARRAY_SIZE(no); i++)
		if (posted_detect(no[i], strlen(no[i])))
			fail_msg("detected: %s", no[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml),	   cmocka_unit_test(test_brief),
		cmocka_unit_test(test_normalised), cmocka_unit_test(test_runs),
		cmocka_unit_test(test_others),	   cmocka_unit_test(test_broken),
		cmocka_unit_test(test_version),	   cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
