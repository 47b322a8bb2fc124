/*
 * fuzz.h: what the libFuzzer targets in fuzz/ share: the entry points'
 * prototypes, a NUL-terminated copy of the input for the text parsers,
 * and a private temporary directory for the targets that must hand a file
 * to the code under test (the importers take paths, not buffers).
 *
 * The directory is made once per process under $TMPDIR (make fuzz points
 * TMPDIR into build-fuzz/, so even a crashed run leaves nothing in the
 * tree or in /tmp) and removed with its files at exit. A target must be
 * deterministic: the same input does the same thing every time, whatever
 * ran before it, so nothing is kept between inputs except read-only data
 * made at start-up.
 */
#ifndef WAKEBENCH_FUZZ_H
#define WAKEBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A malloc'd copy of the input with a NUL after it (text stops at an inner NUL). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The private directory, "" until fuzz_tmpdir_init(). */
static char fuzz_dir[4096];

/* Files the target may leave in fuzz_dir; all are removed with it at exit. */
static const char *const fuzz_dir_files[] = {
	"template.db",	  "dst.db",   "dst.db-wal", "dst.db-shm",
	"dst.db-journal", "src.db",   "src.db-wal", "src.db-shm",
	"src.db-journal", "src.json", "job.log",    "report.html",
};

static inline void fuzz_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", fuzz_dir, name);
}

static inline void fuzz_dir_clean(void)
{
	char path[4200];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fuzz_dir_files); i++) {
		if (!strcmp(fuzz_dir_files[i], "template.db"))
			continue;
		fuzz_path(path, sizeof(path), fuzz_dir_files[i]);
		unlink(path);
	}
}

static inline void fuzz_dir_remove(void)
{
	char path[4200];

	if (!fuzz_dir[0])
		return;
	fuzz_dir_clean();
	fuzz_path(path, sizeof(path), "template.db");
	unlink(path);
	if (rmdir(fuzz_dir))
		fprintf(stderr, "fuzz: cannot remove '%s'\n", fuzz_dir);
	fuzz_dir[0] = '\0';
}

static inline void fuzz_tmpdir_init(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/wakebench-fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fuzz_dir))
		die_errno("fuzz: cannot create a directory in '%s'", tmp && *tmp ? tmp : "/tmp");
	atexit(fuzz_dir_remove);
}

/* Write a whole buffer to a new file in fuzz_dir (replacing any). */
static inline void fuzz_write(const char *name, const void *data, size_t size)
{
	char path[4200];
	int fd;

	fuzz_path(path, sizeof(path), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_full(fd, data, size) != (ssize_t)size)
		die_errno("fuzz: cannot write '%s'", path);
	close(fd);
}

/* A property of the code under test does not hold: a crash libFuzzer keeps. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz: check failed: %s (%s:%d)\n", #cond, __FILE__,       \
				__LINE__);                                                         \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
