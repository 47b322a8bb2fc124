/*
 * t-placement.c: placement of tasks in groups and roles (pure), checked
 * against the formulas of doc/runner.md: pipe and pingpong give the CPUs
 * they always had, groups stay together under same-cpu, roles apart under
 * cross-cpu, spread is round-robin in creation order, and --cpus
 * [ROLE=]LIST parses, applies and refuses bad input with one line naming
 * the option, the value and what is allowed.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#include "runner/runner.h"
#include "workloads/workload.h"

static const int cpus[] = { 2, 5, 7 };

static void init(struct task_placement *pl, const struct workload *wl, const void *params, int mode,
		 const char **cpus_v, size_t cpus_n)
{
	struct run_params rp = runner_defaults;
	char err[256];
	int rc;

	rp.placement = mode;
	rp.cpus.v = cpus_v;
	rp.cpus.n = cpus_n;
	rc = placement_init(pl, wl, params, &rp, cpus, 3, err, sizeof(err));
	if (rc)
		print_message("# %s\n", err);
	assert_int_equal(rc, 0);
}

/* The error of a placement that must be refused. */
static const char *refuse(const struct workload *wl, int mode, const char **cpus_v, size_t n,
			  const int *allowed, unsigned nallowed)
{
	static char err[256];
	struct task_placement pl;
	struct run_params rp = runner_defaults;

	rp.placement = mode;
	rp.cpus.v = cpus_v;
	rp.cpus.n = n;
	err[0] = '\0';
	assert_int_equal(
		placement_init(&pl, wl, wl->defaults, &rp, allowed, nallowed, err, sizeof(err)),
		-1);
	print_message("# %s\n", err);
	assert_non_null(strstr(err, "option '--"));
	assert_null(strchr(err, '\n'));
	return err;
}

/* pipe and pingpong: exactly the CPUs of the two-task formulas they always had. */
static void test_pairs_as_before(void **state)
{
	static const char *const names[] = { "pipe", "pingpong" };
	size_t w;

	(void)state;
	for (w = 0; w < 2; w++) {
		const struct workload *wl = workload_find(names[w]);
		struct task_placement pl;
		unsigned i, t;

		assert_non_null(wl);
		init(&pl, wl, wl->defaults, PLACE_ANY, NULL, 0);
		for (i = 0; i < 7; i++)
			for (t = 0; t < 2; t++) {
				cpu_set_t set;

				assert_int_equal(placement_cpu(&pl, i, t), -1);
				assert_int_equal(placement_cpus(&pl, i, t, &set), 0);
			}
		placement_release(&pl);

		init(&pl, wl, wl->defaults, PLACE_SAME_CPU, NULL, 0);
		for (i = 0; i < 7; i++)
			for (t = 0; t < 2; t++)
				assert_int_equal(placement_cpu(&pl, i, t), cpus[i % 3]);
		placement_release(&pl);

		init(&pl, wl, wl->defaults, PLACE_CROSS_CPU, NULL, 0);
		for (i = 0; i < 7; i++) {
			for (t = 0; t < 2; t++)
				assert_int_equal(placement_cpu(&pl, i, t), cpus[(i + t) % 3]);
			assert_int_not_equal(placement_cpu(&pl, i, 0), placement_cpu(&pl, i, 1));
		}
		placement_release(&pl);

		init(&pl, wl, wl->defaults, PLACE_SPREAD, NULL, 0);
		for (i = 0; i < 7; i++)
			for (t = 0; t < 2; t++)
				assert_int_equal(placement_cpu(&pl, i, t), cpus[(i * 2 + t) % 3]);
		/* w0 r0 w1 r1 round-robin */
		assert_int_equal(placement_cpu(&pl, 0, 0), 2);
		assert_int_equal(placement_cpu(&pl, 0, 1), 5);
		assert_int_equal(placement_cpu(&pl, 1, 0), 7);
		assert_int_equal(placement_cpu(&pl, 1, 1), 2);
		placement_release(&pl);
	}
}

/* A made-up workload: `groups` groups of `size` tasks, roles as asked. */
struct grp_params {
	unsigned groups, size;
	bool one_role; /* a ring: every task has role 0 */
};

static unsigned grp_tasks(const void *params)
{
	const struct grp_params *gp = params;

	return gp->groups * gp->size;
}

/* In each group the first half send, the second half receive (hackbench's order). */
static void grp_layout(const void *params, unsigned task, unsigned *group, unsigned *role)
{
	const struct grp_params *gp = params;

	*group = task / gp->size;
	*role = gp->one_role ? 0 : task % gp->size >= gp->size / 2;
}

static const char *const grp_roles[] = { "sender", "receiver", NULL };
static const char *const ring_roles[] = { "hop", NULL };
static const struct grp_params grp_defaults = { .groups = 3, .size = 4 };
static const struct grp_params ring_defaults = { .groups = 1, .size = 5, .one_role = true };

static const struct workload grp_wl = {
	.name = "grp",
	.tasks = grp_tasks,
	.layout = grp_layout,
	.roles = grp_roles,
	.defaults = &grp_defaults,
	.params_size = sizeof(struct grp_params),
};

static const struct workload ring_wl = {
	.name = "ring",
	.tasks = grp_tasks,
	.layout = grp_layout,
	.roles = ring_roles,
	.defaults = &ring_defaults,
	.params_size = sizeof(struct grp_params),
};

static void test_groups(void **state)
{
	struct task_placement pl;
	unsigned i, t;

	(void)state;
	init(&pl, &grp_wl, &grp_defaults, PLACE_SAME_CPU, NULL, 0);
	assert_int_equal(pl.ntasks, 12);
	assert_int_equal(pl.ngroups, 3);
	assert_int_equal(pl.nroles, 2);
	/* a whole group on cpus[(i * groups + g) % n] */
	for (i = 0; i < 4; i++)
		for (t = 0; t < 12; t++)
			assert_int_equal(placement_cpu(&pl, i, t), cpus[(i * 3 + t / 4) % 3]);
	placement_release(&pl);

	/* cross-cpu: the senders and receivers of a group on different CPUs */
	init(&pl, &grp_wl, &grp_defaults, PLACE_CROSS_CPU, NULL, 0);
	for (i = 0; i < 4; i++)
		for (t = 0; t < 12; t++) {
			unsigned g = t / 4, r = t % 4 >= 2;

			assert_int_equal(placement_cpu(&pl, i, t), cpus[(i * 3 + g + r) % 3]);
			if (r)
				assert_int_not_equal(placement_cpu(&pl, i, t),
						     placement_cpu(&pl, i, g * 4));
		}
	placement_release(&pl);

	/* spread: round-robin over all 12 tasks of each instance in creation order */
	init(&pl, &grp_wl, &grp_defaults, PLACE_SPREAD, NULL, 0);
	for (i = 0; i < 4; i++)
		for (t = 0; t < 12; t++)
			assert_int_equal(placement_cpu(&pl, i, t), cpus[(i * 12 + t) % 3]);
	placement_release(&pl);
}

/* One role (a ring): cross-cpu puts consecutive tasks apart. */
static void test_ring_cross_cpu(void **state)
{
	struct task_placement pl;
	unsigned t;

	(void)state;
	init(&pl, &ring_wl, &ring_defaults, PLACE_CROSS_CPU, NULL, 0);
	assert_int_equal(pl.nroles, 1);
	for (t = 0; t + 1 < 5; t++)
		assert_int_not_equal(placement_cpu(&pl, 0, t), placement_cpu(&pl, 0, t + 1));
	assert_int_equal(placement_cpu(&pl, 1, 0), cpus[1]);
	placement_release(&pl);
}

static void test_task_names(void **state)
{
	const struct workload *pipe = workload_find("pipe");
	struct task_placement pl;
	char buf[64];

	(void)state;
	init(&pl, pipe, pipe->defaults, PLACE_ANY, NULL, 0);
	placement_task_name(&pl, pipe, 1, buf, sizeof(buf));
	assert_string_equal(buf, "task 1 (reader)");
	placement_task_name(&pl, pipe, 0, buf, sizeof(buf));
	assert_string_equal(buf, "task 0 (writer)");
	placement_release(&pl);
	init(&pl, &grp_wl, &grp_defaults, PLACE_ANY, NULL, 0);
	placement_task_name(&pl, &grp_wl, 7, buf, sizeof(buf));
	assert_string_equal(buf, "task 7 (receiver)");
	placement_release(&pl);
}

/* --cpus LIST: the placement's CPUs; `any` pins every task to the whole list. */
static void test_cpus_list(void **state)
{
	const struct workload *pipe = workload_find("pipe");
	const char *v[] = { "5,7" };
	struct task_placement pl;
	cpu_set_t set;
	unsigned i;

	(void)state;
	init(&pl, pipe, pipe->defaults, PLACE_SAME_CPU, v, 1);
	assert_int_equal(pl.ncpus, 2);
	for (i = 0; i < 5; i++)
		assert_int_equal(placement_cpu(&pl, i, 1), i % 2 ? 7 : 5);
	placement_release(&pl);

	init(&pl, pipe, pipe->defaults, PLACE_ANY, v, 1);
	assert_int_equal(placement_cpu(&pl, 0, 0), -1);
	assert_int_equal(placement_cpus(&pl, 3, 1, &set), 2);
	assert_true(CPU_ISSET(5, &set) && CPU_ISSET(7, &set) && !CPU_ISSET(2, &set));
	placement_release(&pl);

	/* ranges, listed in ascending order whatever the order given */
	v[0] = "7,2-2,5-5";
	init(&pl, pipe, pipe->defaults, PLACE_SPREAD, v, 1);
	assert_int_equal(pl.ncpus, 3);
	assert_int_equal(placement_cpu(&pl, 0, 0), 2);
	assert_int_equal(placement_cpu(&pl, 0, 1), 5);
	assert_int_equal(placement_cpu(&pl, 1, 0), 7);
	placement_release(&pl);
}

/* --cpus ROLE=LIST: that role round-robin over its list, whatever the placement. */
static void test_cpus_role(void **state)
{
	const struct workload *pipe = workload_find("pipe");
	const char *v[] = { "reader=7", "writer=2,5" };
	struct task_placement pl;
	unsigned i, t;

	(void)state;
	init(&pl, pipe, pipe->defaults, PLACE_ANY, v, 2);
	for (i = 0; i < 6; i++) {
		assert_int_equal(placement_cpu(&pl, i, 1), 7);
		assert_int_equal(placement_cpu(&pl, i, 0), i % 2 ? 5 : 2);
	}
	placement_release(&pl);

	/* only one role given: the other keeps the placement */
	init(&pl, pipe, pipe->defaults, PLACE_SAME_CPU, v, 1);
	for (i = 0; i < 6; i++) {
		assert_int_equal(placement_cpu(&pl, i, 1), 7);
		assert_int_equal(placement_cpu(&pl, i, 0), cpus[i % 3]);
	}
	placement_release(&pl);

	/* several tasks of a role: the k-th of instance i on list[(i * count + k) % len] */
	{
		const char *gv[] = { "receiver=2,5,7" };

		init(&pl, &grp_wl, &grp_defaults, PLACE_ANY, gv, 1);
		for (i = 0; i < 3; i++) {
			unsigned k = 0;

			for (t = 0; t < 12; t++) {
				if (t % 4 < 2) {
					assert_int_equal(placement_cpu(&pl, i, t), -1);
					continue;
				}
				assert_int_equal(placement_cpu(&pl, i, t), cpus[(i * 6 + k) % 3]);
				k++;
			}
		}
		placement_release(&pl);
	}
}

static void test_cpus_refused(void **state)
{
	const struct workload *pipe = workload_find("pipe");
	const int one[] = { 1 };
	const char *v[2];
	const char *e;

	(void)state;
	v[0] = "abc";
	e = refuse(pipe, PLACE_ANY, v, 1, cpus, 3);
	assert_non_null(strstr(e, "option '--cpus': 'abc' is not a CPU list"));
	assert_non_null(strstr(e, "2,5,7"));

	v[0] = "3";
	e = refuse(pipe, PLACE_ANY, v, 1, cpus, 3);
	assert_non_null(strstr(e, "'3' names CPU 3, which this process may not run on"));
	assert_non_null(strstr(e, "allowed: 2,5,7"));

	v[0] = "reader=2,6";
	e = refuse(pipe, PLACE_ANY, v, 1, cpus, 3);
	assert_non_null(strstr(e, "names CPU 6"));

	v[0] = "pong=2";
	e = refuse(pipe, PLACE_ANY, v, 1, cpus, 3);
	assert_non_null(strstr(e, "'pong=2': pipe has no role 'pong', allowed: writer|reader"));

	v[0] = "reader=2";
	v[1] = "reader=5";
	e = refuse(pipe, PLACE_ANY, v, 2, cpus, 3);
	assert_non_null(strstr(e, "the role 'reader' is given twice"));

	v[0] = "2";
	v[1] = "5";
	e = refuse(pipe, PLACE_ANY, v, 2, cpus, 3);
	assert_non_null(strstr(e, "'5' is a second LIST without a role"));

	v[0] = "reader=";
	e = refuse(pipe, PLACE_ANY, v, 1, cpus, 3);
	assert_non_null(strstr(e, "'reader=' is not a CPU list"));

	v[0] = "2-";
	e = refuse(pipe, PLACE_ANY, v, 1, cpus, 3);
	assert_non_null(strstr(e, "is not a CPU list"));

	/* cross-cpu on one CPU, allowed or given */
	e = refuse(pipe, PLACE_CROSS_CPU, NULL, 0, one, 1);
	assert_non_null(strstr(e, "'cross-cpu' needs two allowed CPUs"));
	v[0] = "5";
	e = refuse(pipe, PLACE_CROSS_CPU, v, 1, cpus, 3);
	assert_non_null(strstr(e, "'cross-cpu' needs two CPUs, --cpus gives only CPU 5"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_as_before), cmocka_unit_test(test_groups),
		cmocka_unit_test(test_ring_cross_cpu),	cmocka_unit_test(test_task_names),
		cmocka_unit_test(test_cpus_list),	cmocka_unit_test(test_cpus_role),
		cmocka_unit_test(test_cpus_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
