/*
 * t-engine-bisect.c: bisect's engine on stores made here: the keys a step
 * leaves on its experiments (bisect_store_step_keys) read back as the
 * bisection's document (bisect_document): the latest bisection or the one
 * a prefix names, its steps grouped by role, candidate and step with their
 * experiments counted, a decided step's verdict and position, the result or
 * why there is none; an ambiguous or unknown prefix is bad input, a store
 * without bisections a runtime error. (The decisions themselves are
 * stats/bisect.c's, in t-stats-bisect.c.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/bisect.h"

static char dir[] = "/tmp/t-engine-bisect.XXXXXX";
static char db[96];

static int64_t experiment(struct store *st, const char *label)
{
	struct experiment_info info = {
		.kind = "run",
		.workload = "pipe",
		.params_json = "{}",
		.cmdline = "t-engine-bisect",
		.label = label,
		.host = "host",
		.kernel = "6.1",
	};
	int64_t id;

	assert_int_equal(store_begin_experiment(st, &info, &id), 0);
	assert_int_equal(store_end_experiment(st, id, "complete"), 0);
	return id;
}

/* Experiments of one step: n of them, with the step's keys. */
static void step(struct store *st, const struct step_record *r, size_t n)
{
	int64_t ids[4];
	struct expset e = { .ids = ids, .n = n };
	size_t i;

	for (i = 0; i < n; i++)
		ids[i] = experiment(st, r->candidate);
	bisect_store_step_keys(st, &e, r);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

static const char *str(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key));
}

static void test_document(void **state)
{
	struct bisect_step decided = { .boots = 2, .nc = 2 };
	struct step_record r = {
		.id = "run-aaaa", .kind = "run", .metric = "ops_per_s", .index = -1
	};
	struct store *st;
	json_object *doc, *steps, *s;
	int64_t none;

	(void)state;
	decided.d = (struct bisect_decision){ .valid = true,
					      .v = BISECT_GOOD,
					      .position = 0.125,
					      .pos_lo = -0.25,
					      .pos_hi = 0.5,
					      .level = 0.9967,
					      .vs_good = -0.004,
					      .vs_bad = -0.101 };
	assert_int_equal(store_open(db, STORE_CREATE, &st), 0);
	/* bisect run run-aaaa: the references' boots, one step, the result */
	r.role = "good";
	r.candidate = "img1";
	r.index = 0;
	step(st, &r, 2);
	r.role = "bad";
	r.candidate = "img3";
	r.index = 2;
	step(st, &r, 1);
	r.role = "candidate";
	r.candidate = "img2";
	r.index = 1;
	r.step = 1;
	r.s = &decided;
	r.result = "first bad image: 3/3 img3, after img2; confirmed";
	step(st, &r, 2);
	/* a git bisection's step after it, and another run whose id shares a prefix */
	step(st,
	     &(struct step_record){ .id = "step:v6.6..v6.12:ops_per_s",
				    .kind = "step",
				    .role = "candidate",
				    .candidate = "abc123",
				    .metric = "ops_per_s",
				    .index = -1 },
	     1);
	step(st,
	     &(struct step_record){ .id = "run-abcd",
				    .kind = "run",
				    .role = "good",
				    .candidate = "x",
				    .metric = "ops_per_s",
				    .index = 0 },
	     1);
	none = experiment(st, "not a bisection");
	(void)none;

	/* a prefix: the run, its steps in order, experiments counted per step */
	assert_int_equal(bisect_document(st, "run-aa", "t: option '--id'", db, &doc), EXIT_OK);
	assert_string_equal(str(doc, "id"), "run-aaaa");
	assert_string_equal(str(doc, "kind"), "run");
	assert_string_equal(str(doc, "metric"), "ops_per_s");
	assert_string_equal(str(doc, "result"), "first bad image: 3/3 img3, after img2; confirmed");
	steps = get(doc, "steps");
	assert_int_equal(json_object_array_length(steps), 3);
	s = json_object_array_get_idx(steps, 0);
	assert_string_equal(str(s, "role"), "good");
	assert_int_equal(json_object_get_int64(get(s, "experiments")), 2);
	assert_int_equal(json_object_get_int64(get(s, "index")), 1);
	s = json_object_array_get_idx(steps, 2);
	assert_string_equal(str(s, "candidate"), "img2");
	assert_string_equal(str(s, "verdict"), "good");
	assert_int_equal(json_object_get_int64(get(s, "step")), 1);
	assert_true(fabs(json_object_get_double(get(s, "position")) - 0.125) < 1e-9);
	assert_true(fabs(json_object_get_double(get(s, "vs_bad")) + 0.101) < 1e-9);
	json_object_put(doc);

	/* the latest: the run stored last; a git bisection's has no result */
	assert_int_equal(bisect_document(st, NULL, "t", db, &doc), EXIT_OK);
	assert_string_equal(str(doc, "id"), "run-abcd");
	json_object_put(doc);
	assert_int_equal(bisect_document(st, "step:", "t", db, &doc), EXIT_OK);
	assert_string_equal(str(doc, "kind"), "step");
	assert_null(get(doc, "result"));
	assert_non_null(strstr(str(doc, "no_result"), "git bisect log"));
	json_object_put(doc);

	/* an ambiguous prefix, an unknown one: bad input, nothing returned */
	assert_int_equal(bisect_document(st, "run-a", "t", db, &doc), EXIT_USAGE);
	assert_null(doc);
	assert_int_equal(bisect_document(st, "zzz", "t", db, &doc), EXIT_USAGE);
	assert_null(doc);
	store_close(st);
}

static void test_no_bisection(void **state)
{
	char empty[128];
	struct store *st;
	json_object *doc;

	(void)state;
	snprintf(empty, sizeof(empty), "%s/empty.db", dir);
	assert_int_equal(store_open(empty, STORE_CREATE, &st), 0);
	experiment(st, "plain");
	assert_int_equal(bisect_document(st, NULL, "t: option '--id'", empty, &doc), EXIT_RUNTIME);
	assert_null(doc);
	store_close(st);
	unlink(empty);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(db, sizeof(db), "%s/b.db", dir);
	return 0;
}

static int teardown(void **state)
{
	static const char *const ext[] = { "", "-wal", "-shm", "-journal" };
	char path[128];
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(ext) / sizeof(ext[0]); k++) {
		snprintf(path, sizeof(path), "%s%s", db, ext[k]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/empty.db%s", dir, ext[k]);
		unlink(path);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_no_bisection),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
