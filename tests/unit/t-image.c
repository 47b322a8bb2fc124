/*
 * t-image.c: which mappings a forked task sheds (image.h), and a real shed
 * in a forked child: wakebench's libraries gone from its /proc/self/maps,
 * libc still working, the parent's mappings untouched; and no shed at all
 * where another object stays lazily bound (a sanitizer's runtime in a
 * SANITIZE=1 build, a dlopen()ed libgcc_s).
 */
#include <dlfcn.h>
#include <errno.h>
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

/* Whether a sanitizer's runtime is mapped here (a SANITIZE=1 build). */
static bool sanitizer_mapped(void)
{
	char *maps;
	bool found;

	if (read_file("/proc/self/maps", &maps, NULL) < 0)
		fail_msg("cannot read /proc/self/maps");
	found = strstr(maps, "/libasan.so") || strstr(maps, "/libubsan.so");
	free(maps);
	return found;
}

/*
 * In a forked child: dlopen() `lib` first when given, then image_shed().
 * got: its result, errno, the mappings it unmapped, the sheddable ones left,
 * and whether image_lazy_object() named an object containing `lazy`.
 */
static void shed_in_child(const char *lib, const char *lazy, int got[5])
{
	int p[2], status;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int r[5];
		unsigned nmaps = 0;
		char line[64], name[256] = "";

		close(p[0]);
		if (lib && !dlopen(lib, RTLD_LAZY | RTLD_LOCAL))
			_exit(3);
		r[4] = image_lazy_object(name, sizeof(name)) && lazy && strstr(name, lazy);
		r[0] = image_shed(&nmaps);
		r[1] = r[0] ? errno : 0;
		r[2] = (int)nmaps;
		r[3] = (int)sheddable_maps();
		/* libc after the shed: formatting and writing */
		snprintf(line, sizeof(line), "%u", nmaps);
		if (write(p[1], r, sizeof(r)) != (ssize_t)sizeof(r) || !line[0])
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	memset(got, 0, 5 * sizeof(*got));
	if (read_full(p[0], got, 5 * sizeof(*got)) != (ssize_t)(5 * sizeof(*got)))
		got[0] = -2; /* the child ended without a word: see its status */
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 3)
		got[0] = -3; /* lib cannot be loaded here */
	else
		assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_shed_child(void **state)
{
	unsigned before;
	int got[5];

	(void)state;
	/* this program links SQLite (and uses it), as wakebench does */
	assert_non_null(sqlite3_libversion());
	assert_true(image_bound_now());
	before = sheddable_maps();
	assert_true(before > 0);
	if (sanitizer_mapped()) {
		/* the runtime is lazily bound: nothing is unmapped */
		shed_in_child(NULL, "san", got);
		assert_int_equal(got[4], 1); /* image_lazy_object() names it */
		assert_int_equal(got[0], -1);
		assert_int_equal(got[1], ENOTSUP);
		assert_int_equal(got[2], 0);
		assert_int_equal(got[3], (int)before);
	} else {
		char name[256] = "";

		assert_false(image_lazy_object(name, sizeof(name)));
		shed_in_child(NULL, NULL, got);
		assert_int_equal(got[0], 0);	       /* image_shed() returned 0 */
		assert_int_equal(got[2], (int)before); /* every one of them unmapped */
		assert_int_equal(got[3], 0);	       /* none left */
	}
	/* the parent keeps them, and SQLite still works here */
	assert_int_equal(sheddable_maps(), before);
	assert_non_null(sqlite3_libversion());
}

/* A lazily bound library loaded at run time (libgcc_s: every Debian has it) stops the shed. */
static void test_shed_refused_lazy(void **state)
{
	unsigned before = sheddable_maps();
	int got[5];

	(void)state;
	shed_in_child("libgcc_s.so.1", sanitizer_mapped() ? "san" : "libgcc_s", got);
	if (got[0] == -3)
		skip();
	assert_int_equal(got[4], 1);
	assert_int_equal(got[0], -1);
	assert_int_equal(got[1], ENOTSUP);
	assert_int_equal(got[2], 0);
	assert_int_equal(got[3], (int)before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sheddable),
		cmocka_unit_test(test_shed_child),
		cmocka_unit_test(test_shed_refused_lazy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
