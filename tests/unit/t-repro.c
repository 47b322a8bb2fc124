/*
 * t-repro.c: a report's reproducer lines (engine/repro.h): a stored command
 * line loses this machine's store, output, verbosity and paths and keeps
 * what defines the experiment; another tool's command is "the same" only
 * when every parameter maps onto it, else the closest one with what
 * differs; workloads that reproduce no tool get none.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "engine/repro.h"
#include "util/util.h"

static void check_cmd(const char *stored, bool keep_format, const char *want)
{
	char *got = repro_command(stored, keep_format);

	assert_string_equal(got, want);
	free(got);
}

static void test_command(void **state)
{
	(void)state;
	check_cmd("/root/wt3/build/wakebench ab --feature NO_DELAY_DEQUEUE pipe -j 1 "
		  "--placement same-cpu -t 50ms -n 10 --debugfs /tmp/dbg --db /tmp/x.db",
		  false,
		  "wakebench ab --feature NO_DELAY_DEQUEUE pipe -j 1 --placement same-cpu -t 50ms "
		  "-n 10");
	/* = forms, -q/-v (also clustered), --format, -o, --no-store */
	check_cmd("wakebench -q run --db=/a/b.db pipe --format json -vv -o out --no-store -t 20s",
		  false, "wakebench run pipe -t 20s");
	/* a report's format is what it made: kept there */
	check_cmd("./wakebench report --db r.db --format email -o r.txt --by kernel", true,
		  "wakebench report --format email --by kernel");
	/* vm: images by file name, the host's qemu and temporary files dropped */
	check_cmd("/usr/bin/wakebench vm --kernel /cache/boot/vmlinuz-6.1.0-57-amd64 "
		  "-k/x/vmlinuz-6.12 --qemu /opt/q --keep-temp --rounds 2 -- run pipe -t 1s",
		  false,
		  "wakebench vm --kernel vmlinuz-6.1.0-57-amd64 -k vmlinuz-6.12 --rounds 2 "
		  "-- run pipe -t 1s");
	/* quoting survives: a label with spaces and a quote */
	check_cmd("wakebench run pipe --label 'it'\\''s a test' --db /x", false,
		  "wakebench run pipe --label 'it'\\''s a test'");
	/* the program is wakebench whatever the stored line names */
	check_cmd("t-store --synth", false, "wakebench --synth");
	check_cmd("rm -rf /home", false, "wakebench -rf /home");
	/* a stored word with a newline or an escape stays one word on one line */
	check_cmd("wakebench run pipe --label 'a\nb\033]0;x\007'\\''$(id)' --db /x", false,
		  "wakebench run pipe --label \"$(printf 'a\\012b\\033]0;x\\007'\\''$(id)')\"");
	check_cmd(
		"wakebench run pipe --label 'x;\n' -t 1s", false,
		"wb_arg1=$(printf 'x;\\012_'); wakebench run pipe --label \"${wb_arg1%_}\" -t 1s");
	check_cmd("", false, "");
}

static char *equiv(const char *kind, const char *workload, const char *profile, const char *params,
		   double median, char **note)
{
	struct store_experiment e = { .kind = xstrdup(kind),
				      .workload = xstrdup(workload),
				      .profile = xstrdup(profile),
				      .params_json = xstrdup(params) };
	char *cmd = repro_equivalent(&e, median, note);

	free(e.kind);
	free(e.workload);
	free(e.profile);
	free(e.params_json);
	return cmd;
}

static void test_stress_ng(void **state)
{
	char *note, *cmd;

	(void)state;
	/* the report's own example: exactly stress-ng 0.15.06's */
	cmd = equiv("run", "pipe", "stress-ng-0.15",
		    "{\"instances\":4,\"duration_ns\":20000000000,\"samples\":10,"
		    "\"placement\":\"any\",\"cpus\":[],\"data_size_bytes\":512,"
		    "\"pipe_size_bytes\":0,\"no_packet\":false,\"trace\":\"off\"}",
		    NAN, &note);
	assert_string_equal(cmd, "stress-ng --pipe 4 --timeout 20s --metrics-brief");
	assert_string_equal(note, "the same with stress-ng 0.15.06, one run per sample");
	free(cmd);
	free(note);
	/* sub-second samples, same-cpu with one instance, another data size on 0.15 */
	cmd = equiv("ab", "pipe", "stress-ng-0.15",
		    "{\"feature\":[\"NO_DELAY_DEQUEUE\"],\"instances\":1,\"duration_ns\":50000000,"
		    "\"placement\":\"same-cpu\",\"cpus\":[],\"data_size_bytes\":4096}",
		    NAN, &note);
	assert_string_equal(cmd, "taskset -c 0 stress-ng --pipe 1 --timeout 1s --metrics-brief");
	assert_non_null(strstr(note, "closest stress-ng 0.15.06 command"));
	assert_non_null(strstr(note, "arm B"));
	assert_non_null(strstr(note, "--timeout counts whole seconds, these samples were 50ms"));
	assert_non_null(strstr(note, "always writes 512 bytes"));
	free(cmd);
	free(note);
	/* 0.16 takes the data and pipe sizes; a placement it cannot do is said */
	cmd = equiv("run", "pipe", "custom (based on stress-ng-0.16)",
		    "{\"instances\":2,\"duration_ns\":3000000000,\"placement\":\"cross-cpu\","
		    "\"data_size_bytes\":1024,\"pipe_size_bytes\":4096,\"trace\":\"bpf\"}",
		    NAN, &note);
	assert_string_equal(cmd, "stress-ng --pipe 2 --timeout 3s --metrics-brief "
				 "--pipe-data-size 1024 --pipe-size 4096");
	assert_non_null(strstr(note, "closest stress-ng 0.21.01 command"));
	assert_non_null(strstr(note, "--placement cross-cpu"));
	assert_non_null(strstr(note, "traced (--trace)"));
	free(cmd);
	free(note);
}

/* Each pipe profile: the release --profile named, else the profile's last; its data size. */
static void test_stress_ng_releases(void **state)
{
	static const struct {
		const char *profile, *params, *cmd, *note;
	} cases[] = {
		/* the release --profile named is the one to run */
		{ "stress-ng-0.16", "\"profile_release\":\"0.18.12\",\"data_size_bytes\":4096",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief",
		  "the same with stress-ng 0.18.12, one run per sample" },
		{ "stress-ng-0.16", "\"data_size_bytes\":4096",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief",
		  "the same with stress-ng 0.21.01, one run per sample" },
		/* a stored release another profile covers is not believed */
		{ "stress-ng-0.16", "\"profile_release\":\"0.15.06\",\"data_size_bytes\":4096",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief",
		  "the same with stress-ng 0.21.01, one run per sample" },
		/* stores from before the rename: stress-ng-0.21 is release 0.21.00 */
		{ "stress-ng-0.21", "\"data_size_bytes\":4096",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief",
		  "the same with stress-ng 0.21.00, one run per sample" },
		/* 0.15.07 takes --pipe-data-size, its default is 512 */
		{ "stress-ng-0.15.07", "\"profile_release\":\"0.15.08\",\"data_size_bytes\":512",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief",
		  "the same with stress-ng 0.15.08, one run per sample" },
		{ "custom (based on stress-ng-0.15.07)", "\"data_size_bytes\":64",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief --pipe-data-size 64",
		  "the same with stress-ng 0.15.10, one run per sample" },
		{ "stress-ng-0.21.02", "\"profile_release\":\"0.22.00\",\"data_size_bytes\":4096",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief",
		  "the same with stress-ng 0.22.00, one run per sample" },
		{ "stress-ng-0.21.02", "\"data_size_bytes\":512",
		  "stress-ng --pipe 4 --timeout 2s --metrics-brief --pipe-data-size 512",
		  "the same with stress-ng 0.22.00, one run per sample" },
	};
	char params[256], *note, *cmd;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(params, sizeof(params),
			 "{\"instances\":4,\"duration_ns\":2000000000,\"placement\":\"any\",%s}",
			 cases[i].params);
		cmd = equiv("run", "pipe", cases[i].profile, params, NAN, &note);
		assert_non_null(cmd);
		assert_string_equal(cmd, cases[i].cmd);
		assert_string_equal(note, cases[i].note);
		free(cmd);
		free(note);
	}
	/* not a stress-ng pipe profile: no equivalent */
	assert_null(equiv("run", "pipe", "stress-ng-0.99",
			  "{\"instances\":4,\"duration_ns\":2000000000}", NAN, &note));
}

static void test_others(void **state)
{
	char *note, *cmd;

	(void)state;
	/* perf bench counts round trips: about one sample's worth at the median */
	cmd = equiv("run", "pingpong", "perf-bench-sched-pipe",
		    "{\"instances\":1,\"duration_ns\":2000000000,\"placement\":\"any\","
		    "\"threads\":true,\"channel\":\"pipe\"}",
		    123456, &note);
	assert_string_equal(cmd, "perf bench sched pipe -l 250000 -T");
	assert_non_null(strstr(note, "fixed count of round trips"));
	free(cmd);
	free(note);
	/* hackbench is fixed work: the same, one run per sample */
	cmd = equiv("run", "messaging", "custom (based on hackbench)",
		    "{\"instances\":1,\"duration_ns\":60000000000,\"placement\":\"any\","
		    "\"groups\":1,\"fds\":2,\"loops\":10,\"datasize_bytes\":100,\"pipe\":true}",
		    NAN, &note);
	assert_string_equal(cmd, "hackbench -g 1 -f 2 -l 10 -s 100 -p");
	assert_string_equal(note, "the same with hackbench (rt-tests), one run per sample");
	free(cmd);
	free(note);
	cmd = equiv("run", "messaging", "perf-bench-sched-messaging",
		    "{\"instances\":1,\"groups\":10,\"fds\":10,\"loops\":100,"
		    "\"datasize_bytes\":100,\"threads\":true}",
		    NAN, &note);
	assert_string_equal(cmd, "perf bench sched messaging -g 10 -l 100 -t");
	assert_non_null(strstr(note, "20 senders and receivers per group"));
	free(cmd);
	free(note);
	/* no tool: no command, no note */
	assert_null(equiv("run", "ring", "lat_ctx-2p-0k", "{\"instances\":1}", NAN, &note));
	assert_null(note);
	assert_null(equiv("run", "pipe", "custom", "{\"duration_ns\":1}", NAN, &note));
	assert_null(equiv("external", "pipe", "stress-ng-0.15", "{}", NAN, &note));
	assert_null(equiv("run", "pipe", "stress-ng-0.15", "not json", NAN, &note));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_stress_ng),
		cmocka_unit_test(test_stress_ng_releases),
		cmocka_unit_test(test_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
