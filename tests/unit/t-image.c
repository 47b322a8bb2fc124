/*
 * t-image.c: which mappings a forked task sheds (image.h), and a real shed
 * in a forked child: wakebench's libraries gone from its /proc/self/maps,
 * libc still working, the parent's mappings untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "sys/image.h"
#include "util/util.h"

static void test_sheddable(void **state)
{
	(void)state;
	assert_true(image_sheddable("/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6"));
	assert_true(image_sheddable("/lib/aarch64-linux-gnu/libgsl.so.27.0.0"));
	assert_true(image_sheddable("/lib/x86_64-linux-gnu/libgslcblas.so.0"));
	assert_true(image_sheddable("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13"));
	assert_true(image_sheddable("/usr/lib/x86_64-linux-gnu/libyaml-0.so.2.0.9"));
	assert_true(image_sheddable("libcrypto.so"));
	assert_true(image_sheddable("/usr/lib/x86_64-linux-gnu/libelf-0.188.so"));
	/* libc, libm, the loader, a sanitizer's runtime, look-alikes: kept */
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/libm.so.6"));
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/libasan.so.8.0.0"));
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/libzz.so.1"));
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/libsqlite3x.so.0"));
	assert_false(image_sheddable("/opt/libz.so.d/libc.so.6"));
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/libz.a"));
	assert_false(image_sheddable("/usr/lib/x86_64-linux-gnu/libzstd-dev.txt"));
}

/* Mappings of this process that image_shed() would unmap. */
static unsigned sheddable_maps(void)
{
	char *maps, *line, *save = NULL;
	unsigned n = 0;

	if (read_file("/proc/self/maps", &maps, NULL) < 0)
		fail_msg("cannot read /proc/self/maps");
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *path = strchr(line, '/');

		if (path && image_sheddable(path))
			n++;
	}
	free(maps);
	return n;
}

static void test_shed_child(void **state)
{
	unsigned before;
	int p[2], status;
	unsigned got[3] = { 0, 0, 0 };
	pid_t pid;

	(void)state;
	/* this program links SQLite (and uses it), as wakebench does */
	assert_non_null(sqlite3_libversion());
	assert_true(image_bound_now());
	before = sheddable_maps();
	assert_true(before > 0);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned r[3], nmaps = 0;
		char line[64];

		close(p[0]);
		r[0] = (unsigned)image_shed(&nmaps);
		r[1] = nmaps;
		r[2] = sheddable_maps();
		/* libc after the shed: formatting and writing */
		snprintf(line, sizeof(line), "%u", r[1]);
		if (write(p[1], r, sizeof(r)) != (ssize_t)sizeof(r) || !line[0])
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read_full(p[0], got, sizeof(got)), (ssize_t)sizeof(got));
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(got[0], 0);	  /* image_shed() returned 0 */
	assert_int_equal(got[1], before); /* every one of them unmapped */
	assert_int_equal(got[2], 0);	  /* none left */
	/* the parent keeps them, and SQLite still works here */
	assert_int_equal(sheddable_maps(), before);
	assert_non_null(sqlite3_libversion());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sheddable),
		cmocka_unit_test(test_shed_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
